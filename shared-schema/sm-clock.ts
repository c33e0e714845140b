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
import { fitOffset, type Band, type SegmentFit } from './clock-fit.js';
import { drawTicksOf, type DrawClockAnchors } from './device-unwrap.js';
import type { SmGroups } from './model.js';
import { cycleDurationOfRecord } from './raw-canonical.js';
import { RECORD_WORDS, RecordWord } from './raw-layout.js';
import { mergePart, sortSlice } from './row-sort.js';
import { SLICE_BLOCK, type RowSlice } from './row-tasks.js';

/** Records closer than this to the reference record (ns) estimate the clock rate before unwrapping. */
const RATE_WINDOW_NS = 0.25e9;
/** Fewer samples, or a shorter span, and a segment has no slope of its own. */
export const MIN_FIT_SAMPLES = 8;
export const MIN_FIT_SPAN_NS = 2000;
/** An SM idle this long (ns) may come back at another clock rate: where misfit segments are cut first. */
export const SEGMENT_GAP_NS = 5000;
/** Segments are cut past this length (ns) so slow rate drift stays within a step... */
export const MAX_SEGMENT_NS = 200_000;
/** ...but not before they hold this many samples. */
export const MIN_SEGMENT_SAMPLES = 256;
/** How far (relative) one SM's clock rate may differ from the others' at the same moment. */
const SHARED_SLOPE_FLOOR = 5e-6;
/** Numbers per block in measureSlice's rough-rate sums. */
const ROUGH_STATS = 7;

/** Where device-clock low words are unwrapped and how they become ns (shared by all SMs). */
export interface DeviceClockMap extends DrawClockAnchors {
  /** Each SM-major row's device ticks, unwrapped in file order (device-unwrap.ts), when the capture is too long to unwrap rows on their own; else null. */
  readonly rowTicks: Float64Array | null;
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
  /** How far lines fitted on disjoint samples may disagree, ns (clock-quality.ts). */
  readonly crossCheckLimitNs: number;
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

/** Device ticks since the origin of SM-major row `row`, whose device word is lo (device-unwrap.ts). */
export function deviceTicksOf(map: DeviceClockMap, lo: number, draw: number, row: number): number {
  return map.rowTicks !== null ? (map.rowTicks[row] as number) : drawTicksOf(map, lo, draw);
}

function deviceTimeOf(map: DeviceClockMap, lo: number, draw: number, row: number): number {
  return (deviceTicksOf(map, lo, draw, row) + map.halfStepTicks) * map.deviceNsPerTick;
}

/** Device ns since the origin of the device-clock low words of SM-major rows firstRow, firstRow + 1, … */
export function deviceTimes(map: DeviceClockMap, lo: Uint32Array, draw: Uint32Array, out: Float64Array, firstRow = 0): Float64Array {
  for (let i = 0; i < lo.length; i++) out[i] = deviceTimeOf(map, lo[i] as number, draw[i] as number, firstRow + i);
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
  const y0 = deviceTimeOf(map, words[first + RecordWord.DEVICE_CLOCK] as number, words[first + RecordWord.DRAW_ID] as number, first / RECORD_WORDS);
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
      const t = deviceTimeOf(map, words[w + RecordWord.DEVICE_CLOCK] as number, words[w + RecordWord.DRAW_ID] as number, i);
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
  return roughFit(slices)?.slope ?? null;
}

/** An SM's rough rate and its weight (Σ(u−ū)², the precision of a least-squares slope), or null. */
export interface RoughFit {
  readonly slope: number;
  readonly weight: number;
}

/** roughSlope with its weight (see RoughFit). */
export function roughFit(slices: readonly Float64Array[]): RoughFit | null {
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
  return slope > 0 ? { slope, weight: cuu } : null;
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
 * The direction of group g's clock against the device clock: its samples in
 * cycle order, each paired with the one half the samples later, and how
 * many of those pairs go back in device time by more than `marginNs`. A
 * forward clock's pairs only do where the earlier read came back late; a
 * clock running backwards (or words that are no clock) does it in most.
 */
export function clockDirection(rows: ClockRows, g: number, marginNs: number): { pairs: number; backwards: number } {
  const ys = rows.ys;
  const from = rows.groups.offsets[g] as number;
  const half = ((rows.groups.offsets[g + 1] as number) - from) >> 1;
  let backwards = 0;
  for (let k = from; k < from + half; k++) if ((ys[k + half] as number) < (ys[k] as number) - marginNs) backwards++;
  return { pairs: half, backwards };
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

/** What other SMs need to know about segments of one SM. */
export function summariesOf(rows: ClockRows, segments: readonly Segment[]): SegmentSummary[] {
  return segments.map(({ begin, end, own }) => ({ ...sampleSpanNs(rows.ys, begin, end), samples: end - begin, own }));
}

/** Samples a span's ends are taken over (sampleSpanNs). */
const SPAN_END_SAMPLES = 8;

/**
 * The device time samples [begin, end) (in cycle order) cover, robust to
 * late reads, which only push a sample up: from the earliest of the first
 * few samples, to the earliest of the last few (a late first or last read
 * would move a span by up to tens of µs, even turn it around). A few
 * samples each, so summaries stay per segment, not per sample.
 */
export function sampleSpanNs(ys: Float64Array, begin: number, end: number): { fromNs: number; toNs: number } {
  let fromNs = Infinity;
  for (let k = begin; k < Math.min(end, begin + SPAN_END_SAMPLES); k++) fromNs = Math.min(fromNs, ys[k] as number);
  let toNs = Infinity;
  for (let k = Math.max(begin, end - SPAN_END_SAMPLES); k < end; k++) toNs = Math.min(toNs, ys[k] as number);
  return { fromNs, toNs: Math.max(fromNs, toNs) };
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
