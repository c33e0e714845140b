/**
 * The per-SM work of decoding a raw dump, as phases a worker runs on the SM
 * groups it owns: calibration (see calibrate.ts), canonical rows and column
 * encoding. Requests and replies are plain data (typed arrays over shared
 * memory where workers share columns), so the same PhaseWorker serves the
 * one-thread decoder (runPhases) and a pool of threads. Every reply lists
 * [key, value] pairs (key: SM group, or worker for encode) that the caller
 * merges into one array.
 */
import type { FitContext, DeviceClockMap, SegmentSummary } from './sm-clock.js';
import { SmClock } from './sm-clock.js';
import type { SmCalibration, SmGroups, WarpColumns } from './model.js';
import { RecordWord } from './raw-layout.js';
import { countRecords, cursorsOfPart, recordColumn, scatterRecords, type RecordCounts, type RecordLimits, type SmMajorRecords } from './raw-records.js';
import { writeCanonicalGroup, type CalibratedRows } from './raw-canonical.js';
import { encodeWarpChunk, type WarpChunk } from './warp-encoder.js';

/** Where a worker finds each group's clock words. */
export type ClockSource =
  | { readonly kind: 'records'; readonly records: SmMajorRecords }
  | {
      readonly kind: 'columns';
      readonly offsets: Uint32Array;
      readonly sm: Uint16Array;
      readonly clockStartLo: Uint32Array;
      readonly clockEndLo: Uint32Array;
      readonly deviceLo: Uint32Array;
      readonly draw: Uint32Array;
    };

export type PhaseRequest =
  /** Validate and count records ranges[w] (record indices) of `words`. */
  | { readonly phase: 'count'; readonly words: Uint32Array; readonly ranges: readonly (readonly [number, number])[]; readonly limits: RecordLimits; readonly clockFlags: number }
  /** Copy them to their SM's rows of `out` (cursors from planGroups). */
  | { readonly phase: 'scatter'; readonly words: Uint32Array; readonly ranges: readonly (readonly [number, number])[]; readonly groups: SmGroups; readonly cursors: Float64Array; readonly out: Uint32Array }
  /** assignment[w]: the SM groups worker w owns. */
  | { readonly phase: 'init'; readonly assignment: readonly (readonly number[])[]; readonly source: ClockSource; readonly map: DeviceClockMap | null }
  | { readonly phase: 'rough' }
  | { readonly phase: 'fit'; readonly ctx: FitContext; readonly nsPerCycle: Float64Array }
  | { readonly phase: 'cut'; readonly ctx: FitContext; readonly changes: readonly number[] }
  | { readonly phase: 'place'; readonly ctx: FitContext; readonly slope: Float64Array; readonly error: Float64Array; readonly segmentStart: Uint32Array; readonly times: CalibratedRows }
  | { readonly phase: 'emit'; readonly times: CalibratedRows; readonly shiftNs: number; readonly columns: WarpColumns }
  | { readonly phase: 'encode'; readonly ranges: readonly (readonly [number, number])[]; readonly subgroupSize: number; readonly cyclesPerNs: number };

export interface PhaseReplies {
  count: RecordCounts;
  scatter: null;
  init: null;
  rough: number | null;
  fit: number[];
  cut: SegmentSummary[];
  place: SmCalibration[];
  emit: null;
  encode: WarpChunk;
}

export type Reply<P extends keyof PhaseReplies> = [number, PhaseReplies[P]][];

export class PhaseWorker {
  private worker = 0;
  private groups: readonly number[] = [];
  private source: ClockSource | null = null;
  private clocks = new Map<number, SmClock>();
  private columns: WarpColumns | null = null;

  /** Runs one phase as worker number `self`. */
  handle(request: PhaseRequest, self: number): [number, unknown][] {
    switch (request.phase) {
      case 'count': {
        const [begin, end] = request.ranges[self] ?? [0, 0];
        return [[self, countRecords(request.words, begin, end, request.limits, request.clockFlags)]];
      }
      case 'scatter': {
        const [begin, end] = request.ranges[self] ?? [0, 0];
        scatterRecords(request.words, begin, end, cursorsOfPart(request.groups, request.cursors, self), request.out);
        return [[self, null]];
      }
      case 'init':
        this.worker = self;
        this.groups = request.assignment[self] ?? [];
        this.source = request.source;
        this.clocks.clear();
        if (request.map !== null) for (const g of this.groups) this.clocks.set(g, new SmClock(this.clockWords(g), request.map));
        return [];
      case 'rough':
        return this.each((clock) => clock.roughSlope());
      case 'fit':
        return this.each((clock, g) => clock.fit(request.nsPerCycle[g] as number, request.ctx));
      case 'cut':
        return this.each((clock) => {
          clock.cutAtRateChanges(request.changes, request.ctx);
          return clock.summaries();
        });
      case 'place': {
        const { offsets } = this.offsets();
        const t = request.times;
        return this.each((clock, g) => {
          const slice = <T extends Float64Array | Uint32Array>(column: T | null) => (column as T).subarray(offsets[g], offsets[g + 1]) as T;
          const from = request.segmentStart[g] as number;
          const to = request.segmentStart[g + 1] as number;
          return clock.place(request.slope.subarray(from, to), request.error.subarray(from, to), request.ctx, {
            startNs: slice(t.startNs),
            endNs: slice(t.endNs),
            cycleStart: slice(t.cycleStart),
            cycleDuration: slice(t.cycleDuration),
          });
        });
      }
      case 'emit': {
        const source = this.source;
        if (source?.kind !== 'records') throw new Error('emit needs SM-major records');
        this.columns = request.columns;
        for (const g of this.groups) writeCanonicalGroup(source.records, request.times, request.shiftNs, g, request.columns);
        return this.groups.map((g) => [g, null]);
      }
      case 'encode': {
        const range = request.ranges[this.worker];
        if (this.columns === null || range === undefined) return [];
        return [[this.worker, encodeWarpChunk(this.columns, range[0], range[1], request.subgroupSize, request.cyclesPerNs)]];
      }
    }
  }

  private each<T>(f: (clock: SmClock, g: number) => T): [number, T][] {
    return this.groups.map((g) => [g, f(this.clocks.get(g) as SmClock, g)]);
  }

  private offsets(): { offsets: Uint32Array; sm: Uint16Array } {
    const source = this.source as ClockSource;
    return source.kind === 'records' ? source.records.groups : source;
  }

  /** Group g's clock words as columns of its own. */
  private clockWords(g: number) {
    const source = this.source as ClockSource;
    const { offsets, sm } = this.offsets();
    const begin = offsets[g] as number;
    const end = offsets[g + 1] as number;
    if (source.kind === 'columns') {
      return {
        sm: sm[g] as number,
        clockStartLo: source.clockStartLo.subarray(begin, end),
        clockEndLo: source.clockEndLo.subarray(begin, end),
        deviceLo: source.deviceLo.subarray(begin, end),
        draw: source.draw.subarray(begin, end),
      };
    }
    const words = source.records.words;
    return {
      sm: sm[g] as number,
      clockStartLo: recordColumn(words, RecordWord.CLOCK_START, begin, end),
      clockEndLo: recordColumn(words, RecordWord.CLOCK_END, begin, end),
      deviceLo: recordColumn(words, RecordWord.DEVICE_CLOCK, begin, end),
      draw: recordColumn(words, RecordWord.DRAW_ID, begin, end),
    };
  }
}

/**
 * A phase program: yields each request (sent to every worker) and receives
 * the merged replies, indexed by key. Driven by runPhases in this thread, or
 * by a thread pool.
 */
export type PhaseProgram<R> = Generator<PhaseRequest, R, unknown[]>;

/** Merges [key, value] replies into an array indexed by key. */
export function mergeReplies(replies: readonly (readonly [number, unknown][])[], size: number): unknown[] {
  const out = new Array<unknown>(size);
  for (const reply of replies) for (const [key, value] of reply) out[key] = value;
  return out;
}

/** Runs a phase program (made for one worker) on one in-thread worker. */
export function runPhases<R>(program: PhaseProgram<R>): R {
  const worker = new PhaseWorker();
  let step = program.next([]);
  while (!step.done) {
    const reply = worker.handle(step.value, 0);
    let size = 0;
    for (const [key] of reply) size = Math.max(size, key + 1);
    step = program.next(mergeReplies([reply], size));
  }
  return step.value;
}

/** SM groups spread over workers, biggest first to the least loaded (rows decide the load). */
export function assignGroups(offsets: Uint32Array, workers: number): number[][] {
  const groups = offsets.length - 1;
  const sizes = Array.from({ length: groups }, (_, g) => (offsets[g + 1] as number) - (offsets[g] as number));
  const order = sizes.map((_, g) => g).sort((a, b) => (sizes[b] as number) - (sizes[a] as number));
  const load = new Array<number>(workers).fill(0);
  const out: number[][] = Array.from({ length: workers }, () => []);
  for (const g of order) {
    let best = 0;
    for (let w = 1; w < workers; w++) if ((load[w] as number) < (load[best] as number)) best = w;
    (out[best] as number[]).push(g);
    load[best] = (load[best] as number) + (sizes[g] as number);
  }
  for (const list of out) list.sort((a, b) => a - b);
  return out;
}

/** Rows [0, count) in `parts` contiguous ranges of near-equal size. */
export function splitRows(count: number, parts: number): [number, number][] {
  return Array.from({ length: parts }, (_, k) => [Math.floor((count * k) / parts), Math.floor((count * (k + 1)) / parts)] as [number, number]);
}
