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
 * inliers; least squares on them, then the quantization bracket sharpens the
 * line to about step/N.
 */
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
/** Bracket points per segment (see sharpen). */
const BRACKET_POINTS = 16;

const upper = (b: Band) => b.halfStepNs + b.cycleNs + b.toleranceNs;
const lower = (b: Band) => -b.halfStepNs - b.toleranceNs;

/**
 * The line for rows[begin..end) (sorted by x), or null when too few samples
 * agree on one. `prior` is the slope expected from the other SMs.
 */
export function fitSegment(rows: Uint32Array, x: Float64Array, y: Float64Array, band: Band, prior: number, seed: number, minSamples: number): SegmentFit | null {
  const n = rows.length;
  if (n < minSamples) return null;
  let line = consensusLine(rows, x, y, band, prior, seed);
  if (line === null) return null;
  // Refit on the samples in a band that narrows to the quantization band.
  const kept = new Uint32Array(n);
  for (const widen of REFINE_WIDENING) {
    let count = 0;
    const hi = upper(band) + widen * band.toleranceNs;
    const lo = lower(band) - widen * band.toleranceNs;
    for (let k = 0; k < n; k++) {
      const i = rows[k] as number;
      const r = (y[i] as number) - (line.intercept + line.slope * (x[i] as number));
      if (r >= lo && r <= hi) kept[count++] = i;
    }
    if (count < minSamples) return null;
    const refit = leastSquares(kept.subarray(0, count), x, y);
    // A flat run (reads stuck at one instant) or a wild slope is no clock.
    if (refit === null || !plausible(refit.slope, prior)) return null;
    line = refit;
  }
  // The final fit keeps every sample that is not late (early ones would be real misfits).
  let count = 0;
  for (let k = 0; k < n; k++) {
    const i = rows[k] as number;
    if ((y[i] as number) - (line.intercept + line.slope * (x[i] as number)) <= upper(band)) kept[count++] = i;
  }
  const inliers = kept.subarray(0, count);
  if (count < minSamples) return null;
  const lsq = leastSquares(inliers, x, y);
  if (lsq === null || !plausible(lsq.slope, prior)) return null;
  const sharp = sharpen(inliers, x, y, band, lsq);
  if (!plausible(sharp.slope, prior)) return null;
  const fitted = residuals(inliers, x, y, sharp);
  const quarterLate = [0, 0, 0, 0];
  for (let k = 0; k < n; k++) {
    const i = rows[k] as number;
    if ((y[i] as number) - (sharp.intercept + sharp.slope * (x[i] as number)) > upper(band)) quarterLate[Math.min(3, Math.floor((k * 4) / n))]!++;
  }
  const fractions = quarterLate.map((c, q) => c / (Math.floor(((q + 1) * n) / 4) - Math.floor((q * n) / 4) || 1));
  const lateSkew = Math.max(...fractions) - Math.min(...fractions);
  // Quantization noise (step/√12) is the floor of what a sample tells, even when residuals happen to be small.
  const noise = Math.max(fitted.rmsNs, (2 * band.halfStepNs) / Math.sqrt(12));
  const slopeError = noise / Math.sqrt(spread(inliers, x));
  return { line: sharp, fit: 'linear', slopeError, late: n - count, lateSkew, ...fitted };
}

/**
 * The intercept of a line of known slope: the middle of the intersection of
 * the samples' brackets, late reads left out.
 */
export function fitOffset(rows: Uint32Array, x: Float64Array, y: Float64Array, band: Band, slope: number): SegmentFit {
  const base = new Float64Array(rows.length);
  let lowest = Infinity;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k] as number;
    base[k] = (y[i] as number) - slope * (x[i] as number);
    lowest = Math.min(lowest, base[k] as number);
  }
  // First guess from the samples near the lowest (late reads only push samples up),
  // then once more from the samples that are not late for that guess.
  let intercept = interceptOf(base, band, (b) => b - lowest <= upper(band) - lower(band) + band.toleranceNs);
  intercept = interceptOf(base, band, (b) => b - intercept <= upper(band));
  const kept: number[] = [];
  for (let k = 0; k < rows.length; k++) if ((base[k] as number) - intercept <= upper(band)) kept.push(rows[k] as number);
  const inliers = Uint32Array.from(kept);
  const line = { slope, intercept };
  return { line, fit: 'offset-only', slopeError: Infinity, late: rows.length - inliers.length, lateSkew: 0, ...residuals(inliers, x, y, line) };
}

/**
 * Where line(x) = y − base must sit for the kept samples: within (base − h − c, base + h)
 * for every one; the middle of that intersection, or the bias-corrected mean when a
 * slightly-off slope over a long span makes the brackets disagree.
 */
function interceptOf(base: Float64Array, band: Band, keep: (b: number) => boolean): number {
  let lo = -Infinity;
  let hi = Infinity;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < base.length; k++) {
    const b = base[k] as number;
    if (!keep(b)) continue;
    sum += b;
    count++;
    lo = Math.max(lo, b - band.halfStepNs - band.cycleNs);
    hi = Math.min(hi, b + band.halfStepNs);
  }
  if (count === 0) return NaN;
  return lo <= hi ? (lo + hi) / 2 : sum / count - band.cycleNs / 2;
}

function residuals(rows: Uint32Array, x: Float64Array, y: Float64Array, line: Line): { rmsNs: number; maxAbsNs: number } {
  let sq = 0;
  let max = 0;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k] as number;
    const r = (y[i] as number) - (line.intercept + line.slope * (x[i] as number));
    sq += r * r;
    max = Math.max(max, Math.abs(r));
  }
  return { rmsNs: rows.length === 0 ? 0 : Math.sqrt(sq / rows.length), maxAbsNs: max };
}

/** Least squares y = intercept + slope·x (centered sums for precision). */
export function leastSquares(rows: Uint32Array, x: Float64Array, y: Float64Array): Line | null {
  const n = rows.length;
  if (n < 2) return null;
  let mx = 0;
  let my = 0;
  for (let k = 0; k < n; k++) {
    mx += x[rows[k] as number] as number;
    my += y[rows[k] as number] as number;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  for (let k = 0; k < n; k++) {
    const dx = (x[rows[k] as number] as number) - mx;
    sxx += dx * dx;
    sxy += dx * ((y[rows[k] as number] as number) - my);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/** The plausible line (slope near the prior) that most samples sit in the band of. */
function consensusLine(rows: Uint32Array, x: Float64Array, y: Float64Array, band: Band, prior: number, seed: number): Line | null {
  const n = rows.length;
  const random = makeRandom(seed);
  const step = Math.max(1, Math.floor(n / SCORE_SAMPLES));
  // Scored with room for the candidate's own error (two quantized samples).
  const hi = upper(band) + SCORE_WIDENING * band.toleranceNs;
  const lo = lower(band) - SCORE_WIDENING * band.toleranceNs;
  let best: Line | null = null;
  let bestScore = -Infinity;
  for (let c = 0; c < CANDIDATES; c++) {
    // Any two samples: late reads can fill a whole stretch, so no part of the segment is trusted.
    const a = rows[Math.floor(random() * n)] as number;
    const b = rows[Math.floor(random() * n)] as number;
    const dx = (x[b] as number) - (x[a] as number);
    if (dx === 0) continue;
    const slope = ((y[b] as number) - (y[a] as number)) / dx;
    if (!plausible(slope, prior)) continue;
    // Put the pair's lower sample at the bottom of the band: late reads only push samples up.
    const intercept = Math.min((y[a] as number) - slope * (x[a] as number), (y[b] as number) - slope * (x[b] as number));
    let score = 0;
    for (let k = 0; k < n; k += step) {
      const i = rows[k] as number;
      const r = (y[i] as number) - (intercept + slope * (x[i] as number));
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
  const lsq = leastSquares(rows, x, y);
  return lsq !== null && plausible(lsq.slope, prior) ? lsq : null;
}

/** Whether a slope is within SLOPE_RANGE of the prior (a clock rate the other SMs make likely). */
function plausible(slope: number, prior: number): boolean {
  return slope > prior / SLOPE_RANGE && slope < prior * SLOPE_RANGE;
}

/**
 * Sharpens a least-squares line with the quantization bracket: every line
 * consistent with all samples lies, at any x, between the upper hull of the
 * lower bounds and the lower hull of the upper bounds. The weighted fit
 * through the bracket's middles at 16 sample quantiles is precise to about
 * step/N instead of step/√N. If the bracket is empty (drift, jitter beyond a
 * step), the least-squares line is kept.
 */
function sharpen(rows: Uint32Array, x: Float64Array, y: Float64Array, band: Band, lsq: Line): Line {
  if (band.halfStepNs <= 0 || rows.length < 4) return lsq;
  const upperHull = convexHull(rows, x, y, band.halfStepNs, 'lower');
  const lowerHull = convexHull(rows, x, y, -band.halfStepNs - band.cycleNs, 'upper');
  let sw = 0;
  let swx = 0;
  let swy = 0;
  const px: number[] = [];
  const py: number[] = [];
  const pw: number[] = [];
  for (let q = 0; q < BRACKET_POINTS; q++) {
    const at = x[rows[Math.floor(((q + 0.5) / BRACKET_POINTS) * rows.length)] as number] as number;
    const top = evalHull(upperHull, at);
    const bottom = evalHull(lowerHull, at);
    if (bottom > top + 1e-6) return lsq;
    const weight = 1 / ((top - bottom) ** 2 + 1e-3);
    px.push(at);
    py.push((top + bottom) / 2);
    pw.push(weight);
    sw += weight;
    swx += weight * at;
    swy += weight * ((top + bottom) / 2);
  }
  const mx = swx / sw;
  const my = swy / sw;
  let sxx = 0;
  let sxy = 0;
  for (let k = 0; k < px.length; k++) {
    sxx += (pw[k] as number) * ((px[k] as number) - mx) ** 2;
    sxy += (pw[k] as number) * ((px[k] as number) - mx) * ((py[k] as number) - my);
  }
  if (!(sxx > 0)) return lsq;
  const slope = sxy / sxx;
  return slope > 0 ? { slope, intercept: my - slope * mx } : lsq;
}

interface Hull {
  readonly x: number[];
  readonly y: number[];
}

/** Monotone-chain convex hull of (x, y + shift) over rows sorted by x: its lower or upper chain. */
function convexHull(rows: Uint32Array, x: Float64Array, y: Float64Array, shift: number, chain: 'lower' | 'upper'): Hull {
  const hx: number[] = [];
  const hy: number[] = [];
  const sign = chain === 'lower' ? 1 : -1;
  for (let k = 0; k < rows.length; k++) {
    const px = x[rows[k] as number] as number;
    const py = (y[rows[k] as number] as number) + shift;
    const n = hx.length;
    if (n > 0 && hx[n - 1] === px) {
      // Same x: only the tighter bound matters.
      if (sign * (py - (hy[n - 1] as number)) >= 0) continue;
      hx.pop();
      hy.pop();
    }
    while (hx.length >= 2) {
      const m = hx.length;
      const ax = hx[m - 2] as number;
      const ay = hy[m - 2] as number;
      const bx = hx[m - 1] as number;
      const by = hy[m - 1] as number;
      if (sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) > 0) break;
      hx.pop();
      hy.pop();
    }
    hx.push(px);
    hy.push(py);
  }
  return { x: hx, y: hy };
}

/** The hull chain's value at x (x within its range). */
function evalHull(h: Hull, at: number): number {
  let lo = 0;
  let hi = h.x.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((h.x[mid] as number) <= at) lo = mid;
    else hi = mid;
  }
  const x0 = h.x[lo] as number;
  const x1 = h.x[hi] as number;
  if (x1 === x0) return h.y[lo] as number;
  return (h.y[lo] as number) + (((h.y[hi] as number) - (h.y[lo] as number)) * (at - x0)) / (x1 - x0);
}

/** Σ (x − x̄)² over the rows. */
function spread(rows: Uint32Array, x: Float64Array): number {
  let mean = 0;
  for (let k = 0; k < rows.length; k++) mean += x[rows[k] as number] as number;
  mean /= rows.length;
  let sum = 0;
  for (let k = 0; k < rows.length; k++) sum += ((x[rows[k] as number] as number) - mean) ** 2;
  return sum;
}
