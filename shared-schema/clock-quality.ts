/**
 * How far a per-SM clock fit can be trusted, measured where it can fail.
 *
 * The fit's own residual is small by construction: samples more than a
 * quantization band above a line are called late and left out. So the
 * quality report also holds the residuals of every sample against the
 * line that placed its warps (late ones included: their RMS, a 99th
 * percentile from a histogram), and a cross-validation whose lines come
 * from disjoint samples: each segment's earlier half of samples against
 * its later half (at the slope the segment used), and consecutive segments
 * of one SM where they meet (one counter runs through both). A line that
 * only fits the samples it kept, a slope the SM's samples contradict, or
 * an offset that jumps between segments shows as a disagreement far above
 * the device clock's step.
 *
 * The per-segment pass runs in the workers (checkSegments, phase 'check');
 * the sums are taken per segment and added in segment order, so one thread
 * and a pool report the same numbers.
 */
import { lateLimitNs, offsetOf, type Band } from './clock-fit.js';
import type { CalibrationQuality, CrossCheck } from './model.js';
import type { SegmentLines } from './segment-lines.js';
import { SEGMENT_GAP_NS, type ClockRows } from './sm-clock.js';

/** Lines fitted on disjoint samples may disagree by this many device-clock steps (or CROSS_CHECK_FLOOR_NS) and pass. */
export const CROSS_CHECK_STEPS = 2;
export const CROSS_CHECK_FLOOR_NS = 16;
/** How far (ns) lines fitted on disjoint samples may disagree and pass, for a device clock of this step. */
export function crossCheckLimitNs(granularityNs: number): number {
  return Math.max(CROSS_CHECK_STEPS * granularityNs, CROSS_CHECK_FLOOR_NS);
}

/** A half needs this many samples that are not late to be fitted. */
const MIN_HALF_SAMPLES = 3;

/** Residual histogram: quarter-ns bins up to 64 ns, then 16 bins per octave (6% wide) up to 2^31 ns. */
const LINEAR_BINS = 256;
const BINS_PER_OCTAVE = 16;
const FIRST_OCTAVE = 6;
export const RESIDUAL_BINS = LINEAR_BINS + (31 - FIRST_OCTAVE) * BINS_PER_OCTAVE;

/** The histogram bin of a residual's magnitude (ns ≥ 0; anything not finite lands in the last). */
export function residualBin(absNs: number): number {
  if (absNs < 64) return Math.floor(absNs * 4);
  const v = absNs < 2 ** 31 ? Math.floor(absNs) : 2 ** 31 - 1;
  const octave = 31 - Math.clz32(v);
  return LINEAR_BINS + (octave - FIRST_OCTAVE) * BINS_PER_OCTAVE + ((v >>> (octave - 4)) & (BINS_PER_OCTAVE - 1));
}

/** The upper edge of a bin, ns (what a quantile read from the histogram reports: never an underestimate). */
export function binUpperNs(bin: number): number {
  if (bin < LINEAR_BINS) return (bin + 1) / 4;
  const octave = FIRST_OCTAVE + ((bin - LINEAR_BINS) >> 4);
  const sub = (bin - LINEAR_BINS) & (BINS_PER_OCTAVE - 1);
  return (BINS_PER_OCTAVE + sub + 1) * 2 ** (octave - 4);
}

/** Per segment, checkSegments' numbers: Σ r² over all samples, samples kept, Σ r² over them, the halves' disagreement (NaN: not checked). */
export const SEGMENT_STATS = 4;

/** What checkSegments found in a batch of segments. */
export interface CheckedBatch {
  /** SEGMENT_STATS numbers per segment of the batch. */
  readonly stats: Float64Array;
  readonly histogram: Uint32Array;
}

/**
 * Residuals of segments [first, first + count) (global indices; their sorted
 * rows given) against the lines that place their warps, and each segment's
 * halves checked against each other. A segment that took another's line
 * (borrowed) keeps no sample: its samples only bound the truth from above.
 */
export function checkSegments(
  rows: ClockRows,
  segments: readonly { readonly begin: number; readonly end: number }[],
  first: number,
  lines: SegmentLines,
  borrowed: Uint8Array,
  band: Band,
): CheckedBatch {
  const { xs, ys } = rows;
  const late = lateLimitNs(band);
  const stats = new Float64Array(segments.length * SEGMENT_STATS);
  const histogram = new Uint32Array(RESIDUAL_BINS);
  segments.forEach(({ begin, end }, j) => {
    const s = first + j;
    const slope = lines.slope[s] as number;
    const intercept = lines.intercept[s] as number;
    const keeps = borrowed[s] === 0;
    let all = 0;
    let kept = 0;
    let keptSq = 0;
    for (let k = begin; k < end; k++) {
      const r = (ys[k] as number) - (intercept + slope * (xs[k] as number));
      const sq = r * r;
      all += sq;
      histogram[residualBin(Math.abs(r))]!++;
      if (keeps && r <= late) {
        kept++;
        keptSq += sq;
      }
    }
    const o = j * SEGMENT_STATS;
    stats[o] = all;
    stats[o + 1] = kept;
    stats[o + 2] = keptSq;
    stats[o + 3] = keeps ? halvesDisagreementNs(xs, ys, begin, end, slope, band) : NaN;
  });
  return { stats, histogram };
}

/**
 * The segment's earlier and later halves of samples, each given its own
 * offset at the segment's slope: how far apart the two lines are (ns), or
 * NaN when a half has too few samples that are not late. A wrong slope
 * shows as the slope error times the distance between the halves.
 */
export function halvesDisagreementNs(xs: Float64Array, ys: Float64Array, begin: number, end: number, slope: number, band: Band): number {
  if (end - begin < 2 * MIN_HALF_SAMPLES) return NaN;
  const mid = begin + ((end - begin) >> 1);
  const earlier = offsetOf(xs.subarray(begin, mid), ys.subarray(begin, mid), band, slope);
  const later = offsetOf(xs.subarray(mid, end), ys.subarray(mid, end), band, slope);
  if (earlier.count < MIN_HALF_SAMPLES || later.count < MIN_HALF_SAMPLES) return NaN;
  return Math.abs(earlier.intercept - later.intercept);
}

/**
 * How far apart two consecutive segments' lines of one SM are where they
 * meet: between the last sample of the earlier and the first of the later
 * (a rate change may fall anywhere in that gap, so lines that cross in it
 * agree), ns; NaN (not checked) across an idle gap longer than
 * SEGMENT_GAP_NS, where the clock may have run at a rate neither line knows.
 */
export function meetingDisagreementNs(lines: SegmentLines, earlier: number, later: number): number {
  const gap = [lines.lastX[earlier] as number, lines.firstX[later] as number];
  if ((gap[1] - gap[0]) * (lines.slope[later] as number) > SEGMENT_GAP_NS) return NaN;
  const [atStart, atEnd] = gap.map(
    (x) => (lines.intercept[earlier] as number) + (lines.slope[earlier] as number) * x - ((lines.intercept[later] as number) + (lines.slope[later] as number) * x),
  ) as [number, number];
  return atStart * atEnd <= 0 ? 0 : Math.min(Math.abs(atStart), Math.abs(atEnd));
}

/**
 * The quality record from every segment's stats (segment order), the
 * summed histogram and each segment's SM, borrowed flag and line.
 */
export function qualityOf(
  stats: Float64Array,
  histogram: Uint32Array,
  segmentSm: Uint16Array,
  borrowed: Uint8Array,
  lines: SegmentLines,
  granularityNs: number,
): CalibrationQuality {
  const segments = segmentSm.length;
  let samples = 0;
  for (let b = 0; b < RESIDUAL_BINS; b++) samples += histogram[b] as number;
  let all = 0;
  let kept = 0;
  let keptSq = 0;
  for (let s = 0; s < segments; s++) {
    all += stats[s * SEGMENT_STATS] as number;
    kept += stats[s * SEGMENT_STATS + 1] as number;
    keptSq += stats[s * SEGMENT_STATS + 2] as number;
  }
  const limitNs = crossCheckLimitNs(granularityNs);
  const check = { limitNs, checks: 0, failed: 0, worstNs: 0, worstSm: null as number | null };
  const record = (ns: number, sm: number) => {
    if (Number.isNaN(ns)) return;
    check.checks++;
    if (!(ns <= limitNs)) check.failed++;
    if (!(ns <= check.worstNs)) {
      check.worstNs = ns;
      check.worstSm = sm;
    }
  };
  // Each segment's halves, then where each SM's consecutive own lines meet (borrowed lines are a neighbour's).
  let previous = -1;
  for (let s = 0; s < segments; s++) {
    const sm = segmentSm[s] as number;
    record(stats[s * SEGMENT_STATS + 3] as number, sm);
    if (previous >= 0 && segmentSm[previous] !== sm) previous = -1;
    if (borrowed[s] !== 0) continue;
    if (previous >= 0) record(meetingDisagreementNs(lines, previous, s), sm);
    previous = s;
  }
  return {
    samples,
    lateSamples: samples - kept,
    keptRmsNs: kept > 0 ? Math.sqrt(keptSq / kept) : 0,
    allRmsNs: samples > 0 ? Math.sqrt(all / samples) : 0,
    allP99Ns: quantileNs(histogram, samples, 0.99),
    crossCheck: check satisfies CrossCheck,
  };
}

/** The upper edge of the bin holding quantile q of `total` counts (0 for none). */
function quantileNs(histogram: Uint32Array, total: number, q: number): number {
  if (total === 0) return 0;
  const rank = Math.ceil(q * total);
  let below = 0;
  for (let b = 0; b < histogram.length; b++) {
    below += histogram[b] as number;
    if (below >= rank) return binUpperNs(b);
  }
  return binUpperNs(histogram.length - 1);
}
