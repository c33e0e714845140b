/**
 * Where keyboard and selection navigation lead: the next warp on a lane,
 * the span that F fits, the y of a warp's slot row. Pure functions; the
 * timeline applies them to its view.
 */
import type { Trace } from '../../shared-schema/index.js';
import type { DrawLayout } from '../model/draw-layout.js';
import type { LaneIndex, LaneInfo } from '../model/lane-index.js';
import { slotRowOf, type LaneRow } from '../model/lane-layout.js';
import type { TimeRange } from '../timeline/frame.js';

/**
 * The next (delta 1) or previous (-1) visible warp by start on a lane, from
 * `selected` when it lies on the lane, else from `centreNs`; -1 past the ends.
 */
export function stepWarpOnLane(trace: Trace, lane: LaneInfo, selected: number, centreNs: number, delta: 1 | -1, hiddenStages: number): number {
  const w = trace.warps;
  let row = selected;
  if (row < lane.rowBegin || row >= lane.rowEnd) {
    let lo = lane.rowBegin;
    let hi = lane.rowEnd;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (w.startNs[mid]! < centreNs) lo = mid + 1;
      else hi = mid;
    }
    row = delta > 0 ? lo - 1 : lo;
  }
  let next = row + delta;
  while (next >= lane.rowBegin && next < lane.rowEnd && (hiddenStages & (1 << w.stage[next]!)) !== 0) next += delta;
  return next < lane.rowBegin || next >= lane.rowEnd ? -1 : next;
}

/** A span to zoom to, with the margin each side as a share of it. */
export interface FitTarget extends TimeRange {
  readonly margin: number;
}

/** What F fits: the range, else the selected warp, else the selected draw; null: everything. */
export function fitTarget(trace: Trace | null, drawLayout: DrawLayout | null, range: TimeRange | null, selectedWarp: number, selectedDraw: number): FitTarget | null {
  if (range !== null) return { ...range, margin: 0.05 };
  if (selectedWarp >= 0 && trace !== null) {
    const s = trace.warps.startNs[selectedWarp]!;
    return { startNs: s, endNs: s + trace.warps.durationNs[selectedWarp]!, margin: 0.5 };
  }
  if (selectedDraw >= 0 && drawLayout !== null) {
    const s = drawLayout.spans[2 * selectedDraw]!;
    if (!Number.isNaN(s)) return { startNs: s, endNs: drawLayout.spans[2 * selectedDraw + 1]!, margin: 0.05 };
  }
  return null;
}

/** Top of a warp's slot row in an expanded lane, px from the top of the lane area. */
export function warpSlotY(trace: Trace, index: LaneIndex, lane: LaneRow, row: number): number {
  return lane.y + lane.headerHeight + slotRowOf(lane, index.lanes[lane.group]!, trace.warps.warpSlot[row]!, row) * lane.slotRowHeight;
}
