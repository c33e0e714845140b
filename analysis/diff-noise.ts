/**
 * Sampling noise in an A/B diff (issue 25): when A or B is a sampled trace,
 * a change between an estimate and another figure may be nothing but which
 * warps happened to be recorded. Each such change gets its combined standard
 * error √(SE_A² + SE_B²) (an exact side: 0) and a verdict: significant when
 * |Δ| > 2 × that SE, else within sampling noise, which is never a finding.
 * An estimate without a trustworthy standard error (a span of the recorded
 * warps, a percentile, a mean, warp-time or share from fewer than
 * MIN_RECORDED recorded warps, a count of a stage with no warp recorded)
 * leaves its change untested, and not a finding either. The SEs are those of
 * analysis/sampled.ts: per stage from the summary's `sampling.stages`, per
 * draw and stage from the same formulas over the draw's recorded warps (their
 * count, mean and stddev are in the summary).
 */
import type { Delta, DrawDiff, DurationDiff } from './diff.js';
import { formatChange, formatShare } from './format.js';
import { countSe, meanSe, timeSe } from './sampled.js';
import type { AnalysisSummary, DrawStageSummary, DrawSummary } from './summary.js';

/** A change is significant beyond this many combined standard errors. */
export const NOISE_SE_FACTOR = 2;

/**
 * Fewer recorded warps of a stage than this, and their spread is no guide to
 * the stage's: the standard errors of its mean, warp-time and share (which
 * use the recorded durations' stddev) are not trusted. On
 * samples/h200-aqt-sampled-64.wtrace TCS recorded 4 warps: mean 893 ns,
 * stddev 649 ns, where the full capture's are 2,170 and 1,668 ns, so 2 SE
 * would call the same frame's TCS "57% shorter" than at 1 in 8. The count's
 * standard error is the binomial one and needs no spread.
 */
export const MIN_RECORDED = 30;

export type NoiseVerdict = 'significant' | 'within-noise' | 'untested';

/** `Delta.noise`: present only when A's or B's figure is an estimate of a sampled trace. */
export interface DeltaNoise {
  /** Standard error of A's and of B's figure: 0 for an exact side, null for an estimate without one. */
  readonly seA: number | null;
  readonly seB: number | null;
  /** √(seA² + seB²), in the figure's unit; null when a side has no standard error. */
  readonly se: number | null;
  /** significant: |delta| > 2·se; within-noise: not (no finding); untested: se is null (no finding). */
  readonly verdict: NoiseVerdict;
}

/** A side's standard error of a figure: undefined, exact (not an estimate); a number, the estimate's; null, an estimate without one. */
export type SideSe = number | null | undefined;

/** The verdict on a change `delta` between figures with these standard errors. */
export function classifyChange(delta: number, seA: SideSe, seB: SideSe): DeltaNoise {
  const a = seA === undefined ? 0 : seA;
  const b = seB === undefined ? 0 : seB;
  if (a === null || b === null) return { seA: a, seB: b, se: null, verdict: 'untested' };
  const se = Math.hypot(a, b);
  return { seA: a, seB: b, se, verdict: Math.abs(delta) > NOISE_SE_FACTOR * se ? 'significant' : 'within-noise' };
}

/** `d` with its noise when either side is an estimate (and both are there); `d` itself otherwise. */
export function withNoise(d: Delta, seA: SideSe, seB: SideSe): Delta {
  if (d.delta === null || (seA === undefined && seB === undefined)) return d;
  return { ...d, noise: classifyChange(d.delta, seA, seB) };
}

/** Whether a change may be reported as one: exact on both sides, or an estimate's change beyond its noise. */
export function isFinding(d: Delta): boolean {
  return d.delta !== null && (d.noise === undefined || d.noise.verdict === 'significant');
}

/** Standard errors of one side's duration figures (one stage, or one draw and stage). */
export interface DurationSes {
  readonly warps: SideSe;
  readonly totalNs: SideSe;
  readonly meanNs: SideSe;
  /** Median, percentiles, max and mean active lanes: estimates without a standard error on a sampled stage. */
  readonly other: SideSe;
}

export const EXACT: DurationSes = { warps: undefined, totalNs: undefined, meanNs: undefined, other: undefined };

/** One warp in how many of `stage` the side recorded (1: every warp, or a full trace). */
export function everyOf(s: AnalysisSummary, stage: string): number {
  return (s.sampling?.every as Readonly<Record<string, number | undefined>> | undefined)?.[stage] ?? 1;
}

/** A stage's standard errors on one side, from the summary's sampling section. */
export function stageSes(s: AnalysisSummary, stage: string): DurationSes {
  if (everyOf(s, stage) === 1) return EXACT;
  const e = s.sampling?.stages.find((x) => x.stage === stage);
  if (e === undefined) return { warps: null, totalNs: null, meanNs: null, other: null };
  const spread = e.recordedWarps >= MIN_RECORDED;
  return { warps: e.warpsSe, totalNs: spread ? e.warpTimeSeNs : null, meanNs: spread ? e.meanSeNs : null, other: null };
}

/** A stage's share of the frame's warp time: an estimate on a sampled side even for an unsampled stage (its denominator is estimated). */
export function shareSe(s: AnalysisSummary, stage: string): SideSe {
  if (s.sampling === undefined) return undefined;
  const e = s.sampling.stages.find((x) => x.stage === stage);
  return e === undefined || (e.every > 1 && e.recordedWarps < MIN_RECORDED) ? null : e.shareSe;
}

/**
 * The variance of a part of a sum (a stage's warp-time in a frame's or a
 * draw's): its own, and at least its estimate squared (an SE of 100%) when
 * fewer than MIN_RECORDED warps give its spread, so a sum stays testable and
 * an untrusted part weighs in by its size.
 */
function partVariance(se: number, estimate: number, recorded: number, every: number): number {
  return every > 1 && recorded < MIN_RECORDED ? Math.max(se * se, estimate * estimate) : se * se;
}

/** The frame's warp time: independent stages, so the variances add. */
export function frameWarpTimeSe(s: AnalysisSummary): SideSe {
  if (s.sampling === undefined) return undefined;
  return Math.sqrt(s.sampling.stages.reduce((sum, e) => sum + partVariance(e.warpTimeSeNs, e.warpTimeNs, e.recordedWarps, e.every), 0));
}

/** A span of recorded warps (frame or draw): an estimate, a lower bound, without a standard error. */
export function spanSe(estimated: boolean): SideSe {
  return estimated ? null : undefined;
}

/** Recorded warps of a draw's stage: its scaled count divided by the rate. */
function recordedOf(st: DrawStageSummary, every: number): number {
  return Math.round(st.warps / every);
}

/** A draw's stage on one side: sampled.ts's formulas over the draw's recorded warps of that stage. */
export function drawStageSes(s: AnalysisSummary, st: DrawStageSummary | undefined): DurationSes {
  if (st === undefined) return EXACT;
  const every = everyOf(s, st.stage);
  if (every === 1) return EXACT;
  const n = recordedOf(st, every);
  if (n < MIN_RECORDED) return { warps: countSe(n, every), totalNs: null, meanNs: null, other: null };
  return { warps: countSe(n, every), totalNs: drawStageTimeSe(st, every), meanNs: meanSe(n, st.stddevNs, every), other: null };
}

/** The warp-time SE of a draw's stage by the formula (Σd² from n·(σ² + μ²)), whatever the number of recorded warps. */
function drawStageTimeSe(st: DrawStageSummary, every: number): number {
  const n = recordedOf(st, every);
  return timeSe(n * (st.stddevNs * st.stddevNs + st.meanNs * st.meanNs), every);
}

/**
 * A draw's warps and warp time on one side: the variances of its sampled
 * stages add. `stages`: the stages of the draw in A or B; a sampled one of
 * them with no warp recorded on this side leaves the totals untested (an
 * estimate of 0 ± 0 says nothing).
 */
export function drawTotalSes(s: AnalysisSummary, d: DrawSummary | undefined, stages: readonly string[]): { warps: SideSe; warpTimeNs: SideSe } {
  if (d === undefined) return { warps: undefined, warpTimeNs: undefined };
  const sampled = stages.filter((stage) => everyOf(s, stage) > 1);
  if (sampled.length === 0) return { warps: undefined, warpTimeNs: undefined };
  let warps = 0;
  let time = 0;
  for (const stage of sampled) {
    const st = d.stages.find((x) => x.stage === stage);
    if (st === undefined) return { warps: null, warpTimeNs: null };
    const every = everyOf(s, stage);
    const n = recordedOf(st, every);
    warps += countSe(n, every) ** 2;
    time += partVariance(drawStageTimeSe(st, every), st.totalNs, n, every);
  }
  return { warps: Math.sqrt(warps), warpTimeNs: Math.sqrt(time) };
}

/**
 * A change as reports write it: "+3.0%" between exact figures; between
 * estimates "≈ +35.0% ± 2.1%", "≈ +1.8% ± 2.4% (within sampling noise)" or
 * "≈ +3.0% (untested)". The ± is the combined SE relative to A.
 */
export function changeText(d: Delta, estimated = d.noise !== undefined): string {
  const change = formatChange(d.relative);
  if (!estimated || d.relative === null) return change;
  const noise = d.noise;
  if (noise === undefined) return `≈ ${change}`;
  if (noise.se === null) return `≈ ${change} (untested)`;
  const pm = ` ± ${formatShare(relativeSe(d), 1)}`;
  return `≈ ${change}${pm}${noise.verdict === 'within-noise' ? ' (within sampling noise)' : ''}`;
}

/** The combined SE relative to A's figure (null without one). */
export function relativeSe(d: Delta): number | null {
  const se = d.noise?.se ?? null;
  return se === null || d.a === null || d.a === 0 ? null : se / Math.abs(d.a);
}

/** For a tooltip: what the verdict means for this change. */
export function noiseTitle(d: Delta): string {
  const noise = d.noise;
  if (noise === undefined) return '';
  if (noise.se === null) return `an estimate without a standard error (a span of recorded warps, a percentile, or fewer than ${MIN_RECORDED} recorded warps): not tested for sampling noise`;
  const pm = `± ${formatShare(relativeSe(d), 1)} (one combined standard error)`;
  return noise.verdict === 'within-noise'
    ? `${pm}: within ${NOISE_SE_FACTOR} standard errors, sampling noise, not a change`
    : `${pm}: beyond ${NOISE_SE_FACTOR} standard errors, a change`;
}

/** A stage's (or a draw's stage's) duration deltas, each with its noise where a side is an estimate; peaks are withheld on a sampled stage. */
export function noisyDuration(d: DurationDiff, a: DurationSes, b: DurationSes): DurationDiff {
  return {
    warps: withNoise(d.warps, a.warps, b.warps),
    totalNs: withNoise(d.totalNs, a.totalNs, b.totalNs),
    meanNs: withNoise(d.meanNs, a.meanNs, b.meanNs),
    medianNs: withNoise(d.medianNs, a.other, b.other),
    p90Ns: withNoise(d.p90Ns, a.other, b.other),
    p99Ns: withNoise(d.p99Ns, a.other, b.other),
    maxNs: withNoise(d.maxNs, a.other, b.other),
    meanActiveLanes: withNoise(d.meanActiveLanes, a.other, b.other),
    peakPerSm: d.peakPerSm,
  };
}

/** A draw whose change is a finding: by which figure, and the change. */
export interface DrawChange {
  readonly draw: DrawDiff;
  /** An exact pair changes by its span; a pair with an estimate by its warp-time (a span of recorded warps has no standard error). */
  readonly figure: 'span' | 'warp-time';
  readonly change: Delta;
}

/**
 * The draws that changed, largest change (ns) first: an exact pair by its
 * span, a pair with a sampled side by its warp-time and only beyond the
 * noise; `minRelative`: the least relative change listed.
 */
export function changedDraws(draws: readonly DrawDiff[], minRelative = 0): DrawChange[] {
  const out: DrawChange[] = [];
  for (const draw of draws) {
    const estimated = draw.spanNs.noise !== undefined || draw.warpTimeNs.noise !== undefined;
    const change = estimated ? draw.warpTimeNs : draw.spanNs;
    if (change.relative === null || change.delta === 0 || Math.abs(change.relative) < minRelative || !isFinding(change)) continue;
    out.push({ draw, figure: estimated ? 'warp-time' : 'span', change });
  }
  return out.sort((x, y) => Math.abs(y.change.delta!) - Math.abs(x.change.delta!));
}

/** The warning that follows a sampled comparison's first: how its changes are told from noise. */
export function noiseWarning(): string {
  return (
    `Changes of estimates carry ± one combined standard error (√(SE_A² + SE_B²), an exact side 0); within ${NOISE_SE_FACTOR} of them a change is "within sampling noise", ` +
    `and an estimate without a standard error (a span of recorded warps, a percentile, a mean from fewer than ${MIN_RECORDED} recorded warps) is "untested": neither is highlighted. ` +
    'Draws with sampled stages are ranked by their warp-time.'
  );
}
