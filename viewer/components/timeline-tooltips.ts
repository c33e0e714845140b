/** Tooltip lines for the timeline (plain text: rendered by lit, never as markup). */
import { activeLaneCount, formatNs, smOfWarp, stageInfo, type Trace } from '../../shared-schema/index.js';
import type { DrawLayout } from '../model/draw-layout.js';
import { laneLabel } from '../model/lane-layout.js';

export function warpTooltip(trace: Trace, row: number): string[] {
  const w = trace.warps;
  const draw = trace.draws[w.draw[row]!];
  return [
    `${stageInfo(w.stage[row]!).label} warp · ${formatNs(w.durationNs[row]!)}`,
    `draw ${w.draw[row]}${draw === undefined ? '' : ` ${draw.label}`}`,
    `${laneLabel(smOfWarp(w.smGroups, row))} · slot ${w.warpSlot[row] === 0xff ? '?' : w.warpSlot[row]} · id ${w.customId[row]}`,
    `${activeLaneCount(w, row)}/${trace.device.subgroupSize} lanes active`,
  ];
}

export function drawTooltip(trace: Trace, layout: DrawLayout, d: number): string[] {
  const info = trace.draws[d]!;
  const lines = [`draw ${d}: ${info.label} (${info.kind})`, `warps span ${formatNs(layout.spans[2 * d + 1]! - layout.spans[2 * d]!)}`];
  if (info.gpuBeginNs !== null && info.gpuEndNs !== null) lines.push(`GPU timestamps ${formatNs(info.gpuEndNs - info.gpuBeginNs)}`);
  return lines;
}
