/**
 * Converting raw dumps on several threads (Node worker_threads): each
 * phase of wtrawProgram hands every thread its tasks (slices of records,
 * of a busy SM's rows, batches of clock segments, chunks of the file) over
 * shared memory; this thread parses, pools what the tasks found between
 * phases and lays the file out, which the threads then write into. The
 * output is byte for byte what the one-thread path writes.
 *
 *   const pool = await ConvertPool.create(threads);
 *   const { wtrace } = await pool.wtrawToWtrace(raw);
 *   await pool.destroy();
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { TraceFormatError, type TraceErrorCode } from '../errors.js';
import type { Trace } from '../model.js';
import { claimCounter, mergeReplies, requestFor, type PhaseProgram, type WorkerRequest } from '../phase-worker.js';
import { allocUintColumn } from '../columns.js';
import type { ColumnAllocator } from '../raw-canonical.js';
import { conversionOf, parseWtraw, wtrawProgram, type ParsedWtraw, type RawDecodeOptions, type WtraceConversion, type WtrawResult } from '../wtraw.js';

/** Columns in shared memory, so every thread reads and writes the same rows. */
const sharedColumns: ColumnAllocator = {
  f64: (n) => new Float64Array(new SharedArrayBuffer(n * 8)),
  f32: (n) => new Float32Array(new SharedArrayBuffer(n * 4)),
  uint: (n, max) => {
    const width = allocUintColumn(0, max).BYTES_PER_ELEMENT;
    const buffer = new SharedArrayBuffer(n * width);
    return width === 1 ? new Uint8Array(buffer) : width === 2 ? new Uint16Array(buffer) : new Uint32Array(buffer);
  },
  share: (column) => {
    const copy = new (column.constructor as new (buffer: SharedArrayBuffer) => typeof column)(new SharedArrayBuffer(column.byteLength));
    copy.set(column);
    return copy;
  },
};

function copyToShared(bytes: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  return shared;
}

/** A file's bytes read straight into shared memory (what the pool reads without a copy). */
export function readShared(path: string): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let at = 0;
    while (at < size) {
      const got = readSync(fd, bytes, at, size - at, at);
      if (got === 0) break;
      at += got;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

interface ThreadReply {
  readonly reply?: [number, unknown][];
  readonly error?: { code?: TraceErrorCode; field?: string; message: string };
}

export class ConvertPool {
  private constructor(private readonly threads: Worker[]) {}

  /** Starts `threads` worker threads (default: one per available core). */
  static async create(threads = availableParallelism()): Promise<ConvertPool> {
    const url = new URL('./phase-thread.js', import.meta.url);
    const workers = Array.from({ length: Math.max(1, threads) }, (_, index) => new Worker(url, { workerData: { index } }));
    await Promise.all(workers.map((w) => new Promise((resolve, reject) => w.once('online', resolve).once('error', reject))));
    return new ConvertPool(workers);
  }

  get size(): number {
    return this.threads.length;
  }

  /** A raw GPU dump → .wtrace bytes (the same as encodeWtrace(decodeWtraw(bytes))), with the trace's header and warp count. */
  async wtrawToWtrace(bytes: Uint8Array, options: RawDecodeOptions = {}): Promise<WtraceConversion> {
    return conversionOf(await this.run(bytes, 'file', options));
  }

  /** A raw GPU dump → Trace (columns in shared memory). */
  async decodeWtraw(bytes: Uint8Array, options: RawDecodeOptions = {}): Promise<Trace> {
    const { header, warps } = await this.run(bytes, 'trace', options);
    if (warps === null) throw new Error('the program wrote no warp columns');
    return { ...header, warps };
  }

  async destroy(): Promise<void> {
    await Promise.all(this.threads.map((w) => w.terminate()));
  }

  private async run(bytes: Uint8Array, output: 'trace' | 'file', options: RawDecodeOptions): Promise<WtrawResult> {
    // The threads read the records where they lie: in shared memory (see readShared).
    const shared = bytes.buffer instanceof SharedArrayBuffer ? bytes : copyToShared(bytes);
    return this.drive(wtrawProgram(parseWtraw(shared, options), this.threads.length, sharedColumns, output));
  }

  /** run() on parsed shared bytes, calling lap(name) after each phase and each main-thread step (bench/convert-phases.ts). */
  driveTimed(parsed: ParsedWtraw, output: 'trace' | 'file', lap: (name: string) => void): Promise<WtrawResult> {
    return this.drive(wtrawProgram(parsed, this.threads.length, sharedColumns, output), lap);
  }

  private async drive<R>(program: PhaseProgram<R>, lap?: (name: string) => void): Promise<R> {
    let step = program.next([]);
    lap?.('main: before count');
    while (!step.done) {
      const request = step.value;
      const claim = claimCounter(request, true);
      const asked = this.threads.map((thread, w) => ask(thread, requestFor(request, w, claim)));
      // The program's own work runs while the threads run theirs.
      let ownError: { error: unknown } | null = null;
      try {
        request.meanwhile?.();
      } catch (error) {
        ownError = { error };
      }
      // Every thread answers before a failure is reported: a reply left in flight would be taken as the answer to the next request.
      const settled = await Promise.allSettled(asked);
      const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      if (ownError !== null) throw ownError.error;
      const replies = settled.map((r) => (r as PromiseFulfilledResult<[number, unknown][]>).value);
      lap?.(`threads: ${request.phase}`);
      step = program.next(mergeReplies(replies, request.tasks.length));
      lap?.(`main: after ${request.phase}`);
    }
    return step.value;
  }
}

function ask(thread: Worker, request: WorkerRequest): Promise<[number, unknown][]> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    thread.once('error', onError);
    thread.once('message', (message: ThreadReply) => {
      thread.off('error', onError);
      if (message.reply !== undefined) return resolve(message.reply);
      const e = message.error ?? { message: 'no reply' };
      reject(e.code !== undefined && e.field !== undefined ? new TraceFormatError(e.code, e.field, e.message.slice(e.field.length + 2)) : new Error(`conversion thread failed: ${e.message}`));
    });
    thread.postMessage(request);
  });
}
