/**
 * One SM's clock calibration (see calibrate.ts for the whole procedure).
 * An SmClock works on its SM's records only (contiguous column slices), in
 * phases; between phases the caller pools what every SM found (the median
 * rate, the times the chip's clock rate changed, the slopes of segments
 * overlapping in time). The phases run the same in one thread or spread
 * over workers.
 */
import { fitOffset, fitSegment, leastSquares, type Band, type Line, type SegmentFit } from './clock-fit.js';
import type { SmCalibration } from './model.js';
import { sortedOrder } from './sort.js';

/** Records closer than this to the reference record (ns) estimate the clock rate before unwrapping. */
const RATE_WINDOW_NS = 0.25e9;
/** Fewer samples, or a shorter span, and a segment has no slope of its own. */
export const MIN_FIT_SAMPLES = 8;
export const MIN_FIT_SPAN_NS = 2000;
/** An SM idle this long (ns) may come back at another clock rate: where misfit segments are cut first. */
const SEGMENT_GAP_NS = 5000;
/** Segments are cut past this length (ns) so slow rate drift stays within a step... */
export const MAX_SEGMENT_NS = 200_000;
/** ...but not before they hold this many samples. */
const MIN_SEGMENT_SAMPLES = 256;
/** How far (relative) one SM's clock rate may differ from the others' at the same moment. */
const SHARED_SLOPE_FLOOR = 5e-6;
/** Idle gaps tried as cut points of a misfit segment. */
const CUT_GAPS = 4;
/** Samples this far (ns) above a segment's line are left out when locating a rate change. */
const LATE_FOR_CHANGE_POINT_NS = 1000;
/** Late reads bunched at one end of a segment (this skew between its quarters) suggest a rate change. */
export const SUSPICIOUS_SKEW = 0.3;
/** Margin (ns) within which a segment's end counts as already at a rate change. */
const RATE_CHANGE_MARGIN_NS = 1000;

/** Where device-clock low words are unwrapped and how they become ns (shared by all SMs). */
export interface DeviceClockMap {
  /** Per draw, a device-clock instant within ±2 s of its warps: ticks since the origin, and its low 32 bits. */
  readonly drawAnchorRelTicks: Float64Array;
  readonly drawAnchorLo: Uint32Array;
  readonly deviceNsPerTick: number;
  /** Half the clock's step in ticks (0 for a 1-tick step): the clock floors, samples sit mid-step. */
  readonly halfStepTicks: number;
}

/** One SM's records: equal-length slices, in the order they were written. */
export interface SmRecords {
  readonly sm: number;
  readonly clockStartLo: Uint32Array;
  readonly clockEndLo: Uint32Array;
  readonly deviceLo: Uint32Array;
  readonly draw: Uint32Array;
}

/** Everything SMs share while fitting: the band of a sample and the median rate. */
export interface FitContext {
  readonly band: Band;
  /** Median ns per cycle over the SMs (or the nominal rate). */
  readonly prior: number;
  /** Residual RMS above which a segment holds a rate change. */
  readonly kinkRmsNs: number;
}

/** What other SMs need to know about a segment. */
export interface SegmentSummary {
  readonly fromNs: number;
  readonly toNs: number;
  readonly samples: number;
  readonly own: SegmentFit | null;
}

interface Segment {
  /** Range in the SM's samples sorted by cycles. */
  readonly begin: number;
  readonly end: number;
  readonly own: SegmentFit | null;
}

/** Signed difference a − b of two uint32 values, as if they were wrapping counters. */
export function wrapDelta(a: number, b: number): number {
  return (a - b) | 0;
}

/** Device ns since the origin of device-clock low words (the nearest unwrap to each record's draw anchor). */
export function deviceTimes(map: DeviceClockMap, lo: Uint32Array, draw: Uint32Array, out: Float64Array): Float64Array {
  const { drawAnchorRelTicks, drawAnchorLo, deviceNsPerTick, halfStepTicks } = map;
  for (let i = 0; i < lo.length; i++) {
    const d = draw[i] as number;
    const ticks = (drawAnchorRelTicks[d] as number) + wrapDelta(lo[i] as number, drawAnchorLo[d] as number);
    out[i] = (ticks + halfStepTicks) * deviceNsPerTick;
  }
  return out;
}

export class SmClock {
  readonly sm: number;
  private readonly records: SmRecords;
  /** Device ns of each record's device-clock sample. */
  private readonly y: Float64Array;
  /** End cycles, unwrapped, relative to the first record (set by fit). */
  private x: Float64Array;
  /** Records sorted by x, and their x and y in that order. */
  private byX: Uint32Array;
  private xs: Float64Array;
  private ys: Float64Array;
  private segments: Segment[] = [];
  private seed: number;

  constructor(records: SmRecords, map: DeviceClockMap) {
    this.sm = records.sm;
    this.records = records;
    const n = records.deviceLo.length;
    this.y = deviceTimes(map, records.deviceLo, records.draw, new Float64Array(n));
    this.x = new Float64Array(0);
    this.byX = new Uint32Array(0);
    this.xs = this.x;
    this.ys = this.x;
    this.seed = records.sm << 12;
  }

  /** ns per cycle from the records within RATE_WINDOW_NS of the first one (where no wrap can hide), or null. */
  roughSlope(): number | null {
    const { clockEndLo } = this.records;
    const y = this.y;
    const n = y.length;
    const y0 = y[0] as number;
    const lo0 = clockEndLo[0] as number;
    const nx = new Float64Array(n);
    const ny = new Float64Array(n);
    let count = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const t = y[i] as number;
      if (Math.abs(t - y0) > RATE_WINDOW_NS) continue;
      nx[count] = wrapDelta(clockEndLo[i] as number, lo0);
      ny[count] = t;
      count++;
      lo = Math.min(lo, t);
      hi = Math.max(hi, t);
    }
    if (count < MIN_FIT_SAMPLES || hi - lo < MIN_FIT_SPAN_NS) return null;
    const line = leastSquares(nx.subarray(0, count), ny.subarray(0, count));
    return line !== null && line.slope > 0 ? line.slope : null;
  }

  /**
   * Unwraps the cycles with `nsPerCycle`, sorts the samples by them, cuts them
   * into segments (every MAX_SEGMENT_NS, and where a rate change shows) and fits
   * each. Returns the times (device ns) where this SM saw the rate change.
   */
  fit(nsPerCycle: number, ctx: FitContext): number[] {
    const { clockEndLo } = this.records;
    const y = this.y;
    const n = y.length;
    const x = new Float64Array(n);
    const cyclesPerNs = 1 / nsPerCycle;
    const y0 = y[0] as number;
    const lo0 = clockEndLo[0] as number;
    for (let i = 0; i < n; i++) {
      const predicted = Math.round(cyclesPerNs * ((y[i] as number) - y0));
      x[i] = predicted + wrapDelta(clockEndLo[i] as number, (lo0 + predicted) >>> 0);
    }
    this.x = x;
    this.byX = sortedOrder(x);
    this.xs = new Float64Array(n);
    this.ys = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const i = this.byX[k] as number;
      this.xs[k] = x[i] as number;
      this.ys[k] = y[i] as number;
    }
    const rateChanges: number[] = [];
    for (const [begin, end] of this.runs(ctx.prior)) this.fitOwn(begin, end, this.fitRange(begin, end, ctx, this.seed++), ctx, rateChanges);
    return rateChanges;
  }

  /** Splits segments that span one of the chip's rate changes (sorted times), refitting both sides. */
  cutAtRateChanges(changes: readonly number[], ctx: FitContext): void {
    if (changes.length === 0) return;
    const out: Segment[] = [];
    const ys = this.ys;
    const seed = (this.sm << 12) ^ 0xfff;
    const split = (seg: Segment): void => {
      const from = ys[seg.begin] as number;
      const to = ys[seg.end - 1] as number;
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
      split({ begin: seg.begin, end: at, own: this.fitRange(seg.begin, at, ctx, seed) });
      split({ begin: at, end: seg.end, own: this.fitRange(at, seg.end, ctx, seed) });
    };
    for (const seg of this.segments) split(seg);
    this.segments = out;
  }

  summaries(): SegmentSummary[] {
    return this.segments.map(({ begin, end, own }) => ({ fromNs: this.ys[begin] as number, toNs: this.ys[end - 1] as number, samples: end - begin, own }));
  }

  /**
   * Places every record with its segment's final line: the slope a precision-weighted
   * mean of its own and the shared estimate (sharedSlope/sharedError, one per segment),
   * the offset from its own samples. Writes the SM's slices of the output columns;
   * returns one calibration entry per segment.
   */
  place(
    sharedSlope: ArrayLike<number>,
    sharedError: ArrayLike<number>,
    ctx: FitContext,
    out: { startNs: Float64Array; endNs: Float64Array; cycleStart: Float64Array; cycleDuration: Uint32Array },
  ): SmCalibration[] {
    const { clockStartLo, clockEndLo } = this.records;
    const { x, xs, ys, byX } = this;
    const n = x.length;
    const { startNs, endNs, cycleStart, cycleDuration } = out;
    let minStartCycles = Infinity;
    for (let i = 0; i < n; i++) {
      const duration = ((clockEndLo[i] as number) - (clockStartLo[i] as number)) >>> 0;
      cycleDuration[i] = duration;
      cycleStart[i] = (x[i] as number) - duration;
      minStartCycles = Math.min(minStartCycles, cycleStart[i] as number);
    }
    // The SM's lines in cycle order, to map each warp's start with the line in force then.
    const count = this.segments.length;
    const firstX = new Float64Array(count);
    const lastX = new Float64Array(count);
    const lines: Line[] = [];
    const fits: { fit: SegmentFit; reliable: boolean }[] = [];
    this.segments.forEach(({ begin, end, own }, s) => {
      const segXs = xs.subarray(begin, end);
      const segYs = ys.subarray(begin, end);
      // Own and shared slope estimates, weighted by their precision; then the offset from the brackets.
      const shared = sharedSlope[s] as number;
      const wShared = 1 / ((sharedError[s] as number) ** 2 + (SHARED_SLOPE_FLOOR * shared) ** 2);
      const wOwn = own === null ? 0 : 1 / own.slopeError ** 2;
      const slopeUsed = own === null ? shared : (wOwn * own.line.slope + wShared * shared) / (wOwn + wShared);
      const offset = fitOffset(segXs, segYs, ctx.band, slopeUsed);
      const fit: SegmentFit = own !== null && wOwn >= wShared ? { ...offset, fit: 'linear', slopeError: own.slopeError } : offset;
      firstX[s] = xs[begin] as number;
      lastX[s] = xs[end - 1] as number;
      lines.push(fit.line);
      fits.push({ fit, reliable: end - begin - fit.late >= Math.max(3, (end - begin) / 2) });
    });
    // Segments whose samples are nearly all late (an SM's first ~20 µs on the H100
    // read one later instant) only bound the truth from above: they take the line
    // of the nearest reliable segment of the same SM, following the counter across.
    fits.forEach((entry, s) => {
      if (entry.reliable) return;
      const donor = nearestReliable(fits, s);
      if (donor !== null) lines[s] = donor;
    });
    const entries: SmCalibration[] = [];
    this.segments.forEach(({ begin, end }, s) => {
      const line = lines[s] as Line;
      const fit = (fits[s] as { fit: SegmentFit }).fit;
      const first = firstX[s] as number;
      for (let k = begin; k < end; k++) {
        const i = byX[k] as number;
        const e = line.intercept + line.slope * (x[i] as number);
        endNs[i] = e;
        // A warp that started before this segment's first end sample started under an earlier line.
        const c = cycleStart[i] as number;
        const startLine = c >= first ? line : lineAt(firstX, lastX, lines, c, line);
        // Lines of neighbouring segments need not meet exactly: never let a start pass its end.
        startNs[i] = Math.min(startLine.intercept + startLine.slope * c, e);
      }
      const borrowed = line !== fit.line;
      entries.push({
        sm: this.sm,
        samples: end - begin,
        lateSamples: borrowed ? end - begin : fit.late,
        fit: borrowed ? 'offset-only' : fit.fit,
        nsPerCycle: line.slope,
        offsetNs: line.intercept + line.slope * minStartCycles,
        residualRmsNs: borrowed ? 0 : fit.rmsNs,
        residualMaxNs: borrowed ? 0 : fit.maxAbsNs,
        fromNs: startNs[byX[begin] as number] as number,
        toNs: endNs[byX[end - 1] as number] as number,
      });
    });
    for (let i = 0; i < n; i++) cycleStart[i] = (cycleStart[i] as number) - minStartCycles;
    return entries;
  }

  private fitRange(begin: number, end: number, ctx: FitContext, seed: number): SegmentFit | null {
    const spanNs = ((this.xs[end - 1] as number) - (this.xs[begin] as number)) * ctx.prior;
    if (spanNs < MIN_FIT_SPAN_NS) return null;
    return fitSegment(this.xs.subarray(begin, end), this.ys.subarray(begin, end), ctx.band, ctx.prior, seed, MIN_FIT_SAMPLES);
  }

  /**
   * Keeps [begin, end) as a segment, unless it holds a rate change: residuals
   * well above the quantization noise, or a run of samples that look late
   * because the line fits the other side of the change. Then it is cut at the
   * longest idle gaps (where boost clocks change) or where two lines fit best,
   * and the cut is kept when it explains the misfit.
   */
  private fitOwn(begin: number, end: number, own: SegmentFit | null, ctx: FitContext, rateChanges: number[]): void {
    const suspicious = own !== null && (own.rmsNs > ctx.kinkRmsNs || (own.late >= MIN_FIT_SAMPLES && own.lateSkew > SUSPICIOUS_SKEW));
    if (own !== null && suspicious) {
      let best: { at: number; left: SegmentFit | null; right: SegmentFit | null; late: number; rms: number } | null = null;
      for (const at of this.cutCandidates(begin, end, ctx.prior, own.line)) {
        const left = this.fitRange(begin, at, ctx, this.seed++);
        const right = this.fitRange(at, end, ctx, this.seed++);
        const late = (left?.late ?? 0) + (right?.late ?? 0);
        const rms = Math.max(left?.rmsNs ?? 0, right?.rmsNs ?? 0);
        if (best === null || late + rms < best.late + best.rms) best = { at, left, right, late, rms };
      }
      if (best !== null && (own.rmsNs > ctx.kinkRmsNs || best.late < own.late / 2 || best.rms < own.rmsNs / 2)) {
        rateChanges.push(this.ys[best.at] as number);
        this.fitOwn(begin, best.at, best.left, ctx, rateChanges);
        this.fitOwn(best.at, end, best.right, ctx, rateChanges);
        return;
      }
    }
    this.segments.push({ begin, end, own });
  }

  /** [begin, end) runs of the sorted samples, cut past MAX_SEGMENT_NS once they hold enough samples. */
  private runs(nsPerCycle: number): [number, number][] {
    const xs = this.xs;
    const n = xs.length;
    const runs: [number, number][] = [];
    let begin = 0;
    for (let k = 1; k <= n; k++) {
      if (k < n) {
        const length = ((xs[k] as number) - (xs[begin] as number)) * nsPerCycle;
        if (length <= MAX_SEGMENT_NS || k - begin < MIN_SEGMENT_SAMPLES) continue;
      }
      if (k === n && runs.length > 0 && k - begin < MIN_SEGMENT_SAMPLES) {
        // A short tail joins the previous run rather than standing alone.
        (runs[runs.length - 1] as [number, number])[1] = k;
      } else {
        runs.push([begin, k]);
      }
      begin = k;
    }
    return runs;
  }

  /**
   * Where to try cutting a misfit segment: after its longest idle gaps (over
   * SEGMENT_GAP_NS, where boost clocks change), and where two least-squares
   * lines fit best (the optimal single change point, found in one pass with
   * prefix sums; samples far above the segment's line, late reads, are left
   * out of the sums).
   */
  private cutCandidates(begin: number, end: number, nsPerCycle: number, line: Line): number[] {
    const xs = this.xs;
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

/** The line of the closest reliable segment, the following one first (null when none). */
function nearestReliable(fits: readonly { fit: SegmentFit; reliable: boolean }[], k: number): Line | null {
  for (let d = 1; d < fits.length; d++) {
    const after = fits[k + d];
    if (after?.reliable) return after.fit.line;
    const before = fits[k - d];
    if (before?.reliable) return before.fit.line;
  }
  return null;
}

/**
 * The line of the segment whose samples span x; `fallback` (the warp's own
 * segment) when x falls in an idle gap, where the rate of the coming work is
 * the better guess than extrapolating an earlier one across the gap.
 */
function lineAt(firstX: Float64Array, lastX: Float64Array, lines: readonly Line[], x: number, fallback: Line): Line {
  let lo = 0;
  let hi = firstX.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((firstX[mid] as number) <= x) lo = mid;
    else hi = mid - 1;
  }
  return (firstX[lo] as number) <= x && x <= (lastX[lo] as number) ? (lines[lo] as Line) : fallback;
}
