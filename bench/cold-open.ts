/**
 * The cold open: a fresh page loads `?trace=URL` (how a link or `npm run dev --
 * --trace` opens a trace), so the page's own start — module evaluation, the
 * app's first render, pixi's renderer start — falls inside the open too, where
 * the warm open (`openUrl` on a page that already shows the default sample)
 * has it behind it. Long tasks are observed from the document's start
 * (an observer installed before any page script) until the analysis panels
 * show their summary, plus 300 ms for the frames after it.
 */
import type { Page } from 'puppeteer-core';

export interface ColdOpenResult {
  /** Main-thread tasks over 50 ms, from the document's start, and their start (ms after it). */
  readonly longTasks: number[];
  readonly longTaskAt: number[];
  /** Document start until the first frame of the trace, and until the analysis summary shows. */
  readonly firstFrameMs: number;
  readonly analysedMs: number;
}

interface ColdOpenWindow {
  __wtCold: { tasks: number[]; at: number[]; analysedAt: number };
}

/** Opens `${address}?trace=${file}` in `page` and returns what its main thread did until analysed. */
export async function coldOpen(page: Page, address: string, file: string): Promise<ColdOpenResult> {
  await page.evaluateOnNewDocument(() => {
    const state = { tasks: [] as number[], at: [] as number[], analysedAt: -1 };
    (window as unknown as ColdOpenWindow).__wtCold = state;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) state.tasks.push(e.duration), state.at.push(e.startTime);
    }).observe({ type: 'longtask' });
    document.addEventListener('wt-analysis-ready', () => (state.analysedAt = performance.now()), { once: true });
  });
  const url = new URL(address);
  url.searchParams.set('trace', file);
  await page.goto(url.href, { waitUntil: 'load' });
  await page.waitForFunction(() => (window as unknown as ColdOpenWindow).__wtCold.analysedAt >= 0, { timeout: 120_000, polling: 100 });
  return page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 300));
    const state = (window as unknown as ColdOpenWindow).__wtCold;
    const firstFrame = performance.getEntriesByName('warptrace:first-frame')[0];
    return { longTasks: state.tasks, longTaskAt: state.at, firstFrameMs: firstFrame?.startTime ?? NaN, analysedMs: state.analysedAt };
  });
}
