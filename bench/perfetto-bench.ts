/**
 * Perfetto export benchmark: the protobuf export (analysis/export/perfetto-proto.ts)
 * against the Chrome JSON one, on synthetic H100-shaped traces, generated in
 * memory (not written). Protobuf: best of 3 after a warm-up (warps named by
 * stage); warps named by stage and draw, and JSON: one run.
 * Goal (issue 14, item 5): ≤ 25 B/warp and ≥ 2 M warps/s in Node.
 *   npm run bench:perfetto              (1 M, 5 M and 10 M warps)
 *   npm run bench:perfetto -- 2000000   (sizes of your choice)
 *   npm run bench:perfetto -- --json 5000000   (also time the JSON export)
 *   npm run bench:perfetto -- --marks 16 1000000 (also with 16 marks a warp: phase slices)
 */
import { cpus } from 'node:os';
import { perfettoJsonChunks } from '../analysis/export/perfetto.js';
import { perfettoProtoChunks, type PerfettoProtoStats } from '../analysis/export/perfetto-proto.js';
import { MARK_KIND_SHIFT, MarkKind, synthesizeTrace, type MarkColumns, type Trace } from '../shared-schema/index.js';

const args = process.argv.slice(2);
const withJson = args.includes('--json');
const marksAt = args.indexOf('--marks');
const marksPerWarp = marksAt >= 0 ? Number(args[marksAt + 1]) : 0;
const sizes = args.filter((_, i) => i !== marksAt + 1 || marksAt < 0).map(Number).filter((n) => n > 0);

/** `perWarp` marks on every warp, evenly spaced, alternating before and after trace calls #0, #1, … (the --marks trace shape). */
function withMarks(trace: Trace, perWarp: number): Trace {
  const w = trace.warps;
  const count = w.count * perWarp;
  const marks: MarkColumns = {
    count,
    warp: new Uint32Array(count),
    id: new Uint32Array(count),
    sequence: new Uint8Array(count),
    offsetNs: new Float32Array(count),
    activeMask: new Uint32Array(count).fill(0xffffffff),
    activeMaskHi: null,
    orphans: 0,
  };
  for (let i = 0, k = 0; i < w.count; i++) {
    for (let j = 0; j < perWarp; j++, k++) {
      marks.warp[k] = i;
      marks.sequence[k] = j;
      marks.offsetNs[k] = (w.durationNs[i]! * (j + 1)) / (perWarp + 1);
      marks.id[k] = ((j % 2 === 0 ? MarkKind.BEFORE_TRACE : MarkKind.AFTER_TRACE) << MARK_KIND_SHIFT) | (j >> 1);
    }
  }
  return { ...trace, marks };
}

function proto(trace: Trace, warpNames: 'stage' | 'stage-draw' = 'stage'): { ms: number; stats: PerfettoProtoStats; chunks: number; largest: number } {
  const t0 = performance.now();
  const gen = perfettoProtoChunks(trace, { warpNames });
  let chunks = 0;
  let largest = 0;
  let r = gen.next();
  while (!r.done) {
    chunks++;
    largest = Math.max(largest, r.value.length);
    r = gen.next();
  }
  return { ms: performance.now() - t0, stats: r.value, chunks, largest };
}

const rows: string[][] = [];
const markRows: string[][] = [];
for (const n of sizes.length > 0 ? sizes : [1_000_000, 5_000_000, 10_000_000]) {
  const trace = synthesizeTrace({ warps: n, seed: 42 });
  proto(trace); // warm-up
  let best = proto(trace);
  for (let r = 1; r < 3; r++) {
    const run = proto(trace);
    if (run.ms < best.ms) best = run;
  }
  const s = best.stats;
  const named = proto(trace, 'stage-draw');
  const stageDraw = `${(named.stats.bytes / n).toFixed(1)} B/warp, ${(n / named.ms / 1000).toFixed(2)} M warps/s, ${named.stats.internedNames} names`;
  let json = '-';
  if (withJson) {
    const t0 = performance.now();
    let chars = 0;
    for (const chunk of perfettoJsonChunks(trace)) chars += chunk.length;
    const sec = (performance.now() - t0) / 1000;
    json = `${sec.toFixed(1)} s, ${(chars / 1e6).toFixed(0)} MB (${(chars / n).toFixed(0)} B/warp)`;
  }
  if (marksPerWarp > 0) {
    const marked = withMarks(trace, marksPerWarp);
    const rss0 = process.memoryUsage().rss;
    const m = proto(marked);
    const rss = process.memoryUsage().rss;
    markRows.push([
      n.toLocaleString('en-US'),
      String(marksPerWarp),
      m.stats.phaseSlices.toLocaleString('en-US'),
      `${(m.stats.bytes / 1e6).toFixed(1)} MB`,
      (m.stats.bytes / n).toFixed(1),
      ((m.stats.bytes - s.bytes) / m.stats.phaseSlices).toFixed(1),
      `${m.ms.toFixed(0)} ms`,
      `${m.chunks} × ≤ ${(m.largest / 2 ** 20).toFixed(2)} MiB`,
      `${(rss / 2 ** 20).toFixed(0)} MiB (${((rss - rss0) / 2 ** 20).toFixed(0)} more)`,
    ]);
  }
  rows.push([
    n.toLocaleString('en-US'),
    `${trace.draws.length}`,
    `${s.lanes}`,
    `${s.internedNames}`,
    `${(s.bytes / 1e6).toFixed(1)} MB`,
    (s.bytes / n).toFixed(1),
    `${best.ms.toFixed(0)} ms`,
    (n / best.ms / 1000).toFixed(2),
    `${best.chunks} × ≤ ${(best.largest / 2 ** 20).toFixed(2)} MiB`,
    stageDraw,
    json,
  ]);
  console.error(`${n} warps done`);
}

const header = ['warps', 'draws', 'lanes', 'names interned', 'protobuf', 'B/warp', 'best of 3', 'M warps/s', 'chunks', "warpNames 'stage-draw' (one run)", 'Chrome JSON (one run)'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
if (markRows.length > 0) {
  const markHeader = ['warps', 'marks a warp', 'phase slices', 'protobuf', 'B/warp', 'B/phase', 'one run', 'chunks', 'RSS after'];
  const mw = markHeader.map((h, i) => Math.max(h.length, ...markRows.map((r) => r[i]!.length)));
  const markLine = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(mw[i]!)).join(' | ')} |`;
  console.log('');
  console.log(markLine(markHeader));
  console.log(markLine(mw.map((w) => '-'.repeat(w))));
  for (const r of markRows) console.log(markLine(r));
}
