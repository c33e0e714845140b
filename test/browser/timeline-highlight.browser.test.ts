// The timeline's highlightRows: the rows given stay in their stage colors, all
// other warps dim, in expanded lanes (per warp) and collapsed lanes (occupancy).
import { setViewport } from '@web/test-runner-commands';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { STAGE_DIM_RGBA, THEME } from '../../viewer/model/colors.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { Stage } from '../../shared-schema/index.js';
import { assert } from './assert.js';
import { fixtureWtrace, mountApp, near, rgbText, stageRgb, afterTwoFrames } from './viewer-helpers.js';

let app: WarptraceApp;
let tl: WtTimeline;

/** The pixel at time t (ns) and lane-area y, surface coordinates. */
function pixelAt(tNs: number, laneY: number): Uint8ClampedArray {
  const s = tl.screenLayout;
  const v = tl.visibleWindow;
  const x = Math.round(s.gutter + ((tNs - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s));
  return tl.readPixels(x, Math.round(s.lanes.y + laneY - tl.verticalScroll), 1, 1);
}

function slotY(lane: number, slot: number): number {
  const row = tl.laneLayout.rows[lane]!;
  return row.y + row.headerHeight + 2 + (slot + 0.5) * row.slotRowHeight;
}

/** Just above the bottom of a collapsed lane's occupancy chart. */
function chartBottomY(lane: number): number {
  const row = tl.laneLayout.rows[lane]!;
  return row.y + row.headerHeight - 3;
}

function unpack(rgba: number): number[] {
  return [rgba & 255, (rgba >>> 8) & 255, (rgba >>> 16) & 255];
}

describe('timeline highlightRows', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  beforeEach(async () => {
    app = await mountApp();
    assert(await app.openFile(await fixtureWtrace(), 'fixture.wtrace'), 'fixture opens');
    tl = app.timeline!;
    await tl.ready();
    tl.setView({ startNs: 1000, endNs: 9000 });
    await afterTwoFrames();
  });
  afterEach(() => app.remove());

  it('expanded lanes: highlighted warps keep their colors, the others dim, null restores them', async () => {
    tl.toggleLane(0, true);
    tl.toggleLane(5, true);
    await afterTwoFrames();
    // Rows in canonical order: 0 TCS (SM 0, slot 0, 1000-9000), 2 FS (SM 5, slot 3, 2000-6000).
    const tcsBefore = pixelAt(4000, slotY(0, 0));
    assert(near(tcsBefore, stageRgb('TCS')), `TCS bright before: ${rgbText(tcsBefore)}`);
    tl.highlightRows = new Uint32Array([2]);
    await tl.updateComplete;
    const tcs = pixelAt(4000, slotY(0, 0));
    const fs = pixelAt(4000, slotY(1, 3));
    assert(near(tcs, unpack(STAGE_DIM_RGBA[Stage.TCS]!)), `TCS dimmed: ${rgbText(tcs)}`);
    assert(near(fs, stageRgb('FS')), `highlighted FS bright: ${rgbText(fs)}`);
    tl.highlightRows = null;
    await tl.updateComplete;
    const tcsAfter = pixelAt(4000, slotY(0, 0));
    assert(near(tcsAfter, stageRgb('TCS')), `TCS bright again: ${rgbText(tcsAfter)}`);
  });

  it('collapsed lanes: a highlighted warp stacks in its stage color, the rest in grey', async () => {
    tl.highlightRows = new Uint32Array([0]);
    await tl.updateComplete;
    const highlighted = pixelAt(5000, chartBottomY(0));
    assert(near(highlighted, stageRgb('TCS')), `the highlighted TCS warp in TCS color: ${rgbText(highlighted)}`);
    const otherLane = pixelAt(4000, chartBottomY(1));
    assert(near(otherLane, unpack(((255 << 24) | ((THEME.dimOthers & 255) << 16) | (THEME.dimOthers & 0xff00) | (THEME.dimOthers >>> 16)) >>> 0)), `SM 5's FS warp in grey: ${rgbText(otherLane)}`);
    // Out-of-range and repeated rows are ignored.
    tl.highlightRows = new Uint32Array([1, 1, 99]);
    await tl.updateComplete;
    const dimmed = pixelAt(5000, chartBottomY(0));
    assert(!near(dimmed, stageRgb('TCS')), `TCS no longer highlighted: ${rgbText(dimmed)}`);
  });
});
