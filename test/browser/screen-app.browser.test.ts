// The screen panel inside the app, on a synthetic trace with positions: it appears (and only
// for traces with positions), brushing highlights its rows on the timeline, and a range
// selected on the timeline limits the image to the warps in it.
import { screenColumns } from '../../analysis/screen-columns.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { rowsInRect } from '../../analysis/screen-query.js';
import { encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import type { WtScreenPanel } from '../../viewer/screen/wt-screen-panel.js';
import { assert, assertEqual } from './assert.js';
import { mountApp, waitFor } from './viewer-helpers.js';

const positioned = synthesizeTrace({ warps: 40000, seed: 9, warpsPerDraw: 4000, positions: true });
const plain = synthesizeTrace({ warps: 5000, seed: 9 });
const blob = (t: typeof plain) => new Blob([encodeWtrace(t) as Uint8Array<ArrayBuffer>]);

describe('screen panel in the app', () => {
  afterEach(() => document.querySelectorAll('warptrace-app').forEach((a) => a.remove()));

  it('appears for a trace with positions, brushing highlights its rows on the timeline, a timeline range limits the image', async () => {
    const app = await mountApp();
    assert(await app.openFile(blob(positioned), 'positioned.wtrace'), 'opened');
    const panel = await waitFor('the screen panel', () => app.renderRoot.querySelector<WtScreenPanel>('wt-screen-panel'));
    const first = await waitFor('the first image', () => panel.image);
    assertEqual(first.reply.width, 1280, 'image width: the synthetic target');
    assertEqual(first.reply.height, 720, 'image height');
    assert(first.reply.shown > 0, 'warps shown');

    const rect = { x: 0, y: 0, width: 256, height: 128 };
    const rows = await panel.highlight(rect);
    assert(rows.length > 0, 'the brush holds warps');
    const timeline = app.timeline!;
    // The brush goes through the app's filters (model/warp-filter.ts) to the timeline, as a highlight of those rows.
    const sorted = [...rows].sort((x, y) => x - y).join(',');
    await waitFor('the timeline highlight', () => app.highlightRows === rows && timeline.filterHighlight !== null && [...timeline.filterHighlight.rows].join(',') === sorted);
    const cols = screenColumns(positioned.warps)!;
    // The app decodes its own copy of the trace: rows are the same (canonical order).
    assertEqual([...rows].join(','), [...rowsInRect(cols, screenOrder(cols, panel.view.draws), rect)].join(','), 'highlighted rows');

    const span = first.reply.span!;
    const range = { startNs: span.startNs + (span.endNs - span.startNs) * 0.25, endNs: span.startNs + (span.endNs - span.startNs) * 0.5 };
    app.selectRange(range);
    const ranged = await waitFor('the ranged image', () => (panel.image?.view.window === range ? panel.image : null));
    assert(ranged.reply.shown < first.reply.shown && ranged.reply.shown > 0, `the range shows fewer warps (${ranged.reply.shown} of ${first.reply.shown})`);
    const order = screenOrder(cols, panel.view.draws);
    let inRange = 0;
    for (let k = 0; k < order.rows.length; k++) if (order.startNs[k]! <= range.endNs && order.endNs[k]! >= range.startNs) inRange++;
    assertEqual(ranged.reply.shown, inRange, 'warps shown for the range');

    assert(await app.openFile(blob(plain), 'plain.wtrace'), 'opened plain');
    await app.updateComplete;
    assertEqual(app.renderRoot.querySelector('wt-screen-panel'), null, 'no screen panel without positions');
    assertEqual(app.timeline!.highlightRows, null, 'the highlight is cleared');
  });
});
