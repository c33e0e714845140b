/**
 * A sampled trace in the Perfetto exports (issue 25): its SM tracks hold only
 * the recorded warps, one in N of a sampled stage's, and nothing in
 * Perfetto's timeline would say so. Both exports add a "Sampled" process at
 * the top with one slice over the frame, named by the rates, whose arguments
 * give the full description, the rates per stage and what that means; the
 * JSON export also puts the sampling in `otherData` (Perfetto's trace
 * metadata). A full trace gets none of it: its exports are unchanged.
 */
import { describeRates, describeSampling } from '../../shared-schema/sampling.js';
import type { Trace } from '../../shared-schema/model.js';
import type { ArgRecord } from './perfetto-args.js';
import type { Span } from './perfetto-spans.js';

export interface SamplingTrack {
  /** The process's name: "Sampled: FS 1 in 8 (SM tracks hold the recorded warps only)". */
  readonly process: string;
  /** The slice over the frame (first warp's start to last warp's end, rounded ns): "sampled: FS 1 in 8". */
  readonly span: Span;
  readonly args: ArgRecord;
}

/** The sampled trace's track; null for a full trace. */
export function samplingTrack(trace: Trace): SamplingTrack | null {
  const sampling = trace.capture.sampling;
  if (sampling === null) return null;
  const rates = describeRates(sampling.every);
  const { startNs, durationNs, count } = trace.warps;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < count; i++) {
    if (startNs[i]! < first) first = startNs[i]!;
    if (startNs[i]! + durationNs[i]! > last) last = startNs[i]! + durationNs[i]!;
  }
  const start = count === 0 ? 0 : Math.round(first);
  const args: Record<string, ArgRecord[string]> = {
    sampled: describeSampling(sampling),
    every: { ...sampling.every },
    chosen_by: sampling.chosenBy,
    note: `The SM tracks hold only the recorded warps (${rates} warps recorded); other stages' warps are all there. Gaps between recorded warps need not be idle time.`,
  };
  if (sampling.budget !== null) args['budget'] = sampling.budget;
  return {
    process: `Sampled: ${rates} (SM tracks hold the recorded warps only)`,
    span: { start, end: count === 0 ? 0 : Math.max(start, Math.round(last)), name: `sampled: ${rates}` },
    args,
  };
}

/** The JSON export's `otherData` additions: `sampled` (the description) and `sampling` (as capture.sampling has it). */
export function samplingOtherData(trace: Trace): Record<string, unknown> {
  const sampling = trace.capture.sampling;
  return sampling === null ? {} : { sampled: describeSampling(sampling), sampling };
}
