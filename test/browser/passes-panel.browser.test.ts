// Issue 24, cost per pass: the Passes section on a game-like frame (2,025 draws in 23
// passes) shows the analysis's own numbers per pass, opens nested passes, and selecting a
// pass (row, key or icicle bar) zooms the timeline to it and narrows the draws table and the
// range summary to its draws; the icicle zooms into it. On a real capture with a render
// pass the draws outside it get their row; a capture without regions has no section.
import { sendKeys, sendMouse, resetMouse } from '@web/test-runner-commands';
import { decodeTrace } from '../../shared-schema/index.js';
import { formatNs, formatShare } from '../../analysis/format.js';
import type { WtPassesPanel } from '../../viewer/panels/wt-passes-panel.js';
import type { WtPassIcicle } from '../../viewer/panels/wt-pass-icicle.js';
import { ICICLE_ROW_PX } from '../../viewer/panels/wt-pass-icicle.js';
import { assert, assertEqual } from './assert.js';
import { gameTrace, openApp, openGameApp, settle, type GameApp } from './game-app.js';
import { waitFor } from './viewer-helpers.js';

let g: GameApp | null = null;
afterEach(async () => {
  g?.app.remove();
  g = null;
  await resetMouse();
});

const passesPanel = (x: GameApp) => x.panels.shadowRoot!.querySelector('wt-passes-panel') as WtPassesPanel;
const icicle = (x: GameApp) => passesPanel(x).shadowRoot!.querySelector('wt-pass-icicle') as WtPassIcicle;
const row = (x: GameApp, region: number) => passesPanel(x).shadowRoot!.querySelector<HTMLElement>(`tr[data-region="${region}"]`);
const stats = (x: GameApp) => x.panels.shadowRoot!.querySelector('wt-stats-panel')!;

describe('passes panel', () => {
  it('lists the top-level passes with their span, busy time, warp-time and share of the frame; nested passes open', async () => {
    g = await openGameApp();
    const section = g.summary.passes!;
    const top = section.passes.filter((p) => p.depth === 0);
    assert(top.length >= 20 && g.summary.draws.length >= 2000, `a game frame: ${g.summary.draws.length} draws in ${top.length} passes`);
    const rows = [...passesPanel(g).shadowRoot!.querySelectorAll<HTMLElement>('tr.pass')];
    assertEqual(rows.length, top.length, 'one row per top-level pass, collapsed');
    for (const p of top.slice(0, 5)) {
      const cells = [...row(g, p.region)!.querySelectorAll('td')].map((c) => c.textContent!.trim());
      assertEqual(cells[0], `▸${p.label}`, 'the pass, with a twisty');
      assertEqual(cells[1], String(p.draws), 'draws');
      assertEqual(cells[2], formatNs(p.spanNs), 'span');
      assertEqual(cells[3], formatNs(p.busyNs), 'busy');
      assertEqual(cells[4], formatNs(p.warpTimeNs), 'warp-time');
      assert(cells[5]!.endsWith(formatShare(p.shareOfFrame)), `share ${cells[5]}`);
    }
    // → on a pass opens it: its Opaque and Alpha halves appear under it.
    row(g, top[2]!.region)!.focus();
    await sendKeys({ press: 'ArrowRight' });
    await settle(g.app);
    const kids = section.passes.filter((p) => p.parent === top[2]!.region);
    assertEqual(kids.length, 2, 'two halves');
    for (const k of kids) assert(row(g, k.region) !== null, `${k.label} shown`);
    assertEqual(row(g, top[2]!.region)!.getAttribute('aria-expanded'), 'true', 'open');
    await sendKeys({ press: 'ArrowLeft' });
    await settle(g.app);
    assert(row(g, kids[0]!.region) === null, 'closed again');

    // Costliest first: ordered by busy time.
    (passesPanel(g).shadowRoot!.querySelector('button[data-action="order"]') as HTMLButtonElement).click();
    await settle(g.app);
    const shown = [...passesPanel(g).shadowRoot!.querySelectorAll<HTMLElement>('tr.pass')].map((r) => Number(r.dataset['region']));
    const busy = shown.map((r) => section.passes[r]!.busyNs!);
    assert(busy.every((b, i) => i === 0 || b <= busy[i - 1]!), 'busiest first');
  });

  it('selecting a pass zooms the timeline to it, narrows the draws table and the range summary, and zooms the icicle', async () => {
    g = await openGameApp();
    const pass = g.summary.passes!.passes.find((p) => p.depth === 0 && p.label === 'Lighting')!;
    row(g, pass.region)!.click();
    await settle(g.app);
    assertEqual(g.app.selectedPass, pass.region, 'the app selected the pass');
    const v = g.app.timeline!.visibleWindow;
    assert(v.startNs <= pass.firstStartNs! && v.endNs >= pass.lastEndNs! && v.endNs - v.startNs < 1.3 * pass.spanNs!, `timeline zoomed to the pass: ${JSON.stringify(v)}`);
    assertEqual(row(g, pass.region)!.getAttribute('aria-selected'), 'true', 'row selected');

    const st = stats(g);
    st.tab = 'draws';
    await settle(g.app);
    const rows = [...st.shadowRoot!.querySelectorAll<HTMLElement>('tr[data-draw]')].map((r) => Number(r.dataset['draw']));
    assert(rows.length > 0 && rows.every((d) => d >= pass.firstDraw! && d <= pass.lastDraw!), 'only the pass\'s draws');
    assertEqual(st.shadowRoot!.querySelector('[data-count]')!.textContent!.trim().split(' · ')[0], `${pass.draws} of ${g.summary.draws.length.toLocaleString('en-US')} draws`, 'counted');
    assertEqual((st.shadowRoot!.querySelector('select[data-filter="pass"]') as HTMLSelectElement).value, String(pass.region), 'the table\'s pass menu');

    // The range summary counts only the pass's warps in a range over the whole frame.
    g.app.selectRange({ startNs: g.summary.frame.startNs, endNs: g.summary.frame.endNs });
    await settle(g.app);
    const range = g.app.shadowRoot!.querySelector('wt-range-summary')!;
    await range.updateComplete;
    assertEqual(range.shownCounts!.warps, pass.warps, 'the pass\'s warps');
    assertEqual((range.shadowRoot!.querySelector('select') as HTMLSelectElement).value, String(pass.region), 'the range summary\'s pass menu');

    // The icicle shows the pass: breadcrumb and window.
    const ic = icicle(g);
    assertEqual(ic.window!.startNs, pass.firstStartNs, 'icicle starts at the pass');
    assertEqual(ic.window!.endNs, pass.lastEndNs, 'and ends with it');
    assert(ic.shadowRoot!.querySelector(`button[data-crumb="${pass.region}"]`) !== null, 'breadcrumb');

    // Clear: everything back.
    (passesPanel(g).shadowRoot!.querySelector('button[data-action="clear-pass"]') as HTMLButtonElement).click();
    await settle(g.app);
    assertEqual(g.app.selectedPass, -1, 'cleared');
    assertEqual(range.shownCounts!.warps, g.summary.trace.warps, 'every warp in the range again');
  });

  it('the icicle: a click on a pass bar selects the pass, on a draw bar the draw', async () => {
    g = await openGameApp();
    const ic = icicle(g);
    const canvas = ic.shadowRoot!.querySelector('canvas')!;
    const rect = canvas.getBoundingClientRect();
    const view = ic.window!;
    const pass = g.summary.passes!.passes.find((p) => p.depth === 0 && p.label === 'Water')!;
    const x = (t: number) => rect.left + ((t - view.startNs) / (view.endNs - view.startNs)) * rect.width;
    await sendMouse({ type: 'click', position: [Math.round(x((pass.firstStartNs! + pass.lastEndNs!) / 2)), Math.round(rect.top + ICICLE_ROW_PX / 2)] });
    await settle(g.app);
    assertEqual(g.app.selectedPass, pass.region, 'the pass under the pointer');
    // Zoomed into the pass, its draws are wide enough to hit: the first draw of its first half.
    const zoomed = ic.window!;
    const draw = g.summary.draws[pass.firstDraw!]!;
    const rect2 = ic.shadowRoot!.querySelector('canvas')!.getBoundingClientRect();
    const dx = rect2.left + (((draw.firstStartNs! + draw.lastEndNs!) / 2 - zoomed.startNs) / (zoomed.endNs - zoomed.startNs)) * rect2.width;
    await sendMouse({ type: 'click', position: [Math.round(dx), Math.round(rect2.top + 2.5 * ICICLE_ROW_PX)] });
    await settle(g.app);
    const picked = g.app.selectedDraw;
    assert(picked >= pass.firstDraw! && picked <= pass.lastDraw!, `a draw of the pass selected: ${picked}`);
    const d = g.summary.draws[picked]!;
    assert(d.firstStartNs! <= draw.lastEndNs! + 1 && d.lastEndNs! >= (draw.firstStartNs! + draw.lastEndNs!) / 2 - 1, 'the draw under the pointer (or one running there)');
    assert(ic.shadowRoot!.querySelector('.status')!.textContent!.length > 0, 'the status line says what is under the pointer');
  });

  it('a real capture: the render pass and "(in no pass)"; a capture without regions has no Passes section', async () => {
    const rt = decodeTrace(new Uint8Array(await (await fetch(new URL('../../samples/h100-raytracingreflections-blocks.wtrace', import.meta.url))).arrayBuffer()));
    g = await openApp(rt, 'rt.wtrace', 1600, 1000);
    const section = g.summary.passes!;
    assertEqual(section.passes.length, 1, 'one render pass');
    const outside = passesPanel(g).shadowRoot!.querySelector('tr[data-region="none"]')!;
    assert(outside.textContent!.includes('(in no pass)') && outside.textContent!.includes(formatNs(section.outside.busyNs)), 'the trace-rays call outside it');
    g.app.remove();
    const aqt = decodeTrace(new Uint8Array(await (await fetch(new URL('../../samples/h100-aqt.wtrace', import.meta.url))).arrayBuffer()));
    g = await openApp(aqt, 'aqt.wtrace', 1600, 1000);
    await waitFor('the panels', () => g!.panels.shadowRoot!.querySelector('wt-stats-panel'));
    assertEqual(g.panels.shadowRoot!.querySelector('wt-passes-panel'), null, 'no Passes section');
    assertEqual(gameTrace().regions.length > 0, true, 'the game frame has regions');
  });
});
