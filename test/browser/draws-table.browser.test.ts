// Issue 24: the draws table follows the find box and the time range (it ignored both), so
// one pass's draws can be ranked, and `[` / `]` work while the focus is in it (they did
// nothing): they step through its rows in the table's order. On the game-like frame.
import { sendKeys } from '@web/test-runner-commands';
import type { DrawSummary } from '../../analysis/summary.js';
import { assert, assertEqual } from './assert.js';
import { openGameApp, settle, type GameApp } from './game-app.js';

let g: GameApp | null = null;
afterEach(() => {
  g?.app.remove();
  g = null;
});

const stats = (x: GameApp) => x.panels.shadowRoot!.querySelector('wt-stats-panel')!;
const root = (x: GameApp) => stats(x).shadowRoot!;
const shownDraws = (x: GameApp) => [...root(x).querySelectorAll<HTMLElement>('tr[data-draw]')].map((r) => Number(r.dataset['draw']));
const countLine = (x: GameApp) => root(x).querySelector('[data-count]')!.textContent!.trim().split(' · ')[0];

async function drawsTab(x: GameApp): Promise<void> {
  stats(x).tab = 'draws';
  await settle(x.app);
}

describe('draws table', () => {
  it('shows only the draws the find box matches, and only those that ran in the selected range; each can be switched off', async () => {
    g = await openGameApp();
    await drawsTab(g);
    const total = g.summary.draws.length;
    assertEqual(countLine(g), `${total.toLocaleString('en-US')} draws`, 'all draws');

    const list = g.app.drawList!;
    list.setQuery('#100-139');
    await settle(g.app);
    assertEqual(countLine(g), `40 of ${total.toLocaleString('en-US')} draws`, 'the find matches');
    assert(shownDraws(g).every((d) => d >= 100 && d <= 139), 'only matches listed');
    const find = root(g).querySelector('button[data-filter="find"]') as HTMLButtonElement;
    find.click();
    await settle(g.app);
    assertEqual(countLine(g), `${total.toLocaleString('en-US')} draws`, 'find switched off');
    find.click();
    await settle(g.app);

    // A range over draws 120-129's spans: the matches that ran in it.
    const a = g.summary.draws[120]!;
    const b = g.summary.draws[129]!;
    const range = { startNs: a.firstStartNs!, endNs: b.lastEndNs! };
    g.app.selectRange(range);
    await settle(g.app);
    const expected = g.summary.draws.filter((d) => d.index >= 100 && d.index <= 139 && d.firstStartNs !== null && d.firstStartNs <= range.endNs && d.lastEndNs! >= range.startNs);
    assert(expected.length >= 10 && expected.length < 40, `draws in the range: ${expected.length}`);
    assertEqual(countLine(g), `${expected.length} of ${total.toLocaleString('en-US')} draws`, 'find and range');
    assertEqual(shownDraws(g).join(), expected.slice(0, shownDraws(g).length).map((d) => d.index).join(), 'those draws, in draw order');
    (root(g).querySelector('button[data-filter="range"]') as HTMLButtonElement).click();
    await settle(g.app);
    assertEqual(countLine(g), `40 of ${total.toLocaleString('en-US')} draws`, 'range switched off');
  });

  it('ranks one pass\'s draws by warp-time; ] and [ step through the rows in that order while the focus is in the table', async () => {
    g = await openGameApp();
    await drawsTab(g);
    const pass = g.summary.passes!.passes.find((p) => p.depth === 0 && p.label === 'Bloom')!;
    const select = root(g).querySelector('select[data-filter="pass"]') as HTMLSelectElement;
    select.value = String(pass.region);
    select.dispatchEvent(new Event('change'));
    await settle(g.app);
    assertEqual(g.app.selectedPass, pass.region, 'the table\'s menu selects the pass in the app');
    (root(g).querySelector('th[data-column="warpTime"]') as HTMLElement).click();
    await settle(g.app);
    const own = g.summary.draws.filter((d) => d.index >= pass.firstDraw! && d.index <= pass.lastDraw!);
    const ranked = [...own].sort((x: DrawSummary, y: DrawSummary) => y.warpTimeNs - x.warpTimeNs || x.index - y.index).map((d) => d.index);
    assertEqual(shownDraws(g).slice(0, 5).join(), ranked.slice(0, 5).join(), 'the pass\'s costliest draws first');

    // Focus the first row: ] goes to the second costliest, ] again to the third, [ back.
    root(g).querySelector<HTMLElement>(`tr[data-draw="${ranked[0]}"]`)!.focus();
    await sendKeys({ press: ']' });
    await settle(g.app);
    assertEqual(g.app.selectedDraw, ranked[0], '] from no selection selects the first row');
    await sendKeys({ press: ']' });
    await settle(g.app);
    assertEqual(g.app.selectedDraw, ranked[1], '] steps to the next row in the table\'s order');
    await sendKeys({ press: ']' });
    await settle(g.app);
    assertEqual(g.app.selectedDraw, ranked[2], 'and on');
    await sendKeys({ press: '[' });
    await settle(g.app);
    assertEqual(g.app.selectedDraw, ranked[1], '[ steps back');
    const v = g.app.timeline!.visibleWindow;
    const d = g.summary.draws[ranked[1]!]!;
    assert(v.startNs <= d.firstStartNs! && v.endNs >= d.lastEndNs!, 'the timeline shows the stepped-to draw');
    assertEqual(root(g).activeElement?.getAttribute('data-draw'), String(ranked[1]), 'the focus stays in the table, on the row');

    // Far down the list: ↓ keeps the selected row in view.
    for (let k = 0; k < 30; k++) await sendKeys({ press: 'ArrowDown' });
    await settle(g.app);
    assertEqual(g.app.selectedDraw, ranked[31], '↓ steps too');
    const box = root(g).querySelector('.draw-table')!.getBoundingClientRect();
    const r = root(g).querySelector(`tr[data-draw="${ranked[31]}"]`)!.getBoundingClientRect();
    assert(r.top >= box.top && r.bottom <= box.bottom, `the row is in view: ${r.top}-${r.bottom} in ${box.top}-${box.bottom}`);
  });
});
