/**
 * Pooling clock rates across SMs: boost clocks are chip-wide, so each
 * segment's slope is backed by the segments of every SM overlapping it in
 * time. The pool is columns (shared memory in a pool of workers), and each
 * worker weighs a range of segments: tens of thousands of segments, each
 * with hundreds of neighbours, on a 10 M-warp capture.
 */
import type { ColumnAllocator } from './raw-canonical.js';
import { MAX_SEGMENT_NS, SUSPICIOUS_SKEW, type FitContext, type SegmentSummary } from './sm-clock.js';

/** Segments with more late reads than this fraction do not vouch for the shared rate. */
const SUSPICIOUS_LATE = 0.2;
/** Segments this close in time (ns) share their slope estimates. */
const SHARED_WINDOW_NS = 5000;

/** Every segment's span, and the clean fits among them sorted by start. */
export interface SlopePool {
  readonly from: Float64Array;
  readonly to: Float64Array;
  readonly fitFrom: Float64Array;
  readonly fitTo: Float64Array;
  readonly fitSlope: Float64Array;
  readonly fitError: Float64Array;
  /** Index of each clean fit among all segments. */
  readonly fitIndex: Uint32Array;
  readonly prior: number;
}

export function slopePoolOf(segments: readonly SegmentSummary[], ctx: FitContext, allocate: ColumnAllocator): SlopePool {
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
  return {
    from: column(segments, (s) => s.fromNs),
    to: column(segments, (s) => s.toNs),
    fitFrom: column(clean, ({ seg }) => seg.fromNs),
    fitTo: column(clean, ({ seg }) => seg.toNs),
    fitSlope: column(clean, ({ seg }) => (seg.own as NonNullable<SegmentSummary['own']>).line.slope),
    fitError: column(clean, ({ seg }) => (seg.own as NonNullable<SegmentSummary['own']>).slopeError),
    fitIndex,
    prior: ctx.prior,
  };
}

/**
 * For segments [begin, end): the inverse-variance weighted mean of the
 * slopes of the other clean fits overlapping it (± SHARED_WINDOW_NS), and
 * its standard error; the prior (with an infinite error) where none do.
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
    slope[k] = sw > 0 ? sws / sw : pool.prior;
    error[k] = sw > 0 ? 1 / Math.sqrt(sw) : Infinity;
  }
}
