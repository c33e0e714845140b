// The header's mark of a sampled trace (issue 25): a "Sampled" badge with the
// rates and how they were chosen, and the stage chips' note that the lanes
// draw one in N of a sampled stage's warps (the timeline draws only recorded
// warps: it invents none).
import { html, nothing } from 'lit';
import { describeRates, describeSampling, sampleEveryOf, type StageName, type WarpSampling } from '../../shared-schema/index.js';

/** Short (the rates), beside the trace's title (which clips its end when the header is narrow); the whole description is its tooltip. */
export function samplingBadge(sampling: WarpSampling | null) {
  if (sampling === null) return nothing;
  const text = describeSampling(sampling);
  return html`<span
    class="sampled"
    data-sampled
    title="Sampled capture: ${text}. The lanes show only the recorded warps; counts and warp-times of sampled stages are estimates (≈ ±), and occupancy, idle time, syncs and stalls are withheld (they need every warp)."
    >Sampled: ${describeRates(sampling.every)}</span
  >`;
}

/** A stage chip's tooltip addition: " (the lanes show 1 in 8 of them)". */
export function sampledLaneNote(sampling: WarpSampling | null, stage: StageName): string {
  const every = sampleEveryOf(sampling, stage);
  return every > 1 ? ` (sampled: the lanes show 1 in ${every} of them)` : '';
}

/** A stage chip's label addition: " 1/8". */
export function sampledChipSuffix(sampling: WarpSampling | null, stage: StageName): string {
  const every = sampleEveryOf(sampling, stage);
  return every > 1 ? ` 1/${every}` : '';
}
