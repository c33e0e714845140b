/**
 * The cold open, as a user opens the viewer: a browser of its own, started for
 * this open with a fresh profile (no HTTP, V8 code or GPU shader cache), WebGL on
 * SwiftShader with the GPU process compositing and rastering canvases (no
 * `--disable-gpu`), and the page (`?trace=URL`, or no trace: the default sample)
 * its first navigation. The page's own start — module evaluation, the app's first
 * render, pixi's renderer start, the browser's GPU stack starting (ANGLE and
 * SwiftShader, once per browser) — falls inside the open, where the warm open
 * (`openUrl` on a page that is up, in a browser that drew before) has it behind it.
 * Long tasks are observed from the document's start (long-task-probe.ts, installed
 * before any page script) until the analysis panels show their summary, plus 300 ms
 * for the frames after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { installLongTaskProbe, type LongTasks, type LongTaskWindow } from './long-task-probe.js';
import { OPEN_TRACE_CATEGORIES, longTasksOfTrace, printLongTaskParts } from './open-trace.js';

/** Long tasks from the document's start (their start: ms after it), and: */
export interface ColdOpenResult extends LongTasks {
  /** Document start until the first frame of the trace, and until the analysis summary shows. */
  readonly firstFrameMs: number;
  readonly analysedMs: number;
  /** The warps of the trace the page opened (the default sample's, when no file was named). */
  readonly warps: number;
}

interface ColdOpenWindow extends LongTaskWindow {
  __wtCold: { analysedAt: number };
}

/**
 * Chromium as it runs for a user on a machine without a GPU: WebGL through ANGLE on
 * SwiftShader (current Chromium allows that fallback only with --enable-unsafe-swiftshader),
 * the GPU process up and compositing. Unlike the warm browser of viewer-bench.ts, no
 * `--disable-gpu`: with it, 2D canvases and compositing stay on the CPU and a
 * canvas readback never waits for the GPU process.
 */
export const COLD_BROWSER_ARGS = ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-first-run', '--disable-background-networking'];

export interface ColdBrowserOptions {
  readonly chromium: string;
  readonly viewport: { readonly width: number; readonly height: number };
  /** Write a Chrome trace of the open here and print its long tasks, named (open-trace.ts); null: none. */
  readonly traceFile: string | null;
}

/** Opens `${address}?trace=${file}` (`file` null: the page alone, which opens the default sample) in a browser of its own. */
export async function coldBrowserOpen(address: string, file: string | null, options: ColdBrowserOptions): Promise<ColdOpenResult> {
  const profile = mkdtempSync(join(tmpdir(), 'warptrace-cold-'));
  const browser = await puppeteer.launch({ executablePath: options.chromium, headless: true, userDataDir: profile, args: COLD_BROWSER_ARGS });
  try {
    const page = await browser.newPage();
    await page.setViewport(options.viewport);
    page.on('pageerror', (e) => console.error('page error:', e));
    const { traceFile } = options;
    if (traceFile !== null) await page.tracing.start({ path: traceFile, categories: OPEN_TRACE_CATEGORIES });
    const result = await coldOpen(page, address, file);
    if (traceFile !== null) {
      await page.tracing.stop();
      console.log(`cold open (${file ?? 'the default sample'}, a fresh browser), from the document's start:`);
      printLongTaskParts(longTasksOfTrace(traceFile, 'warptrace:open', 50, 'navigationStart'));
    }
    return result;
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Opens `${address}?trace=${file}` (or `address` alone when `file` is null) in `page` and returns what its main thread did until analysed. */
export async function coldOpen(page: Page, address: string, file: string | null): Promise<ColdOpenResult> {
  await installLongTaskProbe(page);
  await page.evaluateOnNewDocument(() => {
    const state = { analysedAt: -1 };
    (window as unknown as ColdOpenWindow).__wtCold = state;
    document.addEventListener('wt-analysis-ready', () => (state.analysedAt = performance.now()), { once: true });
  });
  const url = new URL(address);
  if (file !== null) url.searchParams.set('trace', file);
  await page.goto(url.href, { waitUntil: 'load' });
  // Both: on a cold page the analysis can come before the first frame (the renderer still starting).
  const ready = () => (window as unknown as ColdOpenWindow).__wtCold.analysedAt >= 0 && performance.getEntriesByName('warptrace:first-frame').length > 0;
  await page.waitForFunction(ready, { timeout: 120_000, polling: 100 });
  return page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 300));
    const w = window as unknown as ColdOpenWindow;
    const firstFrame = performance.getEntriesByName('warptrace:first-frame')[0];
    const warps = document.querySelector('warptrace-app')?.opened?.trace.warps.count ?? NaN;
    return { ...w.__wtLongTasks.since(0), firstFrameMs: firstFrame?.startTime ?? NaN, analysedMs: w.__wtCold.analysedAt, warps };
  });
}
