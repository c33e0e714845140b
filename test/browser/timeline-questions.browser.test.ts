// Issue 24's timeline questions on a game-like frame (test/node/game-frame.ts): selecting a
// two-warp dispatch on SMs 24 and 58 brings those lanes into view; a time range from the
// keyboard (Shift+← / → from the cursor, M for the selection); a duration filter picked on a
// Statistics histogram (click a bin, drag across bins, or keys) highlights those warps,
// counts them as the histogram does and lists the longest, whose button selects and shows
// one; and a filter over 400 k warps is built in steps.
import { resetMouse, sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import { STAGES, Stage, smOfWarp } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtAnalysisPanels } from '../../viewer/panels/wt-analysis-panels.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { TINY_DRAW, TINY_SMS } from '../node/game-frame.js';
import '../../viewer/panels/index.js';
import { assert, assertEqual } from './assert.js';
import { openGameFrame, warpBarPixel } from './game-frame-app.js';
import { afterTwoFrames, mountApp, near, rgbText, stageRgb, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;

describe('timeline questions on a game-like frame', () => {
  before(() => setViewport({ width: 1600, height: 1000 }));
  afterEach(async () => {
    app?.remove();
    app = null;
    await resetMouse();
  });

  it('selecting a two-warp dispatch on SMs 24 and 58 scrolls the lanes to where it ran, its warps drawn there', async () => {
    app = await openGameFrame();
    app.style.width = '1280px';
    app.style.height = '720px';
    await afterTwoFrames();
    const tl = app.timeline!;
    const t = app.opened!.trace;
    assertEqual(tl.verticalScroll, 0, 'the lanes start at the top');
    app.selectDraw(TINY_DRAW);
    await app.updateComplete;
    await afterTwoFrames();
    const s = tl.screenLayout;
    const shown = tl.laneLayout.rows.filter((r) => r.y + r.height > tl.verticalScroll && r.y < tl.verticalScroll + s.lanes.height).map((r) => r.sm);
    assert(TINY_SMS.some((sm) => shown.includes(sm)), `lanes in view (${shown.join(', ')}) hold SM 24 or 58`);
    // The dispatch's warp on the lane in view is drawn there in its stage color (the other draws' warps dim to grey).
    const w = t.warps;
    const rows = Array.from({ length: w.count }, (_, i) => i).filter((i) => w.draw[i] === TINY_DRAW);
    assertEqual(rows.map((r) => smOfWarp(w.smGroups, r)).join(','), TINY_SMS.join(','), 'two warps, on SMs 24 and 58');
    const row = rows.find((r) => shown.includes(smOfWarp(w.smGroups, r)))!;
    const lane = tl.laneLayout.rows.find((r) => r.sm === smOfWarp(w.smGroups, row))!;
    const v = tl.visibleWindow;
    const x = Math.round(s.gutter + ((w.startNs[row]! + w.durationNs[row]! / 2 - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s));
    const y = Math.round(s.lanes.y + lane.y + lane.headerHeight - 3 - tl.verticalScroll);
    const px = tl.readPixels(x, y, 1, 1);
    assert(near(px, stageRgb('CS'), 12), `its warp on SM ${lane.sm}: ${rgbText(px)}`);
    // A draw of the graphics SMs (0, 1, 48, 49) brings them back; another of theirs leaves the scroll alone.
    const inView = () => tl.laneLayout.rows.filter((r) => r.y + r.height > tl.verticalScroll && r.y < tl.verticalScroll + s.lanes.height).map((r) => r.sm);
    assert(!inView().some((sm) => [0, 1, 48, 49].includes(sm)), `scrolled away from the graphics SMs: ${inView().join(', ')}`);
    app.selectDraw(5);
    await app.updateComplete;
    assert(inView().some((sm) => [0, 1, 48, 49].includes(sm)), `a graphics draw's lanes in view: ${inView().join(', ')}`);
    const scroll = tl.verticalScroll;
    app.selectDraw(6);
    await app.updateComplete;
    assertEqual(tl.verticalScroll, scroll, 'its lanes were in view: no scroll');
  });

  it('a time range from the keyboard: Shift+→ grows it from the cursor, Shift+← shrinks it, M takes the selected draw’s span, Esc clears', async () => {
    app = await openGameFrame();
    const tl = app.timeline!;
    const surface = tl.shadowRoot!.querySelector<HTMLElement>('.surface')!;
    surface.focus();
    await sendKeys({ press: 'c' });
    await waitFor('the cursor', () => app!.cursorNs);
    const cursor = app.cursorNs!;
    const span = tl.visibleWindow.endNs - tl.visibleWindow.startNs;
    const shifted = async (key: string) => {
      await sendKeys({ down: 'Shift' });
      await sendKeys({ press: key });
      await sendKeys({ up: 'Shift' });
    };
    for (let k = 0; k < 3; k++) await shifted('ArrowRight');
    await app.updateComplete;
    const r = app.range!;
    assert(r !== null && Math.abs(r.startNs - cursor) < 1e-6 && Math.abs(r.endNs - cursor - 0.06 * span) < span * 1e-6, `range from the cursor, 3 × 2% of the view: ${JSON.stringify(r)} (cursor ${cursor}, view ${span})`);
    assert(app.counts !== null && app.counts.warps > 0, 'the range summary counts its warps');
    const summary = app.shadowRoot!.querySelector('wt-range-summary')!;
    await summary.updateComplete;
    assert(summary.shadowRoot!.querySelector('table') !== null, 'the range panel shows its table');
    await shifted('ArrowLeft');
    await app.updateComplete;
    assert(Math.abs(app.range!.endNs - cursor - 0.04 * span) < span * 1e-6, `shrunk at its moving edge: ${JSON.stringify(app.range)}`);
    app.selectDraw(700);
    await app.updateComplete;
    surface.focus();
    await sendKeys({ press: 'm' });
    await app.updateComplete;
    const spans = app.opened!.drawLayout.spans;
    assertEqual(JSON.stringify(app.range), JSON.stringify({ startNs: spans[1400], endNs: spans[1401] }), 'M: the selected draw’s span');
    await sendKeys({ press: 'Escape' });
    await app.updateComplete;
    assertEqual(app.range, null, 'Esc clears the range');
  });

  it('a duration filter from a Statistics histogram: click a bin, drag across bins, keys; counted as the histogram counts; the longest listed and shown', async () => {
    app = await openGameFrame({ panels: true });
    const panels = app.querySelector('wt-analysis-panels') as WtAnalysisPanels;
    const summary = await waitFor('the analysis', () => panels.summary);
    await panels.updateComplete;
    const stats = panels.shadowRoot!.querySelector('wt-stats-panel')!;
    await stats.updateComplete;
    const fs = summary.stages.find((s) => s.stageCode === Stage.FS)!;
    const h = fs.histogram;
    const spark = stats.shadowRoot!.querySelector<SVGSVGElement>('tr[data-stage="FS"] svg.pickable')!;
    spark.scrollIntoView();
    // Measured at each use: the filter bar, once shown, moves the panels down.
    const binX = (k: number) => {
      const box = spark.getBoundingClientRect();
      return Math.round(box.left + ((k + 0.5) / h.counts.length) * box.width);
    };
    const at = (k: number): [number, number] => {
      const box = spark.getBoundingClientRect();
      return [binX(k), Math.round(box.top + box.height / 2)];
    };
    const busiest = h.counts.indexOf(Math.max(...h.counts));
    const edge = (k: number) => (k < h.lowerNs.length ? h.lowerNs[k]! : h.upperNs);
    const countText = () => app!.shadowRoot!.querySelector('.filter-count')?.textContent?.replace(/\s+/g, ' ') ?? '';
    const expectCount = async (lo: number, hi: number) => {
      const n = h.counts.slice(lo, hi + 1).reduce((a, b) => a + b, 0);
      const f = await waitFor(`the filter of bins ${lo}-${hi}`, () => app!.filters.duration?.minNs === edge(lo) && app!.filters.duration.maxNs === edge(hi + 1) && app!.filters.highlight?.filters.duration === app!.filters.duration && app!.filters.highlight);
      await app!.updateComplete;
      assertEqual(f.count, n, `bins ${lo}-${hi}: the histogram's count`);
      assert(countText().startsWith(`${n.toLocaleString('en-US')} of `), `the filter bar: ${countText()}`);
    };
    await sendMouse({ type: 'click', position: at(busiest) });
    await expectCount(busiest, busiest);
    await sendMouse({ type: 'move', position: at(busiest - 1) });
    await sendMouse({ type: 'down' });
    await sendMouse({ type: 'move', position: at(busiest + 2) });
    await sendMouse({ type: 'up' });
    await expectCount(busiest - 1, busiest + 2);
    await stats.updateComplete;
    assert(stats.shadowRoot!.querySelector('tr[data-stage="FS"] rect.picked') !== null, 'the picked bins show on the histogram');
    // A warp in the range keeps its stage color; a fragment warp outside it dims.
    const t = app.opened!.trace;
    const w = t.warps;
    const inRange = (i: number) => w.stage[i] === Stage.FS && w.durationNs[i]! >= edge(busiest - 1) && w.durationNs[i]! < edge(busiest + 3);
    const hit = Array.from({ length: w.count }, (_, i) => i).find(inRange)!;
    const miss = Array.from({ length: w.count }, (_, i) => i).find((i) => w.stage[i] === Stage.FS && !inRange(i))!;
    assert(near(await warpBarPixel(app, hit), stageRgb('FS')), 'a warp in the range keeps its color');
    const dim = stageRgb('FS').map((c, k) => Math.round(c + ([0x15, 0x17, 0x1c][k]! - c) * 0.72));
    const missPx = await warpBarPixel(app, miss);
    assert(near(missPx, dim, 6), `one outside it dims: ${rgbText(missPx)}`);
    // The list: the longest warps of the range, longest first; a row's button selects the warp and shows it.
    (app.shadowRoot!.querySelector('.filter-list-toggle') as HTMLButtonElement).click();
    await app.updateComplete;
    const listed = [...app.shadowRoot!.querySelectorAll('.filter-list tbody tr')].map((tr) => Number((tr as HTMLElement).dataset.row));
    const want = Array.from({ length: w.count }, (_, i) => i).filter(inRange).sort((a, b) => w.durationNs[b]! - w.durationNs[a]! || a - b).slice(0, 100);
    assertEqual(listed.join(','), want.join(','), 'the longest of the range, longest first');
    app.timeline!.toggleLane(smOfWarp(w.smGroups, want[0]!), false);
    (app.shadowRoot!.querySelector('.filter-list tbody tr button') as HTMLButtonElement).click();
    await app.updateComplete;
    assertEqual(app.selectedWarp, want[0], 'the listed warp is selected');
    assert(app.timeline!.isExpanded(smOfWarp(w.smGroups, want[0]!)), 'its lane expanded');
    // Esc closes the list first (a popover), as it does the other popovers.
    await sendKeys({ press: 'Escape' });
    await app.updateComplete;
    assertEqual(app.shadowRoot!.querySelector('.filter-list'), null, 'Esc closed the list');
    assert(app.filters.duration !== null, 'the filter stays');
    // Keys on the histogram: ← / → pick a bin, Shift+→ widens, Esc drops the filter.
    spark.focus();
    await sendKeys({ press: 'Home' });
    await expectCount(0, 0);
    await sendKeys({ press: 'ArrowRight' });
    await sendKeys({ down: 'Shift' });
    await sendKeys({ press: 'ArrowRight' });
    await sendKeys({ up: 'Shift' });
    await expectCount(1, 2);
    await sendKeys({ press: 'Escape' });
    await waitFor('no filter', () => app!.filters.duration === null && app!.filters.highlight === null);
    await app.updateComplete;
    assertEqual(app.shadowRoot!.querySelector('.filter-bar'), null, 'the filter bar goes');
    assert(STAGES.length > 0 && fs.warps > 0, 'stages');
  });

  it('a find filter over 400 k warps is built in steps; the timeline keeps the old highlight until it is complete', async () => {
    app = await mountApp();
    assert(await app.openSynthetic(400_000), 'opens');
    await app.updateComplete;
    const t = app.opened!.trace;
    app.drawList!.setQuery('#10-19');
    await app.updateComplete;
    assertEqual(app.filters.highlight, null, 'not built in the update that asked for it');
    await app.filters.settled;
    const h = app.filters.highlight!;
    let want = 0;
    for (let i = 0; i < t.warps.count; i++) if (t.warps.draw[i]! >= 10 && t.warps.draw[i]! <= 19) want++;
    assertEqual(h.count, want, 'the warps of draws 10-19');
    assertEqual(app.timeline!.filterHighlight, h, 'the timeline draws it');
  });
});
