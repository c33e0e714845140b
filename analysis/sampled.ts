/**
 * Estimates from a sampled trace (issue 25): a stage recorded one warp in N,
 * so its counts and summed times are estimates with a stated uncertainty, and
 * what needs every warp (occupancy, overlap, idle gaps) is withheld. The
 * formulas, and why they hold for the capture's hash sampler, are in
 * analysis/README.md ("Sampled traces").
 *
 * Model: each of a stage's M warps is recorded with probability p = 1/N,
 * independently (the warp-key hash is a full-avalanche finalizer of a key
 * unique per warp, so its decisions behave as independent draws).
 *   count:  M̂ = n·N,            Var = M(N−1)            → SE ≈ √(n·N·(N−1))
 *   time:   T̂ = N·Σd (recorded), Var = (N−1)·Σ_all d²   → SE ≈ √(N·(N−1)·Σ_rec d²)
 *   mean:   d̄ (no scaling),      SE = s/√n · √(1 − 1/N) (s: sample stddev; the factor: n of ≈nN drawn without replacement)
 *   share:  T̂_s / Σ_t T̂_t, by the delta method over independent stages.
 * An unsampled stage (N = 1) is exact: every SE is 0.
 */
import { describeRates } from '../shared-schema/sampling.js';
import type { StageName } from '../shared-schema/stages.js';

/** One stage's figures from its recorded warps, scaled to the whole stage. */
export interface StageEstimate {
  readonly stage: StageName;
  /** One warp in `every` was recorded (1: all, exact). */
  readonly every: number;
  readonly recordedWarps: number;
  /** Estimated warps of the stage, and its standard error. */
  readonly warps: number;
  readonly warpsSe: number;
  /** Estimated summed warp time, ns, and its standard error. */
  readonly warpTimeNs: number;
  readonly warpTimeSeNs: number;
  /** Estimated share of the frame's warp time, and its standard error. */
  readonly shareOfWarpTime: number;
  readonly shareSe: number;
  /** Mean warp duration (the recorded warps' mean estimates it unscaled), ns, and its standard error. */
  readonly meanNs: number;
  readonly meanSeNs: number;
}

/** A figure a sampled trace cannot give, and why. */
export interface Withheld {
  readonly what: string;
  readonly why: string;
}

/** `summary.sampling`: present only for a sampled trace. */
export interface SamplingSection {
  /** One warp in every[stage] recorded; stages absent: all (capture.sampling). */
  readonly every: Partial<Record<StageName, number>>;
  readonly chosenBy: 'flag' | 'budget';
  readonly budget: number | null;
  /** For people: "FS 1 in 8, other stages all (chosen by --sample)". */
  readonly description: string;
  /** Every stage with warps, sampled or not, in stage order. */
  readonly stages: StageEstimate[];
  readonly withheld: Withheld[];
}

/** What a stage's recorded warps give: their count, summed duration, mean and population stddev. */
export interface RecordedStage {
  readonly stage: StageName;
  readonly every: number;
  readonly warps: number;
  readonly totalNs: number;
  readonly meanNs: number;
  readonly stddevNs: number;
}

/** Standard error of n·N, the estimated count of a stage recorded 1 in N with n recorded. */
export function countSe(n: number, every: number): number {
  return Math.sqrt(n * every * (every - 1));
}

/** Standard error of N·Σd from n recorded durations whose squares sum to sumSq. */
export function timeSe(sumSq: number, every: number): number {
  return Math.sqrt(every * (every - 1) * sumSq);
}

/** Standard error of the recorded mean: sample stddev / √n, with the finite-population factor √(1 − 1/N). */
export function meanSe(n: number, stddevPopulation: number, every: number): number {
  if (n < 2 || every <= 1) return 0;
  const sample = stddevPopulation * Math.sqrt(n / (n - 1));
  return (sample / Math.sqrt(n)) * Math.sqrt(1 - 1 / every);
}

/** Each stage's estimates; shares against the estimated frame warp time. */
export function estimateStages(recorded: readonly RecordedStage[]): StageEstimate[] {
  const parts = recorded.map((r) => {
    // Σd² from the population stddev and mean: n·(σ² + μ²).
    const sumSq = r.warps * (r.stddevNs * r.stddevNs + r.meanNs * r.meanNs);
    const variance = r.every > 1 ? timeSe(sumSq, r.every) ** 2 : 0;
    return { r, time: r.totalNs * r.every, variance };
  });
  const total = parts.reduce((sum, p) => sum + p.time, 0);
  const totalVariance = parts.reduce((sum, p) => sum + p.variance, 0);
  return parts.map(({ r, time, variance }) => {
    const share = total > 0 ? time / total : 0;
    // Delta method: ∂share/∂T_s = (1 − share)/T, ∂share/∂T_t = −share/T for the other stages.
    const shareVariance = total > 0 ? ((1 - share) ** 2 * variance + share ** 2 * (totalVariance - variance)) / (total * total) : 0;
    return {
      stage: r.stage,
      every: r.every,
      recordedWarps: r.warps,
      warps: r.warps * r.every,
      warpsSe: countSe(r.warps, r.every),
      warpTimeNs: time,
      warpTimeSeNs: Math.sqrt(variance),
      shareOfWarpTime: share,
      shareSe: Math.sqrt(Math.max(0, shareVariance)),
      meanNs: r.meanNs,
      meanSeNs: meanSe(r.warps, r.stddevNs, r.every),
    };
  });
}

/** "sampled trace (FS 1 in 8 warps recorded)", for the reasons figures are withheld; the stages spelled as everywhere (describeRates: "RGen 1 in 8"). */
export function sampledStagesText(every: Partial<Record<StageName, number>>): string {
  return `sampled trace (${describeRates(every)} warps recorded)`;
}
