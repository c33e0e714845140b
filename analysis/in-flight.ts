/**
 * Warps in flight at one instant, per SM and stage: the warps with
 * start ≤ t < end. Rows are time-sorted within each SM group, so each group
 * costs a binary search plus a look-back over at most one maximum warp
 * duration (pass `maxDurationNs` to skip computing it).
 */
import { STAGE_COUNT, type WarpColumns } from '../shared-schema/index.js';

export interface InFlight {
  readonly timeNs: number;
  /** SM id per group (same order as warps.smGroups). */
  readonly sm: Uint16Array;
  /** counts[g * STAGE_COUNT + stage]: warps of that stage in flight on group g. */
  readonly counts: Uint32Array;
  /** Warps in flight per group, all stages. */
  readonly total: Uint32Array;
  /** Warps in flight per stage, all SMs. */
  readonly perStage: Uint32Array;
}

/** Longest warp duration, ns (for the look-back bound). */
export function maxWarpDurationNs(warps: WarpColumns): number {
  let m = 0;
  const d = warps.durationNs;
  for (let i = 0; i < d.length; i++) if (d[i]! > m) m = d[i]!;
  return m;
}

export function warpsInFlight(warps: WarpColumns, timeNs: number, maxDurationNs = maxWarpDurationNs(warps)): InFlight {
  const { sm, offsets } = warps.smGroups;
  const { startNs, durationNs, stage } = warps;
  const groups = sm.length;
  const counts = new Uint32Array(groups * STAGE_COUNT);
  const total = new Uint32Array(groups);
  const perStage = new Uint32Array(STAGE_COUNT);
  const earliest = timeNs - maxDurationNs;
  for (let g = 0; g < groups; g++) {
    const begin = offsets[g]!;
    // First row with start > t.
    let lo = begin;
    let hi = offsets[g + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (startNs[mid]! <= timeNs) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo - 1; i >= begin && startNs[i]! >= earliest; i--) {
      if (startNs[i]! + durationNs[i]! > timeNs) {
        const s = stage[i]!;
        counts[g * STAGE_COUNT + s]!++;
        total[g]!++;
        perStage[s]!++;
      }
    }
  }
  return { timeNs, sm: sm.slice(), counts, total, perStage };
}
