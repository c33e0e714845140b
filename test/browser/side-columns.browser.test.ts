// The side columns (draw list, analysis panels): resizable by drag or keys, collapsible,
// widths kept in localStorage and clamped; the timeline takes the rest.
import { sendKeys, sendMouse, resetMouse, setViewport } from '@web/test-runner-commands';
import { SIDE_LIMITS, STRIP_PX } from '../../viewer/components/side-columns.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import '../../viewer/panels/index.js';
import { assert, assertEqual } from './assert.js';
import { fixtureWtrace, mountApp } from './viewer-helpers.js';

const KEY = 'warptrace.sideColumns';
let app: WarptraceApp | null = null;

async function openWithPanels(): Promise<WarptraceApp> {
  const a = await mountApp();
  a.style.width = '1600px';
  a.style.height = '1000px';
  const panels = document.createElement('wt-analysis-panels');
  panels.slot = 'panels';
  a.append(panels);
  assert(await a.openFile(await fixtureWtrace(), 'tiny.wtrace'), 'opens');
  await a.updateComplete;
  return a;
}

function box(a: WarptraceApp, selector: string): DOMRect {
  const el = a.shadowRoot!.querySelector(selector);
  assert(el !== null, `${selector} exists`);
  return el.getBoundingClientRect();
}

describe('side columns', () => {
  before(() => setViewport({ width: 1600, height: 1000 }));
  beforeEach(() => localStorage.removeItem(KEY));
  afterEach(async () => {
    app?.remove();
    app = null;
    localStorage.removeItem(KEY);
    await resetMouse();
  });

  it('default widths; dragging the panels edge widens them, the timeline takes the rest, the width is kept', async () => {
    app = await openWithPanels();
    assertEqual(Math.round(box(app, '.draws').width), SIDE_LIMITS.left.initial, 'draw list width');
    assertEqual(Math.round(box(app, 'aside.panels').width), SIDE_LIMITS.right.initial, 'panels width');
    const handle = box(app, '.side-edge.right .side-handle');
    const x = Math.round(handle.left + handle.width / 2);
    const y = Math.round(handle.top + handle.height / 2);
    await sendMouse({ type: 'move', position: [x, y] });
    await sendMouse({ type: 'down' });
    await sendMouse({ type: 'move', position: [x - 150, y] });
    await sendMouse({ type: 'up' });
    await app.updateComplete;
    const panels = box(app, 'aside.panels');
    assert(Math.abs(panels.width - (SIDE_LIMITS.right.initial + 150)) <= 2, `panels widened: ${panels.width}`);
    const center = box(app, '.center');
    const draws = box(app, '.draws');
    assert(Math.abs(center.left - draws.right) <= 1 && Math.abs(center.right - panels.left) <= 1, 'the timeline takes the rest');
    const kept = JSON.parse(localStorage.getItem(KEY)!) as { right: { width: number } };
    assert(Math.abs(kept.right.width - panels.width) <= 2, 'width kept in localStorage');
    app.remove();
    app = await openWithPanels();
    assert(Math.abs(box(app, 'aside.panels').width - panels.width) <= 2, 'width restored');
  });

  it('keys resize the draw list within its limits; the toggle collapses a column to a strip and reopens it', async () => {
    app = await openWithPanels();
    (app.shadowRoot!.querySelector('.side-edge.left .side-handle') as HTMLElement).focus();
    await sendKeys({ press: 'ArrowRight' });
    await app.updateComplete;
    assertEqual(Math.round(box(app, '.draws').width), SIDE_LIMITS.left.initial + 20, 'ArrowRight widens');
    await sendKeys({ press: 'End' });
    await app.updateComplete;
    assertEqual(Math.round(box(app, '.draws').width), SIDE_LIMITS.left.max, 'clamped to the maximum');
    await sendKeys({ press: 'Home' });
    await app.updateComplete;
    assertEqual(Math.round(box(app, '.draws').width), SIDE_LIMITS.left.min, 'clamped to the minimum');
    const toggle = app.shadowRoot!.querySelector('.side-edge.right .side-toggle') as HTMLButtonElement;
    toggle.click();
    await app.updateComplete;
    assertEqual(Math.round(box(app, 'aside.panels').width), STRIP_PX, 'collapsed to a strip');
    assertEqual(toggle.getAttribute('aria-expanded'), 'false', 'aria-expanded');
    const strip = toggle.getBoundingClientRect();
    assert(strip.width >= STRIP_PX - 2 && strip.height > 200, `the strip reopens it: ${strip.width}×${strip.height}`);
    toggle.click();
    await app.updateComplete;
    assertEqual(Math.round(box(app, 'aside.panels').width), SIDE_LIMITS.right.initial, 'reopened at its width');
  });
});
