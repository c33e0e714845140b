// A warp's lanes before and after a reorder point, on the H200 capture of our ray-tracing workload
// with shader execution reordering (samples/h200-ray-tracing-reorder.wtrace): selecting a warp after
// the point names the launch warp with its very lanes; the link selects it, and it names the first
// one back; "highlight" lights both sides on the timeline.
import { Stage } from '../../shared-schema/index.js';
import { reorderCounterparts } from '../../analysis/reorder.js';
import { assert, assertEqual } from './assert.js';
import { deepText, mountApp, waitFor } from './viewer-helpers.js';

describe('warp details across a reorder point', () => {
  afterEach(() => document.querySelectorAll('warptrace-app').forEach((a) => a.remove()));

  it('names the warp on the other side, selects it by link, and highlights both sides', async () => {
    const app = await mountApp();
    const bytes = await (await fetch('/samples/h200-ray-tracing-reorder.wtrace')).arrayBuffer();
    assert(await app.openFile(new Blob([bytes]), 'h200-ray-tracing-reorder.wtrace'), 'opens');
    const w = app.opened!.trace.warps;
    let after = -1;
    for (let i = 0; i < w.count && after < 0; i++) if (w.stage[i] === Stage.RAYGEN_REORDERED && w.activeMask[i] === 0xffffffff) after = i;
    assert(after >= 0, 'a full warp after the reorder');
    const expected = reorderCounterparts(app.opened!.trace, after)!;
    assert(expected.exact !== null, 'it kept its launch lanes (the H200 did not re-form warps)');
    app.selectWarp(after);
    await app.updateComplete;
    const details = await waitFor('the warp details', () => app.shadowRoot!.querySelector('wt-warp-details'));
    await details.updateComplete;
    const text = deepText(details);
    assert(text.includes('after the reorder point: the same lanes as #' + expected.exact), text);
    assert(/screen\d+, \d+ · (4×8|8×4) px/.test(text), `the 32-pixel footprint of a launch warp: ${text}`);
    const link = [...details.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent === `#${expected.exact}`)!;
    link.click();
    await waitFor('the launch warp selected', () => app.selectedWarp === expected.exact);
    await details.updateComplete;
    const back = deepText(details);
    assert(back.includes('before the reorder point: its lanes went on together in #'), back);
    assertEqual(w.stage[expected.exact!], Stage.RAYGEN, 'a launch warp');
    const highlight = [...details.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent === 'highlight')!;
    highlight.click();
    const rows = await waitFor('the highlight', () => app.timeline?.highlightRows ?? null);
    const counterparts = reorderCounterparts(app.opened!.trace, expected.exact!)!;
    assertEqual([...rows].join(','), [expected.exact, ...counterparts.overlapping].join(','), 'the warp and the warps after it that meet its box');
    assert(rows.length >= 2, 'both sides');
  });
});
