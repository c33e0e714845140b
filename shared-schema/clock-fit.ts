/**
 * Fitting one SM's clock to the device clock over a run of samples (x = SM
 * cycles, y = device ns), robust to what real GPUs do:
 *
 * - The device clock floors to its step (32 ns on the H100) and the cycle
 *   counter to a cycle: a sample constrains the line to a narrow band,
 *   y − line(x) ∈ (−h, h + c) with h half a step and c one cycle.
 * - Device-clock reads can come back late, never early (on the H100, warps
 *   ending in the first ~20 µs after an SM wakes all read the same later
 *   instant). Late samples are found and left out; the count is reported.
 *
 * A consensus search (lines through sample pairs, scored by how many samples
 * sit in the band and penalized for impossible early samples) finds the
 * inliers; least squares on them, then the quantization bracket
 * (clock-bracket.ts) sharpens the line to about step/N.
 *
 * Samples come as two contiguous arrays sorted by x (a segment is a subarray
 * of its SM's sorted samples), so every pass reads memory in order.
 */
import { sharpen } from './clock-bracket.js';
import { makeRandom } from './synthetic.js';

export interface Line {
  readonly slope: number;
  readonly intercept: number;
}

export interface Band {
  /** Half the device clock's step, ns. */
  readonly halfStepNs: number;
  /** One SM cycle, ns (about the slope). */
  readonly cycleNs: number;
  /** Extra room for jitter and slow rate drift, ns. */
  readonly toleranceNs: number;
}

export interface SegmentFit {
  readonly line: Line;
  readonly fit: 'linear' | 'offset-only';
  /** Standard error of the slope, ns per cycle (Infinity when the slope was given). */
  readonly slopeError: number;
  /** Samples left out as late device-clock reads. */
  readonly late: number;
  /**
   * The largest difference between the late fractions of the segment's quarters
   * (by x): random late reads spread evenly, a rate change makes one end look late.
   */
  readonly lateSkew: number;
  /** RMS and largest |residual| of the samples kept, ns. */
  readonly rmsNs: number;
  readonly maxAbsNs: number;
}

/** Candidate lines tried per segment, and samples each is scored on. */
const CANDIDATES = 96;
const SCORE_WIDENING = 8;
/** A candidate with this share of the scored samples in its band ends the search. */
const GOOD_ENOUGH = 0.8;
const SCORE_SAMPLES = 256;
/** Candidate slopes may differ from the prior by this factor (boost clocks vary). */
const SLOPE_RANGE = 1.25;
/** An early sample is impossible, so it costs this many inliers. */
const EARLY_PENALTY = 4;
/** Refits narrow the band from this many tolerances down to none. */
const REFINE_WIDENING = [16, 4, 0];

const upper = (b: Band) => b.halfStepNs + b.cycleNs + b.toleranceNs;
/** How far (ns) above its line a sample may sit and still not count as a late read. */
export const lateLimitNs = upper;
const lower = (b: Band) => -b.halfStepNs - b.toleranceNs;

/**
 * The line for samples (xs, ys) sorted by x, or null when too few samples
 * agree on one. `prior` is the slope expected from the other SMs.
 */
export function fitSegment(xs: Float64Array, ys: Float64Array, band: Band, prior: number, seed: number, minSamples: number): SegmentFit | null {
  const n = xs.length;
  if (n < minSamples) return null;
  let line = consensusLine(xs, ys, band, prior, seed);
  if (line === null) return null;
  // Refit on the samples in a band that narrows to the quantization band.
  for (const widen of REFINE_WIDENING) {
    const refit = leastSquaresInBand(xs, ys, line, lower(band) - widen * band.toleranceNs, upper(band) + widen * band.toleranceNs, minSamples);
    // A flat run (reads stuck at one instant) or a wild slope is no clock.
    if (refit === null || !plausible(refit.slope, prior)) return null;
    line = refit;
  }
  // The final fit keeps every sample that is not late (early ones would be real misfits).
  const lsq = leastSquaresInBand(xs, ys, line, -Infinity, upper(band), minSamples);
  if (lsq === null || !plausible(lsq.slope, prior)) return null;
  const sharp = sharpen(xs, ys, line, upper(band), band, lsq);
  if (!plausible(sharp.slope, prior)) return null;
  // Inliers: the samples the final least squares kept (not late for `line`).
  const limit = upper(band);
  let sq = 0;
  let max = 0;
  let count = 0;
  let mean = 0;
  const quarterLate = [0, 0, 0, 0];
  for (let k = 0; k < n; k++) {
    const x = xs[k] as number;
    const y = ys[k] as number;
    if (y - (sharp.intercept + sharp.slope * x) > limit) quarterLate[Math.min(3, Math.floor((k * 4) / n))]!++;
    if (y - (line.intercept + line.slope * x) > limit) continue;
    const r = y - (sharp.intercept + sharp.slope * x);
    sq += r * r;
    max = Math.max(max, Math.abs(r));
    count++;
    mean += x;
  }
  mean /= count;
  let spread = 0;
  for (let k = 0; k < n; k++) {
    const x = xs[k] as number;
    if ((ys[k] as number) - (line.intercept + line.slope * x) <= limit) spread += (x - mean) * (x - mean);
  }
  const fractions = quarterLate.map((c, q) => c / (Math.floor(((q + 1) * n) / 4) - Math.floor((q * n) / 4) || 1));
  const lateSkew = Math.max(...fractions) - Math.min(...fractions);
  const rmsNs = Math.sqrt(sq / count);
  // Quantization noise (step/√12) is the floor of what a sample tells, even when residuals happen to be small:
  // the device clock's step, and the SM clock's own (x counts whole cycles). With a 1 ns device clock
  // (lavapipe) the first is 0, and a segment whose samples sit exactly on a line would claim a slope
  // known to infinite precision, which an infinite weight turns into NaN where it is pooled.
  const noise = Math.max(rmsNs, (2 * band.halfStepNs) / Math.sqrt(12), band.cycleNs / Math.sqrt(12));
  const slopeError = noise / Math.sqrt(spread);
  return { line: sharp, fit: 'linear', slopeError, late: n - count, lateSkew, rmsNs, maxAbsNs: max };
}

/**
 * The intercept of a line of known slope: the middle of the intersection of
 * the samples' brackets, late reads left out.
 */
export function fitOffset(xs: Float64Array, ys: Float64Array, band: Band, slope: number): SegmentFit {
  const n = xs.length;
  let lowest = Infinity;
  for (let k = 0; k < n; k++) lowest = Math.min(lowest, (ys[k] as number) - slope * (xs[k] as number));
  // First guess from the samples near the lowest (late reads only push samples up),
  // then once more from the samples that are not late for that guess.
  const first = interceptOf(xs, ys, slope, band, lowest + upper(band) - lower(band) + band.toleranceNs);
  const intercept = interceptOf(xs, ys, slope, band, first + upper(band));
  const cut = intercept + upper(band);
  let sq = 0;
  let max = 0;
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const b = (ys[k] as number) - slope * (xs[k] as number);
    if (!(b <= cut)) continue;
    const r = b - intercept;
    sq += r * r;
    max = Math.max(max, Math.abs(r));
    kept++;
  }
  return {
    line: { slope, intercept },
    fit: 'offset-only',
    slopeError: Infinity,
    late: n - kept,
    lateSkew: 0,
    rmsNs: kept === 0 ? 0 : Math.sqrt(sq / kept),
    maxAbsNs: max,
  };
}

/**
 * fitOffset's intercept alone, and how many samples (not late for its first
 * guess) it rests on: one pass fewer and no residuals, for cross-checks.
 */
export function offsetOf(xs: Float64Array, ys: Float64Array, band: Band, slope: number): { intercept: number; count: number } {
  let lowest = Infinity;
  for (let k = 0; k < xs.length; k++) lowest = Math.min(lowest, (ys[k] as number) - slope * (xs[k] as number));
  const first = interceptOf(xs, ys, slope, band, lowest + upper(band) - lower(band) + band.toleranceNs);
  return bracketOf(xs, ys, slope, band, first + upper(band));
}

/**
 * Where line(x) = y − b must sit for the samples with b = y − slope·x ≤ `cut`:
 * within (b − h − c, b + h) for every one; the middle of that intersection, or
 * the bias-corrected mean when a slightly-off slope over a long span makes the
 * brackets disagree.
 */
function interceptOf(xs: Float64Array, ys: Float64Array, slope: number, band: Band, cut: number): number {
  return bracketOf(xs, ys, slope, band, cut).intercept;
}

/** interceptOf, with how many samples it rests on. */
function bracketOf(xs: Float64Array, ys: Float64Array, slope: number, band: Band, cut: number): { intercept: number; count: number } {
  let lo = -Infinity;
  let hi = Infinity;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < xs.length; k++) {
    const b = (ys[k] as number) - slope * (xs[k] as number);
    if (!(b <= cut)) continue;
    sum += b;
    count++;
    lo = Math.max(lo, b - band.halfStepNs - band.cycleNs);
    hi = Math.min(hi, b + band.halfStepNs);
  }
  if (count === 0) return { intercept: NaN, count };
  return { intercept: lo <= hi ? (lo + hi) / 2 : sum / count - band.cycleNs / 2, count };
}

/** Least squares y = intercept + slope·x over all samples (null when x does not vary). */
export function leastSquares(xs: Float64Array, ys: Float64Array): Line | null {
  return leastSquaresInBand(xs, ys, { slope: 0, intercept: 0 }, -Infinity, Infinity, 2);
}

/**
 * Least squares over the samples whose residual from `around` lies in [lo, hi],
 * in one pass: sums of offsets from the middle sample keep them exact enough.
 * Null with fewer than `minSamples` of them, or when their x does not vary.
 */
function leastSquaresInBand(xs: Float64Array, ys: Float64Array, around: Line, lo: number, hi: number, minSamples: number): Line | null {
  const n = xs.length;
  if (n === 0) return null;
  const x0 = xs[n >> 1] as number;
  const y0 = ys[n >> 1] as number;
  let c = 0;
  let su = 0;
  let sv = 0;
  let suu = 0;
  let suv = 0;
  for (let k = 0; k < n; k++) {
    const x = xs[k] as number;
    const y = ys[k] as number;
    const r = y - (around.intercept + around.slope * x);
    if (!(r >= lo && r <= hi)) continue;
    const u = x - x0;
    const v = y - y0;
    c++;
    su += u;
    sv += v;
    suu += u * u;
    suv += u * v;
  }
  if (c < Math.max(2, minSamples)) return null;
  const sxx = suu - (su * su) / c;
  if (!(sxx > 0)) return null;
  const slope = (suv - (su * sv) / c) / sxx;
  return { slope, intercept: y0 + sv / c - slope * (x0 + su / c) };
}

/** The plausible line (slope near the prior) that most samples sit in the band of. */
function consensusLine(xs: Float64Array, ys: Float64Array, band: Band, prior: number, seed: number): Line | null {
  const n = xs.length;
  const random = makeRandom(seed);
  const step = Math.max(1, Math.floor(n / SCORE_SAMPLES));
  // Scored with room for the candidate's own error (two quantized samples).
  const hi = upper(band) + SCORE_WIDENING * band.toleranceNs;
  const lo = lower(band) - SCORE_WIDENING * band.toleranceNs;
  let best: Line | null = null;
  let bestScore = -Infinity;
  for (let c = 0; c < CANDIDATES; c++) {
    // Any two samples: late reads can fill a whole stretch, so no part of the segment is trusted.
    const a = Math.floor(random() * n);
    const b = Math.floor(random() * n);
    const dx = (xs[b] as number) - (xs[a] as number);
    if (dx === 0) continue;
    const slope = ((ys[b] as number) - (ys[a] as number)) / dx;
    if (!plausible(slope, prior)) continue;
    // Put the pair's lower sample at the bottom of the band: late reads only push samples up.
    const intercept = Math.min((ys[a] as number) - slope * (xs[a] as number), (ys[b] as number) - slope * (xs[b] as number));
    let score = 0;
    for (let k = 0; k < n; k += step) {
      const r = (ys[k] as number) - (intercept + slope * (xs[k] as number));
      if (r < lo) score -= EARLY_PENALTY;
      else if (r <= hi) score++;
    }
    if (score > bestScore) {
      bestScore = score;
      best = { slope, intercept };
      // Most samples agree: the refits that follow do the rest.
      if (score >= GOOD_ENOUGH * Math.ceil(n / step)) break;
    }
  }
  // No candidate passed the slope test: least squares, if it is plausible.
  if (best !== null) return best;
  const lsq = leastSquares(xs, ys);
  return lsq !== null && plausible(lsq.slope, prior) ? lsq : null;
}

/** Whether a slope is within SLOPE_RANGE of the prior (a clock rate the other SMs make likely). */
function plausible(slope: number, prior: number): boolean {
  return slope > prior / SLOPE_RANGE && slope < prior * SLOPE_RANGE;
}
