/**
 * bench:viewer's results and how they are printed: the open, the long tasks
 * (warm open, cold opens run by run, A/B open), and the frame times of the scripted session.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import type { AbOpenResult } from './ab-open.js';
import type { ColdOpenResult } from './cold-open.js';

export interface SizeResult {
  warps: number;
  fileBytes: number;
  openMs: number;
  readMs: number;
  decodeMs: number;
  indexMs: number;
  firstFrameMs: number;
  framesJs: number[];
  framesGpu: number[];
  rebuilds: number;
  instances: number[];
  phases: string[];
  rebuiltFrames: boolean[];
  /** Right after the first frame. */
  heapOpenBytes: number;
  heapBeforeBytes: number;
  heapAfterBytes: number;
  traceBytes: number;
  indexBytes: number;
  /** Main-thread long tasks (PerformanceObserver 'longtask', > 50 ms) from open until the analysis panels have their summary. */
  longTasks: number[];
  /** Their start, ms after the open began. */
  longTaskAt: number[];
  /** Open until the analysis panels show their summary. */
  analysedMs: number;
  /** B opened against A as the baseline (--ab), else null. */
  ab: AbOpenResult | null;
}

/** One cold open (cold-open.ts): a fresh browser opening the default sample or a size's trace. */
export interface ColdRun {
  readonly label: string;
  readonly run: number;
  /** The machine's 1-minute load average as the run started (the VM is shared). */
  readonly load: number;
  readonly result: ColdOpenResult;
}

function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Count, longest, how many over 100 ms, and each "ms @ start" of a run's long tasks. */
function longTaskCells(tasks: readonly number[], at: readonly number[]): string[] {
  return [
    String(tasks.length),
    tasks.length > 0 ? `${Math.max(...tasks).toFixed(0)} ms` : '-',
    String(tasks.filter((d) => d > 100).length),
    tasks.map((d, k) => `${d.toFixed(0)} @ ${(at[k]! / 1000).toFixed(1)} s`).join(', '),
  ];
}

export function printTable(results: readonly SizeResult[], coldRuns: readonly ColdRun[], browserVersion: string, viewport: { width: number; height: number }): void {
  const { width, height } = viewport;
  const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
  const table = (rows: string[][]) => {
    if (rows.length < 2) return;
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
    rows.forEach((row, k) => {
      console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`);
      if (k === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    });
    console.log('');
  };
  console.log(`\nwarptrace viewer benchmark · ${browserVersion} headless, SwiftShader (software GL; warm pages with --disable-gpu) · load average ${loadavg()[0]!.toFixed(1)} at the end · ${cpus().length} cores (${cpus()[0]?.model ?? '?'}) · ${(totalmem() / 2 ** 30).toFixed(0)} GiB · viewport ${width}×${height}\n`);
  const open: string[][] = [['warps', 'file', 'open → first frame', 'read', 'decode', 'index', 'to first frame', 'heap B/warp (open / after session)', 'trace columns B/warp', 'lane index B/warp']];
  for (const r of results) {
    open.push([
      r.warps.toLocaleString('en-US'),
      `${(r.fileBytes / 1e6).toFixed(1)} MB`,
      ms(r.openMs),
      ms(r.readMs),
      ms(r.decodeMs),
      ms(r.indexMs),
      ms(r.firstFrameMs),
      `${((r.heapOpenBytes - r.heapBeforeBytes) / r.warps).toFixed(1)} / ${((r.heapAfterBytes - r.heapBeforeBytes) / r.warps).toFixed(1)}`,
      (r.traceBytes / r.warps).toFixed(1),
      (r.indexBytes / r.warps).toFixed(2),
    ]);
  }
  table(open);
  const busy: string[][] = [['warps', 'open → analysis shown', 'main-thread long tasks (> 50 ms)', 'longest', 'over 100 ms', 'all: ms @ start after open']];
  for (const r of results) {
    busy.push([
      r.warps.toLocaleString('en-US'),
      ms(r.analysedMs),
      ...longTaskCells(r.longTasks, r.longTaskAt),
    ]);
  }
  table(busy);
  const cold: string[][] = [['cold open (fresh browser, WebGL on SwiftShader, GPU compositing)', 'warps', 'run', 'load', '→ first frame', '→ analysis shown', 'long tasks (> 50 ms)', 'longest', 'over 100 ms', 'all: ms @ start after the document\'s start']];
  for (const { label, run, load, result: c } of coldRuns) {
    cold.push([label, c.warps.toLocaleString('en-US'), String(run), load.toFixed(1), ms(c.firstFrameMs), ms(c.analysedMs), ...longTaskCells(c.longTasks, c.longTaskAt)]);
  }
  table(cold);
  const abRows = results.filter((r) => r.ab !== null);
  if (abRows.length > 0) {
    const ab: string[][] = [['warps (A and B)', 'B → first frame', '→ analysis and comparison shown', 'long tasks (> 50 ms)', 'longest', 'over 100 ms', 'all: ms @ start after B\'s open', 'ghost draws', 'compare panel']];
    for (const r of abRows) {
      const c = r.ab!;
      ab.push([
        r.warps.toLocaleString('en-US'),
        ms(c.firstFrameMs),
        ms(c.analysedMs),
        ...longTaskCells(c.longTasks, c.longTaskAt),
        c.ghostDraws.toLocaleString('en-US'),
        c.comparePanel ? 'shown' : 'missing',
      ]);
    }
    table(ab);
  }
  const frames: string[][] = [['warps', 'session part', 'frames', 'rebuilt', 'JS p50', 'JS p95', 'JS+GPU p50', 'JS+GPU p95', 'JS+GPU max', 'rects p50 / max']];
  for (const r of results) {
    const parts = [...new Set(r.phases)].map((p) => [p, r.phases.map((q, k) => (q === p ? k : -1)).filter((k) => k >= 0)] as const);
    for (const [name, idx] of [['all', r.phases.map((_, k) => k)] as const, ...parts]) {
      const js = idx.map((k) => r.framesJs[k]!);
      const gpu = idx.map((k) => r.framesGpu[k]!);
      const quads = idx.map((k) => r.instances[k]!);
      frames.push([
        r.warps.toLocaleString('en-US'),
        name,
        String(idx.length),
        String(idx.filter((k) => r.rebuiltFrames[k]).length),
        ms(percentile(js, 50)),
        ms(percentile(js, 95)),
        ms(percentile(gpu, 50)),
        ms(percentile(gpu, 95)),
        ms(Math.max(...gpu)),
        `${Math.round(percentile(quads, 50) / 100) / 10}k / ${Math.round(Math.max(...quads) / 100) / 10}k`,
      ]);
    }
  }
  table(frames);
  if (results.length === 0) return;
  console.log('JS: the work of a frame on the main thread (level of detail, buffer upload, pixi render calls, text).');
  console.log('JS+GPU: until a 1-pixel readback returns, i.e. including SwiftShader rasterizing the frame on the CPU.');
  console.log('Goals: 10 M warps open → first frame ≤ 3000 ms, frame p95 ≤ 16 ms, heap ≤ 24 B/warp.');
}

