/**
 * Analysis benchmark: every analysis (analyzeTrace) on synthetic H100-shaped
 * traces of 1 M and 10 M warps, best and median of 5 runs after a warm-up, per
 * phase (of the best run); then the export formatters
 * (summary JSON, Markdown, Perfetto JSON generated in memory, not written).
 * Goal (issue 5): all analyses on 10 M warps within 1 s in Node.
 *   npm run bench:analysis            (1 M and 10 M)
 *   npm run bench:analysis -- 2000000 (sizes of your choice)
 */
import { cpus } from 'node:os';
import { analyzeTrace } from '../analysis/index.js';
import { summaryToJson } from '../analysis/export/json.js';
import { summaryToMarkdown } from '../analysis/export/markdown.js';
import { perfettoJsonChunks } from '../analysis/export/perfetto.js';
import { synthesizeTrace } from '../shared-schema/index.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const runs = 5;
const phases = ['keys', 'sweep', 'durations', 'overlap', 'syncs', 'idle', 'leftovers', 'stalls', 'assemble'];

const rows: string[][] = [];
for (const n of sizes.length > 0 ? sizes : [1_000_000, 10_000_000]) {
  const trace = synthesizeTrace({ warps: n, seed: 42 });
  let best = Infinity;
  let bestPhases = new Map<string, number>();
  const totals: number[] = [];
  let summary = analyzeTrace(trace); // warm-up
  for (let r = 0; r < runs; r++) {
    const times = new Map<string, number>();
    const t0 = performance.now();
    summary = analyzeTrace(trace, { onPhase: (p, ms) => times.set(p, ms) });
    const total = performance.now() - t0;
    totals.push(total);
    if (total < best) {
      best = total;
      bestPhases = times;
    }
  }
  const t1 = performance.now();
  const json = summaryToJson(summary);
  const md = summaryToMarkdown(summary);
  const t2 = performance.now();
  let perfettoChars = 0;
  for (const chunk of perfettoJsonChunks(trace, { summary })) perfettoChars += chunk.length;
  const t3 = performance.now();
  rows.push([
    n.toLocaleString('en-US'),
    `${best.toFixed(0)} ms`,
    `${totals.sort((x, y) => x - y)[Math.floor(totals.length / 2)]!.toFixed(0)} ms`,
    `${(n / best / 1000).toFixed(1)}`,
    ...phases.map((p) => (bestPhases.get(p) ?? 0).toFixed(0)),
    `${(t2 - t1).toFixed(0)} ms (${(json.length / 1e6).toFixed(1)} MB + ${(md.length / 1e3).toFixed(0)} kB)`,
    `${((t3 - t2) / 1000).toFixed(1)} s (${(perfettoChars / 1e9).toFixed(2)} GB, ${(n / ((t3 - t2) / 1000) / 1e6).toFixed(2)} M warps/s)`,
  ]);
  console.error(`${n} warps: ${summary.findings.length} findings, ${summary.draws.length} draws`);
}

const header = ['warps', 'analyzeTrace best of 5', 'median', 'M warps/s (best)', ...phases.map((p) => `${p} ms`), 'JSON + Markdown', 'Perfetto JSON (in memory)'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
