/**
 * The A/B open: trace A is opened and analysed, made the baseline ("Use as
 * baseline (A)" in the panels), then trace B (same size, another seed) is
 * opened against it. From B's open until its analysis and the comparison
 * show (+300 ms), the page also pairs B's draws with A's (the ghost track on
 * the timeline, the compare panel's per-draw deltas): the long tasks of that
 * open are what this measures.
 */
import type { Page } from 'puppeteer-core';
import { installLongTaskProbe, type LongTasks, type LongTaskWindow } from './long-task-probe.js';

/** Long tasks from B's open (their start: ms after it), and: */
export interface AbOpenResult extends LongTasks {
  /** B's open until its first frame, and until its analysis (with the comparison) shows. */
  readonly firstFrameMs: number;
  readonly analysedMs: number;
  /** Whether the timeline drew A's draws as a ghost track and the compare panel showed. */
  readonly ghostDraws: number;
  readonly comparePanel: boolean;
}

/** Opens `fileA`, makes it the baseline, then opens `fileB` on a fresh page at `address`. */
export async function abOpen(page: Page, address: string, fileA: string, fileB: string): Promise<AbOpenResult> {
  await installLongTaskProbe(page);
  await page.goto(address, { waitUntil: 'load' });
  await page.waitForFunction(() => customElements.get('warptrace-app') !== undefined);
  return page.evaluate(
    async (a: string, b: string) => {
      const app = document.querySelector('warptrace-app')!;
      const panels = document.querySelector('wt-analysis-panels');
      if (panels === null) throw new Error('the page has no analysis panels');
      const analysed = () => new Promise<void>((r) => panels.addEventListener('wt-analysis-ready', () => r(), { once: true }));
      const aReady = analysed();
      if (!(await app.openUrl(a))) throw new Error(`could not open ${a}: ${app.error}`);
      await aReady;
      await panels.updateComplete;
      const use = [...panels.shadowRoot!.querySelectorAll('button')].find((x) => x.textContent?.includes('Use as baseline'));
      if (use === undefined) throw new Error('no "Use as baseline" button');
      use.click();
      await panels.updateComplete;
      await new Promise((r) => setTimeout(r, 1000));

      const t0 = performance.now();
      const bReady = analysed();
      if (!(await app.openUrl(b))) throw new Error(`could not open ${b}: ${app.error}`);
      const firstFrameMs = performance.now() - t0;
      await Promise.race([bReady, new Promise((r) => setTimeout(r, 60_000))]);
      // The comparison comes a task after the panels: wait for it too.
      for (let k = 0; k < 500 && panels.shadowRoot!.querySelector('wt-compare-panel') === null; k++) await new Promise((r) => setTimeout(r, 10));
      const analysedMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 300));
      const { longTasks, longTaskAt } = (window as unknown as LongTaskWindow).__wtLongTasks.since(t0);
      const timeline = app.timeline!;
      const ghost = (timeline as unknown as { ghost: { track: { baselineDraw: Int32Array } } | null }).ghost;
      let ghostDraws = 0;
      if (ghost !== null) for (const d of ghost.track.baselineDraw) if (d >= 0) ghostDraws++;
      const comparePanel = panels.shadowRoot!.querySelector('wt-compare-panel') !== null;
      return { longTasks, longTaskAt, firstFrameMs, analysedMs, ghostDraws, comparePanel };
    },
    fileA,
    fileB,
  );
}
