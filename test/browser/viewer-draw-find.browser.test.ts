// The draw list at the scale of a real frame (2 000 draws in 20 nested
// passes): the pass tree, the find box ([ ] step, Enter zooms, Esc clears),
// the sortable draw table and the draw track (rows never overlap, labels
// elided to their boxes). Old samples without regions keep a flat list.
import { resetMouse, sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import { Stage, encodeWtrace, type Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import type { WarptraceApp } from '../../viewer/components/warptrace-app.js';
import type { WtDrawList } from '../../viewer/components/wt-draw-list.js';
import type { WtTimeline } from '../../viewer/components/wt-timeline.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import '../../viewer/panels/wt-stats-panel.js';
import { assert, assertEqual } from './assert.js';
import { mountApp } from './viewer-helpers.js';
import { DRAWS_PER_PASS, PASS_COUNT, PASS_NAMES, passFrameTrace } from '../node/pass-frame.js';

const frameTrace: Trace = passFrameTrace();
let app: WarptraceApp;
let list: WtDrawList;
let tl: WtTimeline;

const rows = () => [...list.shadowRoot!.querySelectorAll<HTMLElement>('.list .row')];
const regionRows = () => rows().filter((r) => r.dataset['region'] !== undefined);
const drawRows = () => rows().filter((r) => r.dataset['draw'] !== undefined);
const input = () => list.shadowRoot!.querySelector('input')!;

async function settle(): Promise<void> {
  await app.updateComplete;
  await list.updateComplete;
  await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(r));
}

async function find(query: string): Promise<void> {
  input().focus();
  list.setQuery(query);
  await settle();
}

async function open(t: Trace, name: string): Promise<void> {
  const blob = new Blob([encodeWtrace(t) as Uint8Array<ArrayBuffer>]);
  assert(await app.openFile(blob, name), `${name} opens`);
  tl = app.timeline!;
  await tl.ready();
  list = app.shadowRoot!.querySelector('wt-draw-list')!;
  await settle();
}

describe('draw list, find and draw track at scale', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  beforeEach(async () => {
    app = await mountApp();
    await open(frameTrace, 'frame.wtrace');
  });
  afterEach(() => app.remove());

  it('shows 20 collapsed passes; expanding one shows its regions and draws', async () => {
    assertEqual(regionRows().length, PASS_COUNT, 'one row per top-level pass');
    assertEqual(drawRows().length, 0, 'no draw rows while collapsed');
    assert(regionRows()[0]!.textContent!.includes(`${DRAWS_PER_PASS}`), 'a pass row shows its draw count');
    regionRows()[1]!.click(); // Shadows/CSM1
    await settle();
    const opaque = regionRows().find((r) => r.textContent!.includes('Shadows/CSM1/Opaque'))!;
    opaque.click();
    await settle();
    const draws = list.view.rows.flatMap((r) => (r.kind === 'draw' ? [r.draw] : []));
    assertEqual(draws.length, 50, 'the Opaque region holds 50 draws');
    assert(drawRows().length > 10 && drawRows().length < 50, `virtualized: ${drawRows().length} draw rows in the DOM`);
    assert(draws.every((d) => d >= 100 && d < 150), `draws of pass 1: ${draws.slice(0, 5).join(',')}…`);
    assert(rows().length < 120, `virtualized: ${rows().length} rows in the DOM`);
  });

  it('finds by glob, index, pass and stage; ] steps, Enter zooms, Esc clears', async () => {
    await find('Shadows/CSM?*rock');
    assertEqual(list.view.matches!.length, 4 * 34, 'glob');
    await find('#1234');
    assertEqual([...list.view.matches!].join(), '1234', '#index');
    await find('pass:Bloom');
    const bloom = PASS_NAMES.indexOf('Bloom') * DRAWS_PER_PASS;
    assertEqual(list.view.matches!.length, DRAWS_PER_PASS, 'pass');
    assertEqual(list.view.matches![0], bloom, 'first Bloom draw');
    await find('stage:TCS pass:Bloom');
    const tcs = [...list.view.matches!];
    assertEqual(tcs.length, 20, 'stage within a pass');
    assert(deepDrawRows().every((d) => tcs.includes(d)), 'only matches are listed');

    await sendKeys({ press: ']' });
    await settle();
    assertEqual(app.selectedDraw, tcs[0], '] selects the first match');
    await sendKeys({ press: ']' });
    await settle();
    assertEqual(app.selectedDraw, tcs[1], '] steps to the next match');
    assert(drawRows().some((r) => r.dataset['draw'] === `${tcs[1]}` && r.getAttribute('aria-selected') === 'true'), 'revealed and marked');
    tl.fitAll();
    await sendKeys({ press: 'Enter' });
    await settle();
    const s = frameTrace.draws[tcs[1]!]!;
    const v = tl.visibleWindow;
    const span = app.opened!.drawLayout.spans;
    assert(v.startNs <= span[2 * tcs[1]!]! && v.endNs >= span[2 * tcs[1]! + 1]!, `the view holds the draw: ${JSON.stringify(v)}`);
    assert(v.endNs - v.startNs < 3 * (s.gpuEndNs! - s.gpuBeginNs!), `zoomed to its span: ${JSON.stringify(v)}`);

    // The timeline's ] steps through the matches too.
    tl.shadowRoot!.querySelector<HTMLElement>('.surface')!.focus();
    await sendKeys({ press: ']' });
    await settle();
    assertEqual(app.selectedDraw, tcs[2], "the timeline's ] steps to the next match");

    input().focus();
    await sendKeys({ press: 'Escape' });
    await settle();
    assertEqual(list.query, '', 'Esc clears the filter first');
    assertEqual(app.selectedDraw, tcs[2], 'the draw stays selected');
    await sendKeys({ press: 'Escape' });
    await settle();
    assertEqual(app.selectedDraw, -1, 'a second Esc clears the selected draw');
    assertEqual(list.view.rows.filter((r) => r.kind === 'region').length, PASS_COUNT + 2, 'the tree is back (the stepped-to pass stays open)');
  });

  it('the tree works from the keyboard; a region bar click zooms to the pass', async () => {
    list.shadowRoot!.querySelector<HTMLElement>('.list')!.focus();
    for (const key of ['Home', 'ArrowRight', 'ArrowDown', 'ArrowRight', 'ArrowDown']) {
      await sendKeys({ press: key });
      await settle();
    }
    assertEqual(app.selectedDraw, 0, 'Home, → opens the pass, ↓ its Opaque region, → opens it, ↓ its first draw');
    await sendKeys({ press: 'ArrowLeft' });
    await settle();
    assertEqual(list.shadowRoot!.querySelector('.list')!.getAttribute('aria-activedescendant'), 'region-1', '← goes to the parent region');

    const L = app.opened!.drawLayout;
    const bloom = L.tree.spans.subarray(2 * 4 * PASS_NAMES.indexOf('Bloom'), 2 * 4 * PASS_NAMES.indexOf('Bloom') + 2);
    tl.fitAll();
    await settle();
    const s = tl.screenLayout;
    const v = tl.visibleWindow;
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    const x = rect.left + s.gutter + (((bloom[0]! + bloom[1]!) / 2 - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s);
    const y = rect.top + s.draws.y + 3 + s.drawRowHeight / 2;
    await sendMouse({ type: 'click', position: [Math.round(x), Math.round(y)] });
    await settle();
    const w = tl.visibleWindow;
    assert(w.startNs <= bloom[0]! && w.endNs >= bloom[1]! && w.endNs - w.startNs < 1.5 * (bloom[1]! - bloom[0]!), `zoomed to Bloom: ${JSON.stringify(w)}`);
    await resetMouse();
  });

  it('Esc in the timeline clears the selected draw', async () => {
    app.selectDraw(42);
    await settle();
    tl.shadowRoot!.querySelector<HTMLElement>('.surface')!.focus();
    await sendKeys({ press: 'Escape' });
    await settle();
    assertEqual(app.selectedDraw, -1, 'cleared');
  });

  it('draw track: rows never overlap, region bars on top, labels inside their boxes', async () => {
    const L = app.opened!.drawLayout;
    assertEqual(L.regionRows, 3, 'three depths of region bars');
    assertEqual(L.overflowRow, -1, 'this frame fits without an overflow row');
    const last = new Map<number, number>();
    for (const d of L.byStart) {
      const r = L.row[d]!;
      assert(r >= L.regionRows, 'draws below the region bars');
      assert(!(L.spans[2 * d]! < (last.get(r) ?? -Infinity)), `draw ${d} overlaps the previous draw of row ${r}`);
      last.set(r, L.spans[2 * d + 1]!);
    }
    // Labels as drawn: record fillText on the text canvas.
    const canvas = tl.shadowRoot!.querySelector<HTMLCanvasElement>('canvas.text')!;
    const ctx = canvas.getContext('2d')!;
    const drawn: { text: string; x: number; width: number }[] = [];
    const fill = ctx.fillText.bind(ctx);
    ctx.fillText = (text: string, x: number, y: number) => {
      drawn.push({ text, x, width: ctx.measureText(text).width });
      fill(text, x, y);
    };
    tl.setView({ startNs: 100_000, endNs: 130_000 });
    tl.renderNow();
    const s = tl.screenLayout;
    const pxPerNs = timeWidth(s) / (tl.visibleWindow.endNs - tl.visibleWindow.startNs);
    const labels = drawn.filter((t) => /^\d+: /.test(t.text) || t.text.endsWith('…'));
    assert(labels.some((t) => t.text.endsWith('…')), `some labels elided: ${labels.slice(0, 4).map((t) => t.text).join(' | ')}`);
    let checked = 0;
    for (const t of labels) {
      const m = /^(\d+): /.exec(t.text);
      if (m === null) continue;
      const d = Number(m[1]);
      const x1 = Math.min(s.width, s.gutter + (L.spans[2 * d + 1]! - tl.visibleWindow.startNs) * pxPerNs);
      assert(t.x + t.width <= x1 + 0.5, `label "${t.text}" ends at ${t.x + t.width}, past its box at ${x1}`);
      checked++;
    }
    assert(checked > 10, `checked ${checked} draw labels`);
    assert(drawn.some((t) => t.text.startsWith('Shadows/CSM1') || t.text.startsWith('Sha')), 'region bar labels drawn');
  });

  it('the draws table sorts by span, virtualized', async () => {
    const summary = analyzeTrace(frameTrace);
    const el = document.createElement('wt-stats-panel');
    el.summary = summary;
    el.trace = frameTrace;
    el.tab = 'draws';
    document.body.append(el);
    await el.updateComplete;
    const trs = () => [...el.shadowRoot!.querySelectorAll<HTMLElement>('tr[data-draw]')];
    assert(trs().length < 60, `virtualized: ${trs().length} rows`);
    assertEqual(trs()[0]!.dataset['draw'], '0', 'index order first');
    assert(el.shadowRoot!.querySelector('th[data-column="pass"]') !== null, 'pass column');
    el.shadowRoot!.querySelector<HTMLElement>('th[data-column="span"]')!.click();
    await el.updateComplete;
    const spans = trs().map((r) => summary.draws[Number(r.dataset['draw'])]!.spanNs!);
    assert(spans.every((v, i) => i === 0 || v <= spans[i - 1]!), `descending spans: ${spans.slice(0, 5).join(',')}`);
    assertEqual(spans[0], Math.max(...summary.draws.map((d) => d.spanNs ?? 0)), 'longest first');
    assertEqual(el.shadowRoot!.querySelector('th[data-column="span"]')!.getAttribute('aria-sort'), 'descending', 'aria-sort');
    el.shadowRoot!.querySelector<HTMLElement>('button[data-action="columns"]')!.click();
    await el.updateComplete;
    assert(el.shadowRoot!.querySelector('th[data-column="stage:TCS"]') !== null, 'per-stage columns on demand');
    el.remove();
  });
});

describe('draw list on the samples (no regions)', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  it('stays a flat list, and finds by label and stage', async () => {
    app = await mountApp();
    const bytes = new Uint8Array(await (await fetch('/samples/h100-tess-stall.wtrace')).arrayBuffer());
    assert(await app.openFile(new Blob([bytes]), 'h100-tess-stall.wtrace'), 'sample opens');
    tl = app.timeline!;
    await tl.ready();
    list = app.shadowRoot!.querySelector('wt-draw-list')!;
    await settle();
    const t = app.opened!.trace;
    assertEqual(t.regions.length, 0, 'an old sample has no regions');
    assertEqual(regionRows().length, 0, 'no tree');
    assertEqual(drawRows().length, Math.min(t.draws.length, drawRows().length), 'draw rows');
    assert(drawRows().length > 0, 'draws listed');
    await find('stage:TCS');
    const m = [...list.view.matches!];
    assert(m.length > 0 && m.length <= t.draws.length, `${m.length} draws ran TCS`);
    const tcsDraws = new Set<number>();
    for (let i = 0; i < t.warps.count; i++) if (t.warps.stage[i] === Stage.TCS) tcsDraws.add(t.warps.draw[i]!);
    assertEqual(m.join(), [...tcsDraws].sort((a, b) => a - b).join(), 'exactly the draws with TCS warps');
    const label = t.draws[m[0]!]!.label;
    await find(`${label.slice(0, 3)}*`);
    assert(list.view.matches!.includes(m[0]!), `glob ${label.slice(0, 3)}* finds "${label}"`);
    app.remove();
  });
});

function deepDrawRows(): number[] {
  return drawRows().map((r) => Number(r.dataset['draw']));
}
