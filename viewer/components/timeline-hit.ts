/**
 * Hit testing of the timeline: which warp, draw or region bar lies under a
 * point of the surface (CSS px), from a snapshot of what the frame shows.
 * Pure functions, so hover, clicks and tests agree.
 */
import type { Trace } from '../../shared-schema/index.js';
import { drawsInWindow, regionBarAt, type DrawLayout } from '../model/draw-layout.js';
import { stagesInFlightAt, warpAt, type WarpHit } from '../model/hit-test.js';
import { ghostRowOf, ghostRows } from '../model/ghost-track.js';
import type { LaneColoring } from '../model/class-occupancy.js';
import type { LaneIndex } from '../model/lane-index.js';
import { laneAtY, packedRowOf, slotOfRow, type LaneLayout } from '../model/lane-layout.js';
import { timeWidth, type ScreenLayout } from '../model/screen-layout.js';
import { pxToTime, spanOf, type TimeWindow } from '../model/time-scale.js';
import type { GhostFrame } from '../timeline/frame.js';
import { occupancyTooltip } from './timeline-tooltips.js';

/** What the timeline shows, as far as hit testing needs it. */
export interface HitScene {
  readonly trace: Trace | null;
  readonly index: LaneIndex | null;
  readonly drawLayout: DrawLayout | null;
  readonly lanes: LaneLayout;
  readonly screen: ScreenLayout;
  readonly view: TimeWindow;
  readonly scrollY: number;
  readonly hiddenStages: number;
  readonly ghost: GhostFrame | null;
  /** The color-by mode the warps are drawn in (its class goes in a warp's tooltip); null: by stage. */
  readonly coloring?: LaneColoring | null;
}

export function timeAtX(s: HitScene, x: number): number {
  return pxToTime(s.view, timeWidth(s.screen), x - s.screen.gutter);
}

/** Nanoseconds that `px` pixels span at the current zoom. */
function pxNs(s: HitScene, px: number): number {
  return (px * spanOf(s.view)) / timeWidth(s.screen);
}

/** The lane under y, as laneAtY gives it (y in surface px). */
export function laneHitAt(s: HitScene, y: number): ReturnType<typeof laneAtY> {
  return laneAtY(s.lanes, y - s.screen.lanes.y + s.scrollY);
}

/** The warp under a point and how many warps of that row share its pixels. */
export function warpHitAt(s: HitScene, x: number, y: number): WarpHit | null {
  if (s.trace === null || s.index === null) return null;
  const hit = laneHitAt(s, y);
  if (hit === null) return null;
  const lane = s.lanes.rows[hit.lane]!;
  if (lane.group < 0) return null;
  const t = timeAtX(s, x);
  const slot = lane.expanded && hit.slotRow >= 0 ? slotOfRow(lane, hit.slotRow) : -1;
  if (lane.expanded && hit.slotRow < 0 && y - s.screen.lanes.y + s.scrollY - lane.y >= lane.headerHeight) return null;
  const packed = lane.expanded && hit.slotRow >= 0 ? packedRowOf(lane, hit.slotRow) : -1;
  return warpAt(s.trace, s.index.lanes[lane.group]!, slot, t, pxNs(s, 2.5), s.hiddenStages, packed);
}

/** Warp row under a point of the lane area, or -1. */
export function warpAtPoint(s: HitScene, x: number, y: number): number {
  return warpHitAt(s, x, y)?.row ?? -1;
}

/** Tooltip lines for a collapsed lane at a point (occupancy by stage at that time), or null elsewhere. */
export function collapsedOccupancyAt(s: HitScene, x: number, y: number): string[] | null {
  if (s.trace === null || s.index === null) return null;
  const hit = laneHitAt(s, y);
  if (hit === null) return null;
  const lane = s.lanes.rows[hit.lane]!;
  if (lane.group < 0 || lane.expanded) return null;
  const t = timeAtX(s, x);
  return occupancyTooltip(lane.sm, t, stagesInFlightAt(s.trace, s.index.lanes[lane.group]!, t, s.hiddenStages));
}

/** Row of the draw band under y (0 = top row). */
export function drawRowAt(s: HitScene, y: number): number {
  return Math.floor((y - s.screen.draws.y - 3) / s.screen.drawRowHeight);
}

/** Region (pass) bar under a point of the draw band, or -1. */
export function regionAtPoint(s: HitScene, x: number, y: number): number {
  if (s.drawLayout === null) return -1;
  return regionBarAt(s.drawLayout, drawRowAt(s, y), timeAtX(s, x), pxNs(s, 3));
}

/** Draw under a point of the draw band (the shortest when several are near), or -1. */
export function drawAtPoint(s: HitScene, x: number, y: number): number {
  const layout = s.drawLayout;
  if (layout === null) return -1;
  const t = timeAtX(s, x);
  const tol = pxNs(s, 3);
  const row = drawRowAt(s, y);
  let best = -1;
  let bestSpan = Infinity;
  for (const d of drawsInWindow(layout, t - tol, t + tol)) {
    if (layout.row[d] !== row) continue;
    const span = layout.spans[2 * d + 1]! - layout.spans[2 * d]!;
    if (span < bestSpan) {
      best = d;
      bestSpan = span;
    }
  }
  return best;
}

/** What lies under a point of the ghost band: a current draw's ghost (`draw`), a baseline-only draw (`baselineOnly`, index into onlyBaseline), or nothing. */
export function ghostAtPoint(s: HitScene, x: number, y: number): { readonly draw: number } | { readonly baselineOnly: number } | null {
  const g = s.ghost;
  if (g === null || !g.shown || s.drawLayout === null) return null;
  const row = Math.floor((y - s.screen.ghost.y - 2) / s.screen.ghostRowHeight);
  const t = timeAtX(s, x);
  const tol = pxNs(s, 3);
  const near = (a: number, b: number) => a - tol <= t && t <= b + tol;
  let best = -1;
  let bestSpan = Infinity;
  const spans = g.track.spans;
  for (let d = 0; d < spans.length / 2; d++) {
    if (ghostRowOf(s.drawLayout, d) !== row || !near(spans[2 * d]!, spans[2 * d + 1]!)) continue;
    const span = spans[2 * d + 1]! - spans[2 * d]!;
    if (span < bestSpan) {
      best = d;
      bestSpan = span;
    }
  }
  if (best >= 0) return { draw: best };
  if (row !== ghostRows(s.drawLayout) - 1) return null;
  const only = g.track.onlyBaselineSpans;
  for (let k = 0; k < only.length / 2; k++) if (near(only[2 * k]!, only[2 * k + 1]!)) return { baselineOnly: k };
  return null;
}
