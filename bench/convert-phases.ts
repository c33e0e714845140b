/**
 * Where the thread pool's conversion time goes: wall time of each phase of
 * wtrawProgram (the slowest thread decides) and of the work between phases
 * on the main thread, with the CPU time all threads spent in it (user and
 * system, from process.resourceUsage) and the page faults taken (fresh
 * memory: the kernel zeroes every page on first touch). For finding what
 * keeps the pool from scaling.
 *   npm run bench:convert-phases -- 10000000 16   (warps, threads)
 *   RUNS=8 npm run bench:convert-phases -- ...     (conversions; the first is a warm-up)
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
/** Per step: wall ms, user and system CPU ms, minor page faults (means over the measured runs). */
const totals = new Map<string, [number, number, number, number]>();
const runs = Math.max(2, Number(process.env['RUNS'] ?? 3));
for (let r = 0; r < runs; r++) {
  let t = performance.now();
  let usage = process.resourceUsage();
  const lap = (name: string) => {
    const now = performance.now();
    const next = process.resourceUsage();
    const step = [now - t, (next.userCPUTime - usage.userCPUTime) / 1e3, (next.systemCPUTime - usage.systemCPUTime) / 1e3, next.minorPageFault - usage.minorPageFault];
    const sum = totals.get(name) ?? [0, 0, 0, 0];
    if (r > 0) totals.set(name, sum.map((v, k) => v + (step[k] as number) / (runs - 1)) as [number, number, number, number]);
    t = now;
    usage = next;
  };
  const parsed = parseWtraw(raw);
  lap('parse (main)');
  await pool.driveTimed(parsed, 'file', lap);
}
await pool.destroy();
const sum = (k: number) => [...totals.values()].reduce((a, v) => a + (v[k] as number), 0);
const total = sum(0);
console.log(`${warps.toLocaleString('en-US')} warps, ${threads} threads, mean of ${runs - 1} runs after a warm-up: ${total.toFixed(0)} ms (${(warps / total / 1e3).toFixed(1)} M warps/s)`);
console.log('| step | ms | share | CPU user ms | CPU system ms | page faults |');
console.log('| --- | --- | --- | --- | --- | --- |');
const row = (name: string, [ms, user, system, faults]: readonly number[]) =>
  console.log(`| ${name} | ${ms!.toFixed(1)} | ${((100 * ms!) / total).toFixed(0)}% | ${user!.toFixed(0)} | ${system!.toFixed(0)} | ${faults!.toFixed(0)} |`);
for (const [name, step] of totals) row(name, step);
row('all', [0, 1, 2, 3].map(sum));
