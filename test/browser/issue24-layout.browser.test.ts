// Issue 24, long text: on the game-like frame (draw labels are asset paths without spaces)
// the right column never scrolls sideways (a label made it 1,405 px wide), the stage table's
// "Histogram" header is whole, the warp panel's headers never break inside a word
// ("duratio/n"), and a timeline tooltip wraps a long label inside the timeline.
import { sendMouse, resetMouse } from '@web/test-runner-commands';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import { assert, assertEqual } from './assert.js';
import { gameTrace, openGameApp, settle, type GameApp } from './game-app.js';
import { waitFor } from './viewer-helpers.js';
import { assetLabel } from '../node/synthetic-game-frame.js';

const SIZES = [
  [1280, 720],
  [1600, 1000],
  [2560, 1440],
] as const;

let g: GameApp | null = null;
afterEach(async () => {
  g?.app.remove();
  g = null;
  await resetMouse();
});

/** A draw with warps of several stages, and its first warp's row. */
function longDraw(x: GameApp): { draw: number; row: number } {
  const d = x.summary.draws.find((s) => s.index > 300 && s.stages.length >= 3)!;
  const row = x.app.opened!.trace.warps.draw.indexOf(d.index);
  return { draw: d.index, row };
}

describe('issue 24: long text', () => {
  for (const [w, h] of SIZES) {
    it(`the right column does not scroll sideways with a long label selected, on every tab, at ${w}×${h}`, async () => {
      g = await openGameApp(w, h);
      const { draw, row } = longDraw(g);
      g.app.selectDraw(draw);
      g.app.selectWarp(row);
      g.app.selectRange({ startNs: g.summary.draws[draw]!.firstStartNs!, endNs: g.summary.draws[draw]!.lastEndNs! });
      const list = g.panels.shadowRoot!.querySelector('wt-findings-list')!;
      const member = list.shadowRoot!.querySelector<HTMLElement>('li[data-id]');
      member?.click();
      await settle(g.app);
      const aside = g.app.shadowRoot!.querySelector('aside.panels') as HTMLElement;
      const stats = g.panels.shadowRoot!.querySelector('wt-stats-panel')!;
      assert(stats.shadowRoot!.textContent!.includes(assetLabel(draw)), 'the selected draw\'s label is shown');
      for (const tab of ['stages', 'occupancy', 'draws'] as const) {
        stats.tab = tab;
        await settle(g.app);
        assert(aside.scrollWidth <= aside.clientWidth + 1, `${tab}: the column's content is ${aside.scrollWidth} px in ${aside.clientWidth} px`);
      }
      // The bottom columns too: the warp and range panels stay in their thirds.
      for (const sel of ['wt-warp-details', 'wt-range-summary']) {
        const el = g.app.shadowRoot!.querySelector(sel) as HTMLElement;
        assert(el.scrollWidth <= el.clientWidth + 1, `${sel}: ${el.scrollWidth} px in ${el.clientWidth} px`);
      }
    });
  }

  it('the stage table shows its whole "Histogram" header in the default column', async () => {
    g = await openGameApp(1280, 720);
    const stats = g.panels.shadowRoot!.querySelector('wt-stats-panel')!;
    stats.tab = 'stages';
    await settle(g.app);
    const th = stats.shadowRoot!.querySelector('table[data-table="stages"] th.histogram') as HTMLElement;
    assertEqual(th.textContent!.trim(), 'Histogram', 'the header');
    const box = stats.getBoundingClientRect();
    const r = th.getBoundingClientRect();
    assert(r.right <= box.right + 1, `the header ends inside the panel: ${r.right} ≤ ${box.right}`);
    const text = document.createRange();
    text.selectNodeContents(th);
    assert(text.getBoundingClientRect().right <= r.right + 1, 'its text is not cut');
  });

  it('the warp panel\'s headers wrap between words only, never inside one ("duratio/n")', async () => {
    g = await openGameApp(1600, 1000);
    const { row } = longDraw(g);
    g.app.selectWarp(row);
    await settle(g.app);
    const details = g.app.shadowRoot!.querySelector('wt-warp-details')!;
    const heads = [...details.shadowRoot!.querySelectorAll('th')];
    assert(heads.some((t) => t.textContent === 'duration'), 'a duration row');
    for (const th of heads) {
      for (const word of th.textContent!.split(/\s+/).filter((x) => x.length > 0)) {
        const node = [...th.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.includes(word))!;
        const range = document.createRange();
        const at = node.textContent!.indexOf(word);
        range.setStart(node, at);
        range.setEnd(node, at + word.length);
        assertEqual(range.getClientRects().length, 1, `"${word}" on one line`);
      }
    }
  });

  it('a draw\'s tooltip wraps its long label inside the timeline', async () => {
    g = await openGameApp(1280, 720);
    const tl = g.app.timeline!;
    const layout = g.app.opened!.drawLayout;
    const d = 777;
    tl.zoomTo(layout.spans[2 * d]!, layout.spans[2 * d + 1]!, 0.5);
    await settle(g.app);
    const s = tl.screenLayout;
    const v = tl.visibleWindow;
    const surface = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    const mid = (layout.spans[2 * d]! + layout.spans[2 * d + 1]!) / 2;
    const x = surface.left + s.gutter + ((mid - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s);
    const y = surface.top + s.draws.y + 3 + layout.row[d]! * s.drawRowHeight + s.drawRowHeight / 2;
    // Near the right edge: the tooltip must flip and still fit.
    await sendMouse({ type: 'move', position: [Math.round(x), Math.round(y)] });
    const tip = await waitFor('the draw tooltip', () => tl.shadowRoot!.querySelector<HTMLElement>('.tooltip'));
    await settle(g.app);
    assert(tip.textContent!.includes(gameTrace().draws[d]!.label), `the whole label: ${tip.textContent}`);
    const r = tip.getBoundingClientRect();
    assert(tip.scrollWidth <= tip.clientWidth + 1, `nothing runs out of the tooltip: ${tip.scrollWidth} in ${tip.clientWidth}`);
    assert(r.left >= surface.left - 1 && r.right <= surface.right + 1, `inside the timeline: ${r.left}-${r.right} in ${surface.left}-${surface.right}`);
    assert(r.height > 3 * 14, 'the label wraps over several lines');
  });
});
