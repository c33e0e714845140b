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

/** A time range made from the keyboard: where it started and the edge Shift+← / → moves. */
export interface KeyRange {
  readonly anchorNs: number;
  readonly edgeNs: number;
}

/**
 * Shift+← / →: moves the range's moving edge by `stepNs` (negative: left), within `bounds`.
 * The keyboard's last range goes on while the range is still the one it made; another range
 * (a Shift+drag) moves at its end; with no range, one starts at `startNs` (the time cursor,
 * else the view's centre). Returns the new key range and the range it makes (null when its
 * edge is back on its anchor).
 */
export function extendKeyRange(last: KeyRange | null, range: TimeRange | null, startNs: number, stepNs: number, bounds: TimeRange): { key: KeyRange; range: TimeRange | null } {
  let key: KeyRange;
  if (last !== null && range !== null && range.startNs === Math.min(last.anchorNs, last.edgeNs) && range.endNs === Math.max(last.anchorNs, last.edgeNs)) key = last;
  else if (range !== null) key = { anchorNs: range.startNs, edgeNs: range.endNs };
  else key = { anchorNs: startNs, edgeNs: startNs };
  const edgeNs = Math.min(bounds.endNs, Math.max(bounds.startNs, key.edgeNs + stepNs));
  const next = { anchorNs: key.anchorNs, edgeNs };
  return { key: next, range: edgeNs === key.anchorNs ? null : { startNs: Math.min(key.anchorNs, edgeNs), endNs: Math.max(key.anchorNs, edgeNs) } };
}
