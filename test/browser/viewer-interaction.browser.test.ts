// Interactions with real input (Chromium's mouse and keyboard via the test runner):
// each one must change the view or the selection the way Perfetto-style tools do.
import { resetMouse, sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { STAGE_DIM_RGBA } from '../../viewer/model/colors.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { STAGE_COUNT, Stage, formatNs } from '../../shared-schema/index.js';
import { assert, assertEqual } from './assert.js';
import { deepText, fixtureWtrace, mountApp, near, rgbText, stageRgb, waitFor, afterTwoFrames } from './viewer-helpers.js';

let app: WarptraceApp;
let tl: WtTimeline;

/** Page coordinates of time t (ns) and lane-area y. */
function at(tNs: number, laneY: number): [number, number] {
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
  const x = rect.left + s.gutter + ((tNs - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s);
  return [Math.round(x), Math.round(rect.top + s.lanes.y + laneY - tl.verticalScroll)];
}

/** Lane-area y of the middle of warp slot `slot` in layout row `lane` (expanded). */
function slotY(lane: number, slot: number): number {
  const row = tl.laneLayout.rows[lane]!;
  return row.y + row.headerHeight + 2 + (slot + 0.5) * row.slotRowHeight;
}

function timeAt(x: number): number {
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
  return v.startNs + ((x - rect.left - s.gutter) / timeWidth(s)) * (v.endNs - v.startNs);
}

describe('viewer interactions', () => {
  // The app is 1200×800 px: make the whole of it reachable by the mouse.
  before(() => setViewport({ width: 1280, height: 900 }));
  beforeEach(async () => {
    app = await mountApp();
    assert(await app.openFile(await fixtureWtrace(), 'fixture.wtrace'), 'fixture opens');
    tl = app.timeline!;
    await tl.ready();
    tl.toggleLane(0, true);
    tl.toggleLane(5, true);
    // Inside the pan limits (the trace plus 2%), so the view can move both ways.
    tl.setView({ startNs: 1000, endNs: 9000 });
    await afterTwoFrames();
  });
  afterEach(async () => {
    await resetMouse();
    app.remove();
  });

  it('zooms with the wheel around the pointer', async () => {
    const [x, y] = at(4000, slotY(1, 3));
    const before = tl.visibleWindow;
    const surface = tl.shadowRoot!.querySelector('.surface')!;
    surface.dispatchEvent(new WheelEvent('wheel', { deltaY: -300, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    await afterTwoFrames();
    const after = tl.visibleWindow;
    assert(after.endNs - after.startNs < (before.endNs - before.startNs) * 0.6, `zoomed in: ${JSON.stringify(after)}`);
    assert(Math.abs(timeAt(x) - 4000) < 20, `time under the pointer kept: ${timeAt(x)}`);
    surface.dispatchEvent(new WheelEvent('wheel', { deltaY: 300, shiftKey: true, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    await afterTwoFrames();
    assert(tl.visibleWindow.startNs > after.startNs, 'Shift+wheel pans');
  });

  it('zooms with W/S and pans with A/D', async () => {
    await sendMouse({ type: 'click', position: at(8800, slotY(1, 0)) });
    const span = () => tl.visibleWindow.endNs - tl.visibleWindow.startNs;
    const s0 = span();
    await sendKeys({ press: 'w' });
    await afterTwoFrames();
    const s1 = span();
    assert(s1 < s0, `W zooms in: ${s0} → ${s1}`);
    await sendKeys({ press: 's' });
    await sendKeys({ press: 's' });
    await afterTwoFrames();
    assert(span() > s1, 'S zooms out');
    const start = tl.visibleWindow.startNs;
    await sendKeys({ press: 'w' });
    await sendKeys({ press: 'w' });
    await sendKeys({ press: 'd' });
    await afterTwoFrames();
    const later = tl.visibleWindow.startNs;
    assert(later > start, `D pans later: ${start} → ${later}`);
    await sendKeys({ press: 'a' });
    await afterTwoFrames();
    assert(tl.visibleWindow.startNs < later, 'A pans earlier');
  });

  it('pans by dragging', async () => {
    const before = tl.visibleWindow;
    const [x, y] = at(7000, slotY(0, 1));
    await sendMouse({ type: 'move', position: [x, y] });
    await sendMouse({ type: 'down' });
    await sendMouse({ type: 'move', position: [x - 150, y] });
    await sendMouse({ type: 'move', position: [x - 300, y] });
    await sendMouse({ type: 'up' });
    await afterTwoFrames();
    const pxPerNs = timeWidth(tl.screenLayout) / (before.endNs - before.startNs);
    const moved = tl.visibleWindow.startNs - before.startNs;
    // Dragging left shows later times: by 300 px, or up to the end of the pan limits (trace + 2%).
    const expected = Math.min(300 / pxPerNs, 9670 - before.endNs);
    assert(Math.abs(moved - expected) < 2 / pxPerNs, `view moved by ${expected} ns: ${moved} ns`);
    assertEqual(app.selectedWarp, -1, 'a drag does not select');
  });

  it('selects a warp on click, highlights on hover, and shows its details', async () => {
    const fsRow = app.opened!.trace.warps.stage.indexOf(Stage.FS);
    await sendMouse({ type: 'move', position: at(4000, slotY(1, 3)) });
    await waitFor('the hover tooltip', () => tl.shadowRoot!.querySelector('.tooltip'));
    const tip = tl.shadowRoot!.querySelector('.tooltip')!.textContent!;
    assert(tip.includes('FS warp') && tip.includes(formatNs(4000)) && tip.includes('id 42'), `tooltip: ${tip}`);
    // The hover outline is drawn in white around the bar (above it).
    const [x, y] = at(4000, slotY(1, 3));
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    const row = tl.laneLayout.rows[1]!;
    const barTop = row.y + row.headerHeight + 2 + 3 * row.slotRowHeight;
    const outline = tl.readPixels(x - rect.left, tl.screenLayout.lanes.y + barTop - 1, 1, 1);
    assert(near(outline, [255, 255, 255], 30), `hover outline: ${rgbText(outline)}`);
    await sendMouse({ type: 'click', position: [x, y] });
    await waitFor('the selection', () => app.selectedWarp === fsRow);
    await app.updateComplete;
    const details = deepText(app.shadowRoot!.querySelector('wt-warp-details')!);
    for (const expected of ['FS (fragment)', 'shade', 'SM 5 · slot 3', formatNs(4000), '4000.000 ns', 'custom id42', '32 / 32']) {
      assert(details.includes(expected), `details mention "${expected}": ${details}`);
    }
    // Clicking empty space clears the selection.
    await sendMouse({ type: 'click', position: at(6500, slotY(1, 3)) });
    await waitFor('the cleared selection', () => app.selectedWarp === -1);
  });

  it('selects a time range with Shift+drag and counts what ran in it', async () => {
    const y = slotY(1, 2);
    await sendMouse({ type: 'move', position: at(1500, y) });
    await sendKeys({ down: 'Shift' });
    await sendMouse({ type: 'down' });
    await sendMouse({ type: 'move', position: at(3000, y) });
    await sendMouse({ type: 'move', position: at(5000, y) });
    await sendMouse({ type: 'up' });
    await sendKeys({ up: 'Shift' });
    await waitFor('the range', () => app.range);
    const r = app.range!;
    assert(Math.abs(r.startNs - 1500) < 20 && Math.abs(r.endNs - 5000) < 20, `range ${JSON.stringify(r)}`);
    const c = app.counts!;
    // Overlapping [1500, 5000]: the TCS warp (1000-9000) and the FS warp (2000-6000).
    assertEqual(c.warps, 2, 'warps in range');
    assertEqual(c.perStage[Stage.TCS], 1, 'TCS');
    assertEqual(c.perStage[Stage.FS], 1, 'FS');
    assertEqual(c.perStage[Stage.VS], 0, 'VS ends before the range');
    await app.updateComplete;
    const text = deepText(app.shadowRoot!.querySelector('wt-range-summary')!);
    assert(text.includes('2 warps on 2 SMs, in 2 draws'), `range summary: ${text}`);
  });

  it('places the time cursor on the axis and shows warps in flight per SM and stage', async () => {
    const s = tl.screenLayout;
    const [x] = at(4000, 0);
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    await sendMouse({ type: 'click', position: [x, Math.round(rect.top + s.axis.y + s.axis.height / 2)] });
    await waitFor('the cursor', () => app.inFlight);
    assert(Math.abs(app.cursorNs! - 4000) < 20, `cursor at ${app.cursorNs}`);
    const f = app.inFlight!;
    const g0 = [...f.sm].indexOf(0);
    const g5 = [...f.sm].indexOf(5);
    assertEqual(f.counts[g0 * STAGE_COUNT + Stage.TCS], 1, 'SM 0 TCS in flight');
    assertEqual(f.counts[g5 * STAGE_COUNT + Stage.FS], 1, 'SM 5 FS in flight');
    assertEqual(f.total[g0]! + f.total[g5]!, 2, 'two warps in flight');
    await app.updateComplete;
    assert(deepText(app.shadowRoot!.querySelector('wt-in-flight')!).includes('2 warps in flight on 2 SMs'), 'readout');
  });

  it('steps through draws with [ and ], zooming to each and dimming the others', async () => {
    await sendMouse({ type: 'click', position: at(8800, slotY(1, 0)) });
    await sendKeys({ press: ']' });
    await waitFor('draw 0', () => app.selectedDraw === 0);
    await sendKeys({ press: ']' });
    await waitFor('draw 1', () => app.selectedDraw === 1);
    await afterTwoFrames();
    const v = tl.visibleWindow;
    // Draw 1 ("shade") is the FS warp, 2000-6000 ns: the view frames it.
    assert(v.startNs < 2000 && v.startNs > 1000 && v.endNs > 6000 && v.endNs < 7000, `view ${JSON.stringify(v)}`);
    const [x, y] = at(4000, slotY(0, 0));
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    const tcs = tl.readPixels(x - rect.left, y - rect.top, 1, 1);
    const dim = STAGE_DIM_RGBA[Stage.TCS]!;
    assert(near(tcs, [dim & 255, (dim >>> 8) & 255, (dim >>> 16) & 255], 12), `TCS warp of draw 0 dimmed: ${rgbText(tcs)}`);
    const [fx, fy] = at(4000, slotY(1, 3));
    const fs = tl.readPixels(fx - rect.left, fy - rect.top, 1, 1);
    assert(near(fs, stageRgb('FS')), `FS warp of the selected draw bright: ${rgbText(fs)}`);
    await sendKeys({ press: '[' });
    await waitFor('back to draw 0', () => app.selectedDraw === 0);
  });

  it('expands and collapses lanes from the keyboard and by clicking the SM label', async () => {
    assert(tl.isExpanded(0), 'SM 0 expanded by the test setup');
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    const s = tl.screenLayout;
    await sendMouse({ type: 'click', position: [Math.round(rect.left + 30), Math.round(rect.top + s.lanes.y + 8 - tl.verticalScroll)] });
    await waitFor('SM 0 collapsed', () => !tl.isExpanded(0));
    await sendKeys({ press: 'Enter' });
    await waitFor('SM 0 expanded again', () => tl.isExpanded(0));
    await sendKeys({ press: 'ArrowDown' });
    await sendKeys({ press: 'Enter' });
    await waitFor('SM 5 collapsed', () => !tl.isExpanded(5));
    // `.` steps to the next warp of the focused lane (SM 5).
    await sendKeys({ press: '.' });
    await waitFor('a warp on SM 5', () => app.selectedWarp >= 0);
    const w = app.opened!.trace.warps;
    assert([Stage.FS, Stage.CS].includes(w.stage[app.selectedWarp]! as 4 | 5), `stepped to an SM 5 warp: row ${app.selectedWarp}`);
  });

  it('hides a stage from the legend and the SM toggle shows every SM', async () => {
    const chips = [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('.chip')];
    assertEqual(chips.map((c) => c.textContent!.trim()).join(','), 'VS,TCS,FS,CS', 'stage chips');
    chips.find((c) => c.textContent!.trim() === 'CS')!.click();
    await app.updateComplete;
    assertEqual(app.hiddenStages, 1 << Stage.CS, 'CS hidden');
    const [x, y] = at(8000, slotY(1, 4));
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    await afterTwoFrames();
    const p = tl.readPixels(x - rect.left, y - rect.top, 1, 1);
    assert(!near(p, stageRgb('CS'), 40), `hidden CS warp not drawn: ${rgbText(p)}`);
    const toggle = app.shadowRoot!.querySelector<HTMLInputElement>('.toggle input')!;
    toggle.click();
    await app.updateComplete;
    await tl.updateComplete;
    assertEqual(tl.laneLayout.rows.length, 8, 'a lane per SM of the device');
  });
});
