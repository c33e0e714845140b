/**
 * Pooling clock rates across SMs: the SM clocks share one rate at any
 * moment (boost clocks are chip-wide), so each segment's slope is backed by
 * the segments of every SM overlapping it in time, and by all segments of
 * its rate epoch (the time between two rate changes the fits found): an SM
 * that ran a few µs of work takes the chip's rate at that time, not one
 * pooled among SMs as sparse as itself. The pool is columns (shared memory
 * in a pool of workers), and each worker weighs a range of segments: tens
 * of thousands of segments, each with hundreds of neighbours, on a 10
 * M-warp capture.
 */
import type { ColumnAllocator } from './raw-canonical.js';
import { SUSPICIOUS_SKEW } from './segment-fitter.js';
import { MAX_SEGMENT_NS, type FitContext, type SegmentSummary } from './sm-clock.js';

/** Segments with more late reads than this fraction do not vouch for the shared rate. */
const SUSPICIOUS_LATE = 0.2;
/** Segments this close in time (ns) share their slope estimates. */
const SHARED_WINDOW_NS = 5000;
/** How far (relative) the chip's rate may drift within an epoch: the epoch's rate is trusted to this. */
const EPOCH_DRIFT = 2e-5;

/** Every segment's span, the clean fits among them sorted by start, and the chip's rate per epoch. */
export interface SlopePool {
  readonly from: Float64Array;
  readonly to: Float64Array;
  readonly fitFrom: Float64Array;
  readonly fitTo: Float64Array;
  readonly fitSlope: Float64Array;
  readonly fitError: Float64Array;
  /** Index of each clean fit among all segments. */
  readonly fitIndex: Uint32Array;
  /** The rate changes (device ns, ascending): epoch e runs from changes[e − 1] to changes[e]. */
  readonly changes: Float64Array;
  /** Per epoch, the clean fits' precision-weighted slope and its standard error (Infinity: none). */
  readonly epochSlope: Float64Array;
  readonly epochError: Float64Array;
  /** The slope where an epoch has no clean fit: all clean fits pooled, else the rough prior. */
  readonly prior: number;
}

export function slopePoolOf(segments: readonly SegmentSummary[], changes: readonly number[], ctx: FitContext, allocate: ColumnAllocator): SlopePool {
  // Only clean fits vouch for the rate: few late reads, residuals at the noise level.
  const clean = segments
    .map((seg, index) => ({ seg, index }))
    .filter(
      ({ seg }) =>
        seg.own !== null &&
        Number.isFinite(seg.own.slopeError) &&
        seg.own.slopeError > 0 &&
        seg.own.late <= SUSPICIOUS_LATE * seg.samples &&
        seg.own.lateSkew <= SUSPICIOUS_SKEW &&
        seg.own.rmsNs <= ctx.kinkRmsNs,
    )
    .sort((a, b) => a.seg.fromNs - b.seg.fromNs);
  const column = <T>(values: readonly T[], of: (v: T) => number): Float64Array => {
    const out = allocate.f64(values.length);
    values.forEach((v, k) => (out[k] = of(v)));
    return out;
  };
  const fitIndex = allocate.uint(clean.length, 0xffffffff) as Uint32Array;
  clean.forEach(({ index }, k) => (fitIndex[k] = index));
  // The chip's rate per epoch: a joint fit (one slope, an offset per segment) is the precision-weighted mean.
  const epochs = changes.length + 1;
  const sw = new Float64Array(epochs);
  const sws = new Float64Array(epochs);
  let allW = 0;
  let allWs = 0;
  for (const { seg } of clean) {
    const own = seg.own as NonNullable<SegmentSummary['own']>;
    const w = 1 / own.slopeError ** 2;
    const e = epochOf(changes, (seg.fromNs + seg.toNs) / 2);
    sw[e] = (sw[e] as number) + w;
    sws[e] = (sws[e] as number) + w * own.line.slope;
    allW += w;
    allWs += w * own.line.slope;
  }
  const epochSlope = allocate.f64(epochs);
  const epochError = allocate.f64(epochs);
  for (let e = 0; e < epochs; e++) {
    epochSlope[e] = (sw[e] as number) > 0 ? (sws[e] as number) / (sw[e] as number) : NaN;
    epochError[e] = (sw[e] as number) > 0 ? 1 / Math.sqrt(sw[e] as number) : Infinity;
  }
  return {
    from: column(segments, (s) => s.fromNs),
    to: column(segments, (s) => s.toNs),
    fitFrom: column(clean, ({ seg }) => seg.fromNs),
    fitTo: column(clean, ({ seg }) => seg.toNs),
    fitSlope: column(clean, ({ seg }) => (seg.own as NonNullable<SegmentSummary['own']>).line.slope),
    fitError: column(clean, ({ seg }) => (seg.own as NonNullable<SegmentSummary['own']>).slopeError),
    fitIndex,
    changes: Float64Array.from(changes),
    epochSlope,
    epochError,
    prior: allW > 0 ? allWs / allW : ctx.prior,
  };
}

/** The epoch holding time t: how many rate changes lie before it. */
function epochOf(changes: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = changes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((changes[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * For segments [begin, end): the inverse-variance weighted mean of the
 * slopes of the other clean fits overlapping it (± SHARED_WINDOW_NS) and of
 * its epoch's rate (trusted to EPOCH_DRIFT), and its standard error; the
 * pooled prior (with an infinite error) where there is neither.
 */
export function poolSlopes(pool: SlopePool, begin: number, end: number, slope: Float64Array, error: Float64Array): void {
  const { from, to, fitFrom, fitTo, fitSlope, fitError, fitIndex } = pool;
  const fits = fitFrom.length;
  for (let k = begin; k < end; k++) {
    const segFrom = from[k] as number;
    const segTo = to[k] as number;
    const lo = segFrom - SHARED_WINDOW_NS - MAX_SEGMENT_NS;
    const hi = segTo + SHARED_WINDOW_NS;
    let first = 0;
    let last = fits;
    while (first < last) {
      const mid = (first + last) >> 1;
      if ((fitFrom[mid] as number) < lo) first = mid + 1;
      else last = mid;
    }
    let sw = 0;
    let sws = 0;
    // Neighbours merely near in time count only when nothing overlaps (the rate may have changed in between).
    let overlapsAny = false;
    for (let j = first; j < fits && (fitFrom[j] as number) <= segTo; j++) {
      if (fitIndex[j] !== k && (fitTo[j] as number) > segFrom) overlapsAny = true;
    }
    for (let j = first; j < fits && (fitFrom[j] as number) <= hi; j++) {
      const otherFrom = fitFrom[j] as number;
      const otherTo = fitTo[j] as number;
      if (fitIndex[j] === k || otherTo < segFrom - SHARED_WINDOW_NS) continue;
      // Weighted by how much of the other segment lies in this one's time: the rate can change.
      const overlap = Math.min(otherTo, segTo + SHARED_WINDOW_NS) - Math.max(otherFrom, segFrom - SHARED_WINDOW_NS);
      const strict = Math.min(otherTo, segTo) - Math.max(otherFrom, segFrom);
      if (strict <= 0 && overlapsAny) continue;
      if (overlap <= 0) continue;
      const w = Math.min(1, overlap / Math.max(1, otherTo - otherFrom)) / (fitError[j] as number) ** 2;
      sw += w;
      sws += w * (fitSlope[j] as number);
    }
    const e = epochOf(pool.changes, (segFrom + segTo) / 2);
    const epochSlope = pool.epochSlope[e] as number;
    if (Number.isFinite(pool.epochError[e] as number)) {
      const w = 1 / ((pool.epochError[e] as number) ** 2 + (EPOCH_DRIFT * epochSlope) ** 2);
      sw += w;
      sws += w * epochSlope;
    }
    slope[k] = sw > 0 ? sws / sw : pool.prior;
    error[k] = sw > 0 ? 1 / Math.sqrt(sw) : Infinity;
  }
}
