/**
 * The work of decoding a raw dump as phases of independent tasks: slices of
 * records, slices of an SM's rows, batches of its clock segments, parts of
 * its sorted rows, chunks of the output. A phase program (wtrawProgram)
 * yields each phase with every task and which worker runs which; a driver
 * (runPhases here, or a thread pool) hands each worker its tasks and merges
 * the replies by task. Everything a phase shares lives in typed arrays
 * (shared memory for a pool), so tasks of one SM can run on any worker.
 */
import { encodeRows, mergeByStart, sortByStart, writeRows, type OrderRows, type PlacedRows } from './raw-canonical.js';
import type { SmGroups, WarpColumns } from './model.js';
import { countRecords, cursorsOfPart, scatterRecords, type RecordCounts, type RecordLimits, type SmMajorRecords } from './raw-records.js';
import type { Band } from './clock-fit.js';
import type { MergeTask } from './row-sort.js';
import type { ClaimedTasks, SliceTask } from './row-tasks.js';
import { checkSegments, type CheckedBatch } from './clock-quality.js';
import { cutAtRateChanges, fitRuns } from './segment-fitter.js';
import type { DrawCheck } from './draw-bounds.js';
import { placeSegments, type PlacedBatch, type SegmentLines } from './segment-lines.js';
import {
  clockDirection,
  measureSlice,
  mergeByX,
  offsetSegments,
  runsOf,
  unwrapSlice,
  type ClockRows,
  type DeviceClockMap,
  type FitContext,
  type MeasuredSlice,
  type PlacedFit,
  type Segment,
} from './sm-clock.js';
import { poolSlopes, type SlopePool } from './shared-slopes.js';
import { allocRowWindow, type ChunkShape, type OpenRow, type RowLink, type RowWindow, type WarpChunk } from './warp-encoder.js';
import { chunkSizes, writeChunk, type ChunkSizes, type WtraceLayout } from './wtrace-writer.js';

/** Where canonical rows go: warp columns (a Trace), or .wtrace chunks the workers keep until 'pack'. */
export type RowSink = { readonly columns: WarpColumns } | { readonly chunks: ChunkShape };

/** A chunk a worker encoded and keeps (by its first row) until 'pack'. */
export interface ChunkReport {
  /** The worker that keeps it. */
  readonly worker: number;
  readonly from: number;
  readonly sizes: ChunkSizes;
  readonly open: OpenRow | null;
  readonly last: RowLink | null;
}

/** The canonical rows' sources: records, their placed times, the sort scratch and the origin's move. */
export interface CanonicalInput {
  readonly records: SmMajorRecords;
  readonly placed: PlacedRows;
  readonly scratch: OrderRows;
  readonly shiftTicks: number;
  readonly sink: RowSink;
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
  /** Cut each group into runs, and measure its clock's direction (pairs going back more than marginNs). */
  | { readonly phase: 'runs'; readonly tasks: readonly number[]; readonly rows: ClockRows; readonly nsPerCycle: number; readonly marginNs: number }
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
  /** Residuals of batches of segments against their lines, and each segment's halves checked (clock-quality.ts). */
  | {
      readonly phase: 'check';
      readonly tasks: readonly { readonly segments: readonly { readonly begin: number; readonly end: number }[]; readonly first: number }[];
      readonly rows: ClockRows;
      readonly lines: SegmentLines;
      readonly borrowed: Uint8Array;
      readonly band: Band;
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
      readonly placed: PlacedRows & { readonly cycleStart: Float64Array };
      readonly drawCheck: DrawCheck | null;
    }
  /** Sort slices by start; whole groups are written to the sink at once. */
  | ({ readonly phase: 'order'; readonly tasks: readonly SliceTask[] } & CanonicalInput)
  /** Merge parts of sliced groups and write them to the sink. */
  | ({ readonly phase: 'emit'; readonly tasks: readonly MergeTask[] } & CanonicalInput)
  /** Copy kept chunks (task: the chunk's first row, and its index in the layout) into the file. */
  | { readonly phase: 'pack'; readonly tasks: readonly (readonly [number, number])[]; readonly layout: WtraceLayout; readonly out: Uint8Array };

export interface PhaseReplies {
  count: RecordCounts;
  scatter: null;
  measure: MeasuredSlice;
  unwrap: { samples: Float64Array | null; minStartCycles: number };
  mergeX: null;
  runs: { bounds: Uint32Array; direction: { pairs: number; backwards: number } };
  fit: { segments: Segment[]; changes: number[] };
  cut: Segment[];
  share: null;
  offsets: PlacedFit[];
  check: CheckedBatch;
  place: PlacedBatch;
  order: { samples: Float64Array | null; chunk: ChunkReport | null };
  emit: ChunkReport | null;
  pack: null;
}

/**
 * A phase as a program yields it: assignment[w] lists the indices of worker
 * w's tasks, or every worker gets every task and claims them (a shared
 * counter) as it gets free, so a slow worker takes fewer (for tasks cheap to
 * send to all). `meanwhile` is the program's own work that does not wait
 * for this phase (run while the workers run theirs).
 */
export type PhaseStep = PhaseRequest & { readonly assignment: readonly (readonly number[])[] | ClaimedTasks; readonly meanwhile?: () => void };

/** What one worker gets: its tasks and their indices in the phase, or all tasks and how to claim them. */
export type WorkerRequest = PhaseRequest &
  ({ readonly ids: readonly number[]; readonly claim: null } | { readonly ids: null; readonly claim: { readonly counter: Int32Array; readonly order: readonly number[] } });

/** Worker w's share of a phase (counter: the step's shared one, for claimed tasks). */
export function requestFor(step: PhaseStep, w: number, counter: Int32Array | null): WorkerRequest {
  const { assignment, meanwhile: _own, ...request } = step;
  if ('claimOrder' in assignment) {
    if (counter === null) throw new Error(`phase ${step.phase}: claimed tasks need a counter`);
    return { ...request, ids: null, claim: { counter, order: assignment.claimOrder } } as WorkerRequest;
  }
  const ids = assignment[w] ?? [];
  return { ...request, tasks: ids.map((k) => (step.tasks as readonly unknown[])[k]), ids, claim: null } as WorkerRequest;
}

/** The counter a step's claimed tasks are taken with (shared between threads when `shared`), else null. */
export function claimCounter(step: PhaseStep, shared: boolean): Int32Array | null {
  if (!('claimOrder' in step.assignment)) return null;
  return new Int32Array(shared ? new SharedArrayBuffer(4) : new ArrayBuffer(4));
}

export class PhaseWorker {
  /** `index`: this worker's place in its pool (chunk reports name it). */
  constructor(private readonly index = 0) {}

  /** Encoded chunks by first row, until 'pack' writes them. */
  private readonly chunks = new Map<number, WarpChunk>();
  private window: RowWindow | null = null;

  /** Writes canonical rows [from, to) (of group g) to the sink: a chunk report when encoding. */
  private sink(input: CanonicalInput, g: number, from: number, to: number): ChunkReport | null {
    const { records, placed, scratch, shiftTicks, sink } = input;
    if ('columns' in sink) {
      writeRows(records, placed, scratch.order, shiftTicks, from, to, sink.columns);
      return null;
    }
    if (to <= from) return null;
    this.window ??= allocRowWindow();
    const startsGroup = from === records.groups.offsets[g];
    const chunk = encodeRows(records, placed, scratch.order, shiftTicks, from, to, startsGroup, sink.chunks, this.window);
    this.chunks.set(from, chunk);
    return { worker: this.index, from, sizes: chunkSizes(chunk), open: chunk.open, last: chunk.last };
  }

  /** Runs a worker's tasks of one phase: [task index, reply] pairs. */
  handle(request: WorkerRequest): [number, unknown][] {
    const each = <T>(run: (task: T) => unknown): [number, unknown][] => {
      const tasks = request.tasks as readonly T[];
      if (request.claim === null) return tasks.map((task, j) => [request.ids[j] as number, run(task)]);
      const { counter, order } = request.claim;
      const done: [number, unknown][] = [];
      for (let c = Atomics.add(counter, 0, 1); c < order.length; c = Atomics.add(counter, 0, 1)) {
        const k = order[c] as number;
        done.push([k, run(tasks[k] as T)]);
      }
      return done;
    };
    switch (request.phase) {
      case 'count':
        // A conversion begins: chunks of one that failed are dropped.
        this.chunks.clear();
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
        return each<number>((g) => ({ bounds: runsOf(request.rows, g, request.nsPerCycle), direction: clockDirection(request.rows, g, request.marginNs) }));
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
      case 'check':
        return each<{ segments: readonly { begin: number; end: number }[]; first: number }>((t) => checkSegments(request.rows, t.segments, t.first, request.lines, request.borrowed, request.band));
      case 'place':
        return each<{ segments: readonly { begin: number; end: number }[]; first: number; groupFirst: number; groupLast: number; minStartCycles: number }>((t) =>
          placeSegments(request.rows, t.segments, t.first, t.groupFirst, t.groupLast, request.lines, t.minStartCycles, request.placed, request.drawCheck),
        );
      case 'order':
        return each<SliceTask>(({ slice, whole }) => {
          const samples = sortByStart(request.placed, request.scratch, slice, whole);
          return { samples, chunk: whole ? this.sink(request, slice.g, slice.begin, slice.end) : null };
        });
      case 'emit':
        return each<MergeTask>(({ g, slices, lo, hi }) => {
          const [from, to] = mergeByStart(request.scratch, slices, lo, hi);
          return this.sink(request, g, from, to);
        });
      case 'pack':
        return each<readonly [number, number]>(([from, k]) => {
          const chunk = this.chunks.get(from);
          if (chunk === undefined) throw new Error(`pack: the chunk from row ${from} was not encoded by this worker`);
          writeChunk(request.layout, k, chunk, request.out);
          this.chunks.delete(from);
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
    const reply = worker.handle(requestFor(step.value, 0, claimCounter(step.value, false)));
    step.value.meanwhile?.();
    step = program.next(mergeReplies([reply], step.value.tasks.length));
  }
  return step.value;
}
