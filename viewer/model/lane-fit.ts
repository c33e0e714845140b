/**
 * Collapsed SM lanes grow to fill the height the timeline has for them (up to
 * MAX_LANE_PX each), so 4 lanes do not leave most of the timeline empty; with more
 * lanes they shrink back, never below the base height (then the lanes scroll).
 */
import type { Trace } from '../../shared-schema/index.js';
import type { LaneIndex } from './lane-index.js';
import { buildLaneLayout, type LaneLayout, type LaneLayoutOptions } from './lane-layout.js';

export const MAX_LANE_PX = 120;

/** Height of a collapsed lane's chart so the lanes of `base` (built at options.laneHeight) fill `availablePx`. */
export function fitLaneHeight(base: LaneLayout, options: LaneLayoutOptions, availablePx: number, maxPx = MAX_LANE_PX): number {
  const n = base.rows.length;
  if (n === 0 || !(availablePx > base.height)) return options.laneHeight;
  // Every lane has one chart; the slot rows of expanded lanes keep their height.
  const fixed = base.height - n * options.laneHeight;
  const fit = Math.floor((availablePx - fixed) / n);
  return Math.max(options.laneHeight, Math.min(maxPx, fit));
}

export function fittedLaneLayout(trace: Trace, index: LaneIndex, options: LaneLayoutOptions, availablePx: number): LaneLayout {
  const base = buildLaneLayout(trace, index, options);
  const laneHeight = fitLaneHeight(base, options, availablePx);
  return laneHeight === options.laneHeight ? base : buildLaneLayout(trace, index, { ...options, laneHeight });
}
