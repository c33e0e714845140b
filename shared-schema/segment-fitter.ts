/**
 * Fitting an SM's sorted samples with line segments (see calibrate.ts for
 * the whole procedure): runs fitted one by one, a run cut where a rate
 * change shows (residuals above the noise, late reads bunched at one end),
 * at idle gaps or where two lines fit best; and segments cut again where
 * another SM found a rate change (boost clocks are chip-wide).
 */
import { fitSegment, type Line, type SegmentFit } from './clock-fit.js';
import { halvesDisagreementNs } from './clock-quality.js';
import { MIN_FIT_SAMPLES, MIN_FIT_SPAN_NS, MIN_SEGMENT_SAMPLES, SEGMENT_GAP_NS, sampleSpanNs, type ClockRows, type FitContext, type Segment } from './sm-clock.js';

/** Idle gaps tried as cut points of a misfit segment. */
const CUT_GAPS = 4;
/** Samples this far (ns) above a segment's line are left out when locating a rate change. */
const LATE_FOR_CHANGE_POINT_NS = 1000;
/** Late reads bunched at one end of a segment (this skew between its quarters) suggest a rate change. */
export const SUSPICIOUS_SKEW = 0.3;
/** Slopes this many standard errors apart on the two sides of a cut make it a rate change of the chip. */
const RATE_CHANGE_SIGMAS = 4;
/** Margin (ns) within which a segment's end counts as already at a rate change. */
const RATE_CHANGE_MARGIN_NS = 1000;

/** The first consensus seed of run r of an SM: fixed per run, so runs can be fitted in any order. */
function runSeed(sm: number, run: number): number {
  return ((sm << 16) ^ Math.imul(run + 1, 0x9e3779b1)) >>> 0;
}

/**
 * Fits runs [first, last) of group g (bounds from runsOf): each run is one
 * segment, or several where a rate change shows (cut at idle gaps or where
 * two lines fit best). Returns the segments and the times (device ns) where
 * the SM saw its rate change.
 */
export function fitRuns(rows: ClockRows, g: number, bounds: Uint32Array, first: number, last: number, ctx: FitContext): { segments: Segment[]; changes: number[] } {
  const sm = rows.groups.sm[g] as number;
  const fitter = new SegmentFitter(rows.xs, rows.ys, ctx);
  for (let r = first; r < last; r++) {
    const begin = bounds[r] as number;
    const end = bounds[r + 1] as number;
    fitter.seed = runSeed(sm, r);
    fitter.fitOwn(begin, end, fitter.fitRange(begin, end));
  }
  return { segments: fitter.segments, changes: fitter.changes };
}

/** Splits segments of group g that span one of the chip's rate changes (sorted times), refitting both sides. */
export function cutAtRateChanges(rows: ClockRows, g: number, segments: readonly Segment[], changes: readonly number[], ctx: FitContext): Segment[] {
  const ys = rows.ys;
  const fitter = new SegmentFitter(rows.xs, ys, ctx);
  const seed = ((rows.groups.sm[g] as number) << 12) ^ 0xfff;
  const out: Segment[] = [];
  const split = (seg: Segment): void => {
    const { fromNs: from, toNs: to } = sampleSpanNs(ys, seg.begin, seg.end);
    const t = changes.find((c) => c > from + RATE_CHANGE_MARGIN_NS && c < to - RATE_CHANGE_MARGIN_NS);
    if (t === undefined) {
      out.push(seg);
      return;
    }
    let at = seg.begin;
    while (at < seg.end && (ys[at] as number) < t) at++;
    if (at === seg.begin || at === seg.end) {
      out.push(seg);
      return;
    }
    fitter.seed = seed;
    split({ begin: seg.begin, end: at, own: fitter.fitRange(seg.begin, at) });
    fitter.seed = seed;
    split({ begin: at, end: seg.end, own: fitter.fitRange(at, seg.end) });
  };
  for (const seg of segments) split(seg);
  return out;
}

/** Fits ranges of an SM's sorted samples, cutting misfit ranges at rate changes. */
class SegmentFitter {
  readonly segments: Segment[] = [];
  readonly changes: number[] = [];
  seed = 0;

  constructor(
    private readonly xs: Float64Array,
    private readonly ys: Float64Array,
    private readonly ctx: FitContext,
  ) {}

  fitRange(begin: number, end: number): SegmentFit | null {
    const seed = this.seed++;
    const spanNs = ((this.xs[end - 1] as number) - (this.xs[begin] as number)) * this.ctx.prior;
    if (spanNs < MIN_FIT_SPAN_NS) return null;
    return fitSegment(this.xs.subarray(begin, end), this.ys.subarray(begin, end), this.ctx.band, this.ctx.prior, seed, MIN_FIT_SAMPLES);
  }

  /**
   * Keeps [begin, end) as a segment, unless it holds a rate change: residuals
   * well above the quantization noise, or a run of samples that look late
   * because the line fits the other side of the change. Then it is cut at the
   * longest idle gaps (where boost clocks change) or where two lines fit best,
   * and the cut is kept when it explains the misfit.
   */
  fitOwn(begin: number, end: number, own: SegmentFit | null): void {
    const ctx = this.ctx;
    // Halves that disagree (clock-quality.ts) hold a rate change the late reads hid: few samples across an idle gap
    // (in a long run a change shows in the residuals or in late reads bunched at one end).
    const split = own !== null && end - begin < MIN_SEGMENT_SAMPLES && halvesDisagreementNs(this.xs, this.ys, begin, end, own.line.slope, ctx.band) > ctx.crossCheckLimitNs;
    const suspicious = own !== null && (split || own.rmsNs > ctx.kinkRmsNs || (own.late >= MIN_FIT_SAMPLES && own.lateSkew > SUSPICIOUS_SKEW));
    if (own !== null && suspicious) {
      let best: { at: number; left: SegmentFit | null; right: SegmentFit | null; late: number; rms: number } | null = null;
      for (const at of this.cutCandidates(begin, end, own.line)) {
        const left = this.fitRange(begin, at);
        const right = this.fitRange(at, end);
        const late = (left?.late ?? 0) + (right?.late ?? 0);
        const rms = Math.max(left?.rmsNs ?? 0, right?.rmsNs ?? 0);
        if (best === null || late + rms < best.late + best.rms) best = { at, left, right, late, rms };
      }
      if (best !== null && (split || own.rmsNs > ctx.kinkRmsNs || best.late < own.late / 2 || best.rms < own.rmsNs / 2)) {
        // Only a cut with a different rate on each side is the chip's rate change (others cut at an offset misfit, late reads, an idle SM waking).
        // Only a cut with a different rate on each side is the chip's rate change (others cut at a misfit offset: late reads, an SM waking).
        if (ratesDiffer(best.left, best.right)) this.changes.push(sampleSpanNs(this.ys, best.at, Math.min(end, best.at + MIN_FIT_SAMPLES)).fromNs);
        this.fitOwn(begin, best.at, best.left);
        this.fitOwn(best.at, end, best.right);
        return;
      }
    }
    this.segments.push({ begin, end, own });
  }

  /**
   * Where to try cutting a misfit segment: after its longest idle gaps (over
   * SEGMENT_GAP_NS, where boost clocks change), and where two least-squares
   * lines fit best (the optimal single change point, found in one pass with
   * prefix sums; samples far above the segment's line, late reads, are left
   * out of the sums).
   */
  private cutCandidates(begin: number, end: number, line: Line): number[] {
    const xs = this.xs;
    const nsPerCycle = this.ctx.prior;
    const gaps: { at: number; ns: number }[] = [];
    for (let k = begin + 1; k < end; k++) {
      const ns = ((xs[k] as number) - (xs[k - 1] as number)) * nsPerCycle;
      if (ns > SEGMENT_GAP_NS) gaps.push({ at: k, ns });
    }
    const cuts = gaps.sort((a, b) => b.ns - a.ns).slice(0, CUT_GAPS).map((g) => g.at);
    const best = bestChangePoint(xs.subarray(begin, end), this.ys.subarray(begin, end), line);
    if (best !== null && !cuts.includes(begin + best)) cuts.push(begin + best);
    return cuts;
  }
}

/** Whether two fits' slopes differ by more than RATE_CHANGE_SIGMAS standard errors (both must have one). */
export function ratesDiffer(left: SegmentFit | null, right: SegmentFit | null): boolean {
  if (left === null || right === null) return false;
  const error = Math.hypot(left.slopeError, right.slopeError);
  return Number.isFinite(error) && Math.abs(left.line.slope - right.line.slope) > RATE_CHANGE_SIGMAS * error;
}

/**
 * Where the clock rate changed between consecutive segments of one SM (an
 * idle gap hides the moment: the first sample after it), each side fitted
 * on its own; the device times, ascending.
 */
export function changesBetween(rows: ClockRows, segments: readonly Segment[]): number[] {
  const out: number[] = [];
  for (let s = 1; s < segments.length; s++) {
    const later = segments[s] as Segment;
    if (ratesDiffer((segments[s - 1] as Segment).own, later.own)) out.push(sampleSpanNs(rows.ys, later.begin, Math.min(later.end, later.begin + MIN_FIT_SAMPLES)).fromNs);
  }
  return out;
}

/** The cut index minimizing the squared residuals of a line on each side (null when too few samples). */
function bestChangePoint(xs: Float64Array, ys: Float64Array, line: Line): number | null {
  const n = xs.length;
  if (n < 2 * MIN_FIT_SAMPLES) return null;
  // Sums of u = x − x0, v = y − line(x) (residuals: small numbers keep the sums exact).
  const x0 = xs[0] as number;
  const sums = new Float64Array((n + 1) * 6);
  for (let k = 0; k < n; k++) {
    const u = (xs[k] as number) - x0;
    const v = (ys[k] as number) - (line.intercept + line.slope * (xs[k] as number));
    const keep = v < LATE_FOR_CHANGE_POINT_NS ? 1 : 0;
    const o = k * 6;
    sums[o + 6] = (sums[o] as number) + keep;
    sums[o + 7] = (sums[o + 1] as number) + keep * u;
    sums[o + 8] = (sums[o + 2] as number) + keep * v;
    sums[o + 9] = (sums[o + 3] as number) + keep * u * u;
    sums[o + 10] = (sums[o + 4] as number) + keep * u * v;
    sums[o + 11] = (sums[o + 5] as number) + keep * v * v;
  }
  const sse = (from: number, to: number): number => {
    const a = from * 6;
    const b = to * 6;
    const c = (sums[b] as number) - (sums[a] as number);
    if (c < 3) return Infinity;
    const su = (sums[b + 1] as number) - (sums[a + 1] as number);
    const sv = (sums[b + 2] as number) - (sums[a + 2] as number);
    const suu = (sums[b + 3] as number) - (sums[a + 3] as number) - (su * su) / c;
    const suv = (sums[b + 4] as number) - (sums[a + 4] as number) - (su * sv) / c;
    const svv = (sums[b + 5] as number) - (sums[a + 5] as number) - (sv * sv) / c;
    return suu > 0 ? svv - (suv * suv) / suu : svv;
  };
  let best: number | null = null;
  let bestSse = Infinity;
  for (let k = MIN_FIT_SAMPLES; k <= n - MIN_FIT_SAMPLES; k++) {
    const total = sse(0, k) + sse(k, n);
    if (total < bestSse) {
      bestSse = total;
      best = k;
    }
  }
  return best;
}
