/**
 * Conversion benchmark: wtraw → Trace (decode + per-SM calibration + sort),
 * Trace → .wtrace bytes, and .wtrace → Trace, on synthetic H100-shaped
 * captures of 1 M and 10 M warps. Prints a table; numbers go to bench/RESULTS.md.
 *   npm run bench:convert            (1 M and 10 M)
 *   npm run bench:convert -- 1000000 (sizes of your choice)
 */
import { cpus } from 'node:os';
import {
  H100_CLOCKS,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  rawCaptureOf,
  synthesizeTrace,
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

const rows: string[][] = [];
for (const n of sizes.length > 0 ? sizes : [1_000_000, 10_000_000]) {
  const truth = synthesizeTrace({ warps: n, seed: 42 });
  const rawBytes = encodeWtraw(rawCaptureOf(truth, H100_CLOCKS).raw);
  let trace = decodeWtraw(rawBytes);
  const rawMs = best(() => (trace = decodeWtraw(rawBytes)));
  let file = encodeWtrace(trace);
  const encodeMs = best(() => (file = encodeWtrace(trace)));
  const readMs = best(() => decodeWtrace(file));
  const uncalibrated = encodeWtrace(truth).length;
  const mwps = (ms: number) => (n / ms / 1e3).toFixed(1);
  rows.push([
    n.toLocaleString('en-US'),
    `${rawMs.toFixed(0)} ms (${mwps(rawMs)})`,
    `${encodeMs.toFixed(0)} ms (${mwps(encodeMs)})`,
    mwps(rawMs + encodeMs),
    `${readMs.toFixed(0)} ms (${mwps(readMs)})`,
    (file.length / n).toFixed(2),
    (uncalibrated / n).toFixed(2),
  ]);
}

const headers = ['warps', 'wtraw→Trace (M/s)', 'Trace→.wtrace (M/s)', 'wtraw→.wtrace M warps/s', '.wtrace→Trace (M/s)', 'B/warp (with cycles)', 'B/warp (no cycles)'];
const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, best of ${runs}`);
console.log(line(headers));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
