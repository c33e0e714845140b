// The cold open (issue 24): the timeline's renderer (pixi) is loaded after the page's first
// task, while a worker starts the browser's GPU stack, and a timeline that already has its
// trace when the renderer comes up draws it then, without being asked again.
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { loadTimelineRenderer } from '../../viewer/timeline/renderer-loader.js';
import { assert, assertEqual } from './assert.js';
import { fixtureWtrace, mountApp, near, rgbText, stageRgb, waitFor } from './viewer-helpers.js';

// Taken before anything on this page has loaded the renderer (each test file is a page of its own).
const pageGetContext = HTMLCanvasElement.prototype.getContext;

const isCpuCanvas = () => document.createElement('canvas').getContext('2d')!.getContextAttributes().willReadFrequently === true;

describe('the cold open', () => {
  let app: WarptraceApp | null = null;
  let timeline: WtTimeline | null = null;
  afterEach(() => {
    app?.remove();
    timeline?.remove();
    app = null;
    timeline = null;
  });

  // First in this file: it needs a page where the renderer has not been loaded yet.
  it('loads the renderer with 2D canvases on the CPU while pixi is evaluated, and leaves getContext as the page had it', async () => {
    assert(!isCpuCanvas(), 'a 2D canvas of the page before: not a CPU canvas');
    const loading = loadTimelineRenderer();
    assert(isCpuCanvas(), 'while pixi is loaded: 2D contexts are asked for with willReadFrequently');
    const module = await loading;
    assertEqual(typeof module.TimelineRenderer.create, 'function', 'the renderer module');
    assert(HTMLCanvasElement.prototype.getContext === pageGetContext, 'getContext is the page\'s own again');
    assert(!isCpuCanvas(), 'a 2D canvas of the page after: not a CPU canvas');
    assertEqual(await loadTimelineRenderer(), module, 'loaded once');
  });

  it('a timeline given its trace before its renderer exists draws it once the renderer is up: one frame, geometry built for it', async () => {
    app = await mountApp();
    assert(await app.openFile(await fixtureWtrace(), 'fixture.wtrace'), 'the fixture opens');
    const opened = app.opened!;
    // A timeline of its own, with the trace set before it is connected: its renderer starts
    // (several tasks: pixi's start, the renderer's name, the programs) only after that.
    timeline = document.createElement('wt-timeline');
    timeline.trace = opened.trace;
    timeline.index = opened.index;
    timeline.sharedDrawLayout = opened.drawLayout;
    timeline.style.cssText = 'display:block;position:fixed;left:0;top:0;width:1000px;height:500px;';
    document.body.append(timeline);
    await timeline.updateComplete;
    assertEqual(timeline.framesDrawn, 0, 'no frame before the renderer exists');
    await timeline.ready();
    const tl = timeline;
    await waitFor('the first frame of the trace', () => tl.framesDrawn > 0);
    await new Promise((r) => setTimeout(r, 200));
    assertEqual(tl.framesDrawn, 1, 'one frame, drawn without another request');
    assert(tl.lastFrame !== null && tl.lastFrame.rebuilt, 'the frame reports the geometry built for it');
    // The fixture's TCS warp on SM 0, in the lane's collapsed occupancy chart (as viewer-app's test reads it).
    const lane = tl.laneLayout.rows.find((r) => r.sm === 0)!;
    const s = tl.screenLayout;
    const v = tl.visibleWindow;
    const x = s.gutter + ((5000 - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s);
    const p = tl.readPixels(Math.round(x), Math.round(s.lanes.y + lane.y + lane.headerHeight - 4 - tl.verticalScroll), 1, 1);
    assert(near(p, stageRgb('TCS')), `SM 0's occupancy at 5 µs in the TCS color ${rgbText(stageRgb('TCS'))}, got ${rgbText(p)}`);
  });
});
