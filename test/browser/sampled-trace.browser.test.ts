// A sampled trace in the viewer (issue 25): the header shows a "Sampled"
// badge with the rates and how they were chosen, the sampled stage's chip
// says its lanes hold 1 in N of its warps, and the stats panel marks the
// estimated figures and lists what is withheld and why; the draw list marks
// the spans of draws with sampled warps "≈"; the compare panel dims a change
// within sampling noise (its ± in the title). The trace is h100-aqt-positions
// cut to 1 FS warp in 8 with the capture's own hash; the noise is checked on
// the real H200 captures of one frame at 1 in 8 and 1 in 64.
import { analyzeTrace } from '../../analysis/index.js';
import { Stage, decodeTrace, encodeWtrace, type Trace } from '../../shared-schema/index.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import '../../viewer/panels/index.js';
import '../../viewer/components/wt-range-summary.js';
import '../../viewer/components/wt-in-flight.js';
import { sampledTrace } from '../node/sampled-trace.js';
import { assert } from './assert.js';
import { mountApp, waitFor } from './viewer-helpers.js';

let app: WarptraceApp | null = null;
let full: Trace | null = null;
let sampled: Trace | null = null;
const sample = async (name: string) => decodeTrace(new Uint8Array(await (await fetch(new URL(`../../samples/${name}.wtrace`, import.meta.url))).arrayBuffer()));
before(async () => {
  full = await sample('h100-aqt-positions');
  sampled = sampledTrace(full, { FS: 8 }, { chosenBy: 'budget', budget: 1.1 });
});
afterEach(() => {
  app?.remove();
  app = null;
  document.querySelectorAll('wt-stats-panel, wt-compare-panel, wt-passes-panel, wt-findings-list').forEach((e) => e.remove());
});

/** A panel element on the page with `props` set, once rendered. */
async function mount<T extends HTMLElement & { updateComplete: Promise<boolean> }>(tag: string, props: Record<string, unknown>): Promise<ShadowRoot> {
  const el = Object.assign(document.createElement(tag), props) as T;
  document.body.append(el);
  await el.updateComplete;
  return el.shadowRoot!;
}

async function open(trace: Trace, name: string): Promise<ShadowRoot> {
  app = await mountApp();
  await app.openFile(new Blob([encodeWtrace(trace) as Uint8Array<ArrayBuffer>]), name);
  await waitFor(name, () => app!.opened?.name === name);
  await app.updateComplete;
  return app.shadowRoot!;
}

describe('a sampled trace in the viewer', () => {
  it('the header shows the Sampled badge with the rates and how chosen; the FS chip says its lanes show 1 in 8', async () => {
    const root = await open(sampled!, 'sampled.wtrace');
    const badge = root.querySelector('[data-sampled]');
    assert(badge !== null, 'a sampled badge');
    assert(badge.textContent!.trim() === 'Sampled: FS 1 in 8', badge.textContent!);
    assert(badge.getAttribute('title')!.includes('FS 1 in 8, other stages all (chosen by --budget 1.10)'), 'the tooltip has the whole description');
    assert(badge.getAttribute('title')!.includes('withheld'), 'the tooltip says what is withheld');
    // Beside the title, not in it: a narrow header clips the title's end, not the badge.
    assert(badge.previousElementSibling?.classList.contains('title') === true, 'the badge follows the title');
    const chips = [...root.querySelectorAll('.chips .chip')];
    const fs = chips.find((c) => c.textContent!.includes('FS'))!;
    assert(fs.textContent!.includes('1/8') && fs.getAttribute('title')!.includes('1 in 8'), fs.outerHTML);
    const tes = chips.find((c) => c.textContent!.includes('TES'))!;
    assert(!tes.textContent!.includes('1/'), 'an unsampled stage has no rate');
    app!.remove();
    const plain = await open(full!, 'full.wtrace');
    assert(plain.querySelector('[data-sampled]') === null, 'a full trace has no badge');
  });

  it('the stats panel marks FS figures as estimates and says what is withheld', async () => {
    const summary = analyzeTrace(sampled!);
    const el = document.createElement('wt-stats-panel') as HTMLElement & { summary: unknown; updateComplete: Promise<boolean> };
    el.summary = summary;
    document.body.append(el);
    await el.updateComplete;
    const root = el.shadowRoot!;
    const note = root.querySelector('[data-sampling]');
    assert(note !== null && note.textContent!.includes('FS 1 in 8'), 'the sampling note');
    assert(root.querySelector('[data-withheld="idle"]')!.textContent!.includes('idle time needs every warp'), 'idle withheld with its reason');
    const rows = [...root.querySelectorAll('table[data-table="stages"] tbody tr')];
    const fsRow = rows.find((r) => r.textContent!.includes('FS'))!;
    const tesRow = rows.find((r) => r.textContent!.includes('TES'))!;
    assert(fsRow.querySelectorAll('.estimate').length === 2, 'FS warps and warp-time marked ≈');
    assert(tesRow.querySelector('.estimate') === null, 'TES is exact');
    assert(root.querySelector('.overview')!.textContent!.includes('busy time withheld'), 'busy time withheld');
  });

  it('the compare panel (full A, sampled B) names the rates first, marks estimates ≈ and says "withheld" with the reason', async () => {
    const root = await mount('wt-compare-panel', { a: analyzeTrace(full!), b: analyzeTrace(sampled!), traceA: full, traceB: sampled });
    const warning = root.querySelector('.warning');
    assert(warning !== null && warning.textContent!.startsWith('Sampled comparison: A all warps (full trace), B FS 1 in 8.'), warning?.textContent ?? 'no warning');
    const syncs = root.querySelector('tr[data-row="Time lost to syncs"]')!;
    const b = syncs.querySelectorAll('td')[2]!;
    assert(b.textContent!.trim() === 'withheld' && b.title.includes('syncs between draws need every warp'), b.outerHTML);
    const fs = root.querySelector('table[data-table="stages"] tr[data-stage="FS"]')!;
    const tes = root.querySelector('table[data-table="stages"] tr[data-stage="TES"]')!;
    assert(/→ ≈ [\d,]+/.test(fs.textContent!), `FS warps of B estimated: ${fs.textContent}`);
    assert(!tes.textContent!.includes('≈'), 'TES is exact in both');
  });

  it('the draw list marks the span of each draw with FS warps ≈ (its recorded warps), the title saying so; a full trace has no ≈', async () => {
    const root = await open(sampled!, 'sampled.wtrace');
    const list = root.querySelector('wt-draw-list')!;
    await list.updateComplete;
    const rows = [...list.shadowRoot!.querySelectorAll<HTMLElement>('.row[data-draw]')];
    assert(rows.length > 0, 'draw rows');
    const w = sampled!.warps;
    const hasFs = new Set<number>();
    for (let i = 0; i < w.count; i++) if (w.stage[i] === Stage.FS) hasFs.add(w.draw[i]!);
    let marked = 0;
    for (const row of rows) {
      const d = Number(row.dataset['draw']);
      const dur = row.querySelector('.dur')!.textContent!.trim();
      const approx = dur.startsWith('≈ ');
      assert(approx === (hasFs.has(d) && dur !== '≈ no warps'), `draw ${d}: "${dur}", FS warps: ${hasFs.has(d)}`);
      if (approx) {
        marked++;
        assert(row.title.includes('≈') && row.title.includes('recorded warps (sampled: FS 1 in 8)'), row.title);
      }
    }
    assert(marked > 0, 'some draw has FS warps');
    app!.remove();
    const plain = await open(full!, 'full.wtrace');
    const plainList = plain.querySelector('wt-draw-list')!;
    await plainList.updateComplete;
    assert(!plainList.shadowRoot!.textContent!.includes('≈'), 'a full trace has no estimate');
  });

  it('the compare panel dims a change within sampling noise (1 in 8 against 1 in 64 of one H200 frame), its ± in the title, and lists no draw', async () => {
    const [s8, s64, h200] = await Promise.all([sample('h200-aqt-sampled-8'), sample('h200-aqt-sampled-64'), sample('h200-aqt-pixel-id')]);
    const root = await mount('wt-compare-panel', { a: analyzeTrace(s8), b: analyzeTrace(s64), traceA: s8, traceB: s64 });
    const fsMean = root.querySelectorAll('table[data-table="stages"] tr[data-stage="FS"] td')[4] as HTMLElement;
    assert(fsMean.dataset['noise'] === 'within-noise' && fsMean.classList.contains('noise'), fsMean.outerHTML);
    assert(!fsMean.classList.contains('bad') && !fsMean.classList.contains('good'), 'noise is neither good nor bad');
    assert(fsMean.textContent!.trim().startsWith('≈ ') && /^± [\d.]+% .*within 2 standard errors/.test(fsMean.title), fsMean.title);
    assert(root.querySelector('table[data-table="draws"]') === null, 'no draw listed among the changes');
    assert(root.textContent!.includes('No draw changed beyond sampling noise.'), 'and it says why');
    assert(root.querySelector('ul.highlights') === null, 'no highlight');
    document.querySelector('wt-compare-panel')!.remove();
    // The full capture's fragment warps paid the record: 764 against 566 ns, beyond the noise, shown as a change.
    const real = await mount('wt-compare-panel', { a: analyzeTrace(h200), b: analyzeTrace(s8), traceA: h200, traceB: s8 });
    const fsReal = real.querySelectorAll('table[data-table="stages"] tr[data-stage="FS"] td')[4] as HTMLElement;
    assert(fsReal.dataset['noise'] === 'significant' && fsReal.classList.contains('good') && fsReal.title.includes('beyond 2 standard errors'), fsReal.outerHTML);
    assert(real.querySelectorAll('table[data-table="draws"] tr[data-draw]').length === 3, 'the three draws, by their warp-time');
  });

  it('the occupancy tab, the draws table and a selected draw say what they withhold; findings say none were looked for', async () => {
    const summary = analyzeTrace(sampled!);
    const stats = await mount('wt-stats-panel', { summary, tab: 'occupancy' });
    const occupancy = stats.querySelector('[data-withheld-note="occupancy"]');
    assert(occupancy !== null && occupancy.textContent!.includes('Sampled trace (FS 1 in 8): peaks and means per SM'), occupancy?.textContent ?? 'no occupancy note');
    const fsRow = stats.querySelector('table[data-table="occupancy"] tr[data-stage="FS"]')!;
    assert(fsRow.querySelectorAll('.estimate').length === 2, 'FS device mean and share of capacity marked ≈');
    assert(stats.querySelector('table[data-table="occupancy"] tr[data-stage="TES"] .estimate') === null, 'TES is measured');
    (stats.querySelector('[data-tab="draws"]') as HTMLButtonElement).click();
    const table = await waitFor('the draws table', () => stats.querySelector('wt-draws-table'));
    await table.updateComplete;
    const draws = table.querySelector('[data-withheld-note="draws"]') ?? table.shadowRoot?.querySelector('[data-withheld-note="draws"]');
    assert(draws != null && draws.textContent!.includes('hidden share, gap before and SMs idle need every warp'), 'the draws note');
    const panel = stats.host as HTMLElement & { draw: number | null; updateComplete: Promise<boolean> };
    panel.draw = 0;
    await panel.updateComplete;
    const line = stats.querySelector('.draw-line')!.textContent!;
    assert(!line.includes('hidden behind') && line.includes('≈'), line);
    assert(stats.querySelector('[data-withheld-note="draw"]')!.textContent!.includes('overlap with other draws'), 'the draw note');
    const findings = await mount('wt-findings-list', { findings: summary.findings, groups: summary.findingGroups, sampled: summary.sampling!.every });
    assert(findings.querySelector('[data-withheld-note="findings"]')!.textContent!.includes('none is looked for'), 'the findings note');
  });

  it('the passes panel of a sampled ray-tracing trace withholds busy time with its reason and marks warp-times ≈', async () => {
    const rt = decodeTrace(new Uint8Array(await (await fetch(new URL('../../samples/h100-raytracingreflections-blocks.wtrace', import.meta.url))).arrayBuffer()));
    const cut = sampledTrace(rt, { RAYGEN: 8 });
    const summary = analyzeTrace(cut);
    assert(summary.passes !== undefined && summary.passes.passes.every((p) => p.busyNs === null), 'busy time withheld in the summary');
    const root = await mount('wt-passes-panel', { trace: cut, section: summary.passes, draws: summary.draws });
    const note = root.querySelector('[data-withheld-note="passes"]');
    assert(note !== null && note.textContent!.includes('Sampled trace (RGen 1 in 8): busy time and share of the frame need every warp'), note?.textContent ?? 'no passes note');
    // A row's warp-time is an estimate exactly when its draws have RAYGEN warps (the trace-rays draw is in no pass).
    const costs = [...summary.passes.passes.map((p) => [String(p.region), p] as const), ['none', summary.passes.outside] as const];
    let estimated = 0;
    for (const [region, cost] of costs) {
      const row = root.querySelector(`tr[data-region="${region}"]`);
      if (row === null) continue;
      const sampledRow = cost.stageWarpTimeNs.RAYGEN !== undefined;
      assert((row.querySelector('.estimate') !== null) === sampledRow, `${region}: ≈ ${sampledRow ? 'expected' : 'not expected'}`);
      if (sampledRow) estimated++;
    }
    assert(estimated > 0, 'some row holds the sampled stage');
    const plain = await mount('wt-passes-panel', { trace: rt, section: analyzeTrace(rt).passes, draws: [] });
    assert(plain.querySelector('[data-withheld-note]') === null && plain.querySelector('.estimate') === null, 'a full trace has neither');
  });

  it('the range summary and the time cursor say they count recorded warps, and the range withholds a sampled stage\'s average in flight', async () => {
    const { rangeCounts } = await import('../../analysis/range-counts.js');
    const { warpsInFlight } = await import('../../analysis/in-flight.js');
    const mid = (sampled!.warps.startNs[0]! + sampled!.warps.startNs[sampled!.warps.count - 1]!) / 2;
    const range = await mount('wt-range-summary', { trace: sampled, counts: rangeCounts(sampled!, mid - 50_000, mid + 50_000) });
    const note = range.querySelector('[data-withheld-note="range"]');
    assert(note !== null && note.textContent!.includes('Sampled trace (FS 1 in 8)'), note?.textContent ?? 'no range note');
    const rows = [...range.querySelectorAll('table.stages tr')].slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim()));
    const fs = rows.find((r) => r[0] === 'FS');
    const other = rows.find((r) => r[0] !== 'FS');
    assert(fs !== undefined && fs[3] === '–', `FS average in flight withheld: ${JSON.stringify(fs)}`);
    assert(other === undefined || /^\d/.test(other[3]!), `an unsampled stage keeps its average: ${JSON.stringify(other)}`);
    const cursor = await mount('wt-in-flight', { trace: sampled, inFlight: warpsInFlight(sampled!.warps, mid) });
    assert(cursor.querySelector('[data-withheld-note="in-flight"]') !== null, 'the time cursor says it counts recorded warps');
    const plainRange = await mount('wt-range-summary', { trace: full, counts: rangeCounts(full!, mid - 50_000, mid + 50_000) });
    assert(plainRange.querySelector('[data-withheld-note]') === null, 'a full trace has no note');
    document.querySelectorAll('wt-range-summary, wt-in-flight').forEach((e) => e.remove());
  });
});

