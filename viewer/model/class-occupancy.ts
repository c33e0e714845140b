/**
 * Occupancy by color-by class (color-by.ts): for a mode other than stage,
 * collapsed lanes and the overview stack warps in flight by class, so each
 * lane gets a pyramid like its stage pyramid (lane-index.ts: the same bins,
 * so the level of detail switches from pyramid to warps at the same zoom)
 * over the class column. It depends on the hidden stages (their warps are
 * left out here, where a stage pyramid leaves them out when it is read).
 *
 * A lane costs one pass over its warps (20-100 ns a warp); on the page the
 * classes and the pyramids are built a slice of rows per step
 * (laneColoringSteps, driven by components/color-by-sync.ts), never in one task.
 */
import type { Trace } from '../../shared-schema/index.js';
import { colorClassSteps, type ColorBy, type ColorClasses } from './color-by.js';
import type { LaneIndex, LaneInfo, OccupancyPyramid } from './lane-index.js';
import { OccupancyAccumulator } from './occupancy-build.js';

/** What lane-lod.ts and overview.ts color by: a mode's classes and, per lane group, its class pyramid. */
export interface LaneColoring {
  readonly colors: ColorClasses;
  /** The hidden stages the pyramids leave out. */
  readonly hiddenStages: number;
  /** Per lane group (LaneIndex.lanes order). */
  readonly pyramids: readonly OccupancyPyramid[];
}

/** The class pyramid of one lane, at once. */
export function classPyramid(trace: Trace, lane: LaneInfo, colors: ColorClasses, hiddenStages: number): OccupancyPyramid {
  return new OccupancyAccumulator(trace, lane.rowBegin, lane.rowEnd, lane.firstStartNs, lane.lastEndNs, colors.classOf, hiddenStages).add(lane.rowBegin, lane.rowEnd).finish().pyramid;
}

/**
 * The coloring of mode `by`: its classes (`reuse`d when only the hidden stages changed),
 * then each lane's class pyramid, `slice` rows per step, yielding between steps.
 */
export function* laneColoringSteps(trace: Trace, index: LaneIndex, by: ColorBy, hiddenStages: number, reuse: ColorClasses | null, slice: number): Generator<void, LaneColoring> {
  const colors = reuse ?? (yield* colorClassSteps(trace, by, slice));
  const pyramids: OccupancyPyramid[] = [];
  for (const lane of index.lanes) {
    const acc = new OccupancyAccumulator(trace, lane.rowBegin, lane.rowEnd, lane.firstStartNs, lane.lastEndNs, colors.classOf, hiddenStages);
    for (let r = lane.rowBegin; r < lane.rowEnd; r += slice) {
      acc.add(r, Math.min(lane.rowEnd, r + slice));
      yield;
    }
    pyramids.push(acc.finish().pyramid);
    yield;
  }
  return { colors, hiddenStages, pyramids };
}
