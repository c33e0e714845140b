/**
 * How the panels show a sampled trace (issue 25): a note of the rates, each
 * sampled stage's estimates (≈ value ± one standard error) and what is
 * withheld and why, and the "≈" mark of an estimated cell. Shows, never
 * computes: everything comes from `summary.sampling` (analysis/sampled.ts).
 */
import { html, nothing } from 'lit';
import { formatNs, formatNumber, formatShare } from '../../analysis/format.js';
import type { StageEstimate } from '../../analysis/sampled.js';
import type { AnalysisSummary, DrawSummary } from '../../analysis/summary.js';
import { describeRates } from '../../shared-schema/sampling.js';
import { stageLabelOf, type StageName } from '../../shared-schema/stages.js';

/** A trace's rates, as summary.sampling and capture.sampling both hold them (undefined or null: a full trace). */
export type SampledEvery = Readonly<Partial<Record<StageName, number>>> | null | undefined;

function estimateLine(e: StageEstimate) {
  return html`<li data-stage=${e.stage}>
    ${stageLabelOf(e.stage)} (1 in ${e.every}): ≈ ${formatNumber(e.warps)} ± ${formatNumber(Math.round(e.warpsSe))} warps,
    ≈ ${formatNs(e.warpTimeNs)} ± ${formatNs(e.warpTimeSeNs)} warp-time (≈ ${formatShare(e.shareOfWarpTime, 2)} ± ${formatShare(e.shareSe, 2)}),
    mean ${formatNs(e.meanNs)} ± ${formatNs(e.meanSeNs)}
  </li>`;
}

/** The stats panel's note on a sampled trace; nothing for a full one. */
export function samplingNote(s: AnalysisSummary) {
  const sampling = s.sampling;
  if (sampling === undefined) return nothing;
  return html`<div class="sampling-note" role="note" data-sampling>
    <strong>Sampled trace:</strong> ${sampling.description}. Figures marked ≈ are estimates; percentiles and means come from the recorded warps.
    <ul>
      ${sampling.stages.filter((e) => e.every > 1).map(estimateLine)}
    </ul>
    <details>
      <summary>Withheld: ${sampling.withheld.map((w) => w.what).join(', ')}</summary>
      <ul>
        ${sampling.withheld.map((w) => html`<li data-withheld=${w.what}>${w.what}: ${w.why}.</li>`)}
      </ul>
    </details>
  </div>`;
}

/** "≈ " before a figure of a sampled stage, with its standard error as the title when the summary has it. */
export function estimateMark(s: AnalysisSummary | null, stage: string) {
  const e = s?.sampling?.stages.find((x) => x.stage === stage);
  if (e === undefined || e.every === 1) return nothing;
  return html`<span class="estimate" title="estimated from 1 in ${e.every} ${stageLabelOf(e.stage)} warps (${formatNumber(e.recordedWarps)} recorded)">≈ </span>`;
}

/**
 * A panel's one line on what it cannot show for a sampled trace, and why:
 * "Sampled trace (FS 1 in 8): overlap, gaps and idle need every warp"
 * (`why` after the colon). Nothing for a full trace. One per panel, not per
 * cell: the cells show "–".
 */
export function withheldNote(every: SampledEvery, key: string, why: string) {
  if (every === null || every === undefined) return nothing;
  return html`<p class="muted withheld-note" role="note" data-withheld-note=${key}>Sampled trace (${describeRates(every)}): ${why}.</p>`;
}

/** "≈ " before a figure that is an estimate (a sampled stage's, or a draw's with one); nothing when it is exact. */
export function approxMark(estimated: boolean, title = 'an estimate: this figure counts 1 in N warps of a sampled stage, scaled by N') {
  return estimated ? html`<span class="estimate" title=${title}>≈ </span>` : nothing;
}

/** Whether draw `d` has warps of a sampled stage (its warps, warp-time and span are then estimates). */
export function drawSampled(every: SampledEvery, d: DrawSummary): boolean {
  return every !== null && every !== undefined && d.stages.some((s) => (every[s.stage as StageName] ?? 1) > 1);
}
