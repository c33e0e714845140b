/**
 * How reports show a sampled trace (issue 25): its rates, each stage's
 * estimates as "≈ value ± one standard error", and what is withheld and why.
 * Used by the Markdown report, the CSV tables and `warptrace info`.
 */
import type { StageName } from '../../shared-schema/stages.js';
import { formatNs, formatNumber, formatShare } from '../format.js';
import type { SamplingSection, StageEstimate } from '../sampled.js';
import type { AnalysisSummary } from '../summary.js';
import { header, row } from './markdown-table.js';
import { mdText } from './escape.js';

/** "≈ 64,232 ± 530" for an estimate; the plain value when exact (se 0). */
export function estimateText(value: number, se: number, format: (v: number) => string = (v) => formatNumber(Math.round(v))): string {
  return se > 0 ? `≈ ${format(value)} ± ${format(se)}` : format(value);
}

/** A stage's rate: 1 when every warp was recorded. */
export function everyOf(sampling: SamplingSection | undefined, stage: StageName): number {
  return sampling?.every[stage] ?? 1;
}

/** The Markdown lines of `## Sampled trace`; none for a full trace. */
export function samplingMarkdownLines(s: AnalysisSummary): string[] {
  const sampling = s.sampling;
  if (sampling === undefined) return [];
  const lines = [
    '## Sampled trace',
    '',
    `**Sampled:** ${mdText(sampling.description)}. Counts and warp-times of sampled stages are estimates (≈ value ± one standard error, analysis/README.md "Sampled traces"); mean durations and percentiles come from the recorded warps.`,
    '',
    header(['Stage', 'Recorded', 'Warps', 'Warp-time', 'Share of warp-time', 'Mean'], ['l', 'r', 'r', 'r', 'r', 'r']),
  ];
  for (const e of sampling.stages) lines.push(row(estimateCells(e)));
  lines.push('', 'Withheld (they need every warp):', '');
  for (const w of sampling.withheld) lines.push(`- ${mdText(w.what)}: ${mdText(w.why)}.`);
  return lines;
}

function estimateCells(e: StageEstimate): string[] {
  return [
    e.stage,
    e.every > 1 ? `${formatNumber(e.recordedWarps)} (1 in ${e.every})` : `${formatNumber(e.recordedWarps)} (all)`,
    estimateText(e.warps, e.warpsSe),
    estimateText(e.warpTimeNs, e.warpTimeSeNs, formatNs),
    e.shareSe > 0 ? `≈ ${formatShare(e.shareOfWarpTime, 2)} ± ${formatShare(e.shareSe, 2)}` : formatShare(e.shareOfWarpTime, 2),
    e.meanSeNs > 0 ? `${formatNs(e.meanNs)} ± ${formatNs(e.meanSeNs)}` : formatNs(e.meanNs),
  ];
}

/** CSV columns added to the stages table of a sampled trace (absent otherwise, so full traces' tables are unchanged). */
export const SAMPLING_STAGE_COLUMNS = ['sampled_every', 'recorded_warps', 'warps_se', 'total_ns_se', 'share_of_warp_time', 'share_se', 'mean_ns_se'];

export function samplingStageCells(sampling: SamplingSection, stage: StageName): (number | null)[] {
  const e = sampling.stages.find((x) => x.stage === stage);
  if (e === undefined) return SAMPLING_STAGE_COLUMNS.map(() => null);
  return [e.every, e.recordedWarps, e.warpsSe, e.warpTimeSeNs, e.shareOfWarpTime, e.shareSe, e.meanSeNs];
}
