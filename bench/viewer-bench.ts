/**
 * Viewer benchmark: builds the viewer, serves it, and drives headless
 * Chromium (the system's /usr/bin/chromium, software GL) through synthetic
 * H100-shaped traces of 1 M and 10 M warps:
 *
 * - open → first frame: ?trace= style open (fetch in the worker, decode,
 *   index, transfer, layout, first frame), with its phases;
 * - frame time over a scripted pan/zoom: JS work per frame, and work plus a
 *   GPU sync (a 1-pixel readback, so software GL rasterization counts);
 * - long tasks: main-thread tasks over 50 ms (PerformanceObserver 'longtask')
 *   from open until the analysis panels show their summary (goal: none over
 *   100 ms), for the open on a page that is up (`openUrl`) and for the cold
 *   open as a user opens the page: a fresh browser and profile, WebGL on
 *   SwiftShader with GPU compositing, the page its first navigation, for the
 *   default sample and for each size, `--cold-runs` times (cold-open.ts), where
 *   the page's and the browser's GPU start count too;
 * - memory: JS heap plus ArrayBuffer backing stores after GC, before and
 *   after opening the trace, per warp.
 *
 * Usage: npm run bench:viewer [-- --sizes 1000000,10000000 --open-only --cold-only --cold-runs 3 --trace FILE --draws-per-pass N --ab --positions]
 * (--cold-only: only the cold opens; --cold-runs: fresh browsers per trace, default 3;
 * --trace: a Chrome trace of the open into FILE.<warps>.json, and its long tasks named, open-trace.ts;
 * --draws-per-pass: the draws grouped into labelled passes, e.g. 220 puts 10 M warps' 5,040 draws in 23;
 * --ab: also a second trace opened against the first as the A/B baseline, ab-open.ts;
 * --positions: fragment warps carry screen positions, so the screen panel opens too)
 * Goals (issue 4): 10 M warps first frame ≤ 3 s, p95 ≤ 16 ms, ≤ 24 B/warp.
 */
import { createReadStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { build, preview, type Plugin } from 'vite';
import { encodeWtrace, synthesizeTrace } from '../shared-schema/index.js';
import { type AbOpenResult, abOpen } from './ab-open.js';
import { coldBrowserOpen } from './cold-open.js';
import { installLongTaskProbe, type LongTaskWindow } from './long-task-probe.js';
import { OPEN_TRACE_CATEGORIES, longTasksOfTrace, printLongTaskParts } from './open-trace.js';
import { printTable, type ColdRun, type SizeResult } from './viewer-bench-report.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = join(root, 'dist', 'viewer-app');
const chromium = process.env['CHROME_PATH'] ?? '/usr/bin/chromium';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}
const sizes = arg('sizes', '1000000,10000000').split(',').map(Number);
const width = Number(arg('width', '1600'));
const height = Number(arg('height', '1000'));
const tracePath = arg('trace', '');
/** Draws per labelled pass (a game-like frame's hierarchy in the draw list and region tracks); 0: none. */
const drawsPerPass = Number(arg('draws-per-pass', '0'));
/** Fragment warps with screen positions (the screen panel opens beside the timeline). */
const withPositions = process.argv.includes('--positions');
const traceName = (warps: number, seed = 1) =>
  `synthetic-${warps}${drawsPerPass > 0 ? `-passes-${drawsPerPass}` : ''}${withPositions ? '-positions' : ''}${seed === 1 ? '' : `-seed-${seed}`}.wtrace`;
/** Also open a second trace (seed 2) against the first as the A/B baseline (ab-open.ts). */
const withAb = process.argv.includes('--ab');
/** Only the cold opens (no warm page, no scripted session, no A/B). */
const coldOnly = process.argv.includes('--cold-only');
/** Cold opens (a fresh browser each) of the default sample and of each size. */
const coldRuns = Number(arg('cold-runs', '3'));

async function heapBytes(page: Page): Promise<number> {
  const cdp = await page.createCDPSession();
  for (let k = 0; k < 3; k++) await cdp.send('HeapProfiler.collectGarbage');
  const usage = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number };
  await cdp.detach();
  return usage.usedSize + (usage.backingStorageSize ?? 0);
}

async function benchSize(page: Page, url: string, warps: number, fileBytes: number): Promise<Omit<SizeResult, 'ab'>> {
  await installLongTaskProbe(page);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => customElements.get('warptrace-app') !== undefined);
  await new Promise((r) => setTimeout(r, 500));
  const heapBeforeBytes = await heapBytes(page);
  const file = `bench-traces/${traceName(warps)}`;
  const traceFile = tracePath === '' ? null : `${tracePath}.${warps}.json`;
  if (traceFile !== null) await page.tracing.start({ path: traceFile, categories: OPEN_TRACE_CATEGORIES });
  const opened = await page.evaluate(async (f: string) => {
    const app = document.querySelector('warptrace-app')!;
    const panels = document.querySelector('wt-analysis-panels');
    const t0 = performance.now();
    const analysed = new Promise<void>((r) => {
      if (panels === null) r();
      else panels.addEventListener('wt-analysis-ready', () => r(), { once: true });
    });
    // Which scripts the long frames ran (long-animation-frame attribution), to name the long tasks.
    const culprits: string[] = [];
    type Loaf = PerformanceEntry & {
      renderStart: number;
      styleAndLayoutStart: number;
      scripts?: { duration: number; sourceFunctionName: string; invoker: string; sourceURL: string }[];
    };
    const loaf = new PerformanceObserver((list) => {
      for (const e of list.getEntries() as Loaf[]) {
        if (e.duration <= 100) continue;
        const scripts = (e.scripts ?? []).filter((x) => x.duration > 20).map((x) => `${x.invoker} ${x.sourceFunctionName} ${x.duration.toFixed(0)}`);
        const render = e.renderStart > 0 ? e.startTime + e.duration - e.renderStart : 0;
        const layout = e.styleAndLayoutStart > 0 ? e.startTime + e.duration - e.styleAndLayoutStart : 0;
        culprits.push(`frame ${e.duration.toFixed(0)} ms at +${(e.startTime - t0).toFixed(0)} (render ${render.toFixed(0)}, style+layout ${layout.toFixed(0)}; ${scripts.join(', ') || 'no script over 20 ms'})`);
      }
    });
    loaf.observe({ type: 'long-animation-frame' });
    const ok = await app.openUrl(f);
    await Promise.race([analysed, new Promise((r) => setTimeout(r, 60_000))]);
    const analysedMs = performance.now() - t0;
    // Let the frames after the summary land, then collect what the observer saw.
    await new Promise((r) => setTimeout(r, 300));
    const { longTasks, longTaskAt } = (window as unknown as LongTaskWindow).__wtLongTasks.since(t0);
    loaf.disconnect();
    return { ok, error: app.error, timings: app.lastOpenTimings, longTasks, longTaskAt, analysedMs, culprits };
  }, file);
  if (traceFile !== null) {
    await page.tracing.stop();
    printLongTaskParts(longTasksOfTrace(traceFile, 'warptrace:open'));
  }
  if (!opened.ok || opened.timings === null) throw new Error(`could not open ${file}: ${opened.error}`);
  if (opened.culprits.length > 0) console.log(`long frames while opening (long-animation-frame):\n  ${opened.culprits.join('\n  ')}`);
  const sizes = await page.evaluate(() => {
    const o = document.querySelector('warptrace-app')!.opened!;
    const w = o.trace.warps;
    const arrays = [w.startNs, w.durationNs, w.smGroups.sm, w.smGroups.offsets, w.warpSlot, w.stage, w.draw, w.customId, w.activeMask, w.activeMaskHi, w.smCycleStart, w.smCycleDuration];
    const traceBytes = arrays.reduce((sum, a) => sum + (a?.byteLength ?? 0), 0);
    let indexBytes = o.index.drawSpans.byteLength;
    for (const lane of o.index.lanes) {
      indexBytes += lane.blockMaxEnd.byteLength;
      for (const levels of lane.occupancy.levels) for (const l of levels) indexBytes += l.byteLength;
    }
    return { traceBytes, indexBytes };
  });
  const heapOpenBytes = await heapBytes(page);
  const frames = process.argv.includes('--open-only') ? { js: [0], gpu: [0], rebuilds: 0, instances: [0], phases: ['none'], rebuiltFrames: [false] } : await page.evaluate(runScript);
  const heapAfterBytes = await heapBytes(page);
  return {
    warps,
    fileBytes,
    openMs: opened.timings.totalMs,
    readMs: opened.timings.readMs,
    decodeMs: opened.timings.decodeMs,
    indexMs: opened.timings.indexMs,
    firstFrameMs: opened.timings.firstFrameMs,
    framesJs: frames.js,
    framesGpu: frames.gpu,
    rebuilds: frames.rebuilds,
    instances: frames.instances,
    phases: frames.phases,
    rebuiltFrames: frames.rebuiltFrames,
    heapOpenBytes,
    heapBeforeBytes,
    heapAfterBytes,
    traceBytes: sizes.traceBytes,
    indexBytes: sizes.indexBytes,
    longTasks: opened.longTasks,
    longTaskAt: opened.longTaskAt,
    analysedMs: opened.analysedMs,
  };
}

/**
 * The cold opens, run by run: the default sample (the page alone) and each size's trace, each
 * in a browser of its own (cold-open.ts); with --trace, a Chrome trace of each.
 */
async function benchColdOpens(address: string): Promise<ColdRun[]> {
  const runs: ColdRun[] = [];
  const targets = [{ label: 'default sample', file: null }, ...sizes.map((warps) => ({ label: `${warps.toLocaleString('en-US')} warps`, file: `bench-traces/${traceName(warps)}` }))];
  for (let run = 1; run <= coldRuns; run++) {
    for (const { label, file } of targets) {
      console.log(`cold open ${run}/${coldRuns}: ${label}…`);
      const traceFile = tracePath === '' ? null : `${tracePath}.cold.${label.replace(/\W+/g, '-')}.${run}.json`;
      runs.push({ label, run, load: loadavg()[0]!, result: await coldBrowserOpen(address, file, { chromium, viewport: { width, height }, traceFile }) });
    }
  }
  return runs;
}

/** B opened against A as the baseline, in a page of its own, with its Chrome trace when --trace is given. */
async function benchAbOpen(browser: Browser, address: string, warps: number): Promise<AbOpenResult> {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  page.on('pageerror', (e) => console.error('page error:', e));
  const traceFile = tracePath === '' ? null : `${tracePath}.${warps}.ab.json`;
  try {
    if (traceFile !== null) await page.tracing.start({ path: traceFile, categories: OPEN_TRACE_CATEGORIES });
    const result = await abOpen(page, address, `bench-traces/${traceName(warps)}`, `bench-traces/${traceName(warps, 2)}`);
    if (traceFile !== null) {
      await page.tracing.stop();
      console.log('A/B open (B against A as the baseline), from B\'s open:');
      printLongTaskParts(longTasksOfTrace(traceFile, 'warptrace:open', 50, 'warptrace:open', 'last'));
    }
    return result;
  } finally {
    await page.close();
  }
}

/**
 * The scripted session, run in the page: zoom into a busy region, pan, zoom
 * out; expand a graphics SM (64 warp-slot rows) and a compute SM; zoom and
 * pan again; select a draw with `]`-style stepping. Each step is one frame.
 */
async function runScript(): Promise<{ js: number[]; gpu: number[]; rebuilds: number; instances: number[]; phases: string[]; rebuiltFrames: boolean[] }> {
  const app = document.querySelector('warptrace-app')!;
  const tl = app.timeline!;
  await tl.ready();
  const js: number[] = [];
  const gpu: number[] = [];
  const instances: number[] = [];
  const phases: string[] = [];
  const rebuiltFrames: boolean[] = [];
  let phase = 'collapsed lanes';
  let rebuilds = 0;
  const gl = tl.shadowRoot!.querySelector('canvas.gl') as HTMLCanvasElement;
  const ctx = (gl.getContext('webgl2') ?? gl.getContext('webgl')) as WebGL2RenderingContext;
  const pixel = new Uint8Array(4);
  let done: (() => void) | null = null;
  // Time the component's own frames: render work in JS, then until the GPU has the pixels.
  tl.onFrame = (stats, ms) => {
    if (done === null) return;
    const t0 = performance.now();
    ctx.readPixels(0, 0, 1, 1, ctx.RGBA, ctx.UNSIGNED_BYTE, pixel);
    js.push(ms);
    gpu.push(ms + performance.now() - t0);
    instances.push(stats.instances);
    phases.push(phase);
    rebuiltFrames.push(stats.rebuilt);
    if (stats.rebuilt) rebuilds++;
    const d = done;
    done = null;
    d();
  };
  const frame = () =>
    new Promise<void>((r) => {
      done = r;
      tl.requestFrame();
    });
  const full = tl.visibleWindow;
  const span = full.endNs - full.startNs;
  const centre = full.startNs + span * 0.37;
  const zoom = async (steps: number, factor: number) => {
    for (let k = 0; k < steps; k++) {
      const v = tl.visibleWindow;
      const s = (v.endNs - v.startNs) / factor;
      const c = (v.startNs + v.endNs) / 2;
      tl.setView({ startNs: c - s / 2, endNs: c + s / 2 });
      await frame();
    }
  };
  const pan = async (steps: number, fraction: number) => {
    for (let k = 0; k < steps; k++) {
      const v = tl.visibleWindow;
      const d = (v.endNs - v.startNs) * fraction;
      tl.setView({ startNs: v.startNs + d, endNs: v.endNs + d });
      await frame();
    }
  };
  tl.setView({ startNs: centre - span / 2, endNs: centre + span / 2 });
  await frame();
  await zoom(60, 1.12); // ~900× in
  await pan(40, 0.04);
  await zoom(30, 1 / 1.12);
  await pan(40, -0.05);
  await zoom(30, 1 / 1.12); // back out
  // Expand the busiest graphics SM and a compute SM: 64 warp-slot rows each.
  phase = 'expanded SMs';
  const lanes = tl.laneLayout.rows;
  tl.toggleLane(lanes[0]!.sm, true);
  if (lanes.length > 2) tl.toggleLane(lanes[2]!.sm, true);
  await frame();
  await zoom(50, 1.15);
  await pan(40, 0.05);
  await zoom(50, 1 / 1.15);
  // Draw stepping: select draws and zoom to them.
  phase = 'draw stepping';
  for (let k = 0; k < 10; k++) {
    app.stepDraw(1);
    await frame();
  }
  tl.onFrame = null;
  return { js, gpu, rebuilds, instances, phases, rebuiltFrames };
}

/**
 * Serves the benchmark traces, and the samples the page opens by default, as files
 * are served in practice (plain bytes with a Content-Length), not gzip-compressed on
 * the fly by the preview server, which would make the benchmark measure node's gzip
 * instead of the viewer.
 */
function serveTracesUncompressed(dir: string): Plugin {
  const folders: Record<string, string> = { 'bench-traces': dir, samples: join(root, 'samples') };
  return {
    name: 'bench-traces',
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /^\/(bench-traces|samples)\/([\w.-]+\.(?:wtrace|json))$/.exec(req.url ?? '');
        if (m === null) return next();
        const path = join(folders[m[1]!]!, m[2]!);
        res.setHeader('Content-Type', path.endsWith('.json') ? 'application/json' : 'application/octet-stream');
        res.setHeader('Content-Length', String(statSync(path).size));
        createReadStream(path).pipe(res);
      });
    },
  };
}

async function main(): Promise<void> {
  const traceDir = join(outDir, 'bench-traces');
  console.log('building the viewer (vite build)…');
  await build({ root, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  mkdirSync(traceDir, { recursive: true });
  const files = new Map<number, number>();
  for (const warps of sizes) {
    for (const seed of withAb ? [1, 2] : [1]) {
      const path = join(traceDir, traceName(warps, seed));
      process.stdout.write(`generating ${warps.toLocaleString('en-US')} warps${drawsPerPass > 0 ? `, ${drawsPerPass} draws per pass` : ''}, seed ${seed}… `);
      writeFileSync(path, encodeWtrace(synthesizeTrace({ warps, seed, drawsPerPass, positions: withPositions })));
      if (seed === 1) files.set(warps, statSync(path).size);
      console.log(`${(statSync(path).size / 1e6).toFixed(1)} MB`);
    }
  }
  const server = await preview({
    root,
    logLevel: 'warn',
    preview: { port: 0, host: '127.0.0.1' },
    build: { outDir },
    plugins: [serveTracesUncompressed(traceDir)],
  });
  const address = server.resolvedUrls?.local[0] ?? 'http://127.0.0.1:4173/';
  // The warm browser: software compositing (--disable-gpu), one browser for every warm and A/B page.
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-first-run', '--disable-background-networking'],
  });
  const results: SizeResult[] = [];
  let cold: ColdRun[] = [];
  const version = await browser.version();
  try {
    for (const warps of coldOnly ? [] : sizes) {
      const page = await browser.newPage();
      await page.setViewport({ width, height });
      page.on('pageerror', (e) => console.error('page error:', e));
      console.log(`benchmarking ${warps.toLocaleString('en-US')} warps…`);
      const warm = await benchSize(page, address, warps, files.get(warps)!);
      await page.close();
      results.push({ ...warm, ab: withAb ? await benchAbOpen(browser, address, warps) : null });
    }
    await browser.close();
    cold = await benchColdOpens(address);
  } finally {
    if (browser.connected) await browser.close();
    await new Promise<void>((r) => server.httpServer.close(() => r()));
  }
  printTable(results, cold, version, { width, height });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
