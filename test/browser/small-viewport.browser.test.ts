// The timeline's room at 1280×720, 1600×1000 and 2560×1440 with the analysis panels and a
// game-like frame (issue 24: at 1280×720 it got 600×340 px): the side columns take a share
// of a narrow window, the samples menu no longer pushes the header to three lines, the
// detail panels are shorter in a short window and collapse to a line (kept across reloads),
// and the header and the SM line (with a pass legend of long names) stay inside the window.
import { setViewport } from '@web/test-runner-commands';
import { SIDE_LIMITS, defaultWidth } from '../../viewer/components/side-columns.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import '../../viewer/panels/index.js';
import { assert, assertEqual } from './assert.js';
import { openGameFrame } from './game-frame-app.js';
import { afterTwoFrames, waitFor } from './viewer-helpers.js';

const KEY = 'warptrace.sideColumns';
let app: WarptraceApp | null = null;

async function openAt(width: number, height: number): Promise<WarptraceApp> {
  await setViewport({ width, height });
  const a = await openGameFrame({ panels: true });
  a.style.width = `${width}px`;
  a.style.height = `${height}px`;
  a.requestUpdate();
  await a.updateComplete;
  await afterTwoFrames();
  return a;
}

const box = (a: WarptraceApp, selector: string) => a.shadowRoot!.querySelector(selector)!.getBoundingClientRect();

describe('the timeline’s room in small and large windows', () => {
  beforeEach(() => localStorage.removeItem(KEY));
  afterEach(() => {
    app?.remove();
    app = null;
    localStorage.removeItem(KEY);
  });

  it('at 1280×720 the timeline gets more than 600×340 px; collapsing the details gives it their height, and stays so', async () => {
    app = await openAt(1280, 720);
    assertEqual(Math.round(box(app, '.draws').width), defaultWidth('left', 1280), 'the draw list takes its share of the window');
    assert(defaultWidth('left', 1280) < SIDE_LIMITS.left.initial && defaultWidth('right', 1280) < SIDE_LIMITS.right.initial, 'narrower than at 1600 px');
    assertEqual(Math.round(box(app, 'aside.panels').width), defaultWidth('right', 1280), 'so do the panels');
    const header = box(app, 'header');
    assert(header.height < 80, `the header fits two lines: ${header.height} px`);
    const tl = box(app, 'wt-timeline');
    assert(tl.width >= 700 && tl.height >= 400, `timeline ${tl.width.toFixed(0)}×${tl.height.toFixed(0)}`);
    const toggle = app.shadowRoot!.querySelector<HTMLButtonElement>('.details-toggle')!;
    toggle.click();
    await app.updateComplete;
    await afterTwoFrames();
    const taller = box(app, 'wt-timeline');
    assert(taller.height >= tl.height + 140, `details collapsed: ${tl.height.toFixed(0)} → ${taller.height.toFixed(0)} px`);
    assertEqual(toggle.getAttribute('aria-expanded'), 'false', 'aria-expanded');
    assert(app.timeline!.screenLayout.lanes.height > 300, 'the lanes got the room');
    app.remove();
    app = await openAt(1280, 720);
    assert(Math.abs(box(app, 'wt-timeline').height - taller.height) < 2, 'kept across a reload');
    app.shadowRoot!.querySelector<HTMLButtonElement>('.details-toggle')!.click();
    await app.updateComplete;
    assert(box(app, '.details').height > 120, 'opened again');
  });

  for (const [w, h] of [
    [1280, 720],
    [1600, 1000],
    [2560, 1440],
  ] as const) {
    it(`at ${w}×${h}: the header, the SM line with a pass legend of long names and the filter bar stay inside the window`, async () => {
      app = await openAt(w, h);
      app.colorBy = { kind: 'pass' };
      app.drawList!.setQuery('pass:Lighting');
      await app.updateComplete;
      await waitFor('the pass coloring and the highlight', () => app!.coloring !== null && app!.filters.highlight !== null);
      await app.updateComplete;
      for (const sel of ['header', '.sm-summary', '.filter-bar']) {
        const el = app.shadowRoot!.querySelector(sel) as HTMLElement;
        assert(el.scrollWidth <= el.clientWidth + 1, `${sel}: ${el.scrollWidth} px of content in ${el.clientWidth}`);
        for (const child of el.querySelectorAll('*')) {
          const r = child.getBoundingClientRect();
          // Only what is shown (the closed help popover is laid out, never drawn).
          if (r.width > 0 && child.checkVisibility()) assert(r.right <= w + 0.5, `${sel} ${child.tagName}.${child.className} "${child.textContent?.slice(0, 40)}": right edge ${r.right.toFixed(0)} > ${w}`);
        }
      }
      const tl = box(app, 'wt-timeline');
      assert(tl.width >= w * 0.55, `timeline ${tl.width.toFixed(0)} px of ${w}`);
    });
  }
});
