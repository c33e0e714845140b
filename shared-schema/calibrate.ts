/**
 * Clock calibration of raw GPU records (see README.md, "Calibration").
 *
 * SM (subgroup-scope) clocks run per SM with their own offsets, so they are
 * mapped to the device clock with one least-squares line per SM, fitted on
 * every record of that SM. Pure functions over typed arrays, linear time.
 */
import { fitOffset, fitSegment, leastSquares, type SegmentFit } from './clock-fit.js';
import type { Calibration, SmCalibration } from './model.js';
import { groupedOrder } from './sort.js';

/** Records closer than this to the reference record (ns) estimate the clock rate before unwrapping. */
const RATE_WINDOW_NS = 0.25e9;
/** Fewer samples, or a shorter span, and an SM borrows the median slope of the others. */
export const MIN_FIT_SAMPLES = 8;
export const MIN_FIT_SPAN_NS = 2000;
/** Residuals up to max(granularity, this) still count as aligned. */
const ALIGNED_RESIDUAL_NS = 8;
/** An SM idle this long (ns) may come back at another clock rate: where misfit segments are cut first. */
const SEGMENT_GAP_NS = 5000;
/** Segments are cut past this length (ns) so slow rate drift stays within a step... */
const MAX_SEGMENT_NS = 200_000;
/** ...but not before they hold this many samples. */
const MIN_SEGMENT_SAMPLES = 256;
/** How far (relative) one SM's clock rate may differ from the others' at the same moment. */
const SHARED_SLOPE_FLOOR = 5e-6;
/** Idle gaps tried as cut points of a misfit segment, and the quantiles tried in long runs. */
const CUT_GAPS = 4;
/** Samples this far (ns) above a segment's line are left out when locating a rate change. */
const LATE_FOR_CHANGE_POINT_NS = 1000;
/** Late reads bunched at one end of a segment (this skew between its quarters) suggest a rate change. */
const SUSPICIOUS_SKEW = 0.3;
/** Segments with more late reads than this fraction do not vouch for the shared rate. */
const SUSPICIOUS_LATE = 0.2;
/** Residual RMS above this many times the quantization noise marks a rate change inside a segment. */
const KINK_FACTOR = 1.5;
/** Segments this close in time (ns) share their slope estimates. */
const SHARED_WINDOW_NS = 5000;

export type ClockMode = 'per-sm-fit' | 'device-clock' | 'sm-clock-rebased';

export interface RawClocks {
  readonly mode: ClockMode;
  /** SM id of each record (0xffff unknown): records are calibrated per SM. */
  readonly sm: Uint16Array;
  readonly clockStartLo: Uint32Array;
  readonly clockEndLo: Uint32Array;
  /** Device-clock low words (per-sm-fit only). */
  readonly deviceLo: Uint32Array;
  /**
   * Draw of each record, and per draw a device-clock instant within ±2 s of its
   * warps (its begin timestamp): in ticks since the origin, and its low 32 bits.
   */
  readonly draw: Uint32Array;
  readonly drawAnchorRelTicks: Float64Array;
  readonly drawAnchorLo: Uint32Array;
  readonly deviceNsPerTick: number;
  /** Nominal SM clock rate, for sm-clock-rebased (null: 1 cycle = 1 ns). */
  readonly smClockRateHz: number | null;
}

export interface CalibratedTimes {
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  /** SM cycles at start, relative to each SM's first warp (null when no SM clock). */
  readonly cycleStart: Float64Array | null;
  readonly cycleDuration: Uint32Array | null;
  readonly calibration: Calibration;
  /** Step of the device clock found in the samples, ns (null without device clock). */
  readonly deviceClockGranularityNs: number | null;
  /** Mean fitted SM clock rate, Hz (null without a fit). */
  readonly smClockRateHz: number | null;
}

/** Signed difference a − b of two uint32 values, as if they were wrapping counters. */
function wrapDelta(a: number, b: number): number {
  return (a - b) | 0;
}

/**
 * The clock's step, in ticks: the largest power of two (≤ 1024) dividing
 * every sample. Trusted from 16 samples on (random phases all aligning to a
 * coarser step by chance has probability 2^-16).
 */
function granularityTicks(samples: Uint32Array): number {
  if (samples.length < 16) return 1;
  let or = 0;
  for (let i = 0; i < samples.length; i++) or |= samples[i] as number;
  if (or === 0) return 1;
  const lowest = or & -or;
  return Math.min(lowest >>> 0, 1024);
}

interface Groups {
  readonly order: Uint32Array;
  readonly offsets: Uint32Array;
  readonly ids: number[];
}

function groupBySm(sm: Uint16Array): Groups {
  const counts = new Uint32Array(65536);
  for (let i = 0; i < sm.length; i++) counts[sm[i] as number]!++;
  const ids: number[] = [];
  for (let s = 0; s < 65536; s++) if (counts[s] !== 0) ids.push(s);
  const offsets = new Uint32Array(ids.length + 1);
  const cursor = new Uint32Array(65536);
  let total = 0;
  ids.forEach((s, g) => {
    offsets[g] = total;
    cursor[s] = total;
    total += counts[s] as number;
  });
  offsets[ids.length] = total;
  const order = new Uint32Array(sm.length);
  for (let i = 0; i < sm.length; i++) order[cursor[sm[i] as number]!++] = i;
  return { order, offsets, ids };
}

export function calibrate(raw: RawClocks): CalibratedTimes {
  switch (raw.mode) {
    case 'device-clock':
      return calibrateDeviceClock(raw);
    case 'sm-clock-rebased':
      return calibrateRebased(raw);
    case 'per-sm-fit':
      return calibratePerSm(raw);
  }
}

/** Device ns since the origin of a device-clock low word, corrected for the clock's flooring. */
function deviceNs(raw: RawClocks, record: number, lo: number, halfStepTicks: number): number {
  const d = raw.draw[record] as number;
  // The nearest tick count with these low 32 bits to the draw's anchor.
  const ticks = (raw.drawAnchorRelTicks[d] as number) + wrapDelta(lo, raw.drawAnchorLo[d] as number);
  return (ticks + halfStepTicks) * raw.deviceNsPerTick;
}

function calibrateDeviceClock(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  const both = new Uint32Array(n * 2);
  both.set(raw.clockStartLo);
  both.set(raw.clockEndLo, n);
  const step = granularityTicks(both);
  const half = step > 1 ? step / 2 : 0;
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = deviceNs(raw, i, raw.clockStartLo[i] as number, half);
    startNs[i] = s;
    endNs[i] = s + ((((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0) * raw.deviceNsPerTick);
  }
  return {
    startNs,
    endNs,
    cycleStart: null,
    cycleDuration: null,
    calibration: {
      method: 'device-clock',
      alignedAcrossSms: true,
      note: `device clock read at warp start and end (step ${step * raw.deviceNsPerTick} ns): aligned, but durations are quantized to that step`,
      perSm: [],
    },
    deviceClockGranularityNs: step * raw.deviceNsPerTick,
    smClockRateHz: null,
  };
}

function calibrateRebased(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  const { order, offsets, ids } = groupBySm(raw.sm);
  const nsPerCycle = raw.smClockRateHz === null ? 1 : 1e9 / raw.smClockRateHz;
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleStart = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  const perSm: SmCalibration[] = [];
  for (let g = 0; g < ids.length; g++) {
    const rows = order.subarray(offsets[g], offsets[g + 1]);
    const ref = raw.clockStartLo[rows[0] as number] as number;
    let min = Infinity;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k] as number;
      cycleStart[i] = wrapDelta(raw.clockStartLo[i] as number, ref);
      if ((cycleStart[i] as number) < min) min = cycleStart[i] as number;
    }
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k] as number;
      cycleStart[i] = (cycleStart[i] as number) - min;
      cycleDuration[i] = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
      startNs[i] = (cycleStart[i] as number) * nsPerCycle;
      endNs[i] = (startNs[i] as number) + (cycleDuration[i] as number) * nsPerCycle;
    }
    let last = 0;
    for (let k = 0; k < rows.length; k++) last = Math.max(last, endNs[rows[k] as number] as number);
    perSm.push({ sm: ids[g] as number, samples: 0, lateSamples: 0, fit: 'rebased', nsPerCycle, offsetNs: 0, residualRmsNs: 0, residualMaxNs: 0, fromNs: 0, toNs: last });
  }
  const rate = raw.smClockRateHz === null ? 'an assumed 1 GHz (1 cycle = 1 ns)' : `${raw.smClockRateHz} Hz`;
  return {
    startNs,
    endNs,
    cycleStart,
    cycleDuration,
    calibration: {
      method: 'sm-clock-rebased',
      alignedAcrossSms: false,
      note: `no device clock: each SM starts at its own first warp and cycles are converted at ${rate}; SMs are NOT aligned`,
      perSm,
    },
    deviceClockGranularityNs: null,
    smClockRateHz: raw.smClockRateHz,
  };
}

function calibratePerSm(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  const step = granularityTicks(raw.deviceLo);
  const half = step > 1 ? step / 2 : 0;
  const granularityNs = step * raw.deviceNsPerTick;
  // y: device ns of each sample; x: SM end cycles, unwrapped, relative to the SM's first record.
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = deviceNs(raw, i, raw.deviceLo[i] as number, half);
  const x = new Float64Array(n);
  const { order, offsets, ids } = groupBySm(raw.sm);
  const groupRows = (g: number) => order.subarray(offsets[g], offsets[g + 1]);

  // Pass 1: a rough rate per SM from records near its first one (where no wrap
  // can hide), good enough to unwrap 32-bit cycle counts over any capture.
  const rough = ids.map((_, g) => roughSlope(groupRows(g), raw.clockEndLo, x, y));
  const slopes = rough.filter((s): s is number => s !== null);
  const nominalNsPerCycle = raw.smClockRateHz === null ? 1 : 1e9 / raw.smClockRateHz;
  const prior = slopes.length > 0 ? median(slopes) : nominalNsPerCycle;
  for (let g = 0; g < ids.length; g++) unwrapCycles(groupRows(g), raw.clockEndLo, x, y, 1 / (rough[g] ?? prior));

  // Pass 2: per SM, samples in cycle order, cut into segments at idle gaps
  // (the clock rate may change while an SM idles) and past a maximum length
  // (slow drift), each fitted robustly.
  const band = { halfStepNs: half * raw.deviceNsPerTick, cycleNs: prior, toleranceNs: Math.max(4, granularityNs / 8) };
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleStart = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  const perSm: SmCalibration[] = [];
  interface Segment {
    readonly g: number;
    readonly rows: Uint32Array;
    readonly own: SegmentFit | null;
    readonly fromNs: number;
    readonly toNs: number;
  }
  const segments: Segment[] = [];
  const sortedRows: Uint32Array[] = [];
  /** Times (device ns) where a segment was cut because the clock rate changed. */
  const rateChanges: number[] = [];
  const kinkRmsNs = KINK_FACTOR * Math.max(granularityNs / Math.sqrt(12), ALIGNED_RESIDUAL_NS / 2);
  for (let g = 0; g < ids.length; g++) {
    const sorted = sortedByCycles(groupRows(g), x);
    sortedRows.push(sorted);
    let seed = (ids[g] as number) << 12;
    const fitRows = (rows: Uint32Array) =>
      spanNs(rows, x, prior) < MIN_FIT_SPAN_NS ? null : fitSegment(rows, x, y, band, prior, seed++, MIN_FIT_SAMPLES);
    const fitOwn = (rows: Uint32Array, own: SegmentFit | null): void => {
      // A rate change inside the segment shows as residuals well above the
      // quantization noise, or as a run of samples that look late because the
      // line fits the other side of the change. Cut at the longest idle gap
      // (where boost clocks change), else in the middle, and keep the cut when
      // it explains the misfit.
      const suspicious = own !== null && (own.rmsNs > kinkRmsNs || (own.late >= MIN_FIT_SAMPLES && own.lateSkew > SUSPICIOUS_SKEW));
      if (own !== null && suspicious) {
        let best: { at: number; left: SegmentFit | null; right: SegmentFit | null; late: number; rms: number } | null = null;
        for (const at of cutCandidates(rows, x, y, prior, own.line)) {
          const left = fitRows(rows.subarray(0, at));
          const right = fitRows(rows.subarray(at));
          const late = (left?.late ?? 0) + (right?.late ?? 0);
          const rms = Math.max(left?.rmsNs ?? 0, right?.rmsNs ?? 0);
          if (best === null || late + rms < best.late + best.rms) best = { at, left, right, late, rms };
        }
        if (best !== null && (own.rmsNs > kinkRmsNs || best.late < own.late / 2 || best.rms < own.rmsNs / 2)) {
          rateChanges.push(y[rows[best.at] as number] as number);
          fitOwn(rows.subarray(0, best.at), best.left);
          fitOwn(rows.subarray(best.at), best.right);
          return;
        }
      }
      segments.push({ g, rows, own, fromNs: y[rows[0] as number] as number, toNs: y[rows[rows.length - 1] as number] as number });
    };
    for (const rows of segmentsOf(sorted, x, prior)) fitOwn(rows, fitRows(rows));
  }
  // A rate change found on one SM happened on all of them (boost is chip-wide):
  // cut every other segment that spans it, even where too few samples showed it.
  const cutSegments = cutAtRateChanges(segments, rateChanges, y, (rows, g) =>
    spanNs(rows, x, prior) < MIN_FIT_SPAN_NS ? null : fitSegment(rows, x, y, band, prior, ((ids[g] as number) << 12) ^ 0xfff, MIN_FIT_SAMPLES),
  );
  segments.length = 0;
  segments.push(...cutSegments);
  // The SM clocks share one rate at any moment, so a segment with too few
  // samples for a precise slope of its own takes the weighted mean slope of
  // the segments, on every SM, around it in time.
  const shared = sharedSlopes(segments, prior, kinkRmsNs);
  let s = 0;
  for (let g = 0; g < ids.length; g++) {
    const sorted = sortedRows[g] as Uint32Array;
    let minStartCycles = Infinity;
    for (let k = 0; k < sorted.length; k++) {
      const i = sorted[k] as number;
      const duration = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
      cycleDuration[i] = duration;
      cycleStart[i] = (x[i] as number) - duration;
      minStartCycles = Math.min(minStartCycles, cycleStart[i] as number);
    }
    // This SM's lines in cycle order, to map each warp's start with the line in force then.
    const firstX: number[] = [];
    const lastX: number[] = [];
    const lines: { slope: number; intercept: number }[] = [];
    const fitsOfSm: { rows: Uint32Array; fit: SegmentFit; reliable: boolean }[] = [];
    for (; s < segments.length && segments[s]!.g === g; s++) {
      const { rows, own } = segments[s]!;
      // Own and shared slope estimates, weighted by their precision; then the offset from the brackets.
      const sharedSlope = shared.slope[s] as number;
      const wShared = 1 / ((shared.error[s] as number) ** 2 + (SHARED_SLOPE_FLOOR * sharedSlope) ** 2);
      const wOwn = own === null ? 0 : 1 / own.slopeError ** 2;
      const slopeUsed = own === null ? sharedSlope : (wOwn * own.line.slope + wShared * sharedSlope) / (wOwn + wShared);
      const offset = fitOffset(rows, x, y, band, slopeUsed);
      const fit: SegmentFit = own !== null && wOwn >= wShared ? { ...offset, fit: 'linear', slopeError: own.slopeError } : offset;
      firstX.push(x[rows[0] as number] as number);
      lastX.push(x[rows[rows.length - 1] as number] as number);
      lines.push(fit.line);
      fitsOfSm.push({ rows, fit, reliable: rows.length - fit.late >= Math.max(3, rows.length / 2) });
    }
    // Segments whose samples are nearly all late (an SM's first ~20 µs on the H100
    // read one later instant) only bound the truth from above: they take the line
    // of the nearest reliable segment of the same SM, following the counter across.
    fitsOfSm.forEach((entry, k) => {
      if (entry.reliable) return;
      const donor = nearestReliable(fitsOfSm, k);
      if (donor !== null) lines[k] = donor;
    });
    fitsOfSm.forEach(({ rows, fit }, k) => {
      const line = lines[k] as { slope: number; intercept: number };
      for (let j = 0; j < rows.length; j++) {
        const i = rows[j] as number;
        endNs[i] = line.intercept + line.slope * (x[i] as number);
        // A warp that started before this segment's first end sample started under an earlier line.
        const startLine = (cycleStart[i] as number) >= (firstX[k] as number) ? line : lineAt(firstX, lastX, lines, cycleStart[i] as number, line);
        // Lines of neighbouring segments need not meet exactly: never let a start pass its end.
        startNs[i] = Math.min(startLine.intercept + startLine.slope * (cycleStart[i] as number), endNs[i] as number);
      }
      const borrowed = line !== fit.line;
      perSm.push({
        sm: ids[g] as number,
        samples: rows.length,
        lateSamples: borrowed ? rows.length : fit.late,
        fit: borrowed ? 'offset-only' : fit.fit,
        nsPerCycle: line.slope,
        offsetNs: line.intercept + line.slope * minStartCycles,
        residualRmsNs: borrowed ? 0 : fit.rmsNs,
        residualMaxNs: borrowed ? 0 : fit.maxAbsNs,
        fromNs: startNs[rows[0] as number] as number,
        toNs: endNs[rows[rows.length - 1] as number] as number,
      });
    });
    for (let k = 0; k < sorted.length; k++) cycleStart[sorted[k] as number] = (cycleStart[sorted[k] as number] as number) - minStartCycles;
  }
  const limit = Math.max(granularityNs, ALIGNED_RESIDUAL_NS);
  const worstRms = perSm.reduce((m, c) => Math.max(m, c.residualRmsNs), 0);
  const aligned = slopes.length > 0 && perSm.every((c) => c.residualRmsNs <= limit);
  const late = perSm.reduce((sum, c) => sum + c.lateSamples, 0);
  const borrowed = perSm.filter((c) => c.fit !== 'linear').length;
  const note =
    `per-SM fit of SM cycles to the device clock (step ${granularityNs} ns) in ${perSm.length} segments; worst residual RMS ${worstRms.toFixed(2)} ns` +
    (late > 0 ? `; ${late} late device-clock reads left out` : '') +
    (borrowed > 0 ? `; ${borrowed} segment(s) mostly take the clock rate the other SMs show at that time` : '') +
    (slopes.length === 0 ? `; no SM had enough samples for a slope, ${raw.smClockRateHz === null ? '1 cycle = 1 ns assumed' : 'nominal rate used'}` : '') +
    (aligned ? '' : '; residuals exceed the clock step, so cross-SM alignment is NOT trustworthy');
  return {
    startNs,
    endNs,
    cycleStart,
    cycleDuration,
    calibration: { method: 'per-sm-fit', alignedAcrossSms: aligned, note, perSm },
    deviceClockGranularityNs: granularityNs,
    smClockRateHz: 1e9 / prior,
  };
}

/** ns per cycle from the records within RATE_WINDOW_NS of the group's first record, or null. */
function roughSlope(rows: Uint32Array, endLo: Uint32Array, x: Float64Array, y: Float64Array): number | null {
  const r0 = rows[0] as number;
  const near = new Uint32Array(rows.length);
  let count = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k] as number;
    if (Math.abs((y[i] as number) - (y[r0] as number)) > RATE_WINDOW_NS) continue;
    near[count++] = i;
    x[i] = wrapDelta(endLo[i] as number, endLo[r0] as number);
    lo = Math.min(lo, y[i] as number);
    hi = Math.max(hi, y[i] as number);
  }
  if (count < MIN_FIT_SAMPLES || hi - lo < MIN_FIT_SPAN_NS) return null;
  const line = leastSquares(near.subarray(0, count), x, y);
  return line !== null && line.slope > 0 ? line.slope : null;
}

/** x[i] = end cycles relative to the group's first record, unwrapped with the rate's prediction. */
function unwrapCycles(rows: Uint32Array, endLo: Uint32Array, x: Float64Array, y: Float64Array, cyclesPerNs: number): void {
  const r0 = rows[0] as number;
  const lo0 = endLo[r0] as number;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k] as number;
    const predicted = Math.round(cyclesPerNs * ((y[i] as number) - (y[r0] as number)));
    x[i] = predicted + wrapDelta(endLo[i] as number, (lo0 + predicted) >>> 0);
  }
}

/** The group's rows sorted by x (integers), with a linear-time radix sort. */
function sortedByCycles(rows: Uint32Array, x: Float64Array): Uint32Array {
  let min = Infinity;
  for (let k = 0; k < rows.length; k++) min = Math.min(min, x[rows[k] as number] as number);
  const keys = new Float64Array(rows.length);
  for (let k = 0; k < rows.length; k++) keys[k] = (x[rows[k] as number] as number) - min;
  const { order } = groupedOrder(new Uint8Array(rows.length), keys);
  return order === null ? rows.slice() : order.map((k) => rows[k] as number);
}

/** Cuts rows (sorted by x) past the maximum segment length, once a segment holds enough samples. */
function segmentsOf(sorted: Uint32Array, x: Float64Array, nsPerCycle: number): Uint32Array[] {
  const segments: Uint32Array[] = [];
  let begin = 0;
  for (let k = 1; k <= sorted.length; k++) {
    if (k < sorted.length) {
      const length = ((x[sorted[k] as number] as number) - (x[sorted[begin] as number] as number)) * nsPerCycle;
      if (length <= MAX_SEGMENT_NS || k - begin < MIN_SEGMENT_SAMPLES) continue;
    }
    if (k === sorted.length && segments.length > 0 && k - begin < MIN_SEGMENT_SAMPLES) {
      // A short tail joins the previous segment rather than standing alone.
      const previous = segments.pop() as Uint32Array;
      segments.push(sorted.subarray(previous.byteOffset / 4 - sorted.byteOffset / 4, k));
    } else {
      segments.push(sorted.subarray(begin, k));
    }
    begin = k;
  }
  return segments;
}

/** The line of the closest reliable segment, the following one first (null when none). */
function nearestReliable(fits: readonly { fit: SegmentFit; reliable: boolean }[], k: number): { slope: number; intercept: number } | null {
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
function lineAt(
  firstX: readonly number[],
  lastX: readonly number[],
  lines: readonly { slope: number; intercept: number }[],
  x: number,
  fallback: { slope: number; intercept: number },
): { slope: number; intercept: number } {
  let lo = 0;
  let hi = firstX.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((firstX[mid] as number) <= x) lo = mid;
    else hi = mid - 1;
  }
  return (firstX[lo] as number) <= x && x <= (lastX[lo] as number) ? (lines[lo] as { slope: number; intercept: number }) : fallback;
}

/** Margin (ns) within which a segment's end counts as already at a rate change. */
const RATE_CHANGE_MARGIN_NS = 1000;

/** Splits segments that span one of the rate-change times, refitting both sides. */
function cutAtRateChanges<S extends { g: number; rows: Uint32Array; own: SegmentFit | null; fromNs: number; toNs: number }>(
  segments: readonly S[],
  changes: readonly number[],
  y: Float64Array,
  fit: (rows: Uint32Array, g: number) => SegmentFit | null,
): S[] {
  if (changes.length === 0) return [...segments];
  const times = [...changes].sort((a, b) => a - b);
  const out: S[] = [];
  const split = (seg: S): void => {
    const t = times.find((c) => c > seg.fromNs + RATE_CHANGE_MARGIN_NS && c < seg.toNs - RATE_CHANGE_MARGIN_NS);
    if (t === undefined) {
      out.push(seg);
      return;
    }
    let at = 0;
    while (at < seg.rows.length && (y[seg.rows[at] as number] as number) < t) at++;
    if (at === 0 || at === seg.rows.length) {
      out.push(seg);
      return;
    }
    const left = seg.rows.subarray(0, at);
    const right = seg.rows.subarray(at);
    const side = (rows: Uint32Array): S => ({ ...seg, rows, own: fit(rows, seg.g), fromNs: y[rows[0] as number] as number, toNs: y[rows[rows.length - 1] as number] as number });
    split(side(left));
    split(side(right));
  };
  for (const seg of segments) split(seg);
  return out;
}

/**
 * Where to try cutting a misfit segment (rows sorted by x): after its longest
 * idle gaps (over SEGMENT_GAP_NS, where boost clocks change), and where two
 * least-squares lines fit best (the optimal single change point, found in one
 * pass with prefix sums; samples far above the segment's line, late reads,
 * are left out of the sums).
 */
function cutCandidates(rows: Uint32Array, x: Float64Array, y: Float64Array, nsPerCycle: number, line: { slope: number; intercept: number }): number[] {
  const gaps: { at: number; ns: number }[] = [];
  for (let k = 1; k < rows.length; k++) {
    const ns = ((x[rows[k] as number] as number) - (x[rows[k - 1] as number] as number)) * nsPerCycle;
    if (ns > SEGMENT_GAP_NS) gaps.push({ at: k, ns });
  }
  const cuts = gaps.sort((a, b) => b.ns - a.ns).slice(0, CUT_GAPS).map((g) => g.at);
  const best = bestChangePoint(rows, x, y, line);
  if (best !== null && !cuts.includes(best)) cuts.push(best);
  return cuts;
}

/** The cut index minimizing the squared residuals of a line on each side (null when too few samples). */
function bestChangePoint(rows: Uint32Array, x: Float64Array, y: Float64Array, line: { slope: number; intercept: number }): number | null {
  const n = rows.length;
  if (n < 2 * MIN_FIT_SAMPLES) return null;
  // Sums of u = x − x0, v = y − line(x) (residuals: small numbers keep the sums exact).
  const x0 = x[rows[0] as number] as number;
  const sums = new Float64Array((n + 1) * 6);
  for (let k = 0; k < n; k++) {
    const i = rows[k] as number;
    const u = (x[i] as number) - x0;
    const v = (y[i] as number) - (line.intercept + line.slope * (x[i] as number));
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

function spanNs(rows: Uint32Array, x: Float64Array, nsPerCycle: number): number {
  return ((x[rows[rows.length - 1] as number] as number) - (x[rows[0] as number] as number)) * nsPerCycle;
}

/**
 * For each segment, the inverse-variance weighted mean of the fitted slopes of
 * the other segments, on every SM, overlapping it (± SHARED_WINDOW_NS), and
 * its standard error; the prior (with an infinite error) where none do.
 */
function sharedSlopes(
  segments: readonly { own: SegmentFit | null; rows: Uint32Array; fromNs: number; toNs: number }[],
  prior: number,
  kinkRmsNs: number,
): { slope: Float64Array; error: Float64Array } {
  const fitted = segments
    .map((seg, index) => ({ seg, index, rows: seg.rows.length }))
    // Only clean fits vouch for the rate: few late reads, residuals at the noise level.
    .filter(({ seg, rows }) => seg.own !== null && Number.isFinite(seg.own.slopeError) && seg.own.slopeError > 0 && seg.own.late <= SUSPICIOUS_LATE * rows && seg.own.lateSkew <= SUSPICIOUS_SKEW && seg.own.rmsNs <= kinkRmsNs)
    .sort((a, b) => a.seg.fromNs - b.seg.fromNs);
  const froms = Float64Array.from(fitted, ({ seg }) => seg.fromNs);
  const slope = new Float64Array(segments.length);
  const error = new Float64Array(segments.length);
  segments.forEach((seg, k) => {
    const lo = seg.fromNs - SHARED_WINDOW_NS - MAX_SEGMENT_NS;
    const hi = seg.toNs + SHARED_WINDOW_NS;
    let first = 0;
    let last = froms.length;
    while (first < last) {
      const mid = (first + last) >> 1;
      if ((froms[mid] as number) < lo) first = mid + 1;
      else last = mid;
    }
    let sw = 0;
    let sws = 0;
    // Neighbours merely near in time count only when nothing overlaps (the rate may have changed in between).
    let overlapsAny = false;
    for (let j = first; j < fitted.length && (froms[j] as number) <= seg.toNs; j++) {
      const other = fitted[j]!;
      if (other.index !== k && other.seg.toNs > seg.fromNs) overlapsAny = true;
    }
    for (let j = first; j < fitted.length && (froms[j] as number) <= hi; j++) {
      const other = fitted[j]!;
      if (other.index === k || other.seg.toNs < seg.fromNs - SHARED_WINDOW_NS) continue;
      const fit = other.seg.own as SegmentFit;
      // Weighted by how much of the other segment lies in this one's time: the rate can change.
      const overlap = Math.min(other.seg.toNs, seg.toNs + SHARED_WINDOW_NS) - Math.max(other.seg.fromNs, seg.fromNs - SHARED_WINDOW_NS);
      const strict = Math.min(other.seg.toNs, seg.toNs) - Math.max(other.seg.fromNs, seg.fromNs);
      if (strict <= 0 && overlapsAny) continue;
      if (overlap <= 0) continue;
      const w = Math.min(1, overlap / Math.max(1, other.seg.toNs - other.seg.fromNs)) / fit.slopeError ** 2;
      sw += w;
      sws += w * fit.line.slope;
    }
    slope[k] = sw > 0 ? sws / sw : prior;
    error[k] = sw > 0 ? 1 / Math.sqrt(sw) : Infinity;
  });
  return { slope, error };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
