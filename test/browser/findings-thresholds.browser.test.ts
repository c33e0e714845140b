// Issue 24: findings no longer bury the panels below them (on the game frame Statistics
// started ~3,200 px down the column); the selected finding says what to do; thresholds are
// editable in the panel, kept in localStorage for the next trace, and written into the
// exported summaries.
import { THRESHOLD_STORAGE_KEY } from '../../viewer/loading/threshold-store.js';
import type { WtExportButtons } from '../../viewer/panels/wt-export-buttons.js';
import { assert, assertEqual } from './assert.js';
import { decodeTrace } from '../../shared-schema/index.js';
import { openApp, openGameApp, settle, type GameApp } from './game-app.js';
import { waitFor } from './viewer-helpers.js';

let g: GameApp | null = null;
beforeEach(() => localStorage.removeItem(THRESHOLD_STORAGE_KEY));
afterEach(() => {
  g?.app.remove();
  g = null;
  localStorage.removeItem(THRESHOLD_STORAGE_KEY);
});

const heading = (x: GameApp, text: string) => [...x.panels.shadowRoot!.querySelectorAll('section > h3')].find((h) => h.textContent === text) as HTMLElement;

describe('findings and thresholds', () => {
  for (const [w, h] of [
    [1280, 720],
    [1600, 1000],
    [2560, 1440],
  ] as const) {
    it(`the findings leave the passes and statistics near the top of the column at ${w}×${h}`, async () => {
      g = await openGameApp(w, h);
      assert(g.summary.findings.length >= 100, `a frame with many findings: ${g.summary.findings.length}`);
      const top = heading(g, 'Findings').getBoundingClientRect().top;
      const stats = heading(g, 'Statistics').getBoundingClientRect().top - top;
      const passes = heading(g, 'Passes').getBoundingClientRect().top - top;
      assert(passes < 520, `Passes ${passes.toFixed(0)} px below Findings`);
      assert(stats < 1000, `Statistics ${stats.toFixed(0)} px below Findings (it was ~3,200)`);
      const list = g.panels.shadowRoot!.querySelector('wt-findings-list')!;
      const more = list.shadowRoot!.querySelector('button.more-groups, button.more-members');
      assert(more !== null && /\d/.test(more.textContent!), 'the rest behind a count');
    });
  }

  it('a selected finding says what to do: the tessellation stall, sort or split patches by cost', async () => {
    const bytes = new Uint8Array(await (await fetch(new URL('../../samples/h100-tess-stall.wtrace', import.meta.url))).arrayBuffer());
    g = await openApp(decodeTrace(bytes), 'tess.wtrace', 1600, 1000);
    const list = g.panels.shadowRoot!.querySelector('wt-findings-list')!;
    const group = g.summary.findingGroups[0]!;
    assertEqual(group.id, 'stall:TCS', 'the TCS stalls cost the most (their group is open)');
    const stall = g.summary.findings.find((f) => f.id === group.findingIds[0])!;
    const li = await waitFor('a stall finding', () => list.shadowRoot!.querySelector<HTMLElement>(`li[data-id="${stall.id}"]`));
    assertEqual(li.querySelector('.remedy'), null, 'not before it is selected');
    li.click();
    await settle(g.app);
    assert(li.querySelector('.detail')!.textContent!.includes(stall.detail), 'its detail');
    assert(li.querySelector('.remedy')!.textContent!.includes('Sort or split patches by cost'), 'and what to do');
    const groupRow = list.shadowRoot!.querySelector<HTMLElement>('li[data-group="stall:TCS"] .title')!;
    groupRow.click();
    await settle(g.app);
    assert(list.shadowRoot!.querySelector('li[data-group="stall:TCS"] .remedy')!.textContent!.includes('Sort or split patches by cost'), 'a selected group too');
  });

  it('applied thresholds re-analyze, stay for the next trace, and go into the exports', async () => {
    g = await openGameApp();
    const syncsBefore = g.summary.syncs.count;
    assert(syncsBefore > 0, 'the frame has syncs');
    const details = g.panels.shadowRoot!.querySelector('details.thresholds') as HTMLDetailsElement;
    assertEqual(details.querySelector('summary')!.textContent!.trim(), 'Thresholds', 'none changed');
    details.open = true;
    const editor = details.querySelector('wt-thresholds')!;
    await editor.updateComplete;
    const input = editor.shadowRoot!.querySelector<HTMLInputElement>('input[name="syncMinGapNs"]')!;
    assertEqual(input.value, '1000', 'the default');
    // A gap longer than any sync: no sync findings.
    input.value = '1000000';
    input.dispatchEvent(new Event('input'));
    await editor.updateComplete;
    const old = g.panels.summary;
    (editor.shadowRoot!.querySelector('button[data-action="apply"]') as HTMLButtonElement).click();
    await settle(g.app);
    assert(g.panels.shadowRoot!.querySelector('[role="status"]')?.textContent?.includes('new thresholds') === true, 'says it is analyzing again, the old findings still shown');
    const s = await waitFor('the new summary', () => (g!.panels.summary !== old ? g!.panels.summary : null), 60000);
    await settle(g.app);
    assertEqual(s.thresholds.syncMinGapNs, 1_000_000, 'analyzed with the new threshold');
    assertEqual(s.syncs.count, 0, 'no syncs at 1 ms');
    assertEqual(JSON.parse(localStorage.getItem(THRESHOLD_STORAGE_KEY)!).syncMinGapNs, 1_000_000, 'kept in localStorage');
    assertEqual(g.panels.shadowRoot!.querySelector('details.thresholds summary')!.textContent!.trim(), 'Thresholds (1 changed)', 'the summary line counts it');

    // Written into the summaries the panel exports.
    const exports = g.panels.shadowRoot!.querySelector('wt-export-buttons') as WtExportButtons;
    const json = JSON.parse(await (await exports.makeBlob('summary-json')).text()) as { thresholds: { syncMinGapNs: number }; findings: { remedy: string | null }[] };
    assertEqual(json.thresholds.syncMinGapNs, 1_000_000, 'summary JSON');
    assert(json.findings.every((f) => typeof f.remedy === 'string'), 'every finding with its remedy');
    const md = await (await exports.makeBlob('markdown')).text();
    assert(md.includes('`syncMinGapNs` = 1000000 (default 1000)') && md.includes('(1 changed from the defaults)'), 'Markdown report');
    const passesCsv = await (await exports.makeBlob('passes-csv')).text();
    assertEqual(passesCsv.trim().split('\n').length, 1 + s.passes!.passes.length, 'the passes CSV: a row per pass');

    // The next trace (a new app, as after a reload) is analyzed with it.
    g.app.remove();
    g = await openGameApp();
    assertEqual(g.summary.thresholds.syncMinGapNs, 1_000_000, 'kept across traces');

    // Reset: the defaults, and the storage entry gone.
    const details2 = g.panels.shadowRoot!.querySelector('details.thresholds') as HTMLDetailsElement;
    details2.open = true;
    const editor2 = details2.querySelector('wt-thresholds')!;
    await editor2.updateComplete;
    const before = g.panels.summary;
    (editor2.shadowRoot!.querySelector('button[data-action="reset"]') as HTMLButtonElement).click();
    const reset = await waitFor('the default summary', () => (g!.panels.summary !== before ? g!.panels.summary : null), 60000);
    assertEqual(reset.thresholds.syncMinGapNs, 1000, 'defaults again');
    assertEqual(reset.syncs.count, syncsBefore, 'the syncs are back');
    assertEqual(localStorage.getItem(THRESHOLD_STORAGE_KEY), null, 'nothing kept');
  });

  it('a value the analysis refuses is named and not applied', async () => {
    g = await openGameApp();
    const details = g.panels.shadowRoot!.querySelector('details.thresholds') as HTMLDetailsElement;
    details.open = true;
    const editor = details.querySelector('wt-thresholds')!;
    await editor.updateComplete;
    const input = editor.shadowRoot!.querySelector<HTMLInputElement>('input[name="stallOccupancyShare"]')!;
    input.value = '3';
    input.dispatchEvent(new Event('input'));
    await editor.updateComplete;
    const before = g.panels.summary;
    (editor.shadowRoot!.querySelector('button[data-action="apply"]') as HTMLButtonElement).click();
    await editor.updateComplete;
    assert(editor.shadowRoot!.querySelector('[role="alert"]')!.textContent!.includes('stallOccupancyShare'), 'the field is named');
    assertEqual(g.panels.summary, before, 'nothing re-analyzed');
    assertEqual(localStorage.getItem(THRESHOLD_STORAGE_KEY), null, 'nothing kept');
  });
});
