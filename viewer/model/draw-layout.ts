/**
 * The draw track: each draw's span (first warp start to last warp end, or
 * its GPU timestamps when it recorded no warps), packed into as few rows as
 * overlapping draws need (greedy, by start time).
 */
import type { Trace } from '../../shared-schema/index.js';
import type { LaneIndex } from './lane-index.js';

export interface DrawLayout {
  /** [start, end] ns per draw; NaN when the draw has neither warps nor timestamps. */
  readonly spans: Float64Array;
  /** Track row of each draw. */
  readonly row: Uint16Array;
  readonly rowCount: number;
  /** Draw indices sorted by span start (draws without a span left out). */
  readonly byStart: Uint32Array;
}

export const MAX_DRAW_ROWS = 6;

export function buildDrawLayout(trace: Trace, index: LaneIndex): DrawLayout {
  const n = trace.draws.length;
  const spans = new Float64Array(n * 2);
  const order: number[] = [];
  for (let d = 0; d < n; d++) {
    let s = index.drawSpans[2 * d]!;
    let e = index.drawSpans[2 * d + 1]!;
    if (Number.isNaN(s)) {
      const info = trace.draws[d]!;
      s = info.gpuBeginNs ?? NaN;
      e = info.gpuEndNs ?? NaN;
    }
    spans[2 * d] = s;
    spans[2 * d + 1] = e;
    if (!Number.isNaN(s) && !Number.isNaN(e)) order.push(d);
  }
  order.sort((a, b) => spans[2 * a]! - spans[2 * b]! || a - b);
  const row = new Uint16Array(n);
  const rowEnd: number[] = [];
  for (const d of order) {
    const s = spans[2 * d]!;
    let r = rowEnd.findIndex((end) => end <= s);
    if (r < 0) {
      if (rowEnd.length < MAX_DRAW_ROWS) {
        r = rowEnd.length;
        rowEnd.push(0);
      } else {
        // Too many overlapping draws: reuse the row that frees up first.
        r = rowEnd.indexOf(Math.min(...rowEnd));
      }
    }
    row[d] = r;
    rowEnd[r] = Math.max(rowEnd[r]!, spans[2 * d + 1]!);
  }
  return { spans, row, rowCount: Math.max(1, rowEnd.length), byStart: Uint32Array.from(order) };
}

/** Draws whose span overlaps [t0, t1], as indices into byStart order: [first, last). */
export function drawsInWindow(layout: DrawLayout, t0: number, t1: number): number[] {
  const out: number[] = [];
  for (const d of layout.byStart) {
    const s = layout.spans[2 * d]!;
    if (s > t1) break;
    if (layout.spans[2 * d + 1]! >= t0) out.push(d);
  }
  return out;
}
