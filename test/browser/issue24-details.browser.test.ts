// Issue 24, small defects: the "?" help closes on Esc and on a press outside it; a draw that
// overlapped the ones before it reads "overlapped … by 448 ns", never "gap before -448 ns";
// counts carry thousands separators everywhere in the panels; stages are named as the header
// names them (RGen, not RAYGEN) in every table.
import { sendKeys, sendMouse, resetMouse } from '@web/test-runner-commands';
import { decodeTrace, STAGES } from '../../shared-schema/index.js';
import { formatNs } from '../../analysis/format.js';
import { assert, assertEqual } from './assert.js';
import { openApp, openGameApp, settle, type GameApp } from './game-app.js';
import { deepText } from './viewer-helpers.js';

let g: GameApp | null = null;
afterEach(async () => {
  g?.app.remove();
  g = null;
  await resetMouse();
});

async function sample(name: string) {
  return decodeTrace(new Uint8Array(await (await fetch(new URL(`../../samples/${name}`, import.meta.url))).arrayBuffer()));
}

const center = (el: Element): [number, number] => {
  const r = el.getBoundingClientRect();
  return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];
};

describe('issue 24: details', () => {
  it('the "?" help closes on Esc and on a press outside it, and stays open for a press inside', async () => {
    g = await openGameApp(1600, 1000);
    const help = g.app.shadowRoot!.querySelector('details.help') as HTMLDetailsElement;
    const summary = help.querySelector('summary')!;
    await sendMouse({ type: 'click', position: center(summary) });
    await settle(g.app);
    assert(help.open, 'opened by its button');
    await sendKeys({ press: 'Escape' });
    await settle(g.app);
    assert(!help.open, 'Esc closes it');

    await sendMouse({ type: 'click', position: center(summary) });
    await settle(g.app);
    assert(help.open, 'open again');
    await sendMouse({ type: 'click', position: center(help.querySelector('.help-body table')!) });
    await settle(g.app);
    assert(help.open, 'a press inside keeps it open');
    await sendMouse({ type: 'click', position: center(g.app.shadowRoot!.querySelector('wt-draw-list')!) });
    await settle(g.app);
    assert(!help.open, 'a press outside closes it');
  });

  it('a draw that overlapped the draws before it says so, in words, without a negative time', async () => {
    g = await openGameApp(1600, 1000);
    const d = g.summary.draws.find((x) => x.gapBeforeNs !== null && x.gapBeforeNs < -100)!;
    assert(d !== undefined, 'the frame has overlapping draws');
    g.app.selectDraw(d.index);
    await settle(g.app);
    const stats = g.panels.shadowRoot!.querySelector('wt-stats-panel')!;
    const line = stats.shadowRoot!.querySelector('.selected-draw .draw-line')!.textContent!.replace(/\s+/g, ' ');
    assert(line.includes(`overlapped the draws before it by ${formatNs(-d.gapBeforeNs!)}`), line);
    assert(!/gap before -|gap before −/.test(line), 'no negative gap');
    // The draws table's "Gap before" column says it the same way.
    stats.tab = 'draws';
    await settle(g.app);
    (stats.shadowRoot!.querySelector('button[data-action="columns"]') as HTMLButtonElement).click();
    await settle(g.app);
    const cells = [...stats.shadowRoot!.querySelectorAll<HTMLElement>('table[data-table="draws"] th')].map((t) => t.dataset['column']);
    const at = cells.indexOf('gapBefore');
    const cell = stats.shadowRoot!.querySelector(`tr[data-draw="${d.index}"]`)!.querySelectorAll('td')[at]!;
    assertEqual(cell.textContent!.trim(), `overlap ${formatNs(-d.gapBeforeNs!)}`, 'the table cell');
  });

  it('counts carry thousands separators in every panel', async () => {
    g = await openGameApp(1600, 1000);
    assert(g.summary.trace.warps >= 10_000 && g.summary.draws.length >= 1000, 'counts of four digits and more');
    g.app.selectRange({ startNs: g.summary.frame.startNs, endNs: g.summary.frame.endNs });
    await settle(g.app);
    const stats = g.panels.shadowRoot!.querySelector('wt-stats-panel')!;
    const texts: string[] = [
      stats.shadowRoot!.querySelector('.overview')!.textContent!,
      ...[...stats.shadowRoot!.querySelectorAll('td.num')].map((c) => c.textContent!),
      ...[...g.panels.shadowRoot!.querySelector('wt-passes-panel')!.shadowRoot!.querySelectorAll('td.num')].map((c) => c.textContent!),
      ...[...g.app.shadowRoot!.querySelector('wt-range-summary')!.shadowRoot!.querySelectorAll('p, td.num')].map((c) => c.textContent!),
      ...[...g.panels.shadowRoot!.querySelector('wt-findings-list')!.shadowRoot!.querySelectorAll('.filters button, .meta')].map((c) => c.textContent!),
    ];
    assert(texts.some((t) => t.includes(g!.summary.trace.warps.toLocaleString('en-US'))), 'the warp count, grouped');
    for (const t of texts) assert(!/(^|[^\d.,])\d{4,}/.test(t), `no count without separators: "${t.trim()}"`);
    stats.tab = 'draws';
    await settle(g.app);
    assertEqual(stats.shadowRoot!.querySelector('[data-count]')!.textContent!.trim().split(' · ')[0], `${g.summary.draws.length.toLocaleString('en-US')} draws`, 'the draws table');
  });

  it('stages are named as the header names them: RGen, not RAYGEN, in the tables', async () => {
    g = await openApp(await sample('h100-ray-tracing.wtrace'), 'rt.wtrace', 1600, 1000);
    const chips = [...g.app.shadowRoot!.querySelectorAll('.chips button')].map((b) => b.textContent!.trim());
    assert(chips.includes('RGen'), `header chips: ${chips.join(', ')}`);
    const stats = g.panels.shadowRoot!.querySelector('wt-stats-panel')!;
    for (const tab of ['stages', 'occupancy'] as const) {
      stats.tab = tab;
      await settle(g.app);
      const first = [...stats.shadowRoot!.querySelectorAll(`table[data-table="${tab}"] tbody tr td:first-child`)].map((c) => c.textContent!.trim());
      assert(first.includes('RGen'), `${tab}: ${first.join(', ')}`);
      for (const s of STAGES.filter((x) => x.name !== x.label)) assert(!first.includes(s.name), `${tab}: no ${s.name}`);
    }
    g.app.selectRange({ startNs: g.summary.frame.startNs, endNs: g.summary.frame.endNs });
    await settle(g.app);
    const range = deepText(g.app.shadowRoot!.querySelector('wt-range-summary')!);
    assert(range.includes('RGen') && !range.includes('RAYGEN'), 'the range summary');
  });
});
