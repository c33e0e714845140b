// Marks in the viewer's panels: the warp details list a warp's marks and phases, the phases
// panel shows analysis/marks.ts's numbers for a draw (sortable, with its empty states), and
// the analysis panels show it only for a trace with marks (mark-fixtures.ts: numbers by hand).
import '../../viewer/components/wt-warp-details.js';
import '../../viewer/panels/wt-phases-panel.js';
import '../../viewer/panels/wt-analysis-panels.js';
import type { WtPhasesPanel } from '../../viewer/panels/wt-phases-panel.js';
import { phaseTable } from '../../analysis/marks.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import { formatNs, formatShare } from '../../analysis/format.js';
import { analyzeInWorker } from '../../viewer/loading/analysis-client.js';
import { assert, assertEqual } from './assert.js';
import { waitFor } from './viewer-helpers.js';
import { markedTrace } from './mark-fixtures.js';

const fixture = markedTrace();
const { trace, plain, rows, draw } = fixture;
const mounted: HTMLElement[] = [];
afterEach(() => {
  for (const el of mounted.splice(0)) el.remove();
});

async function mount<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]>): Promise<HTMLElementTagNameMap[K]> {
  const el = document.createElement(tag);
  Object.assign(el, props);
  el.style.cssText = 'display:block;width:480px;';
  document.body.append(el);
  mounted.push(el);
  await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
  return el;
}

const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const tableRows = (el: HTMLElement, table: string) => [...el.shadowRoot!.querySelectorAll<HTMLTableRowElement>(`table[data-table="${table}"] tbody tr`)];
const cells = (row: HTMLTableRowElement) => [...row.cells].map((c) => text(c));
const cellOf = (row: HTMLTableRowElement, name: string) => text(row.querySelector(`[data-cell="${name}"]`));

describe('marks in the warp details', () => {
  it('lists the selected warp’s marks with their times and live lanes, then its phases', async () => {
    const el = await mount('wt-warp-details', { trace, row: rows[0] });
    assertEqual(
      tableRows(el, 'marks').map((r) => cells(r).join(' | ')).join(' / '),
      `before trace #0 | ${formatNs(500, 4)} | 32 / 32 / after trace #0 | ${formatNs(1500, 4)} | 16 / 32`,
      'marks',
    );
    const duration = trace.warps.durationNs[rows[0]]!;
    assertEqual(
      tableRows(el, 'warp-phases').map((r) => `${cellOf(r, 'label')} ${cellOf(r, 'time')}`).join(' / '),
      `start → before trace #0 ${formatNs(500, 4)} / before trace #0 → after trace #0 ${formatNs(1000, 4)} / after trace #0 → end ${formatNs(duration - 1500, 4)}`,
      'phases',
    );
    assertEqual(cellOf(tableRows(el, 'warp-phases')[1]!, 'share'), formatShare(1000 / duration), 'a phase’s share of the warp');
    el.row = rows[2];
    await el.updateComplete;
    assertEqual(cellOf(tableRows(el, 'marks')[1]!, 'lanes'), '8 / 32', 'the third warp’s second mark: 8 lanes');
  });

  it('says when the warp passed no mark, and shows nothing of marks for a trace without them', async () => {
    const unmarked = rows[0] === 0 ? 1 : 0;
    const el = await mount('wt-warp-details', { trace, row: unmarked });
    assert(text(el.shadowRoot!.querySelector('.marks-none')).includes('No marks'), 'a warp without marks says so');
    el.trace = plain;
    el.row = rows[0];
    await el.updateComplete;
    assert(el.shadowRoot!.querySelector('h4') === null && tableRows(el, 'marks').length === 0, 'no marks section without marks');
  });
});

describe('wt-phases-panel', () => {
  const table = phaseTable(trace, { draws: null, stage: null });

  it('shows the selected draw’s phases per stage with the hand-worked numbers', async () => {
    const p = await mount('wt-phases-panel', { trace, table, selectedDraw: draw });
    const got = tableRows(p, 'phases');
    assertEqual(got.map((r) => cellOf(r, 'phase')).join(' / '), 'start → before trace #0 / before trace #0 → after trace #0 / after trace #0 → end', 'phases in warp order');
    assert(p.shadowRoot!.querySelector('th[data-column="draw"]') === null, 'no draw column for one draw');
    const [first, middle, last] = got as [HTMLTableRowElement, HTMLTableRowElement, HTMLTableRowElement];
    assertEqual(cellOf(first, 'warps'), '3', 'warps');
    assertEqual(cellOf(first, 'mean'), formatNs(1750 / 3), 'mean of 500, 1000, 250');
    assertEqual(cellOf(first, 'p50'), formatNs(500), 'p50');
    assertEqual(cellOf(first, 'max'), formatNs(1000), 'max');
    assertEqual(cellOf(first, 'lanes'), '32.0', 'lanes at the first mark');
    assertEqual(`${cellOf(middle, 'mean')} ${cellOf(middle, 'p50')} ${cellOf(middle, 'max')} ${cellOf(middle, 'lanes')}`, `${formatNs(1000)} ${formatNs(1000)} ${formatNs(1500)} 32.0`, 'mark to mark');
    assertEqual(cellOf(last, 'lanes'), '13.3', 'lanes after the trace call: (16 + 16 + 8) / 3');
    // Share: the phase's time over all warp time of the draw's stage.
    const w = trace.warps;
    let stageNs = 0;
    for (let i = 0; i < w.count; i++) if (w.draw[i] === draw && w.stage[i] === fixture.stage) stageNs += w.durationNs[i]!;
    assertEqual(cellOf(middle, 'share'), formatShare(3000 / stageNs), 'share of the stage’s warp time');
    assert(text(p.shadowRoot!.querySelector('.summary')).includes('3 warps with marks'), `summary: ${text(p.shadowRoot!.querySelector('.summary'))}`);
  });

  it('sorts by a column on a header click and reverses on a second', async () => {
    const p = await mount('wt-phases-panel', { trace, table, selectedDraw: draw });
    const header = (id: string) => p.shadowRoot!.querySelector<HTMLElement>(`th[data-column="${id}"]`)!;
    header('max').click();
    await p.updateComplete;
    assertEqual(header('max').getAttribute('aria-sort'), 'descending', 'aria-sort');
    const maxes = tableRows(p, 'phases').map((r) => cellOf(r, 'phase'));
    const byMax = [...table.phases].sort((a, b) => b.maxNs - a.maxNs).map((s) => s.label);
    assertEqual(maxes.join(' / '), byMax.join(' / '), 'longest max first');
    header('max').click();
    await p.updateComplete;
    assertEqual(tableRows(p, 'phases').map((r) => cellOf(r, 'phase')).join(' / '), [...byMax].reverse().join(' / '), 'reversed');
  });

  it('shows every draw with a draw column when none is selected, and says when a draw has no marks', async () => {
    const p = await mount('wt-phases-panel', { trace, table, selectedDraw: -1 });
    assert(p.shadowRoot!.querySelector('th[data-column="draw"]') !== null, 'a draw column');
    assertEqual(tableRows(p, 'phases').length, 3, 'the one draw with marks');
    p.selectedDraw = draw === 0 ? 1 : 0;
    await p.updateComplete;
    assert(text(p.shadowRoot!.querySelector('.empty')).includes('passed a mark'), `empty state: ${text(p.shadowRoot!.querySelector('.empty'))}`);
    p.trace = plain;
    await p.updateComplete;
    assert(text(p.shadowRoot!.querySelector('.empty')).includes('no marks'), 'a trace without marks');
  });
});

describe('phases in the analysis panels', () => {
  it('the worker sends the phase table of every draw with the summary', async () => {
    const { phases } = await analyzeInWorker(trace);
    assert(phases !== null, 'a phase table');
    assertEqual(JSON.stringify(phases), JSON.stringify(phaseTable(trace, { draws: null, stage: null })), 'the page’s table');
    assertEqual((await analyzeInWorker(plain)).phases, null, 'none without marks');
  });

  it('shows the phases panel only for a trace with marks', async () => {
    const panels = await mount('wt-analysis-panels', { trace: plain, summary: analyzeTrace(plain), selectedDraw: draw });
    assert(panels.shadowRoot!.querySelector('wt-phases-panel') === null, 'no panel without marks');
    panels.trace = trace;
    panels.summary = analyzeTrace(trace);
    await panels.updateComplete;
    const panel = await waitFor('the phases panel', () => panels.shadowRoot!.querySelector<WtPhasesPanel>('wt-phases-panel'));
    await waitFor('its rows (the table computed on the page for a summary from the shell)', () => tableRows(panel, 'phases').length === 3);
  });
});
