/**
 * Clock calibration of raw GPU records (see README.md, "Calibration").
 *
 * Records come grouped by SM (SM-major). SM (subgroup-scope) clocks run per
 * SM with their own offsets, so each SM's cycles are mapped to the device
 * clock by robust line segments (sm-clock.ts), in phases of tasks with a
 * pooling step between them (perSmFitPhases): the same program runs on one
 * thread (runPhases) or on a pool of workers (node/convert-pool.ts).
 */
import { leastSquares, type Band } from './clock-fit.js';
import { TICKS_PER_NS, type Calibration, type SmCalibration, type SmGroups } from './model.js';
import { runPhases, type PhaseProgram } from './phase-worker.js';
import { RECORD_WORDS, RecordWord } from './raw-layout.js';
import { recordColumn } from './raw-records.js';
import { mergeTasks } from './row-sort.js';
import { SLICE_BLOCK, assignTasks, batchItems, claimBySize, maxPerGroup, minPerGroup, planSlices, splitRows, type RowSlice, type SliceTask } from './row-tasks.js';
import { gather, groupedOrder } from './sort.js';
import { plainColumns, rejectPlacedTicks, type ColumnAllocator, type PlacedRows } from './raw-canonical.js';
import {
  deviceTimes,
  roughSlope,
  sameUnwrap,
  segmentLines,
  summariesOf,
  wrapDelta,
  type ClockRows,
  type DeviceClockMap,
  type FitContext,
  type MeasuredSlice,
  type PlacedBatch,
  type PlacedFit,
  type Segment,
} from './sm-clock.js';
import { slopePoolOf } from './shared-slopes.js';

/** Residuals up to max(granularity, this) still count as aligned. */
const ALIGNED_RESIDUAL_NS = 8;
/** Residual RMS above this many times the quantization noise marks a rate change inside a segment. */
const KINK_FACTOR = 1.5;

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
  const { map, granularityNs } = deviceClockMap(raw, raw.deviceLo.length, orOf(raw.deviceLo));
  // The steps read records: the clock columns laid out as record words.
  const n = raw.clockStartLo.length;
  const words = new Uint32Array(n * RECORD_WORDS);
  for (let i = 0, w = 0; i < n; i++, w += RECORD_WORDS) {
    words[w + RecordWord.CLOCK_START] = raw.clockStartLo[i] as number;
    words[w + RecordWord.CLOCK_END] = raw.clockEndLo[i] as number;
    words[w + RecordWord.DEVICE_CLOCK] = raw.deviceLo[i] as number;
    words[w + RecordWord.DRAW_ID] = raw.draw[i] as number;
  }
  const fit = runPhases(perSmFitPhases(words, raw.groups, 1, granularityNs, map, raw.smClockRateHz, plainColumns));
  const { startTicks, durationTicks, cycleStart } = fit.placed;
  if (fit.badRow >= 0) rejectPlacedTicks(fit.placed, fit.badRow);
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    startNs[i] = (startTicks[i] as number) / TICKS_PER_NS;
    endNs[i] = ((startTicks[i] as number) + (durationTicks[i] as number)) / TICKS_PER_NS;
    cycleDuration[i] = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
  }
  return { ...fit.result(), startNs, endNs, cycleStart, cycleDuration };
}

/**
 * The result of per-sm-fit: the placed rows (times in ticks), the
 * calibration, the rows it worked on (free once it is done: wtraw.ts sorts
 * with them), the earliest start and the first row out of range (−1: none).
 */
export interface PerSmFit {
  readonly placed: PlacedRows & { readonly cycleStart: Float64Array };
  /** The calibration record, built when called. */
  readonly result: () => Omit<CalibratedTimes, 'startNs' | 'endNs' | 'cycleStart' | 'cycleDuration'>;
  /** Mean fitted SM clock rate, Hz. */
  readonly smClockRateHz: number;
  readonly rows: ClockRows;
  readonly minStartTicks: number;
  readonly badRow: number;
}

/**
 * The steps of per-sm-fit over SM-major records, as phases for `workers`
 * workers: device times and rough rates per slice → the median rate; cycles
 * unwrapped and sorted per slice, merged per part; runs cut and fitted per
 * batch → the chip's rate changes; cuts at them → segments; slopes pooled
 * across SMs, offsets per batch of segments; every record placed. Arrays
 * come from `allocate` (shared memory for a pool).
 */
export function* perSmFitPhases(
  words: Uint32Array,
  groups: SmGroups,
  workers: number,
  granularityNs: number,
  map: DeviceClockMap,
  smClockRateHz: number | null,
  allocate: ColumnAllocator,
): PhaseProgram<PerSmFit> {
  const { offsets } = groups;
  const groupCount = offsets.length - 1;
  const n = offsets[groupCount] as number;
  const u32 = () => allocate.uint(n, 0xffffffff) as Uint32Array;
  const rows: ClockRows = { words, groups, y: allocate.f64(n), x: allocate.f64(n), byX: u32(), xs: allocate.f64(n), ys: allocate.f64(n), sliceRows: u32(), sliceKeys: allocate.f64(n) };
  const plan = planSlices(offsets, workers);
  // One pass: device times, rough-rate sums, and cycles unwrapped at a provisional rate and sorted per slice.
  const provisional = provisionalNsPerCycle(words, groups, map, smClockRateHz);
  const measured = (yield { phase: 'measure', tasks: plan.tasks, assignment: plan.claim, rows, map, nsPerCycle: provisional }) as MeasuredSlice[];
  // A rough rate per SM, good enough to unwrap 32-bit cycle counts over any capture.
  const rough = plan.slicesOf.map((list) => roughSlope(list.map((k) => (measured[k] as MeasuredSlice).stats)));
  const ctx = fitContextOf(rough, smClockRateHz, map, granularityNs);
  const nsPerCycle = Float64Array.from({ length: groupCount }, (_, g) => rough[g] ?? ctx.prior);
  // Where the provisional rate could unwrap differently from the SM's own, unwrap again.
  const unwrapped: { samples: Float64Array | null; minStartCycles: number }[] = [...measured];
  const reach = maxPerGroup(plan, (k) => (measured[k] as MeasuredSlice).maxReachNs);
  const redo = plan.slices.flatMap((s, k) => (sameUnwrap(provisional, nsPerCycle[s.g] as number, reach[s.g] as number) ? [] : [k]));
  if (redo.length > 0) {
    const again = (yield {
      phase: 'unwrap',
      tasks: redo.map((k) => plan.tasks[k] as SliceTask),
      assignment: claimBySize(redo.map((k) => (plan.slices[k] as RowSlice).end - (plan.slices[k] as RowSlice).begin)),
      rows,
      nsPerCycle,
    }) as { samples: Float64Array | null; minStartCycles: number }[];
    redo.forEach((k, j) => (unwrapped[k] = again[j] as { samples: Float64Array | null; minStartCycles: number }));
  }
  // Each SM's cycles will count from its earliest warp start.
  const minStartCycles = minPerGroup(plan, (k) => (unwrapped[k] as { minStartCycles: number }).minStartCycles);
  const merges = mergeTasks(
    plan,
    unwrapped.map((u) => u.samples),
  );
  if (merges.tasks.length > 0) yield { phase: 'mergeX', tasks: merges.tasks, assignment: claimBySize(merges.weights), rows };
  // Runs of them fitted in batches: segments, and where the chip's rate changed.
  const groupRows = Array.from({ length: groupCount }, (_, g) => (offsets[g + 1] as number) - (offsets[g] as number));
  const bounds = (yield { phase: 'runs', tasks: groupRows.map((_, g) => g), assignment: claimBySize(groupRows), rows, nsPerCycle: ctx.prior }) as Uint32Array[];
  const target = workers <= 1 ? Infinity : Math.max(SLICE_BLOCK, Math.ceil(n / (workers * 3)));
  const fitTasks = bounds.flatMap((b, g) => batchItems(b, b.length - 1, target).map(([firstRun, lastRun]) => ({ g, firstRun, lastRun, bounds: b })));
  const fitted = (yield {
    phase: 'fit',
    tasks: fitTasks,
    assignment: claimBySize(fitTasks.map((t) => (t.bounds[t.lastRun] as number) - (t.bounds[t.firstRun] as number))),
    rows,
    ctx,
  }) as { segments: Segment[]; changes: number[] }[];
  let segments: Segment[][] = Array.from({ length: groupCount }, () => []);
  // Loops, not push(...list): a list as long as the input's runs would overflow the stack.
  fitTasks.forEach((t, k) => appendAll(segments[t.g] as Segment[], (fitted[k] as { segments: Segment[] }).segments));
  // A rate change found on one SM happened on all of them (boost is chip-wide).
  const changes = fitted.flatMap((f) => f.changes).sort((a, b) => a - b);
  if (changes.length > 0) {
    segments = (yield { phase: 'cut', tasks: segments.map((list, g) => ({ g, segments: list })), assignment: claimBySize(groupRows), rows, ctx, changes }) as Segment[][];
  }
  // Each segment's slope pooled with the segments around it in time on every SM.
  const segmentStart = new Uint32Array(groupCount + 1);
  for (let g = 0; g < groupCount; g++) segmentStart[g + 1] = (segmentStart[g] as number) + (segments[g] as Segment[]).length;
  const total = segmentStart[groupCount] as number;
  const pool = slopePoolOf(
    segments.flatMap((list) => summariesOf(rows, list)),
    ctx,
    allocate,
  );
  const shared = { slope: allocate.f64(total), error: allocate.f64(total) };
  const segmentRanges = splitRows(total, Math.min(total, workers * 2));
  // Batches of segments for the next phases: made while the workers pool the slopes.
  let batches: { g: number; first: number; last: number; weight: number }[] = [];
  let byBatch: number[][] = [];
  const planBatches = () => {
    batches = segments.flatMap((list, g) => {
      const starts = list.map((s) => s.begin);
      starts.push(offsets[g + 1] as number);
      return batchItems(starts, list.length, target).map(([first, last]) => ({ g, first, last, weight: (starts[last] as number) - (starts[first] as number) }));
    });
    byBatch = assignTasks(
      batches.map((b) => b.weight),
      workers,
    );
  };
  yield { phase: 'share', tasks: segmentRanges, assignment: claimBySize(segmentRanges.map(([b, e]) => e - b)), pool, ...shared, meanwhile: planBatches };
  const offsetReplies = (yield {
    phase: 'offsets',
    tasks: batches.map(({ g, first, last }) => ({ segments: (segments[g] as Segment[]).slice(first, last), first: (segmentStart[g] as number) + first })),
    assignment: byBatch,
    rows,
    ctx,
    ...shared,
  }) as PlacedFit[][];
  const fits: PlacedFit[][] = Array.from({ length: groupCount }, () => []);
  batches.forEach(({ g }, k) => appendAll(fits[g] as PlacedFit[], offsetReplies[k] as PlacedFit[]));
  // Every record placed with its segment's line.
  const lines = { slope: allocate.f64(total), intercept: allocate.f64(total), firstX: allocate.f64(total), lastX: allocate.f64(total) };
  const borrowed: boolean[] = [];
  fits.forEach((list, g) => {
    const own = segmentLines(list);
    own.lines.forEach((line, j) => {
      const s = (segmentStart[g] as number) + j;
      const seg = (segments[g] as Segment[])[j] as Segment;
      lines.slope[s] = line.slope;
      lines.intercept[s] = line.intercept;
      lines.firstX[s] = rows.xs[seg.begin] as number;
      lines.lastX[s] = rows.xs[seg.end - 1] as number;
      borrowed.push(own.borrowed[j] as boolean);
    });
  });
  // Placed times land in rows free by now: ticks in y and ys, start cycles in x (read sorted, as xs).
  const placed = { startTicks: rows.ys, durationTicks: rows.y, cycleStart: rows.x };
  const batchesPlaced = (yield {
    phase: 'place',
    tasks: batches.map(({ g, first, last }) => ({
      segments: (segments[g] as Segment[]).slice(first, last).map(({ begin, end }) => ({ begin, end })),
      first: (segmentStart[g] as number) + first,
      groupFirst: segmentStart[g] as number,
      groupLast: segmentStart[g + 1] as number,
      minStartCycles: minStartCycles[g] as number,
    })),
    assignment: byBatch,
    rows,
    lines,
    placed,
  }) as PlacedBatch[];
  const spans = new Float64Array(total * 2);
  let minStartTicks = Infinity;
  let badRow = -1;
  batches.forEach(({ g, first }, k) => {
    const reply = batchesPlaced[k] as PlacedBatch;
    spans.set(reply.spans, ((segmentStart[g] as number) + first) * 2);
    minStartTicks = Math.min(minStartTicks, reply.minStartTicks);
    if (reply.badRow >= 0 && (badRow < 0 || reply.badRow < badRow)) badRow = reply.badRow;
  });
  // The calibration record (one entry per segment: ~14 k for 10 M warps) when asked for: it can be built while workers sort.
  const calibration = (): Calibration => {
    const perSm: SmCalibration[] = [];
    segments.forEach((list, g) => {
      list.forEach(({ begin, end }, j) => {
        const s = (segmentStart[g] as number) + j;
        const { fit } = (fits[g] as PlacedFit[])[j] as PlacedFit;
        const lent = borrowed[s] as boolean;
        const slope = lines.slope[s] as number;
        perSm.push({
          sm: groups.sm[g] as number,
          samples: end - begin,
          lateSamples: lent ? end - begin : fit.late,
          fit: lent ? 'offset-only' : fit.fit,
          nsPerCycle: slope,
          offsetNs: (lines.intercept[s] as number) + slope * (minStartCycles[g] as number),
          residualRmsNs: lent ? 0 : fit.rmsNs,
          residualMaxNs: lent ? 0 : fit.maxAbsNs,
          fromNs: spans[s * 2] as number,
          toNs: spans[s * 2 + 1] as number,
        });
      });
    });
    return perSmCalibration(perSm, granularityNs, rough.some((r) => r !== null), smClockRateHz);
  };
  const fittedRateHz = 1e9 / ctx.prior;
  return {
    placed,
    result: () => ({ calibration: calibration(), deviceClockGranularityNs: granularityNs, smClockRateHz: fittedRateHz }),
    smClockRateHz: fittedRateHz,
    rows,
    minStartTicks,
    badRow,
  };
}

/**
 * A first guess at ns per SM cycle, to unwrap cycles in the same pass that
 * reads the device times: a least-squares line through the first records
 * of the busiest SM (close in time, so no wrap hides), else the nominal
 * rate, else 1.
 */
function provisionalNsPerCycle(words: Uint32Array, groups: SmGroups, map: DeviceClockMap, smClockRateHz: number | null): number {
  const { offsets } = groups;
  let busiest = 0;
  for (let g = 1; g + 1 < offsets.length; g++) if ((offsets[g + 1] as number) - (offsets[g] as number) > (offsets[busiest + 1] as number) - (offsets[busiest] as number)) busiest = g;
  const begin = offsets[busiest] as number;
  const count = Math.min(4096, (offsets[busiest + 1] as number) - begin);
  const end = recordColumn(words, RecordWord.CLOCK_END, begin, begin + count);
  const u = Float64Array.from(end, (lo) => wrapDelta(lo, end[0] as number));
  const v = deviceTimes(map, recordColumn(words, RecordWord.DEVICE_CLOCK, begin, begin + count), recordColumn(words, RecordWord.DRAW_ID, begin, begin + count), new Float64Array(count));
  const line = count >= 2 ? leastSquares(u, v) : null;
  if (line !== null && line.slope > 0 && Number.isFinite(line.slope)) return line.slope;
  return smClockRateHz === null ? 1 : 1e9 / smClockRateHz;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function appendAll<T>(list: T[], items: readonly T[]): void {
  for (const item of items) list.push(item);
}
