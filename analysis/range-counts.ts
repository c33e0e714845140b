/**
 * What ran inside a time range: warps overlapping [startNs, endNs] counted
 * per stage and per draw, with the warp time that falls inside the range;
 * with a draw mask (e.g. the draws of one pass), only those draws' warps.
 * Cost: the warps overlapping the range plus, per SM group, a look-back of
 * one maximum warp duration before it.
 */
import { STAGE_COUNT, type Trace } from '../shared-schema/index.js';
import { maxWarpDurationNs } from './in-flight.js';

export interface RangeCounts {
  readonly startNs: number;
  readonly endNs: number;
  /** Warps overlapping the range. */
  readonly warps: number;
  /** Warps per stage code. */
  readonly perStage: Uint32Array;
  /** Warp time inside the range per stage, ns (sum over warps of the clipped duration). */
  readonly busyNsPerStage: Float64Array;
  /** Warps per draw index (length trace.draws.length). */
  readonly perDraw: Uint32Array;
  /** Warp time inside the range per draw index, ns. */
  readonly busyNsPerDraw: Float64Array;
  /** SMs with at least one overlapping warp. */
  readonly smsWithWarps: number;
}

/** `drawMask`: when given, only warps of draws d with drawMask[d] ≠ 0 count. */
export function rangeCounts(trace: Trace, startNs: number, endNs: number, maxDurationNs = maxWarpDurationNs(trace.warps), drawMask: Uint8Array | null = null): RangeCounts {
  if (!(endNs >= startNs)) [startNs, endNs] = [endNs, startNs];
  const w = trace.warps;
  const { sm, offsets } = w.smGroups;
  const perStage = new Uint32Array(STAGE_COUNT);
  const busyNsPerStage = new Float64Array(STAGE_COUNT);
  const perDraw = new Uint32Array(trace.draws.length);
  const busyNsPerDraw = new Float64Array(trace.draws.length);
  let warps = 0;
  let smsWithWarps = 0;
  const earliest = startNs - maxDurationNs;
  for (let g = 0; g < sm.length; g++) {
    const begin = offsets[g]!;
    const end = offsets[g + 1]!;
    const first = lowerBound(w.startNs, begin, end, earliest);
    const before = warps;
    for (let i = first; i < end; i++) {
      const s = w.startNs[i]!;
      if (s > endNs) break;
      const e = s + w.durationNs[i]!;
      // Overlap of closed intervals: a zero-length warp at the edge still counts.
      if (e < startNs) continue;
      const d = w.draw[i]!;
      if (drawMask !== null && drawMask[d] === 0) continue;
      const st = w.stage[i]!;
      const inside = Math.min(e, endNs) - Math.max(s, startNs);
      perStage[st]!++;
      busyNsPerStage[st]! += inside;
      perDraw[d]!++;
      busyNsPerDraw[d]! += inside;
      warps++;
    }
    if (warps > before) smsWithWarps++;
  }
  return { startNs, endNs, warps, perStage, busyNsPerStage, perDraw, busyNsPerDraw, smsWithWarps };
}

function lowerBound(a: Float64Array, lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
