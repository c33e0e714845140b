/**
 * Where a draw ran: the lanes (SM groups) holding its warps, so selecting a
 * draw can bring its lanes into view (a compute dispatch of two warps on
 * SMs 24 and 58 is nowhere near the graphics SMs at the top). A draw's warps
 * all start within its span (lane-index.ts drawSpans), so each lane is
 * searched from its first warp starting at the span's start to its last
 * starting before the span's end: the cost follows the warps that started
 * during the draw, not the trace.
 */
import type { Trace } from '../../shared-schema/index.js';
import { lowerBoundStart, type LaneIndex } from './lane-index.js';

/** Per lane group (LaneIndex.lanes order), the draw's warps on it; all zero for a draw without warps. */
export function drawWarpsPerLane(trace: Trace, index: LaneIndex, draw: number): Uint32Array {
  const out = new Uint32Array(index.lanes.length);
  const s = index.drawSpans[2 * draw];
  const e = index.drawSpans[2 * draw + 1];
  if (s === undefined || e === undefined || Number.isNaN(s)) return out;
  const { startNs, draw: drawOf } = trace.warps;
  index.lanes.forEach((lane, g) => {
    const last = lowerBoundStart(startNs, lane, e + 1);
    for (let i = lowerBoundStart(startNs, lane, s); i < last; i++) if (drawOf[i] === draw) out[g]!++;
  });
  return out;
}
