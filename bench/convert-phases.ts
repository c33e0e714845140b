/**
 * Where the thread pool's conversion time goes: wall time of each phase of
 * wtrawProgram (the slowest thread decides) and of the work between phases
 * on the main thread. For finding what keeps the pool from scaling.
 *   npm run bench:convert-phases -- 10000000 16   (warps, threads)
 */
import { H100_CLOCKS, encodeWtraw, rawCaptureOf, synthesizeTrace } from '../shared-schema/index.js';
import { ConvertPool } from '../shared-schema/node/convert-pool.js';
import { parseWtraw } from '../shared-schema/wtraw.js';

const warps = Number(process.argv[2] ?? 1_000_000);
const threads = Number(process.argv[3] ?? 4);
const plain = encodeWtraw(rawCaptureOf(synthesizeTrace({ warps, seed: 42 }), H100_CLOCKS).raw);
const raw = new Uint8Array(new SharedArrayBuffer(plain.length));
raw.set(plain);
const pool = await ConvertPool.create(threads);
const totals = new Map<string, number>();
const runs = 3;
for (let r = 0; r < runs; r++) {
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    if (r > 0) totals.set(name, (totals.get(name) ?? 0) + (now - t) / (runs - 1));
    t = now;
  };
  const parsed = parseWtraw(raw);
  lap('parse (main)');
  await pool.driveTimed(parsed, true, lap);
}
await pool.destroy();
const total = [...totals.values()].reduce((a, b) => a + b, 0);
console.log(`${warps.toLocaleString('en-US')} warps, ${threads} threads, mean of ${runs - 1} runs after a warm-up: ${total.toFixed(0)} ms (${(warps / total / 1e3).toFixed(1)} M warps/s)`);
console.log('| step | ms | share |');
console.log('| --- | --- | --- |');
for (const [name, ms] of totals) console.log(`| ${name} | ${ms.toFixed(1)} | ${((100 * ms) / total).toFixed(0)}% |`);
