/**
 * SM clock calibration (see calibrate.ts for the whole procedure) as steps
 * on ranges of shared rows, so a busy SM's work spreads over workers: device
 * times and rough rates per slice of rows, cycles unwrapped and sorted per
 * slice (then merged, row-sort.ts), segments fitted per batch of runs,
 * offsets and placement per batch of segments. Between steps the caller
 * pools what the SMs found (the median rate, the chip's rate changes, the
 * slopes of segments overlapping in time). Every step gives the same result
 * however the rows were split, so one thread and a pool agree byte for byte.
 */
import { fitOffset, fitSegment, type Band, type Line, type SegmentFit } from './clock-fit.js';
import { TICKS_PER_NS, type SmGroups } from './model.js';
import { cycleDurationOfRecord, placeRow, type PlacedRows } from './raw-canonical.js';
import { RECORD_WORDS, RecordWord } from './raw-layout.js';
import { mergePart, sortSlice } from './row-sort.js';
import { SLICE_BLOCK, type RowSlice } from './row-tasks.js';

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
/** Numbers per block in measureSlice's rough-rate sums. */
const ROUGH_STATS = 7;

/** Where device-clock low words are unwrapped and how they become ns (shared by all SMs). */
export interface DeviceClockMap {
  /** Per draw, a device-clock instant within ±2 s of its warps: ticks since the origin, and its low 32 bits. */
  readonly drawAnchorRelTicks: Float64Array;
  readonly drawAnchorLo: Uint32Array;
  readonly deviceNsPerTick: number;
  /** Half the clock's step in ticks (0 for a 1-tick step): the clock floors, samples sit mid-step. */
  readonly halfStepTicks: number;
}

/** Everything SMs share while fitting: the band of a sample and the median rate. */
export interface FitContext {
  readonly band: Band;
  /** Median ns per cycle over the SMs (or the nominal rate). */
  readonly prior: number;
  /** Residual RMS above which a segment holds a rate change. */
  readonly kinkRmsNs: number;
}

/**
 * The rows every step reads and writes, SM-major (shared memory in a pool).
 * Per group, byX/xs/ys hold its rows sorted by end cycles.
 */
export interface ClockRows {
  /** The records, RECORD_WORDS each, grouped by SM. */
  readonly words: Uint32Array;
  readonly groups: SmGroups;
  /** Device ns of each row's device-clock sample. */
  readonly y: Float64Array;
  /** End cycles of each row, unwrapped, relative to its SM's first record. */
  readonly x: Float64Array;
  readonly byX: Uint32Array;
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  /** Slices sorted on their own, before the merge. */
  readonly sliceRows: Uint32Array;
  readonly sliceKeys: Float64Array;
}

/** Sorted rows [begin, end) of one SM fitted with one line (own: null when too few samples for a slope). */
export interface Segment {
  readonly begin: number;
  readonly end: number;
  readonly own: SegmentFit | null;
}

/** What other SMs need to know about a segment. */
export interface SegmentSummary {
  readonly fromNs: number;
  readonly toNs: number;
  readonly samples: number;
  readonly own: SegmentFit | null;
}

/** A segment's final fit, from its own samples at the slope pooled over SMs. */
export interface PlacedFit {
  readonly fit: SegmentFit;
  /** Enough samples were not late to trust its offset (else it borrows a neighbour's line). */
  readonly reliable: boolean;
}

/** Signed difference a − b of two uint32 values, as if they were wrapping counters. */
export function wrapDelta(a: number, b: number): number {
  return (a - b) | 0;
}

/**
 * Row i's end cycles unwrapped next to a predicted count since its SM's
 * first record (whose low word is lo0), into x[i]; returns its start cycles.
 */
function unwrapRow(words: Uint32Array, x: Float64Array, i: number, predicted: number, lo0: number): number {
  const end = predicted + wrapDelta(words[i * RECORD_WORDS + RecordWord.CLOCK_END] as number, (lo0 + predicted) >>> 0);
  x[i] = end;
  return end - cycleDurationOfRecord(words, i);
}

function deviceTimeOf(map: DeviceClockMap, lo: number, draw: number): number {
  return ((map.drawAnchorRelTicks[draw] as number) + wrapDelta(lo, map.drawAnchorLo[draw] as number) + map.halfStepTicks) * map.deviceNsPerTick;
}

/** Device ns since the origin of device-clock low words (the nearest unwrap to each record's draw anchor). */
export function deviceTimes(map: DeviceClockMap, lo: Uint32Array, draw: Uint32Array, out: Float64Array): Float64Array {
  for (let i = 0; i < lo.length; i++) out[i] = deviceTimeOf(map, lo[i] as number, draw[i] as number);
  return out;
}

/** What measureSlice found in a slice. */
export interface MeasuredSlice {
  /** Rough-rate sums per SLICE_BLOCK rows (see roughSlope). */
  readonly stats: Float64Array;
  /** The slice's samples for the merge (null: the slice is its whole group, sorted in place). */
  readonly samples: Float64Array | null;
  readonly minStartCycles: number;
  /** Largest |device time − the SM's first record's| (ns): how far the cycle unwrap reached. */
  readonly maxReachNs: number;
}

/**
 * One pass over a slice's records: device times (y); per SLICE_BLOCK rows
 * the sums a rough clock rate comes from (records within RATE_WINDOW_NS of
 * the SM's first one, where no wrap of the cycle counter can hide, centred
 * on each block's first such record: [count, mean u, mean v, Σ(u−ū)²,
 * Σ(u−ū)(v−v̄), min y, max y] with u the end cycles and v the device ns
 * from the first record); and the end cycles unwrapped with a provisional
 * rate (any rate within ~2^31 cycles over the capture unwraps them the
 * same: the caller checks, see sameUnwrap) and sorted (see unwrapSlice).
 */
export function measureSlice(rows: ClockRows, map: DeviceClockMap, slice: RowSlice, nsPerCycle: number, whole: boolean): MeasuredSlice {
  const { words, x, y } = rows;
  const first = (rows.groups.offsets[slice.g] as number) * RECORD_WORDS;
  const y0 = deviceTimeOf(map, words[first + RecordWord.DEVICE_CLOCK] as number, words[first + RecordWord.DRAW_ID] as number);
  const lo0 = words[first + RecordWord.CLOCK_END] as number;
  const cyclesPerNs = 1 / nsPerCycle;
  const blocks = Math.ceil((slice.end - slice.begin) / SLICE_BLOCK);
  const stats = new Float64Array(blocks * ROUGH_STATS);
  let minStartCycles = Infinity;
  let maxReachNs = 0;
  for (let b = 0; b < blocks; b++) {
    const begin = slice.begin + b * SLICE_BLOCK;
    const end = Math.min(slice.end, begin + SLICE_BLOCK);
    let c = 0;
    let u0 = 0;
    let v0 = 0;
    let su = 0;
    let sv = 0;
    let suu = 0;
    let suv = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = begin, w = begin * RECORD_WORDS; i < end; i++, w += RECORD_WORDS) {
      const t = deviceTimeOf(map, words[w + RecordWord.DEVICE_CLOCK] as number, words[w + RecordWord.DRAW_ID] as number);
      y[i] = t;
      const v = t - y0;
      const start = unwrapRow(words, x, i, Math.round(cyclesPerNs * v), lo0);
      if (start < minStartCycles) minStartCycles = start;
      const reach = Math.abs(v);
      if (reach > maxReachNs) maxReachNs = reach;
      if (reach > RATE_WINDOW_NS) continue;
      const u = wrapDelta(words[w + RecordWord.CLOCK_END] as number, lo0);
      if (c === 0) {
        u0 = u;
        v0 = v;
      }
      const du = u - u0;
      const dv = v - v0;
      c++;
      su += du;
      sv += dv;
      suu += du * du;
      suv += du * dv;
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
    const o = b * ROUGH_STATS;
    stats[o] = c;
    if (c > 0) {
      stats[o + 1] = u0 + su / c;
      stats[o + 2] = v0 + sv / c;
      stats[o + 3] = suu - (su * su) / c;
      stats[o + 4] = suv - (su * sv) / c;
    }
    stats[o + 5] = lo;
    stats[o + 6] = hi;
  }
  const samples = sortUnwrapped(rows, slice, whole);
  return { stats, samples, minStartCycles, maxReachNs };
}

/**
 * Whether cycles unwrapped at `provisional` ns per cycle are those `rate`
 * gives, over `reachNs` from the SM's first record: both predictions of the
 * wrap count must agree well within half a wrap (2^31 cycles).
 */
export function sameUnwrap(provisional: number, rate: number, reachNs: number): boolean {
  return Math.abs(1 / provisional - 1 / rate) * reachNs < 2 ** 29;
}

/** An SM's rough rate (ns per cycle) from its slices' block sums in row order, or null when they say too little. */
export function roughSlope(slices: readonly Float64Array[]): number | null {
  let n = 0;
  let mu = 0;
  let mv = 0;
  let cuu = 0;
  let cuv = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (const stats of slices) {
    for (let o = 0; o < stats.length; o += ROUGH_STATS) {
      const c = stats[o] as number;
      if (c === 0) continue;
      const total = n + c;
      const du = (stats[o + 1] as number) - mu;
      const dv = (stats[o + 2] as number) - mv;
      // Chan et al.'s pairwise update: exact enough whatever the offsets.
      cuu += (stats[o + 3] as number) + (n === 0 ? 0 : (du * du * n * c) / total);
      cuv += (stats[o + 4] as number) + (n === 0 ? 0 : (du * dv * n * c) / total);
      mu += (du * c) / total;
      mv += (dv * c) / total;
      n = total;
      lo = Math.min(lo, stats[o + 5] as number);
      hi = Math.max(hi, stats[o + 6] as number);
    }
  }
  if (n < MIN_FIT_SAMPLES || hi - lo < MIN_FIT_SPAN_NS || !(cuu > 0)) return null;
  const slope = cuv / cuu;
  return slope > 0 ? slope : null;
}

/**
 * Unwraps a slice's end cycles again with `nsPerCycle` (x, relative to the
 * SM's first record), where measureSlice's provisional rate was too far
 * off, and sorts the slice by them (see measureSlice). Also the slice's
 * smallest start cycle.
 */
export function unwrapSlice(rows: ClockRows, slice: RowSlice, nsPerCycle: number, whole: boolean): { samples: Float64Array | null; minStartCycles: number } {
  const { words, x, y } = rows;
  const groupBegin = rows.groups.offsets[slice.g] as number;
  const y0 = y[groupBegin] as number;
  const lo0 = words[groupBegin * RECORD_WORDS + RecordWord.CLOCK_END] as number;
  const cyclesPerNs = 1 / nsPerCycle;
  let minStartCycles = Infinity;
  for (let i = slice.begin; i < slice.end; i++) {
    const start = unwrapRow(words, x, i, Math.round(cyclesPerNs * ((y[i] as number) - y0)), lo0);
    if (start < minStartCycles) minStartCycles = start;
  }
  return { samples: sortUnwrapped(rows, slice, whole), minStartCycles };
}

/** Sorts a slice by x: into byX/xs/ys when it is its whole group (null), else into the slice scratch (its samples). */
function sortUnwrapped(rows: ClockRows, slice: RowSlice, whole: boolean): Float64Array | null {
  if (!whole) return sortSlice(rows.x, slice.begin, slice.end, rows.sliceRows, rows.sliceKeys);
  sortSlice(rows.x, slice.begin, slice.end, rows.byX, rows.xs);
  fillYs(rows, slice.begin, slice.end);
  return null;
}

/** Merges the part [lo, hi) of a group's x range from its sorted slices into byX/xs/ys. */
export function mergeByX(rows: ClockRows, slices: readonly (readonly [number, number])[], lo: number, hi: number): void {
  const [begin, end] = mergePart(slices, rows.sliceRows, rows.sliceKeys, lo, hi, rows.byX, rows.xs);
  fillYs(rows, begin, end);
}

function fillYs(rows: ClockRows, begin: number, end: number): void {
  const { byX, y, ys } = rows;
  for (let k = begin; k < end; k++) ys[k] = y[byX[k] as number] as number;
}

/**
 * Group g's sorted rows cut into runs past MAX_SEGMENT_NS once they hold
 * MIN_SEGMENT_SAMPLES: bounds[r] is run r's first row, the last entry the
 * group's end.
 */
export function runsOf(rows: ClockRows, g: number, nsPerCycle: number): Uint32Array {
  const xs = rows.xs;
  const from = rows.groups.offsets[g] as number;
  const to = rows.groups.offsets[g + 1] as number;
  const bounds: number[] = [from];
  let begin = from;
  for (;;) {
    // The first row at least MIN_SEGMENT_SAMPLES on that lies past MAX_SEGMENT_NS (xs ascend: a binary search).
    let lo = begin + MIN_SEGMENT_SAMPLES;
    let hi = to;
    const x0 = xs[begin] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (((xs[mid] as number) - x0) * nsPerCycle <= MAX_SEGMENT_NS) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= to) break;
    bounds.push(lo);
    begin = lo;
  }
  // A short tail joins the previous run rather than standing alone.
  if (bounds.length > 1 && to - begin < MIN_SEGMENT_SAMPLES) bounds.pop();
  bounds.push(to);
  return Uint32Array.from(bounds);
}

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
    fitter.seed = seed;
    split({ begin: seg.begin, end: at, own: fitter.fitRange(seg.begin, at) });
    fitter.seed = seed;
    split({ begin: at, end: seg.end, own: fitter.fitRange(at, seg.end) });
  };
  for (const seg of segments) split(seg);
  return out;
}

/** What other SMs need to know about segments of one SM. */
export function summariesOf(rows: ClockRows, segments: readonly Segment[]): SegmentSummary[] {
  const ys = rows.ys;
  return segments.map(({ begin, end, own }) => ({ fromNs: ys[begin] as number, toNs: ys[end - 1] as number, samples: end - begin, own }));
}

/**
 * Each segment's final fit: its slope a precision-weighted mean of its own
 * and the shared estimate (sharedSlope/sharedError from index `first`), the
 * offset from its own samples.
 */
export function offsetSegments(
  rows: ClockRows,
  segments: readonly Segment[],
  first: number,
  sharedSlope: Float64Array,
  sharedError: Float64Array,
  ctx: FitContext,
): PlacedFit[] {
  const { xs, ys } = rows;
  return segments.map(({ begin, end, own }, s) => {
    const shared = sharedSlope[first + s] as number;
    const wShared = 1 / ((sharedError[first + s] as number) ** 2 + (SHARED_SLOPE_FLOOR * shared) ** 2);
    const wOwn = own === null ? 0 : 1 / own.slopeError ** 2;
    const slopeUsed = own === null ? shared : (wOwn * own.line.slope + wShared * shared) / (wOwn + wShared);
    const offset = fitOffset(xs.subarray(begin, end), ys.subarray(begin, end), ctx.band, slopeUsed);
    const fit: SegmentFit = own !== null && wOwn >= wShared ? { ...offset, fit: 'linear', slopeError: own.slopeError } : offset;
    return { fit, reliable: end - begin - fit.late >= Math.max(3, (end - begin) / 2) };
  });
}

/**
 * The line each segment of one SM places its warps with: its own, or, for
 * segments whose samples are nearly all late (an SM's first ~20 µs on the
 * H100 read one later instant, which only bounds the truth from above), the
 * line of the nearest reliable segment of the same SM, following the counter
 * across. borrowed[s] tells which.
 */
export function segmentLines(fits: readonly PlacedFit[]): { lines: Line[]; borrowed: boolean[] } {
  const lines = fits.map((f) => f.fit.line);
  const borrowed = fits.map(() => false);
  fits.forEach((entry, s) => {
    if (entry.reliable) return;
    const donor = nearestReliable(fits, s);
    if (donor === null) return;
    lines[s] = donor;
    borrowed[s] = true;
  });
  return { lines, borrowed };
}

/** Every segment's line and sample span, all SMs in order (segment s: slope, intercept, first x, last x). */
export interface SegmentLines {
  readonly slope: Float64Array;
  readonly intercept: Float64Array;
  readonly firstX: Float64Array;
  readonly lastX: Float64Array;
}

/** What placing a batch of segments found. */
export interface PlacedBatch {
  /** Each segment's [from, to] ns (its first row's start, its last row's end). */
  readonly spans: Float64Array;
  readonly minStartTicks: number;
  /** The first row whose times are out of range (rejectPlacedRow), else −1. */
  readonly badRow: number;
}

/**
 * Places the rows of segments [first, last) of one SM (global segment
 * indices; the SM's are [groupFirst, groupLast)): end ns from the segment's
 * line, start ns from the line in force at the start cycle, quantized to
 * ticks; start cycles counted from the SM's earliest (minStartCycles).
 */
export function placeSegments(
  rows: ClockRows,
  segments: readonly { readonly begin: number; readonly end: number }[],
  first: number,
  groupFirst: number,
  groupLast: number,
  lines: SegmentLines,
  minStartCycles: number,
  out: PlacedRows & { readonly cycleStart: Float64Array },
): PlacedBatch {
  const { xs, byX, words } = rows;
  const { startTicks, durationTicks, cycleStart } = out;
  const spans = new Float64Array(segments.length * 2);
  let minStartTicks = Infinity;
  let badRow = -1;
  segments.forEach(({ begin, end }, j) => {
    const s = first + j;
    const slope = lines.slope[s] as number;
    const intercept = lines.intercept[s] as number;
    const firstX = lines.firstX[s] as number;
    for (let k = begin; k < end; k++) {
      const i = byX[k] as number;
      const x = xs[k] as number;
      const duration = cycleDurationOfRecord(words, i);
      const e = intercept + slope * x;
      // A warp that started before this segment's first end sample started under an earlier line.
      const c = x - duration;
      const at = c >= firstX ? s : lineAt(lines, groupFirst, groupLast, c, s);
      // Lines of neighbouring segments need not meet exactly: never let a start pass its end.
      const start = Math.min((lines.intercept[at] as number) + (lines.slope[at] as number) * c, e);
      if (!placeRow(out, i, start, e) && badRow < 0) badRow = i;
      cycleStart[i] = c - minStartCycles;
      const st = startTicks[i] as number;
      if (st < minStartTicks) minStartTicks = st;
    }
    const firstRow = byX[begin] as number;
    const lastRow = byX[end - 1] as number;
    spans[j * 2] = (startTicks[firstRow] as number) / TICKS_PER_NS;
    spans[j * 2 + 1] = ((startTicks[lastRow] as number) + (durationTicks[lastRow] as number)) / TICKS_PER_NS;
  });
  return { spans, minStartTicks, badRow };
}

/**
 * The segment (of [first, last)) whose samples span x; `fallback` (the
 * warp's own segment) when x falls in an idle gap, where the rate of the
 * coming work is the better guess than extrapolating an earlier one across the gap.
 */
function lineAt(lines: SegmentLines, first: number, last: number, x: number, fallback: number): number {
  let lo = first;
  let hi = last - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lines.firstX[mid] as number) <= x) lo = mid;
    else hi = mid - 1;
  }
  return (lines.firstX[lo] as number) <= x && x <= (lines.lastX[lo] as number) ? lo : fallback;
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
    const suspicious = own !== null && (own.rmsNs > ctx.kinkRmsNs || (own.late >= MIN_FIT_SAMPLES && own.lateSkew > SUSPICIOUS_SKEW));
    if (own !== null && suspicious) {
      let best: { at: number; left: SegmentFit | null; right: SegmentFit | null; late: number; rms: number } | null = null;
      for (const at of this.cutCandidates(begin, end, own.line)) {
        const left = this.fitRange(begin, at);
        const right = this.fitRange(at, end);
        const late = (left?.late ?? 0) + (right?.late ?? 0);
        const rms = Math.max(left?.rmsNs ?? 0, right?.rmsNs ?? 0);
        if (best === null || late + rms < best.late + best.rms) best = { at, left, right, late, rms };
      }
      if (best !== null && (own.rmsNs > ctx.kinkRmsNs || best.late < own.late / 2 || best.rms < own.rmsNs / 2)) {
        this.changes.push(this.ys[best.at] as number);
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
