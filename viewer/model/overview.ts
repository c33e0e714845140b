/**
 * The overview strip: occupancy of the whole GPU (all lanes) over the whole
 * capture, stacked by stage (or by class under a color-by mode, from its
 * class pyramids), one column per pixel, from the lane pyramids.
 * x is in ns relative to `originNs`.
 */
import { STAGE_RGBA } from './colors.js';
import type { LaneColoring } from './class-occupancy.js';
import { MAX_COLOR_CLASSES } from './color-by.js';
import type { InstanceWriter } from './instances.js';
import type { LaneIndex } from './lane-index.js';
import { addPyramidColumns } from './occupancy.js';

export function buildOverview(
  index: LaneIndex,
  originNs: number,
  colNs: number,
  columns: number,
  hiddenStages: number,
  y: number,
  height: number,
  out: InstanceWriter,
  coloring: LaneColoring | null = null,
): number {
  out.reset();
  const perStage: Float32Array[] = [];
  for (let s = 0; s < MAX_COLOR_CLASSES; s++) perStage.push(new Float32Array(columns));
  let used = 0;
  // Class pyramids leave the hidden stages out already.
  const skip = coloring === null ? hiddenStages : 0;
  const rgba = coloring?.colors.rgba ?? STAGE_RGBA;
  for (const lane of index.lanes) {
    const pyr = coloring?.pyramids[lane.group] ?? lane.occupancy;
    for (let k = 0; k < pyr.stages.length; k++) {
      const s = pyr.stages[k]!;
      if (skip & (1 << s)) continue;
      addPyramidColumns(pyr, k, originNs, colNs, columns, perStage[s]!);
      used |= 1 << s;
    }
  }
  let peak = 0;
  for (let c = 0; c < columns; c++) {
    let total = 0;
    for (let s = 0; s < MAX_COLOR_CLASSES; s++) if (used & (1 << s)) total += perStage[s]![c]!;
    if (total > peak) peak = total;
  }
  if (peak <= 0) return 0;
  const pxPer = (height - 2) / peak;
  const bottom = y + height - 1;
  for (let c = 0; c < columns; c++) {
    let cum = 0;
    let top = 0;
    for (let s = 0; s < MAX_COLOR_CLASSES; s++) {
      if ((used & (1 << s)) === 0) continue;
      const v = perStage[s]![c]!;
      if (v <= 0) continue;
      cum += v;
      const y1 = Math.max(top + (v > peak * 0.002 ? 1 : 0), Math.round(cum * pxPer));
      if (y1 > top) out.push(c * colNs, (c + 1) * colNs, bottom - y1, bottom - top, rgba[s]!);
      top = y1;
    }
  }
  return peak;
}
