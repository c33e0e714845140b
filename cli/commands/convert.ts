import { availableParallelism } from 'node:os';
import { decodeTrace, encodeWtrace, isWtraw, wtrawToWtrace, WtrawHeaderWord, type TraceHeader } from '../../shared-schema/index.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { ConvertPool } from '../../shared-schema/node/convert-pool.js';
import { UsageError, parseCommandArgs, type Command } from '../command.js';
import { DECODE_OPTIONS, checkOutputs, formatBytes, readInputFile, writeFileAtomic } from '../files.js';

/** Raw dumps with at least this many records are converted on several threads by default (below, starting them costs more than it saves). */
const THREADS_FROM_RECORDS = 2_000_000;
const MAX_DEFAULT_THREADS = 16;

export const convertCommand: Command = {
  name: 'convert',
  summary: 'convert a trace (.wtraw, JSON, .wtrace) to .wtrace or JSON, calibrating raw clocks',
  help: `usage: warptrace convert IN -o OUT [--force]

Reads IN (.wtraw raw GPU dump, warptrace JSON, or .wtrace, recognized by
content) and writes OUT as .wtrace, or as warptrace JSON when OUT ends in
.json. Raw dumps are calibrated on the way: each SM's clock is mapped to the
device clock (see shared-schema/README.md).

Options:
  -o, --output OUT   the file to write (required)
  --force            replace OUT if it exists
  --threads N        threads for a raw dump (default: one per core, up to
                     ${MAX_DEFAULT_THREADS}, for dumps of ${THREADS_FROM_RECORDS.toLocaleString('en-US')} records or more; else 1);
                     the output is the same for any N
  -h, --help

The output is written to a temporary file and renamed into place, so a failed
run (a full disk, Ctrl-C) never leaves a partial file and never clobbers an
existing one without --force. JSON is written as it is made (10 M warps make
~700 MB). Exit status: 0 ok, 1 bad input or unwritable output, 2 usage error,
130/143 interrupted.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
      threads: { type: 'string' },
    });
    const threadsArg = values.threads === undefined ? null : Number(values.threads);
    if (threadsArg !== null && !(Number.isInteger(threadsArg) && threadsArg >= 1 && threadsArg <= 256)) {
      throw new UsageError(`--threads expects a whole number from 1 to 256, got ${values.threads}`);
    }
    if (positionals.length !== 1) throw new UsageError('expected exactly one input file');
    if (values.output === undefined) throw new UsageError('missing -o OUT');
    const input = positionals[0]!;
    const output = values.output;
    const force = values.force === true;
    checkOutputs([{ option: '-o', path: output }], [input], force);
    const asJson = output.toLowerCase().endsWith('.json');
    const inputBytes = readInputFile(input, true);
    const records = isWtraw(inputBytes) && inputBytes.length >= 64 ? new DataView(inputBytes.buffer, inputBytes.byteOffset).getUint32(WtrawHeaderWord.RECORD_COUNT * 4, true) : 0;
    const threads = threadsArg ?? (records >= THREADS_FROM_RECORDS ? Math.min(availableParallelism(), MAX_DEFAULT_THREADS) : 1);
    let header: TraceHeader;
    let warpCount: number;
    let chunks: Iterable<Uint8Array | string>;
    if (isWtraw(inputBytes) && !asJson) {
      // Straight to the file: no Trace in between.
      const converted = threads > 1 ? await withPool(threads, (pool) => pool.wtrawToWtrace(inputBytes, DECODE_OPTIONS)) : wtrawToWtrace(inputBytes, DECODE_OPTIONS);
      ({ header, warpCount } = converted);
      chunks = [converted.wtrace];
    } else {
      const trace = isWtraw(inputBytes) && threads > 1 ? await withPool(threads, (pool) => pool.decodeWtraw(inputBytes, DECODE_OPTIONS)) : decodeTrace(inputBytes, DECODE_OPTIONS);
      // JSON is written as it is made: 10 M warps of it are longer than one string can be.
      chunks = asJson ? traceJsonChunks(trace) : [encodeWtrace(trace)];
      header = trace;
      warpCount = trace.warps.count;
    }
    const size = await writeFileAtomic(output, chunks, { overwrite: force });
    const cal = header.capture.calibration;
    const perWarp = warpCount > 0 ? `, ${(size / warpCount).toFixed(1)} B/warp` : '';
    io.out(
      `wrote ${output}: ${warpCount.toLocaleString('en-US')} warps, ${formatBytes(size)}${perWarp}; ` +
        `calibration ${cal.method}, SMs aligned: ${cal.alignedAcrossSms ? 'yes' : 'NO'}; ` +
        `${header.capture.recordsWritten - header.capture.recordsKept} records dropped`,
    );
    return 0;
  },
};

/** Runs `work` on a pool of `threads` conversion threads, stopped afterwards whatever happens. */
async function withPool<T>(threads: number, work: (pool: ConvertPool) => Promise<T>): Promise<T> {
  const pool = await ConvertPool.create(threads);
  try {
    return await work(pool);
  } finally {
    await pool.destroy();
  }
}
