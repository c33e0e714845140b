/**
 * The work of decoding a raw dump as phases of independent tasks: slices of
 * records, slices of an SM's rows, batches of its clock segments, parts of
 * its sorted rows, chunks of the output. A phase program (wtrawProgram)
 * yields each phase with every task and which worker runs which; a driver
 * (runPhases here, or a thread pool) hands each worker its tasks and merges
 * the replies by task. Everything a phase shares lives in typed arrays
 * (shared memory for a pool), so tasks of one SM can run on any worker.
 */
import type { CalibratedRows, OrderRows } from './raw-canonical.js';
import { emitPart, orderSlice } from './raw-canonical.js';
import type { SmGroups, WarpColumns } from './model.js';
import { countRecords, cursorsOfPart, scatterRecords, type RecordCounts, type RecordLimits, type SmMajorRecords } from './raw-records.js';
import type { MergeTask } from './row-sort.js';
import type { SliceTask } from './row-tasks.js';
import {
  cutAtRateChanges,
  fitRuns,
  measureSlice,
  mergeByX,
  offsetSegments,
  placeSegments,
  runsOf,
  unwrapSlice,
  type ClockRows,
  type DeviceClockMap,
  type FitContext,
  type MeasuredSlice,
  type PlacedFit,
  type Segment,
  type SegmentLines,
} from './sm-clock.js';
import { poolSlopes, type SlopePool } from './shared-slopes.js';
import { encodeWarpChunk, type WarpChunk } from './warp-encoder.js';
import { chunkSizes, writeChunk, type ChunkSizes, type WtraceLayout } from './wtrace-writer.js';

export interface PlacedTimes {
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  readonly cycleStart: Float64Array;
  readonly cycleDuration: Uint32Array;
}

/** Each phase: its tasks and what every task shares. */
export type PhaseRequest =
  /** Validate and count record ranges. */
  | { readonly phase: 'count'; readonly tasks: readonly (readonly [number, number])[]; readonly words: Uint32Array; readonly limits: RecordLimits; readonly clockFlags: number }
  /** Copy record range `part` to its SMs' rows of `out` (cursors from planGroups). */
  | {
      readonly phase: 'scatter';
      readonly tasks: readonly { readonly begin: number; readonly end: number; readonly part: number }[];
      readonly words: Uint32Array;
      readonly groups: SmGroups;
      readonly cursors: Float64Array;
      readonly out: Uint32Array;
    }
  | { readonly phase: 'measure'; readonly tasks: readonly SliceTask[]; readonly rows: ClockRows; readonly map: DeviceClockMap; readonly nsPerCycle: number }
  | { readonly phase: 'unwrap'; readonly tasks: readonly SliceTask[]; readonly rows: ClockRows; readonly nsPerCycle: Float64Array }
  | { readonly phase: 'mergeX'; readonly tasks: readonly MergeTask[]; readonly rows: ClockRows }
  | { readonly phase: 'runs'; readonly tasks: readonly number[]; readonly rows: ClockRows; readonly nsPerCycle: number }
  | { readonly phase: 'fit'; readonly tasks: readonly { readonly g: number; readonly firstRun: number; readonly lastRun: number; readonly bounds: Uint32Array }[]; readonly rows: ClockRows; readonly ctx: FitContext }
  | { readonly phase: 'cut'; readonly tasks: readonly { readonly g: number; readonly segments: readonly Segment[] }[]; readonly rows: ClockRows; readonly ctx: FitContext; readonly changes: readonly number[] }
  /** Pool the slopes of segment ranges [begin, end) into slope/error. */
  | { readonly phase: 'share'; readonly tasks: readonly (readonly [number, number])[]; readonly pool: SlopePool; readonly slope: Float64Array; readonly error: Float64Array }
  | {
      readonly phase: 'offsets';
      readonly tasks: readonly { readonly segments: readonly Segment[]; readonly first: number }[];
      readonly rows: ClockRows;
      readonly ctx: FitContext;
      readonly slope: Float64Array;
      readonly error: Float64Array;
    }
  | {
      readonly phase: 'place';
      readonly tasks: readonly {
        readonly segments: readonly { readonly begin: number; readonly end: number }[];
        readonly first: number;
        readonly groupFirst: number;
        readonly groupLast: number;
        readonly minStartCycles: number;
      }[];
      readonly rows: ClockRows;
      readonly lines: SegmentLines;
      readonly times: PlacedTimes;
    }
  | {
      readonly phase: 'order';
      readonly tasks: readonly SliceTask[];
      readonly records: SmMajorRecords;
      readonly times: CalibratedRows;
      readonly shiftNs: number;
      readonly scratch: OrderRows;
      readonly columns: WarpColumns;
    }
  | {
      readonly phase: 'emit';
      readonly tasks: readonly (MergeTask & { readonly cycleBase: number })[];
      readonly records: SmMajorRecords;
      readonly times: CalibratedRows;
      readonly scratch: OrderRows;
      readonly columns: WarpColumns;
    }
  /** Encode row ranges; each worker keeps its chunks for 'pack'. */
  | { readonly phase: 'encode'; readonly tasks: readonly (readonly [number, number])[]; readonly columns: WarpColumns; readonly subgroupSize: number; readonly cyclesPerNs: number }
  /** Copy the kept chunks (by encode task) into the file. */
  | { readonly phase: 'pack'; readonly tasks: readonly number[]; readonly layout: WtraceLayout; readonly columns: WarpColumns; readonly out: Uint8Array };

export interface PhaseReplies {
  count: RecordCounts;
  scatter: null;
  measure: MeasuredSlice;
  unwrap: { samples: Float64Array | null; minStartCycles: number };
  mergeX: null;
  runs: Uint32Array;
  fit: { segments: Segment[]; changes: number[] };
  cut: Segment[];
  share: null;
  offsets: PlacedFit[];
  place: { spans: Float64Array; minStartNs: number };
  order: { samples: Float64Array | null; minCycle: number };
  emit: null;
  encode: ChunkSizes;
  pack: null;
}

/** A phase as a program yields it: assignment[w] lists the indices of worker w's tasks. */
export type PhaseStep = PhaseRequest & { readonly assignment: readonly (readonly number[])[] };

/** What one worker gets: its tasks, and their indices in the phase. */
export type WorkerRequest = PhaseRequest & { readonly ids: readonly number[] };

/** Worker w's share of a phase. */
export function requestFor(step: PhaseStep, w: number): WorkerRequest {
  const ids = step.assignment[w] ?? [];
  const { assignment: _all, ...request } = step;
  return { ...request, tasks: ids.map((k) => (step.tasks as readonly unknown[])[k]), ids } as WorkerRequest;
}

export class PhaseWorker {
  /** Encoded chunks by encode task, until 'pack' writes them. */
  private chunks = new Map<number, WarpChunk>();

  /** Runs a worker's tasks of one phase: [task index, reply] pairs. */
  handle(request: WorkerRequest): [number, unknown][] {
    const { ids } = request;
    const each = <T>(run: (task: T) => unknown): [number, unknown][] => (request.tasks as readonly T[]).map((task, j) => [ids[j] as number, run(task)]);
    switch (request.phase) {
      case 'count':
        return each<readonly [number, number]>(([begin, end]) => countRecords(request.words, begin, end, request.limits, request.clockFlags));
      case 'scatter':
        return each<{ begin: number; end: number; part: number }>(({ begin, end, part }) => {
          scatterRecords(request.words, begin, end, cursorsOfPart(request.groups, request.cursors, part), request.out);
          return null;
        });
      case 'measure':
        return each<SliceTask>(({ slice, whole }) => measureSlice(request.rows, request.map, slice, request.nsPerCycle, whole));
      case 'unwrap':
        return each<SliceTask>(({ slice, whole }) => unwrapSlice(request.rows, slice, request.nsPerCycle[slice.g] as number, whole));
      case 'mergeX':
        return each<MergeTask>(({ slices, lo, hi }) => {
          mergeByX(request.rows, slices, lo, hi);
          return null;
        });
      case 'runs':
        return each<number>((g) => runsOf(request.rows, g, request.nsPerCycle));
      case 'fit':
        return each<{ g: number; firstRun: number; lastRun: number; bounds: Uint32Array }>(({ g, firstRun, lastRun, bounds }) => fitRuns(request.rows, g, bounds, firstRun, lastRun, request.ctx));
      case 'cut':
        return each<{ g: number; segments: readonly Segment[] }>(({ g, segments }) => cutAtRateChanges(request.rows, g, segments, request.changes, request.ctx));
      case 'share':
        return each<readonly [number, number]>(([begin, end]) => {
          poolSlopes(request.pool, begin, end, request.slope, request.error);
          return null;
        });
      case 'offsets':
        return each<{ segments: readonly Segment[]; first: number }>(({ segments, first }) => offsetSegments(request.rows, segments, first, request.slope, request.error, request.ctx));
      case 'place':
        return each<{ segments: readonly { begin: number; end: number }[]; first: number; groupFirst: number; groupLast: number; minStartCycles: number }>((t) =>
          placeSegments(request.rows, t.segments, t.first, t.groupFirst, t.groupLast, request.lines, t.minStartCycles, request.times),
        );
      case 'order':
        return each<SliceTask>(({ slice, whole }) => orderSlice(request.records, request.times, request.shiftNs, request.scratch, slice, whole, request.columns));
      case 'emit':
        return each<MergeTask & { cycleBase: number }>(({ slices, lo, hi, cycleBase }) => {
          emitPart(request.records, request.times, request.scratch, slices, lo, hi, cycleBase, request.columns);
          return null;
        });
      case 'encode':
        this.chunks.clear();
        return request.tasks.map(([begin, end], j): [number, unknown] => {
          const id = ids[j] as number;
          const chunk = encodeWarpChunk(request.columns, begin, end, request.subgroupSize, request.cyclesPerNs);
          this.chunks.set(id, chunk);
          return [id, chunkSizes(chunk)];
        });
      case 'pack':
        return each<number>((id) => {
          const chunk = this.chunks.get(id);
          if (chunk === undefined) throw new Error(`pack: chunk ${id} was not encoded by this worker`);
          writeChunk(request.layout, id, chunk, request.columns, request.out);
          this.chunks.delete(id);
          return null;
        });
    }
  }
}

/**
 * A phase program: yields each phase and receives the replies, indexed by
 * task. Driven by runPhases in this thread, or by a thread pool.
 */
export type PhaseProgram<R> = Generator<PhaseStep, R, unknown[]>;

/** Merges [task, value] replies into an array indexed by task. */
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
    const reply = worker.handle(requestFor(step.value, 0));
    step = program.next(mergeReplies([reply], step.value.tasks.length));
  }
  return step.value;
}
