/** Tooltip lines for the timeline (plain text: rendered by lit, never as markup). */
import { activeLaneCount, formatNs, smOfWarp, stageInfo, type Trace } from '../../shared-schema/index.js';
import type { ColorClasses } from '../model/color-by.js';
import type { DrawLayout } from '../model/draw-layout.js';
import { matchedByOf, spanChange, type GhostTrack } from '../model/ghost-track.js';
import { laneLabel } from '../model/lane-layout.js';

/**
 * @param nearby warps of the same row within a few pixels (the bar may stand for several).
 * @param colors the color-by mode the bar is drawn in: its class is named ("branch at after trace #1: some lanes").
 */
export function warpTooltip(trace: Trace, row: number, nearby = 1, colors: ColorClasses | null = null): string[] {
  const w = trace.warps;
  const draw = trace.draws[w.draw[row]!];
  const lines = [
    `${stageInfo(w.stage[row]!).label} warp · ${formatNs(w.durationNs[row]!)}`,
    `draw ${w.draw[row]}${draw === undefined ? '' : ` ${draw.label}`}`,
    `${laneLabel(smOfWarp(w.smGroups, row))} · slot ${w.warpSlot[row] === 0xff ? '?' : w.warpSlot[row]} · id ${w.customId[row]}`,
    `${activeLaneCount(w, row)}/${trace.device.subgroupSize} lanes active`,
  ];
  const named = colors === null || colors.by.kind === 'stage' ? undefined : colors.warpLabel?.(row) ?? colors.legend.find((e) => e.cls === colors.classOf[row])?.label;
  if (named !== undefined) lines.push(`${colors!.caption}: ${named}`);
  if (nearby > 1) lines.push(`(${nearby} warps here: the longest or nearest is shown; zoom in for the others)`);
  return lines;
}

export function drawTooltip(trace: Trace, layout: DrawLayout, d: number): string[] {
  const info = trace.draws[d]!;
  const span = formatNs(layout.spans[2 * d + 1]! - layout.spans[2 * d]!);
  // An untraced draw has no warps: its bar is its timestamps, and the reason says why.
  const lines = [`draw ${d}: ${info.label} (${info.kind})`, info.untraced != null ? `untraced (no warps): ${info.untraced}` : `warps span ${span}`];
  if (info.gpuBeginNs !== null && info.gpuEndNs !== null) lines.push(`GPU timestamps ${formatNs(info.gpuEndNs - info.gpuBeginNs)}`);
  return lines;
}

/** A collapsed lane under the pointer: its occupancy by stage at that time ("SM 3 at 1.20 ms", "VS 12", …, "15 warps in flight"). */
export function occupancyTooltip(sm: number, tNs: number, perStage: readonly (number | undefined)[]): string[] {
  const lines = [`${laneLabel(sm)} at ${formatNs(tNs, 6)}`];
  let total = 0;
  perStage.forEach((n, s) => {
    if (n === undefined || n === 0) return;
    lines.push(`${stageInfo(s).label} ${n}`);
    total += n;
  });
  lines.push(total === 0 ? 'no warps in flight' : `${total} warp${total === 1 ? '' : 's'} in flight`);
  return lines;
}

const MATCHED_BY_TEXT = { 'label-pass': 'label and pass', order: 'pass and order', label: 'label', pipeline: 'pipeline', index: 'index only' } as const;

/** The ghost of current draw d: its baseline draw's time against the current draw's. */
export function ghostTooltip(trace: Trace, layout: DrawLayout, g: GhostTrack, d: number): string[] {
  const a = g.baselineDraw[d]!;
  const baseSpan = g.spans[2 * d + 1]! - g.spans[2 * d]!;
  const nowSpan = layout.spans[2 * d + 1]! - layout.spans[2 * d]!;
  const change = spanChange(g, layout.spans, d);
  const how = matchedByOf(g, d);
  const moved = g.movedNs[d]!;
  return [
    `baseline A draw ${a}: ${g.baseline.draws[a]?.label ?? ''}`,
    `A ${formatNs(baseSpan)} → B ${formatNs(nowSpan)}${change === null ? '' : ` (${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%)`}`,
    Number.isNaN(moved) ? 'no start to compare (a draw without warps)' : `starts ${formatNs(Math.abs(moved))} ${moved >= 0 ? 'later' : 'earlier'} than in A (from each frame's first warp)`,
    `B draw ${d}: ${trace.draws[d]?.label ?? ''}${how === null ? '' : ` · matched by ${MATCHED_BY_TEXT[how]}, ${g.strong[d] === 1 ? 'strong' : 'weak'}`}`,
  ];
}

/** A baseline draw that no current draw matched. */
export function baselineOnlyTooltip(g: GhostTrack, k: number): string[] {
  const a = g.onlyBaseline[k]!;
  return [`baseline A draw ${a}: ${g.baseline.draws[a]?.label ?? ''}`, `${formatNs(g.onlyBaselineSpans[2 * k + 1]! - g.onlyBaselineSpans[2 * k]!)} · only in A (no draw of B matched it)`];
}
