/**
 * One long-task observer per benchmarked page, installed before the page's scripts
 * (page.evaluateOnNewDocument), so the warm, cold and A/B opens read main-thread tasks
 * over 50 ms the same way: `window.__wtLongTasks.since(t0)` flushes the observer and
 * returns the tasks that started at or after t0, their start relative to it.
 */
import type { Page } from 'puppeteer-core';

/** Durations and starts (ms after the origin asked for) of the long tasks. */
export interface LongTasks {
  readonly longTasks: number[];
  readonly longTaskAt: number[];
}

export interface LongTaskWindow {
  __wtLongTasks: { since(t0: number): LongTasks };
}

/** Call before the page's navigation: the observer sees the document from its start. */
export function installLongTaskProbe(page: Page): Promise<unknown> {
  return page.evaluateOnNewDocument(() => {
    const entries: { startTime: number; duration: number }[] = [];
    const keep = (list: PerformanceEntryList) => {
      for (const e of list) entries.push({ startTime: e.startTime, duration: e.duration });
    };
    const observer = new PerformanceObserver((list) => keep(list.getEntries()));
    observer.observe({ type: 'longtask' });
    (window as unknown as LongTaskWindow).__wtLongTasks = {
      since(t0: number): LongTasks {
        keep(observer.takeRecords());
        const after = entries.filter((e) => e.startTime >= t0);
        return { longTasks: after.map((e) => e.duration), longTaskAt: after.map((e) => e.startTime - t0) };
      },
    };
  });
}
