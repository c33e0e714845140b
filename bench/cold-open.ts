/**
 * The cold open: a fresh page loads `?trace=URL` (how a link or `npm run dev --
 * --trace` opens a trace), so the page's own start — module evaluation, the
 * app's first render, pixi's renderer start — falls inside the open too, where
 * the warm open (`openUrl` on a page that already shows the default sample)
 * has it behind it. Long tasks are observed from the document's start
 * (long-task-probe.ts, installed before any page script) until the analysis panels
 * show their summary, plus 300 ms for the frames after it.
 */
import type { Page } from 'puppeteer-core';
import { installLongTaskProbe, type LongTasks, type LongTaskWindow } from './long-task-probe.js';

/** Long tasks from the document's start (their start: ms after it), and: */
export interface ColdOpenResult extends LongTasks {
  /** Document start until the first frame of the trace, and until the analysis summary shows. */
  readonly firstFrameMs: number;
  readonly analysedMs: number;
}

interface ColdOpenWindow extends LongTaskWindow {
  __wtCold: { analysedAt: number };
}

/** Opens `${address}?trace=${file}` in `page` and returns what its main thread did until analysed. */
export async function coldOpen(page: Page, address: string, file: string): Promise<ColdOpenResult> {
  await installLongTaskProbe(page);
  await page.evaluateOnNewDocument(() => {
    const state = { analysedAt: -1 };
    (window as unknown as ColdOpenWindow).__wtCold = state;
    document.addEventListener('wt-analysis-ready', () => (state.analysedAt = performance.now()), { once: true });
  });
  const url = new URL(address);
  url.searchParams.set('trace', file);
  await page.goto(url.href, { waitUntil: 'load' });
  await page.waitForFunction(() => (window as unknown as ColdOpenWindow).__wtCold.analysedAt >= 0, { timeout: 120_000, polling: 100 });
  return page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 300));
    const w = window as unknown as ColdOpenWindow;
    const firstFrame = performance.getEntriesByName('warptrace:first-frame')[0];
    return { ...w.__wtLongTasks.since(0), firstFrameMs: firstFrame?.startTime ?? NaN, analysedMs: w.__wtCold.analysedAt };
  });
}
