/**
 * The quantization bracket that sharpens a segment's least-squares line
 * (clock-fit.ts): every sample not read late bounds the line from above and
 * below, and the hulls of those bounds pin it to about step/N.
 */
import type { Band, Line } from './clock-fit.js';

/** Bracket points per segment (see sharpen). */
const BRACKET_POINTS = 16;

/**
 * Sharpens a least-squares line with the quantization bracket: every line
 * consistent with all inliers (samples not above `keep` + `limit`) lies, at
 * any x, between the upper hull of the lower bounds and the lower hull of the
 * upper bounds. The weighted fit through the bracket's middles at 16 sample
 * quantiles is precise to about step/N instead of step/√N. If the bracket is
 * empty (drift, jitter beyond a step), the least-squares line is kept.
 */
export function sharpen(xs: Float64Array, ys: Float64Array, keep: Line, limit: number, band: Band, lsq: Line): Line {
  if (band.halfStepNs <= 0 || xs.length < 4) return lsq;
  const inliers = inliersOf(xs, ys, keep, limit);
  const count = inliers.length;
  if (count < 4) return lsq;
  const upperHull = convexHull(xs, ys, inliers, band.halfStepNs, 1, 0);
  const lowerHull = convexHull(xs, ys, inliers, -band.halfStepNs - band.cycleNs, -1, 1);
  let sw = 0;
  let swx = 0;
  let swy = 0;
  const px = new Float64Array(BRACKET_POINTS);
  const py = new Float64Array(BRACKET_POINTS);
  const pw = new Float64Array(BRACKET_POINTS);
  for (let q = 0; q < BRACKET_POINTS; q++) {
    const at = xs[inliers[Math.floor(((q + 0.5) / BRACKET_POINTS) * count)] as number] as number;
    const top = evalHull(upperHull, at);
    const bottom = evalHull(lowerHull, at);
    if (bottom > top + 1e-6) return lsq;
    const weight = 1 / ((top - bottom) ** 2 + 1e-3);
    px[q] = at;
    py[q] = (top + bottom) / 2;
    pw[q] = weight;
    sw += weight;
    swx += weight * at;
    swy += weight * ((top + bottom) / 2);
  }
  const mx = swx / sw;
  const my = swy / sw;
  let sxx = 0;
  let sxy = 0;
  for (let k = 0; k < BRACKET_POINTS; k++) {
    sxx += (pw[k] as number) * ((px[k] as number) - mx) ** 2;
    sxy += (pw[k] as number) * ((px[k] as number) - mx) * ((py[k] as number) - my);
  }
  if (!(sxx > 0)) return lsq;
  const slope = sxy / sxx;
  return slope > 0 ? { slope, intercept: my - slope * mx } : lsq;
}

/**
 * Scratch reused across fits (a thread fits thousands of segments, one at a
 * time): inlier indices and two hulls' points, grown as needed.
 */
const scratch = { inliers: new Uint32Array(0), hulls: [new Float64Array(0), new Float64Array(0)] };

/** Indices of the samples at most `limit` above the line. */
function inliersOf(xs: Float64Array, ys: Float64Array, line: Line, limit: number): Uint32Array {
  if (scratch.inliers.length < xs.length) scratch.inliers = new Uint32Array(Math.max(xs.length, 2 * scratch.inliers.length));
  const out = scratch.inliers;
  let count = 0;
  for (let k = 0; k < xs.length; k++) {
    if ((ys[k] as number) - (line.intercept + line.slope * (xs[k] as number)) <= limit) out[count++] = k;
  }
  return out.subarray(0, count);
}

interface Hull {
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly length: number;
}

/**
 * Monotone-chain convex hull of (x, y + shift) over the given samples (in x
 * order): the lower chain for sign 1, the upper chain for sign −1; its
 * points in scratch buffer `slot`.
 */
function convexHull(xs: Float64Array, ys: Float64Array, rows: Uint32Array, shift: number, sign: 1 | -1, slot: 0 | 1): Hull {
  if ((scratch.hulls[slot] as Float64Array).length < 2 * rows.length) scratch.hulls[slot] = new Float64Array(Math.max(2 * rows.length, 2 * (scratch.hulls[slot] as Float64Array).length));
  const buffer = scratch.hulls[slot] as Float64Array;
  const hx = buffer.subarray(0, rows.length);
  const hy = buffer.subarray(rows.length, 2 * rows.length);
  let m = 0;
  for (let k = 0; k < rows.length; k++) {
    const px = xs[rows[k] as number] as number;
    const py = (ys[rows[k] as number] as number) + shift;
    if (m > 0 && hx[m - 1] === px) {
      // Same x: only the tighter bound matters.
      if (sign * (py - (hy[m - 1] as number)) >= 0) continue;
      m--;
    }
    while (m >= 2) {
      const ax = hx[m - 2] as number;
      const ay = hy[m - 2] as number;
      const bx = hx[m - 1] as number;
      const by = hy[m - 1] as number;
      if (sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) > 0) break;
      m--;
    }
    hx[m] = px;
    hy[m] = py;
    m++;
  }
  return { x: hx, y: hy, length: m };
}

/** The hull chain's value at x (x within its range). */
function evalHull(h: Hull, at: number): number {
  let lo = 0;
  let hi = h.length - 1;
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
