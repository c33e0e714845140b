/**
 * Clock calibration of raw GPU records (see README.md, "Calibration").
 *
 * Records come grouped by SM (SM-major columns). SM (subgroup-scope) clocks
 * run per SM with their own offsets, so each SM's cycles are mapped to the
 * device clock by robust line segments (sm-clock.ts), in phases with a
 * pooling step between them; the pooling functions here are shared by the
 * one-thread path below and the worker pool (parallel-convert.ts).
 */
import type { Band } from './clock-fit.js';
import type { Calibration, SmCalibration, SmGroups } from './model.js';
import { runPhases, type PhaseProgram } from './phase-worker.js';
import { gather, groupedOrder } from './sort.js';
import { plainColumns, type ColumnAllocator } from './raw-canonical.js';
import { SUSPICIOUS_SKEW, MAX_SEGMENT_NS, deviceTimes, wrapDelta, type DeviceClockMap, type FitContext, type SegmentSummary } from './sm-clock.js';

/** Residuals up to max(granularity, this) still count as aligned. */
const ALIGNED_RESIDUAL_NS = 8;
/** Segments with more late reads than this fraction do not vouch for the shared rate. */
const SUSPICIOUS_LATE = 0.2;
/** Residual RMS above this many times the quantization noise marks a rate change inside a segment. */
const KINK_FACTOR = 1.5;
/** Segments this close in time (ns) share their slope estimates. */
const SHARED_WINDOW_NS = 5000;

export type ClockMode = 'per-sm-fit' | 'device-clock' | 'sm-clock-rebased';

export interface GroupedClocks {
  readonly mode: ClockMode;
  readonly groups: SmGroups;
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
  /** Nominal SM clock rate (null: unknown; 1 cycle = 1 ns where a rate is needed). */
  readonly smClockRateHz: number | null;
}

/** The input of calibrate: records in any order, with their SM ids. */
export interface RawClocks extends Omit<GroupedClocks, 'groups'> {
  /** SM id of each record (0xffff unknown): records are calibrated per SM. */
  readonly sm: Uint16Array;
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

/**
 * The clock's step, in ticks, from the OR of all samples: the largest power of
 * two (≤ 1024) dividing every sample. Trusted from 16 samples on (random phases
 * all aligning to a coarser step by chance has probability 2^-16).
 */
export function granularityTicks(orOfSamples: number, samples: number): number {
  if (samples < 16 || orOfSamples === 0) return 1;
  const lowest = orOfSamples & -orOfSamples;
  return Math.min(lowest >>> 0, 1024);
}

function orOf(values: Uint32Array): number {
  let or = 0;
  for (let i = 0; i < values.length; i++) or |= values[i] as number;
  return or;
}

/** Calibrates records in any order (grouped by SM here, results in input order). */
export function calibrate(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  // Stable grouping by SM (all keys equal): null when the records already are.
  const { order, groupKeys, offsets } = groupedOrder(raw.sm, new Float64Array(n));
  const take = (column: Uint32Array) => (order === null ? column : gather(column, order, new Uint32Array(n)));
  const grouped = calibrateGrouped({
    ...raw,
    groups: { sm: groupKeys, offsets },
    clockStartLo: take(raw.clockStartLo),
    clockEndLo: take(raw.clockEndLo),
    deviceLo: raw.mode === 'per-sm-fit' ? take(raw.deviceLo) : raw.deviceLo,
    draw: take(raw.draw),
  });
  if (order === null) return grouped;
  const back = <T extends Float64Array | Uint32Array>(column: T, out: T): T => {
    for (let k = 0; k < n; k++) out[order[k] as number] = column[k] as number;
    return out;
  };
  return {
    ...grouped,
    startNs: back(grouped.startNs, new Float64Array(n)),
    endNs: back(grouped.endNs, new Float64Array(n)),
    cycleStart: grouped.cycleStart === null ? null : back(grouped.cycleStart, new Float64Array(n)),
    cycleDuration: grouped.cycleDuration === null ? null : back(grouped.cycleDuration, new Uint32Array(n)),
  };
}

/** Calibrates SM-major records; the times come back in the same row order. */
export function calibrateGrouped(raw: GroupedClocks): CalibratedTimes {
  switch (raw.mode) {
    case 'device-clock':
      return calibrateDeviceClock(raw);
    case 'sm-clock-rebased':
      return calibrateRebased(raw);
    case 'per-sm-fit':
      return calibratePerSm(raw);
  }
}

function calibrateDeviceClock(raw: GroupedClocks): CalibratedTimes {
  const n = raw.clockStartLo.length;
  const step = granularityTicks(orOf(raw.clockStartLo) | orOf(raw.clockEndLo), 2 * n);
  const map: DeviceClockMap = { ...raw, halfStepTicks: step > 1 ? step / 2 : 0 };
  const startNs = deviceTimes(map, raw.clockStartLo, raw.draw, new Float64Array(n));
  const endNs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    endNs[i] = (startNs[i] as number) + (((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0) * raw.deviceNsPerTick;
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

function calibrateRebased(raw: GroupedClocks): CalibratedTimes {
  const n = raw.clockStartLo.length;
  const { sm, offsets } = raw.groups;
  const nsPerCycle = raw.smClockRateHz === null ? 1 : 1e9 / raw.smClockRateHz;
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleStart = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  const perSm: SmCalibration[] = [];
  for (let g = 0; g < sm.length; g++) {
    const begin = offsets[g] as number;
    const end = offsets[g + 1] as number;
    const ref = raw.clockStartLo[begin] as number;
    let min = Infinity;
    for (let i = begin; i < end; i++) {
      cycleStart[i] = wrapDelta(raw.clockStartLo[i] as number, ref);
      min = Math.min(min, cycleStart[i] as number);
    }
    let last = 0;
    for (let i = begin; i < end; i++) {
      cycleStart[i] = (cycleStart[i] as number) - min;
      cycleDuration[i] = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
      startNs[i] = (cycleStart[i] as number) * nsPerCycle;
      endNs[i] = (startNs[i] as number) + (cycleDuration[i] as number) * nsPerCycle;
      last = Math.max(last, endNs[i] as number);
    }
    perSm.push({ sm: sm[g] as number, samples: 0, lateSamples: 0, fit: 'rebased', nsPerCycle, offsetNs: 0, residualRmsNs: 0, residualMaxNs: 0, fromNs: 0, toNs: last });
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

/** The device clock's step (from the OR of its `samples` low words) and the map from them to ns (per-sm-fit). */
export function deviceClockMap(
  anchors: Pick<GroupedClocks, 'drawAnchorRelTicks' | 'drawAnchorLo' | 'deviceNsPerTick'>,
  samples: number,
  orOfDeviceLo: number,
): { map: DeviceClockMap; granularityNs: number } {
  const step = granularityTicks(orOfDeviceLo, samples);
  return {
    map: { drawAnchorRelTicks: anchors.drawAnchorRelTicks, drawAnchorLo: anchors.drawAnchorLo, deviceNsPerTick: anchors.deviceNsPerTick, halfStepTicks: step > 1 ? step / 2 : 0 },
    granularityNs: step * anchors.deviceNsPerTick,
  };
}

/** The median of the SMs' rough rates (ns per cycle), else the nominal rate, and the band every fit uses. */
export function fitContextOf(roughSlopes: readonly (number | null)[], smClockRateHz: number | null, map: DeviceClockMap, granularityNs: number): FitContext {
  const slopes = roughSlopes.filter((s): s is number => s !== null);
  const prior = slopes.length > 0 ? median(slopes) : smClockRateHz === null ? 1 : 1e9 / smClockRateHz;
  return {
    prior,
    band: { halfStepNs: map.halfStepTicks * map.deviceNsPerTick, cycleNs: prior, toleranceNs: Math.max(4, granularityNs / 8) } satisfies Band,
    kinkRmsNs: KINK_FACTOR * Math.max(granularityNs / Math.sqrt(12), ALIGNED_RESIDUAL_NS / 2),
  };
}

/** The calibration record of per-sm-fit, from every segment's entry. */
export function perSmCalibration(perSm: SmCalibration[], granularityNs: number, anySlope: boolean, smClockRateHz: number | null): Calibration {
  const limit = Math.max(granularityNs, ALIGNED_RESIDUAL_NS);
  const worstRms = perSm.reduce((m, c) => Math.max(m, c.residualRmsNs), 0);
  const aligned = anySlope && perSm.every((c) => c.residualRmsNs <= limit);
  const late = perSm.reduce((sum, c) => sum + c.lateSamples, 0);
  const borrowed = perSm.filter((c) => c.fit !== 'linear').length;
  const note =
    `per-SM fit of SM cycles to the device clock (step ${granularityNs} ns) in ${perSm.length} segments; worst residual RMS ${worstRms.toFixed(2)} ns` +
    (late > 0 ? `; ${late} late device-clock reads left out` : '') +
    (borrowed > 0 ? `; ${borrowed} segment(s) mostly take the clock rate the other SMs show at that time` : '') +
    (anySlope ? '' : `; no SM had enough samples for a slope, ${smClockRateHz === null ? '1 cycle = 1 ns assumed' : 'nominal rate used'}`) +
    (aligned ? '' : '; residuals exceed the clock step, so cross-SM alignment is NOT trustworthy');
  return { method: 'per-sm-fit', alignedAcrossSms: aligned, note, perSm };
}

function calibratePerSm(raw: GroupedClocks): CalibratedTimes {
  const { sm, offsets } = raw.groups;
  const { map, granularityNs } = deviceClockMap(raw, raw.deviceLo.length, orOf(raw.deviceLo));
  return runPhases(
    (function* (): PhaseProgram<CalibratedTimes> {
      const source = { kind: 'columns', sm, offsets, clockStartLo: raw.clockStartLo, clockEndLo: raw.clockEndLo, deviceLo: raw.deviceLo, draw: raw.draw } as const;
      yield { phase: 'init', assignment: [Array.from(sm, (_, g) => g)], source, map };
      return yield* perSmFitPhases(offsets, granularityNs, map, raw.smClockRateHz, plainColumns);
    })(),
  );
}

/**
 * The phases of per-sm-fit, after 'init' gave every worker its SM groups'
 * clocks: rough rates → median; fits → the chip's rate changes; cuts at them
 * → segments; slopes pooled across SMs → every record placed. Returns the
 * SM-major times (allocated with `allocate`: shared memory for a pool).
 */
export function* perSmFitPhases(offsets: Uint32Array, granularityNs: number, map: DeviceClockMap, smClockRateHz: number | null, allocate: ColumnAllocator): PhaseProgram<CalibratedTimes> {
  const groups = offsets.length - 1;
  const n = offsets[groups] as number;
  // A rough rate per SM, good enough to unwrap 32-bit cycle counts over any capture.
  const rough = (yield { phase: 'rough' }) as (number | null)[];
  const ctx = fitContextOf(rough, smClockRateHz, map, granularityNs);
  // Per SM, samples in cycle order cut into segments and fitted robustly.
  const nsPerCycle = Float64Array.from({ length: groups }, (_, g) => rough[g] ?? ctx.prior);
  const found = (yield { phase: 'fit', ctx, nsPerCycle }) as number[][];
  // A rate change found on one SM happened on all of them (boost is chip-wide).
  const changes = found.flat().sort((a, b) => a - b);
  const summaries = (yield { phase: 'cut', ctx, changes }) as SegmentSummary[][];
  // Each segment's slope pooled with the segments around it in time on every SM, then every record placed.
  const shared = sharedSlopes(summaries.flat(), ctx);
  const segmentStart = new Uint32Array(groups + 1);
  for (let g = 0; g < groups; g++) segmentStart[g + 1] = (segmentStart[g] as number) + (summaries[g] as SegmentSummary[]).length;
  const times = { startNs: allocate.f64(n), endNs: allocate.f64(n), cycleStart: allocate.f64(n), cycleDuration: allocate.uint(n, 0xffffffff) as Uint32Array };
  const placed = (yield { phase: 'place', ctx, slope: shared.slope, error: shared.error, segmentStart, times }) as SmCalibration[][];
  return {
    ...times,
    calibration: perSmCalibration(
      placed.flat(),
      granularityNs,
      rough.some((r) => r !== null),
      smClockRateHz,
    ),
    deviceClockGranularityNs: granularityNs,
    smClockRateHz: 1e9 / ctx.prior,
  };
}

/**
 * For each segment (all SMs, in order), the inverse-variance weighted mean of
 * the fitted slopes of the other segments overlapping it (± SHARED_WINDOW_NS),
 * and its standard error; the prior (with an infinite error) where none do.
 */
export function sharedSlopes(segments: readonly SegmentSummary[], ctx: FitContext): { slope: Float64Array; error: Float64Array } {
  const fitted = segments
    .map((seg, index) => ({ seg, index }))
    // Only clean fits vouch for the rate: few late reads, residuals at the noise level.
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
      const fit = other.seg.own!;
      // Weighted by how much of the other segment lies in this one's time: the rate can change.
      const overlap = Math.min(other.seg.toNs, seg.toNs + SHARED_WINDOW_NS) - Math.max(other.seg.fromNs, seg.fromNs - SHARED_WINDOW_NS);
      const strict = Math.min(other.seg.toNs, seg.toNs) - Math.max(other.seg.fromNs, seg.fromNs);
      if (strict <= 0 && overlapsAny) continue;
      if (overlap <= 0) continue;
      const w = Math.min(1, overlap / Math.max(1, other.seg.toNs - other.seg.fromNs)) / fit.slopeError ** 2;
      sw += w;
      sws += w * fit.line.slope;
    }
    slope[k] = sw > 0 ? sws / sw : ctx.prior;
    error[k] = sw > 0 ? 1 / Math.sqrt(sw) : Infinity;
  });
  return { slope, error };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
