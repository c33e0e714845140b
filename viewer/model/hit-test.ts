/**
 * Which warp is under the pointer. Works on the trace columns, not on the
 * drawn rectangles, so it is exact at every zoom level: among the warps of
 * the lane (and slot) that overlap [t - tolerance, t + tolerance], prefer one
 * that contains t (the longest), else the nearest.
 */
import type { Trace } from '../../shared-schema/index.js';
import { lowerBoundStart, rowsRunningAt, type LaneInfo } from './lane-index.js';

export interface WarpHit {
  readonly row: number;
  /** Warps of that slot (or lane) overlapping the tolerance window: >1 when a pixel holds several. */
  readonly overlapping: number;
}

/**
 * @param slot warp slot to match, or -1 for any slot of the lane.
 * @param hiddenStages bit s set: warps of stage s are ignored.
 * @param packedRow with slot UNKNOWN_SLOT: the packed display row to match (see LaneInfo.packedRow).
 */
export function warpAt(
  trace: Trace,
  lane: LaneInfo,
  slot: number,
  tNs: number,
  toleranceNs: number,
  hiddenStages = 0,
  packedRow = -1,
): WarpHit | null {
  const { startNs, durationNs, warpSlot, stage } = trace.warps;
  const lo = tNs - toleranceNs;
  const hi = tNs + toleranceNs;
  const first = lowerBoundStart(startNs, lane, lo);
  const last = lowerBoundStart(startNs, lane, hi);
  const running: number[] = [];
  rowsRunningAt(trace, lane, lo, first, running);
  let best = -1;
  let bestContains = false;
  let bestScore = Infinity;
  let overlapping = 0;
  const consider = (i: number) => {
    if (slot >= 0 && warpSlot[i] !== slot) return;
    if (packedRow >= 0 && lane.packedRow !== null && lane.packedRow[i - lane.rowBegin] !== packedRow) return;
    if ((hiddenStages & (1 << stage[i]!)) !== 0) return;
    const s = startNs[i]!;
    const e = s + durationNs[i]!;
    if (e < lo || s > hi) return;
    overlapping++;
    const contains = s <= tNs && tNs <= e;
    // Containing warps: longest wins. Otherwise: nearest edge wins.
    const score = contains ? -(e - s) : Math.min(Math.abs(s - tNs), Math.abs(e - tNs));
    if ((contains && !bestContains) || (contains === bestContains && score < bestScore)) {
      best = i;
      bestContains = contains;
      bestScore = score;
    }
  };
  for (const i of running) consider(i);
  for (let i = first; i < last; i++) consider(i);
  return best < 0 ? null : { row: best, overlapping };
}

/**
 * Warps of the lane in flight at tNs (start ≤ t < end), per stage code: what
 * a collapsed (occupancy) lane shows at that time. Stages in hiddenStages
 * are not counted.
 */
export function stagesInFlightAt(trace: Trace, lane: LaneInfo, tNs: number, hiddenStages = 0): number[] {
  const { startNs, durationNs, stage } = trace.warps;
  const counts: number[] = [];
  const add = (i: number) => {
    const s = stage[i]!;
    if ((hiddenStages & (1 << s)) === 0) counts[s] = (counts[s] ?? 0) + 1;
  };
  const first = lowerBoundStart(startNs, lane, tNs);
  const running: number[] = [];
  rowsRunningAt(trace, lane, tNs, first, running);
  for (const i of running) add(i);
  for (let i = first; i < lane.rowEnd && startNs[i]! <= tNs; i++) if (durationNs[i]! > 0) add(i);
  return counts;
}
