/**
 * Conversion benchmark: wtraw → Trace (decode + per-SM calibration + sort),
 * Trace → .wtrace bytes, wtraw → .wtrace straight (wtrawToWtrace, one
 * thread, what `warptrace convert` runs below 2 M records) and .wtrace →
 * Trace, on synthetic H100-shaped captures of 1 M and 10 M warps. Prints a
 * table; numbers go to bench/RESULTS.md. The thread pool
 * (shared-schema/node/convert-pool.ts) converts the same dumps with one
 * thread per core; the bytes of both are checked against
 * encodeWtrace(decodeWtraw(dump)).
 *   npm run bench:convert            (1 M and 10 M)
 *   npm run bench:convert -- 1000000 (sizes of your choice)
 *   THREADS=8 npm run bench:convert  (pool size; default: available cores)
 */
import { availableParallelism, cpus } from 'node:os';
import { ConvertPool } from '../shared-schema/node/convert-pool.js';
import {
  H100_CLOCKS,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  rawCaptureOf,
  synthesizeTrace,
  wtrawToWtrace,
} from '../shared-schema/index.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const runs = 3;

function best(f: () => unknown): number {
  let min = Infinity;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

async function bestAsync(f: () => Promise<unknown>): Promise<number> {
  let min = Infinity;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    await f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

const threads = Number(process.env['THREADS'] ?? availableParallelism());
const poolStart = performance.now();
const pool = await ConvertPool.create(threads);
const poolStartMs = performance.now() - poolStart;

const rows: string[][] = [];
for (const n of sizes.length > 0 ? sizes : [1_000_000, 10_000_000]) {
  const truth = synthesizeTrace({ warps: n, seed: 42 });
  // In shared memory, as the CLI reads a dump (readShared), so the pool's threads read it in place.
  const plainRaw = encodeWtraw(rawCaptureOf(truth, H100_CLOCKS).raw);
  const rawBytes = new Uint8Array(new SharedArrayBuffer(plainRaw.length));
  rawBytes.set(plainRaw);
  let trace = decodeWtraw(rawBytes);
  const rawMs = best(() => (trace = decodeWtraw(rawBytes)));
  let file = encodeWtrace(trace);
  const encodeMs = best(() => (file = encodeWtrace(trace)));
  const readMs = best(() => decodeWtrace(file));
  const same = (bytes: Uint8Array) => Buffer.compare(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), Buffer.from(file.buffer, file.byteOffset, file.length)) === 0;
  if (!same(wtrawToWtrace(rawBytes).wtrace)) throw new Error('wtrawToWtrace wrote different bytes than encodeWtrace(decodeWtraw)');
  const directMs = best(() => wtrawToWtrace(rawBytes));
  if (!same((await pool.wtrawToWtrace(rawBytes)).wtrace)) throw new Error('the pool wrote different bytes than the one-thread path');
  const poolMs = await bestAsync(() => pool.wtrawToWtrace(rawBytes));
  const uncalibrated = encodeWtrace(truth).length;
  const mwps = (ms: number) => (n / ms / 1e3).toFixed(1);
  rows.push([
    n.toLocaleString('en-US'),
    `${rawMs.toFixed(0)} ms (${mwps(rawMs)})`,
    `${encodeMs.toFixed(0)} ms (${mwps(encodeMs)})`,
    `${directMs.toFixed(0)} ms (${mwps(directMs)})`,
    `${poolMs.toFixed(0)} ms (${mwps(poolMs)})`,
    `${readMs.toFixed(0)} ms (${mwps(readMs)})`,
    (file.length / n).toFixed(2),
    (uncalibrated / n).toFixed(2),
  ]);
}

const headers = ['warps', 'wtraw→Trace (M/s)', 'Trace→.wtrace (M/s)', 'wtraw→.wtrace 1 thread (M/s)', `wtraw→.wtrace ${threads} threads (M/s)`, '.wtrace→Trace (M/s)', 'B/warp (with cycles)', 'B/warp (no cycles)'];
const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
await pool.destroy();
console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, best of ${runs}; pool of ${threads} threads started in ${poolStartMs.toFixed(0)} ms (not counted)`);
console.log(line(headers));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
