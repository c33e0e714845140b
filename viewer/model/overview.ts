/**
 * The overview strip: occupancy of the whole GPU (all lanes) over the whole
 * capture, stacked by stage, one column per pixel, from the lane pyramids.
 * x is in ns relative to `originNs`.
 */
import { STAGE_COUNT } from '../../shared-schema/index.js';
import { STAGE_RGBA } from './colors.js';
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
): number {
  out.reset();
  const perStage: Float32Array[] = [];
  for (let s = 0; s < STAGE_COUNT; s++) perStage.push(new Float32Array(columns));
  let used = 0;
  for (const lane of index.lanes) {
    const pyr = lane.occupancy;
    for (let k = 0; k < pyr.stages.length; k++) {
      const s = pyr.stages[k]!;
      if (hiddenStages & (1 << s)) continue;
      addPyramidColumns(pyr, k, originNs, colNs, columns, perStage[s]!);
      used |= 1 << s;
    }
  }
  let peak = 0;
  for (let c = 0; c < columns; c++) {
    let total = 0;
    for (let s = 0; s < STAGE_COUNT; s++) if (used & (1 << s)) total += perStage[s]![c]!;
    if (total > peak) peak = total;
  }
  if (peak <= 0) return 0;
  const pxPer = (height - 2) / peak;
  const bottom = y + height - 1;
  for (let c = 0; c < columns; c++) {
    let cum = 0;
    let top = 0;
    for (let s = 0; s < STAGE_COUNT; s++) {
      if ((used & (1 << s)) === 0) continue;
      const v = perStage[s]![c]!;
      if (v <= 0) continue;
      cum += v;
      const y1 = Math.max(top + (v > peak * 0.002 ? 1 : 0), Math.round(cum * pxPer));
      if (y1 > top) out.push(c * colNs, (c + 1) * colNs, bottom - y1, bottom - top, STAGE_RGBA[s]!);
      top = y1;
    }
  }
  return peak;
}
