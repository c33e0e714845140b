/**
 * Occupancy by color-by class (color-by.ts): for a mode other than stage,
 * collapsed lanes and the overview stack warps in flight by class, so each
 * lane gets a pyramid like its stage pyramid (lane-index.ts: the same bins,
 * so the level of detail switches from pyramid to warps at the same zoom)
 * over the class column. It depends on the hidden stages (their warps are
 * left out here, where a stage pyramid leaves them out when it is read).
 *
 * A lane costs one pass over its warps (about 25 ns a warp); the timeline
 * builds them a lane per task (class-occupancy-builder.ts), not in one.
 */
import type { Trace } from '../../shared-schema/index.js';
import type { ColorClasses } from './color-by.js';
import { buildOccupancy, type LaneInfo, type OccupancyPyramid } from './lane-index.js';

/** What lane-lod.ts and overview.ts color by: a mode's classes and, per lane group, its class pyramid. */
export interface LaneColoring {
  readonly colors: ColorClasses;
  /** The hidden stages the pyramids leave out. */
  readonly hiddenStages: number;
  /** Per lane group (LaneIndex.lanes order). */
  readonly pyramids: readonly OccupancyPyramid[];
}

/** The class pyramid of one lane. */
export function classPyramid(trace: Trace, lane: LaneInfo, colors: ColorClasses, hiddenStages: number): OccupancyPyramid {
  const { classOf } = colors;
  const stage = trace.warps.stage;
  let mask = 0;
  for (let i = lane.rowBegin; i < lane.rowEnd; i++) if (((hiddenStages >>> stage[i]!) & 1) === 0) mask |= 1 << classOf[i]!;
  return buildOccupancy(trace, lane.rowBegin, lane.rowEnd, lane.firstStartNs, lane.lastEndNs, classOf, mask, hiddenStages).pyramid;
}
