/**
 * How the panels show a sampled trace (issue 25): a note of the rates, each
 * sampled stage's estimates (≈ value ± one standard error) and what is
 * withheld and why, and the "≈" mark of an estimated cell. Shows, never
 * computes: everything comes from `summary.sampling` (analysis/sampled.ts).
 */
import { html, nothing } from 'lit';
import { formatNs, formatNumber, formatShare } from '../../analysis/format.js';
import type { StageEstimate } from '../../analysis/sampled.js';
import type { AnalysisSummary } from '../../analysis/summary.js';
import { stageLabelOf } from '../../shared-schema/stages.js';

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
