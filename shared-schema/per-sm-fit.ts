/**
 * The per-SM fit (calibrate.ts, README "Calibration") as a phase program:
 * the same steps run on one thread (runPhases) or on a pool of workers
 * (node/convert-pool.ts), with what the SMs found pooled between phases.
 */
import { leastSquares, type Band } from './clock-fit.js';
import { RESIDUAL_BINS, SEGMENT_STATS, crossCheckLimitNs, qualityOf, type CheckedBatch } from './clock-quality.js';
import type { CalibratedTimes } from './calibrate.js';
import { mergeTally, newTally, type DrawCheck } from './draw-bounds.js';
import { fail } from './errors.js';
import type { Calibration, SmCalibration, SmGroups } from './model.js';
import { ALIGNED_RESIDUAL_NS, perSmCalibration } from './calibration-record.js';
import type { PhaseProgram, PhaseReplies } from './phase-worker.js';
import type { ColumnAllocator, PlacedRows } from './raw-canonical.js';
import { RecordWord } from './raw-layout.js';
import { recordColumn } from './raw-records.js';
import { mergeTasks } from './row-sort.js';
import { SLICE_BLOCK, assignTasks, batchItems, claimBySize, maxPerGroup, minPerGroup, planSlices, splitRows, type RowSlice, type SliceTask } from './row-tasks.js';
import { changesBetween } from './segment-fitter.js';
import { segmentLines, type PlacedBatch, type SegmentLines } from './segment-lines.js';
import { slopePoolOf } from './shared-slopes.js';
import {
  deviceTimes,
  roughFit,
  sameUnwrap,
  summariesOf,
  wrapDelta,
  type ClockRows,
  type DeviceClockMap,
  type FitContext,
  type MeasuredSlice,
  type PlacedFit,
  type RoughFit,
  type Segment,
} from './sm-clock.js';

/** Records this close in time (ns) to the busiest SM's first give the provisional rate: no cycle wrap hides within it below 8 GHz. */
const PROVISIONAL_WINDOW_NS = 0.25e9;
/** Rate changes found this close (ns) after an earlier one are the same change (see oneChangePerMoment). */
const CHANGE_MERGE_NS = 5000;
/** Residual RMS above this many times the quantization noise marks a rate change inside a segment. */
const KINK_FACTOR = 1.5;
/**
 * An SM's clock runs backwards when at least this share of its sample pairs
 * (clockDirection) go back in time by more than BACKWARDS_MARGIN_STEPS
 * device-clock steps, over at least BACKWARDS_MIN_PAIRS pairs (fewer say too
 * little: a forward clock's pairs go back where a read came back late).
 */
const BACKWARDS_SHARE = 0.75;
const BACKWARDS_MARGIN_STEPS = 2;
const BACKWARDS_MIN_PAIRS = 16;
/** SM clock rates outside this range (Hz) are no clock: the dump is refused rather than written with them. */
const MIN_SM_CLOCK_HZ = 1e6;
const MAX_SM_CLOCK_HZ = 1e11;

/**
 * The SMs' rough rates (ns per cycle) pooled, else the nominal rate, and the
 * band every fit uses. Pooled by a median weighted by each rate's precision:
 * the SMs share one clock, and an SM that saw a few µs of work (and its
 * wake-up reads) says little about it, however many such SMs there are.
 */
export function fitContextOf(rough: readonly (RoughFit | null)[], smClockRateHz: number | null, map: DeviceClockMap, granularityNs: number): FitContext {
  const fits = rough.filter((r): r is RoughFit => r !== null);
  const prior = fits.length > 0 ? weightedMedian(fits) : smClockRateHz === null ? 1 : 1e9 / smClockRateHz;
  return {
    prior,
    band: { halfStepNs: map.halfStepTicks * map.deviceNsPerTick, cycleNs: prior, toleranceNs: Math.max(4, granularityNs / 8) } satisfies Band,
    kinkRmsNs: KINK_FACTOR * Math.max(granularityNs / Math.sqrt(12), ALIGNED_RESIDUAL_NS / 2),
    crossCheckLimitNs: crossCheckLimitNs(granularityNs),
  };
}

/**
 * Refuses a dump where an SM's clock runs backwards against the device
 * clock: no line maps it, and a fit would only place its warps anywhere.
 */
function rejectBackwardClock(sm: number, { pairs, backwards }: { pairs: number; backwards: number }): void {
  if (pairs < BACKWARDS_MIN_PAIRS || backwards < BACKWARDS_SHARE * pairs) return;
  fail('bad-value', 'records', `SM ${sm}'s clock runs backwards against the device clock (${backwards} of ${pairs} sample pairs go back in time): these SM clock words are not a clock`);
}

/**
 * The SM clock rate the lines place warps with, weighted by each segment's
 * samples (its warps), Hz; a dump whose fit lands outside any clock's rate
 * is refused (its cycle columns could not be written).
 */
function chipRateHz(segments: readonly (readonly Segment[])[], lines: SegmentLines): number {
  let warps = 0;
  let sum = 0;
  let s = 0;
  for (const list of segments) {
    for (const { begin, end } of list) {
      warps += end - begin;
      sum += (end - begin) / (lines.slope[s] as number);
      s++;
    }
  }
  const hz = warps > 0 ? (sum / warps) * 1e9 : NaN;
  if (!(hz >= MIN_SM_CLOCK_HZ && hz <= MAX_SM_CLOCK_HZ)) {
    fail('bad-value', 'records', `the SM clock fits ${(hz / 1e9).toPrecision(4)} GHz against the device clock, outside ${MIN_SM_CLOCK_HZ / 1e9}-${MAX_SM_CLOCK_HZ / 1e9} GHz: these SM clock words do not count cycles`);
  }
  return hz;
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
  /** The SM clock rate the lines use, weighted by warps, Hz. */
  readonly smClockRateHz: number;
  readonly rows: ClockRows;
  readonly minStartTicks: number;
  readonly badRow: number;
  /** The rows against their draws' bounds (null: not checked). */
  readonly drawTally: Float64Array | null;
}

/**
 * The steps of per-sm-fit over SM-major records, as phases for `workers`
 * workers: device times and rough rates per slice → the pooled rate; cycles
 * unwrapped and sorted per slice, merged per part; runs cut and fitted per
 * batch (and each SM's clock direction checked) → the chip's rate changes;
 * cuts at them → segments; slopes pooled across SMs, offsets per batch of
 * segments; every sample checked against its line; every record placed
 * (and checked against its draw's bounds when `drawCheck` is given).
 * Arrays come from `allocate` (shared memory for a pool).
 */
export function* perSmFitPhases(
  words: Uint32Array,
  groups: SmGroups,
  workers: number,
  granularityNs: number,
  map: DeviceClockMap,
  smClockRateHz: number | null,
  allocate: ColumnAllocator,
  drawCheck: DrawCheck | null = null,
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
  const rough = plan.slicesOf.map((list) => roughFit(list.map((k) => (measured[k] as MeasuredSlice).stats)));
  const ctx = fitContextOf(rough, smClockRateHz, map, granularityNs);
  const nsPerCycle = Float64Array.from({ length: groupCount }, (_, g) => rough[g]?.slope ?? ctx.prior);
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
  const marginNs = BACKWARDS_MARGIN_STEPS * Math.max(1, granularityNs);
  const runs = (yield { phase: 'runs', tasks: groupRows.map((_, g) => g), assignment: claimBySize(groupRows), rows, nsPerCycle: ctx.prior, marginNs }) as PhaseReplies['runs'][];
  runs.forEach(({ direction }, g) => rejectBackwardClock(groups.sm[g] as number, direction));
  const bounds = runs.map((r) => r.bounds);
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
  const seen = [...fitted.flatMap((f) => f.changes), ...segments.flatMap((list) => changesBetween(rows, list))];
  const changes = oneChangePerMoment(seen.sort((a, b) => a - b));
  if (changes.length > 0) {
    segments = (yield { phase: 'cut', tasks: segments.map((list, g) => ({ g, segments: list })), assignment: claimBySize(groupRows), rows, ctx, changes }) as Segment[][];
  }
  // Each segment's slope pooled with the segments around it in time on every SM.
  const segmentStart = new Uint32Array(groupCount + 1);
  for (let g = 0; g < groupCount; g++) segmentStart[g + 1] = (segmentStart[g] as number) + (segments[g] as Segment[]).length;
  const total = segmentStart[groupCount] as number;
  const pool = slopePoolOf(
    segments.flatMap((list) => summariesOf(rows, list)),
    changes,
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
  // The line each segment places its warps with.
  const lines = { slope: allocate.f64(total), intercept: allocate.f64(total), firstX: allocate.f64(total), lastX: allocate.f64(total) };
  const borrowed = allocate.uint(total, 1) as Uint8Array;
  const segmentSm = new Uint16Array(total);
  fits.forEach((list, g) => {
    const own = segmentLines(
      list,
      (segments[g] as Segment[]).map(({ begin, end }) => ({ firstX: rows.xs[begin] as number, lastX: rows.xs[end - 1] as number })),
      changes,
    );
    own.lines.forEach((line, j) => {
      const s = (segmentStart[g] as number) + j;
      const seg = (segments[g] as Segment[])[j] as Segment;
      lines.slope[s] = line.slope;
      lines.intercept[s] = line.intercept;
      lines.firstX[s] = rows.xs[seg.begin] as number;
      lines.lastX[s] = rows.xs[seg.end - 1] as number;
      borrowed[s] = own.borrowed[j] ? 1 : 0;
      segmentSm[s] = groups.sm[g] as number;
    });
  });
  const rateHz = chipRateHz(segments, lines);
  // Every sample against its line, and the lines checked against each other (clock-quality.ts), before placing reuses the rows.
  const batchSegments = batches.map(({ g, first, last }) => ({
    segments: (segments[g] as Segment[]).slice(first, last).map(({ begin, end }) => ({ begin, end })),
    first: (segmentStart[g] as number) + first,
  }));
  const checked = (yield { phase: 'check', tasks: batchSegments, assignment: byBatch, rows, lines, borrowed, band: ctx.band }) as CheckedBatch[];
  const segmentStats = new Float64Array(total * SEGMENT_STATS);
  const histogram = new Uint32Array(RESIDUAL_BINS);
  checked.forEach((reply, k) => {
    segmentStats.set(reply.stats, (batchSegments[k] as { first: number }).first * SEGMENT_STATS);
    for (let b = 0; b < RESIDUAL_BINS; b++) histogram[b] = (histogram[b] as number) + (reply.histogram[b] as number);
  });
  // Every record placed with its segment's line.
  // Placed times land in rows free by now: ticks in y and ys, start cycles in x (read sorted, as xs).
  const placed = { startTicks: rows.ys, durationTicks: rows.y, cycleStart: rows.x };
  const batchesPlaced = (yield {
    phase: 'place',
    tasks: batches.map(({ g }, k) => ({
      ...(batchSegments[k] as { segments: { begin: number; end: number }[]; first: number }),
      groupFirst: segmentStart[g] as number,
      groupLast: segmentStart[g + 1] as number,
      minStartCycles: minStartCycles[g] as number,
    })),
    assignment: byBatch,
    rows,
    lines,
    placed,
    drawCheck,
  }) as PlacedBatch[];
  const spans = new Float64Array(total * 2);
  let minStartTicks = Infinity;
  let badRow = -1;
  const drawTally = drawCheck === null ? null : newTally();
  batches.forEach(({ g, first }, k) => {
    const reply = batchesPlaced[k] as PlacedBatch;
    spans.set(reply.spans, ((segmentStart[g] as number) + first) * 2);
    minStartTicks = Math.min(minStartTicks, reply.minStartTicks);
    if (reply.badRow >= 0 && (badRow < 0 || reply.badRow < badRow)) badRow = reply.badRow;
    if (drawTally !== null && reply.drawTally !== null) mergeTally(drawTally, reply.drawTally);
  });
  // The calibration record (one entry per segment: ~14 k for 10 M warps) when asked for: it can be built while workers sort.
  const calibration = (): Calibration => {
    const perSm: SmCalibration[] = [];
    segments.forEach((list, g) => {
      list.forEach(({ begin, end }, j) => {
        const s = (segmentStart[g] as number) + j;
        const { fit } = (fits[g] as PlacedFit[])[j] as PlacedFit;
        const lent = borrowed[s] === 1;
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
    const quality = qualityOf(segmentStats, histogram, segmentSm, borrowed, lines, granularityNs);
    return perSmCalibration(perSm, granularityNs, rough.some((r) => r !== null), smClockRateHz, quality);
  };
  return {
    placed,
    result: () => ({ calibration: calibration(), deviceClockGranularityNs: granularityNs, smClockRateHz: rateHz }),
    smClockRateHz: rateHz,
    rows,
    minStartTicks,
    badRow,
    drawTally,
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
  const v = deviceTimes(map, recordColumn(words, RecordWord.DEVICE_CLOCK, begin, begin + count), recordColumn(words, RecordWord.DRAW_ID, begin, begin + count), new Float64Array(count), begin);
  // Only records close to the first in time: farther ones may hide a wrap of the cycle counter (long draws).
  const near: number[] = [];
  for (let k = 0; k < count; k++) if (Math.abs((v[k] as number) - (v[0] as number)) <= PROVISIONAL_WINDOW_NS) near.push(k);
  const u = Float64Array.from(near, (k) => wrapDelta(end[k] as number, end[0] as number));
  const line = near.length >= 2 ? leastSquares(u, Float64Array.from(near, (k) => v[k] as number)) : null;
  if (line !== null && line.slope > 0 && Number.isFinite(line.slope)) return line.slope;
  return smClockRateHz === null ? 1 : 1e9 / smClockRateHz;
}
/**
 * Rate changes (sorted) with those found within CHANGE_MERGE_NS of an
 * earlier one dropped: SMs that idled across a change find it where they
 * resume, a little apart, and one change should cut the chip's time once,
 * at its earliest sighting.
 */
function oneChangePerMoment(sorted: readonly number[]): number[] {
  const out: number[] = [];
  for (const t of sorted) if (out.length === 0 || t - (out[out.length - 1] as number) > CHANGE_MERGE_NS) out.push(t);
  return out;
}

/** The slope at half the total weight (the lower one at an exact tie). */
function weightedMedian(fits: readonly RoughFit[]): number {
  const sorted = [...fits].sort((a, b) => a.slope - b.slope);
  const half = sorted.reduce((sum, f) => sum + f.weight, 0) / 2;
  let below = 0;
  for (const f of sorted) {
    below += f.weight;
    if (below >= half) return f.slope;
  }
  return (sorted[sorted.length - 1] as RoughFit).slope;
}

function appendAll<T>(list: T[], items: readonly T[]): void {
  for (const item of items) list.push(item);
}
