// The open (issue 14): the trace view is there while the first trace loads, so the timeline
// starts its renderer meanwhile and draws the trace once, at its final size.
import { setViewport } from '@web/test-runner-commands';
import { encodeWtrace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import { passFrameTrace } from '../node/pass-frame.js';
import { assert, assertEqual } from './assert.js';
import { mountApp, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;

describe('opening a trace', () => {
  before(() => setViewport({ width: 1700, height: 1000 }));
  afterEach(() => {
    app?.remove();
    app = null;
  });

  it('the 2,000-draw pass frame (graphics and compute: the SM line gets a button): the timeline exists while loading, keeps its size and draws one frame', async () => {
    app = await mountApp();
    // Wide enough that the header does not wrap once the trace's title and stage chips are in it.
    app.style.width = '1600px';
    const opening = app.openFile(new Blob([encodeWtrace(passFrameTrace()) as BlobPart]), 'frame.wtrace');
    const timeline = await waitFor('the timeline while loading', () => (app!.loading !== null ? app!.timeline : null));
    assertEqual(app.opened, null, 'nothing open yet');
    assert(app.shadowRoot!.querySelector('.sm-summary')!.textContent!.includes('Opening frame.wtrace'), 'the SM line says what is opening');
    await timeline.ready();
    const loadingHeight = timeline.getBoundingClientRect().height;
    let frames = 0;
    timeline.onFrame = () => void frames++;
    assert(await opening, 'opens');
    assertEqual(app.timeline, timeline, 'the same timeline element shows the trace');
    assert(app.shadowRoot!.querySelector('.sm-summary button') !== null, 'the real SM line has its button');
    assertEqual(timeline.getBoundingClientRect().height, loadingHeight, 'the timeline kept its height');
    assertEqual(timeline.screenLayout.height, Math.floor(loadingHeight), 'and drew at it');
    assertEqual(frames, 1, 'one frame drawn for the open');
    timeline.onFrame = null;
  });

  it('where the header wraps once the trace is shown (the timeline gets shorter), the one frame of the open is drawn at the new size', async () => {
    app = await mountApp();
    app.style.width = '900px';
    const opening = app.openFile(new Blob([encodeWtrace(passFrameTrace()) as BlobPart]), 'frame.wtrace');
    const timeline = await waitFor('the timeline while loading', () => (app!.loading !== null ? app!.timeline : null));
    await timeline.ready();
    const loadingHeight = timeline.getBoundingClientRect().height;
    const heights: number[] = [];
    timeline.onFrame = () => void heights.push(timeline.screenLayout.height);
    assert(await opening, 'opens');
    const shownHeight = timeline.getBoundingClientRect().height;
    assert(shownHeight < loadingHeight - 10, `the header wrapped: the timeline went from ${loadingHeight} to ${shownHeight} px`);
    // Let a frame the resize observer would ask for come, if any.
    await new Promise((r) => setTimeout(r, 150));
    assertEqual(heights.length, 1, `one frame drawn for the open (drawn at ${heights.join(', ')} px)`);
    assertEqual(heights[0], Math.floor(shownHeight), 'at the height the timeline is shown at');
    assert(timeline.lastFrame !== null && timeline.lastFrame.rebuilt, 'that frame reports the geometry built for it (in the task before it)');
    timeline.onFrame = null;
  });
});
