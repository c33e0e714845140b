// The cold open (issue 24): the timeline's renderer (pixi) is loaded after the page's first
// task, once a worker has started the browser's GPU stack, and a timeline that already has
// its trace when the renderer comes up draws it then, without being asked again.
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { loadTimelineRenderer } from '../../viewer/timeline/renderer-loader.js';
import { assert, assertEqual } from './assert.js';
import { fixtureWtrace, mountApp, near, rgbText, stageRgb, waitFor } from './viewer-helpers.js';

/** The 2D contexts asked for on the page while `work` runs: the canvas's size and whether on the CPU. */
async function twoDRequests<T>(work: () => Promise<T>): Promise<{ result: T; requests: { size: string; cpu: boolean }[] }> {
  const proto = HTMLCanvasElement.prototype;
  const pageGetContext = proto.getContext as (this: HTMLCanvasElement, id: string, options?: CanvasRenderingContext2DSettings) => RenderingContext | null;
  const requests: { size: string; cpu: boolean }[] = [];
  const spy = function (this: HTMLCanvasElement, id: string, options?: CanvasRenderingContext2DSettings) {
    if (id === '2d') requests.push({ size: `${this.width}x${this.height}`, cpu: options?.willReadFrequently === true });
    return pageGetContext.call(this, id, options);
  };
  proto.getContext = spy as typeof proto.getContext;
  try {
    const result = await work();
    assert(proto.getContext === (spy as typeof proto.getContext), 'getContext is the page\'s own again once the renderer is loaded');
    return { result, requests };
  } finally {
    proto.getContext = pageGetContext as typeof proto.getContext;
  }
}

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
  it('loads the renderer with pixi\'s 6×1 test canvases on the CPU (no GPU readback while pixi is evaluated), once', async () => {
    const { result: loaded, requests } = await twoDRequests(loadTimelineRenderer);
    assertEqual(typeof loaded.module.TimelineRenderer.create, 'function', 'the renderer module');
    // Chromium here draws WebGL with SwiftShader: the warm-up worker found out, so the renderer need not ask.
    assertEqual(loaded.layout, 'vertices', 'the quad layout for a software rasterizer');
    const tests = requests.filter((r) => r.size === '6x1');
    assert(tests.length >= 3, `pixi's blend-mode test canvases (two colors and the result) while it loaded: ${JSON.stringify(requests)}`);
    assert(tests.every((r) => r.cpu), `each asked for with willReadFrequently: ${JSON.stringify(tests)}`);
    assertEqual(await loadTimelineRenderer(), loaded, 'loaded once');
  });

  // Before any other renderer starts in this page: pixi asks its precision question once per page.
  it('starts the renderer with its own canvas\'s WebGL context only (pixi\'s precision probe makes none of its own)', async () => {
    const proto = HTMLCanvasElement.prototype;
    const pageGetContext = proto.getContext as (this: HTMLCanvasElement, id: string, options?: object) => RenderingContext | null;
    const webgl: { connected: boolean; size: string }[] = [];
    proto.getContext = function (this: HTMLCanvasElement, id: string, options?: object) {
      if (id.startsWith('webgl')) webgl.push({ connected: this.isConnected, size: `${this.width}x${this.height}` });
      return pageGetContext.call(this, id, options);
    } as typeof proto.getContext;
    try {
      app = await mountApp();
      assert(await app.openFile(await fixtureWtrace(), 'fixture.wtrace'), 'the fixture opens');
      await app.timeline!.ready();
      const tl = app.timeline!;
      await waitFor('the first frame of the trace', () => tl.framesDrawn > 0);
    } finally {
      proto.getContext = pageGetContext as typeof proto.getContext;
    }
    assert(webgl.length > 0, 'the renderer asked for a WebGL context');
    // pixi's own probe would be a detached 0×0 canvas's 'webgl' context.
    assert(webgl.every((r) => r.connected), `every WebGL context asked for is on the timeline's canvas: ${JSON.stringify(webgl)}`);
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
    timeline.style.cssText = 'position:fixed;left:0;top:0;width:1000px;height:500px;';
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
