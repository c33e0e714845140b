/**
 * Binned occupancy (warps in flight) on a set of SMs, for the stall detector.
 * Each bin holds the exact integral of warps in flight over it, so a bin's
 * value is the time-weighted mean occupancy within it. Two profiles share one
 * grid of bins: every warp on the SMs (what the hardware held), and per draw
 * only that draw's warps (what the draw's own work reached). Both are O(warps
 * on the SMs + bins covered).
 */
import type { Trace } from '../shared-schema/model.js';
import type { DrawSpans } from './draw-overlap.js';

/** Bins of `binNs` from `originNs`; the last one is cut at `endNs`. */
export interface BinGrid {
  readonly originNs: number;
  readonly endNs: number;
  readonly binNs: number;
  readonly bins: number;
}

export function binGrid(originNs: number, endNs: number, binNs: number): BinGrid {
  return { originNs, endNs, binNs, bins: Math.max(1, Math.ceil((endNs - originNs) / binNs)) };
}

export interface OccupancyProfile {
  readonly grid: BinGrid;
  /** Time-weighted mean warps in flight per bin. */
  readonly occupancy: Float64Array;
  /** Width of each bin, ns (the last one is cut at the grid's end). */
  readonly width: Float64Array;
  /** Prefix sums of warp-time: warpTime[b] = warp-time in bins 0..b-1. */
  readonly warpTime: Float64Array;
}

/** Bin index of time `t` (clamped to the grid). */
export function binOf(grid: BinGrid, t: number): number {
  return Math.min(grid.bins - 1, Math.max(0, Math.floor((t - grid.originNs) / grid.binNs)));
}

/**
 * ∫ over [a, b) of a per-bin rate, given the prefix sums of rate × width over whole bins
 * (prefix[k] = sum over bins before k; only the entries from binOf(a) to binOf(b) are read).
 */
export function integrateBins(grid: BinGrid, a: number, b: number, prefix: Float64Array, rate: (bin: number) => number): number {
  const ra = a - grid.originNs;
  const rb = b - grid.originNs;
  const ba = binOf(grid, a);
  const bb = binOf(grid, b);
  if (ba === bb) return rate(ba) * (rb - ra);
  const head = rate(ba) * ((ba + 1) * grid.binNs - ra);
  const tail = rate(bb) * (rb - bb * grid.binNs);
  return head + (prefix[bb]! - prefix[ba + 1]!) + tail;
}

/**
 * Adds warp [a, b) (times relative to the grid origin, clipped to it) to the
 * partial-bin and whole-bin-difference accumulators.
 */
function addWarp(grid: BinGrid, partial: Float64Array, fullDiff: Float64Array, a: number, b: number): void {
  const span = grid.endNs - grid.originNs;
  if (a < 0) a = 0;
  if (b > span) b = span;
  if (!(b > a)) return;
  const binNs = grid.binNs;
  // Spare bins past the end take warps rounding onto the grid's end; folded back by the caller.
  const ba = Math.floor(a / binNs);
  const bb = Math.floor(b / binNs);
  if (ba === bb) {
    partial[ba]! += b - a;
  } else {
    partial[ba]! += (ba + 1) * binNs - a;
    partial[bb]! += b - bb * binNs;
    fullDiff[ba + 1]! += 1;
    fullDiff[bb]! -= 1;
  }
}

function binWidth(grid: BinGrid, b: number): number {
  return b < grid.bins - 1 ? grid.binNs : Math.max(1e-9, grid.endNs - grid.originNs - (grid.bins - 1) * grid.binNs);
}

/** Every warp on the SM groups in `groups` (indices into warps.smGroups), binned. */
export function occupancyProfile(trace: Trace, groups: readonly number[], grid: BinGrid): OccupancyProfile {
  const { bins, binNs, originNs } = grid;
  const partial = new Float64Array(bins + 2);
  const fullDiff = new Float64Array(bins + 2);
  const { startNs, durationNs } = trace.warps;
  const { offsets } = trace.warps.smGroups;
  for (const g of groups) {
    for (let i = offsets[g]!, last = offsets[g + 1]!; i < last; i++) {
      const a = startNs[i]! - originNs;
      addWarp(grid, partial, fullDiff, a, a + durationNs[i]!);
    }
  }
  partial[bins - 1]! += partial[bins]! + partial[bins + 1]!;
  const width = new Float64Array(bins);
  const occupancy = new Float64Array(bins);
  const warpTime = new Float64Array(bins + 1);
  let full = 0;
  for (let b = 0; b < bins; b++) {
    full += fullDiff[b]!;
    width[b] = binWidth(grid, b);
    const time = partial[b]! + full * binNs;
    occupancy[b] = time / width[b]!;
    warpTime[b + 1] = warpTime[b]! + time;
  }
  return { grid, occupancy, width, warpTime };
}

/**
 * Per draw of `draws`: the highest bin occupancy of that draw's own warps on
 * the SM groups `groups`, on `grid` (which must cover the draws' spans).
 * A draw's warps start within its span, so per SM a binary search finds the
 * rows to look at; when those ranges add up to more than the rows on the SMs
 * (many long, overlapping draws), the rows are bucketed by draw once instead.
 * Each draw then costs its rows plus the bins of its span.
 */
export function drawPeaks(
  trace: Trace,
  groups: readonly number[],
  grid: BinGrid,
  draws: readonly number[],
  spans: DrawSpans,
  /** How rows are found; 'auto' picks the cheaper (the others are for tests). */
  method: 'auto' | 'search' | 'bucket' = 'auto',
): Float64Array {
  const w = trace.warps;
  const { offsets } = w.smGroups;
  let search = method === 'search';
  if (method === 'auto') {
    let setRows = 0;
    let scanRows = 0;
    for (const g of groups) setRows += offsets[g + 1]! - offsets[g]!;
    for (const d of draws) for (const g of groups) scanRows += startRange(trace, g, spans.firstStart[d]!, spans.lastEnd[d]!).count;
    search = scanRows <= setRows;
  }
  const rowsOf = search ? rowsBySearch(trace, groups, draws, spans) : rowsByBucket(trace, groups, draws);

  const { bins, binNs, originNs } = grid;
  const partial = new Float64Array(bins + 2);
  const fullDiff = new Float64Array(bins + 2);
  const peaks = new Float64Array(draws.length);
  for (let j = 0; j < draws.length; j++) {
    const d = draws[j]!;
    const first = binOf(grid, spans.firstStart[d]!);
    const last = Math.min(bins + 1, binOf(grid, spans.lastEnd[d]!) + 2);
    rowsOf(j, (i) => {
      const a = w.startNs[i]! - originNs;
      addWarp(grid, partial, fullDiff, a, a + w.durationNs[i]!);
    });
    if (last >= bins) {
      partial[bins - 1]! += partial[bins]! + partial[bins + 1]!;
      partial[bins] = partial[bins + 1] = 0;
    }
    let full = 0;
    let peak = 0;
    for (let b = first; b < Math.min(last, bins); b++) {
      full += fullDiff[b]!;
      const occupancy = (partial[b]! + full * binNs) / binWidth(grid, b);
      if (occupancy > peak) peak = occupancy;
    }
    peaks[j] = peak;
    partial.fill(0, first, last + 1);
    fullDiff.fill(0, first, last + 1);
  }
  return peaks;
}

type RowsOf = (slot: number, visit: (row: number) => void) => void;

/** Rows of SM group g starting in [from, to]: [begin, begin + count). */
function startRange(trace: Trace, g: number, from: number, to: number): { begin: number; count: number } {
  const { startNs } = trace.warps;
  const { offsets } = trace.warps.smGroups;
  const lowerBound = (t: number, strict: boolean) => {
    let lo = offsets[g]!;
    let hi = offsets[g + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (strict ? startNs[mid]! <= t : startNs[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const begin = lowerBound(from, false);
  return { begin, count: lowerBound(to, true) - begin };
}

function rowsBySearch(trace: Trace, groups: readonly number[], draws: readonly number[], spans: DrawSpans): RowsOf {
  const { draw } = trace.warps;
  return (j, visit) => {
    const d = draws[j]!;
    for (const g of groups) {
      const { begin, count } = startRange(trace, g, spans.firstStart[d]!, spans.lastEnd[d]!);
      for (let i = begin; i < begin + count; i++) if (draw[i] === d) visit(i);
    }
  };
}

function rowsByBucket(trace: Trace, groups: readonly number[], draws: readonly number[]): RowsOf {
  const w = trace.warps;
  const { offsets } = w.smGroups;
  const slotOf = new Int32Array(trace.draws.length).fill(-1);
  draws.forEach((d, j) => (slotOf[d] = j));
  const begin = new Uint32Array(draws.length + 1);
  for (const g of groups) {
    for (let i = offsets[g]!, last = offsets[g + 1]!; i < last; i++) {
      const slot = slotOf[w.draw[i]!]!;
      if (slot >= 0) begin[slot + 1]!++;
    }
  }
  for (let j = 0; j < draws.length; j++) begin[j + 1]! += begin[j]!;
  const cursor = begin.slice(0, draws.length);
  const rows = new Uint32Array(begin[draws.length]!);
  for (const g of groups) {
    for (let i = offsets[g]!, last = offsets[g + 1]!; i < last; i++) {
      const slot = slotOf[w.draw[i]!]!;
      if (slot >= 0) rows[cursor[slot]!++] = i;
    }
  }
  return (j, visit) => {
    for (let k = begin[j]!; k < begin[j + 1]!; k++) visit(rows[k]!);
  };
}
