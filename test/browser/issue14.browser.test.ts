// Issue 14: the analysis runs in a worker (cancellable), and a batch of viewer defects.
import { sendKeys, sendMouse, resetMouse, setViewport } from '@web/test-runner-commands';
import { analyzeTrace } from '../../analysis/analyze.js';
import { buildTrace, synthesizeTrace, Stage, UNKNOWN_SM, type Trace } from '../../shared-schema/index.js';
import { analyzeInWorker } from '../../viewer/loading/analysis-client.js';
import { stagesInFlightAt } from '../../viewer/model/hit-test.js';
import { timeWidth } from '../../viewer/model/screen-layout.js';
import '../../viewer/panels/index.js';
import { assert, assertEqual } from './assert.js';
import { FIXTURE_BASE, deepText, fixtureWtrace, mountApp, waitFor } from './viewer-helpers.js';

/** Warps on one lane without SM ids (a lavapipe capture). */
function noSmIdTrace(): Trace {
  const base = synthesizeTrace({ warps: 100, seed: 2 });
  const n = 40;
  const startNs = Array.from({ length: n }, (_, i) => i * 100);
  return buildTrace({
    device: { ...base.device, smCount: null },
    capture: { ...base.capture, recordsWritten: n, recordsKept: n, bufferCapacity: n },
    draws: [{ index: 0, label: 'draw', kind: 'draw', gpuBeginNs: null, gpuEndNs: null }],
    warps: {
      startNs,
      endNs: startNs.map((s) => s + 500),
      sm: new Array(n).fill(UNKNOWN_SM),
      warpSlot: new Array(n).fill(0xff),
      stage: startNs.map((_, i) => (i % 2 === 0 ? Stage.VS : Stage.FS)),
      draw: new Array(n).fill(0),
      customId: new Array(n).fill(0),
      activeMask: new Array(n).fill(0xffffffff),
    },
  });
}

describe('issue 14', () => {
  before(() => setViewport({ width: 1280, height: 900 }));
  afterEach(() => resetMouse());

  it('analyzeInWorker gives the summary analyzeTrace gives, and a newer request can cancel it', async () => {
    const trace = synthesizeTrace({ warps: 30000, seed: 7 });
    const { summary } = await analyzeInWorker(trace);
    assertEqual(JSON.stringify(summary), JSON.stringify(analyzeTrace(trace)), 'same summary from the worker');
    assertEqual(trace.warps.startNs.length, 30000, 'the page keeps its columns');
    const abort = new AbortController();
    const pending = analyzeInWorker(trace, abort.signal);
    abort.abort();
    const error = await pending.then(() => null, (e: unknown) => e);
    assert(error instanceof DOMException && error.name === 'AbortError', `cancelled: ${String(error)}`);
  });

  it('the panels show "Analyzing…" and a newer trace replaces the older analysis', async () => {
    const el = document.createElement('wt-analysis-panels');
    document.body.append(el);
    const older = synthesizeTrace({ warps: 50000, seed: 1 });
    const newer = synthesizeTrace({ warps: 3000, seed: 3 });
    const ready: number[] = [];
    el.addEventListener('wt-analysis-ready', (e) => ready.push((e as CustomEvent<{ summary: { trace: { warps: number } } }>).detail.summary.trace.warps));
    el.trace = older;
    await el.updateComplete;
    assert(el.shadowRoot!.textContent!.includes('Analyzing'), 'analyzing state');
    el.trace = newer;
    await waitFor('the newer summary', () => el.summary);
    await new Promise((r) => setTimeout(r, 300));
    assertEqual(ready.join(), '3000', 'only the newer trace reported');
    el.remove();
  });

  it('the SM line says "SM ids unknown", never 65535', async () => {
    const app = await mountApp();
    const { encodeWtrace } = await import('../../shared-schema/index.js');
    const blob = new Blob([encodeWtrace(noSmIdTrace()) as Uint8Array<ArrayBuffer>]);
    assert(await app.openFile(blob, 'lavapipe.wtrace'), 'opens');
    await app.updateComplete;
    const line = app.shadowRoot!.querySelector('.sm-summary')!.textContent!.replace(/\s+/g, ' ');
    assert(!line.includes('65535') && line.includes('SM ids unknown'), line);
    app.remove();
  });

  it('the statistics panel of a capture without SM ids says "SM ids unknown", not "1 SMs"', async () => {
    const el = document.createElement('wt-stats-panel');
    el.summary = analyzeTrace(noSmIdTrace());
    document.body.append(el);
    await el.updateComplete;
    const overview = el.shadowRoot!.querySelector('.overview')!.textContent!.replace(/\s+/g, ' ');
    assert(overview.includes('SM ids unknown') && !overview.includes('1 SMs') && !overview.includes('65535'), overview);
    el.remove();
  });

  it('a ?trace= URL that returns a web page says so, naming the URL and status', async () => {
    const app = await mountApp();
    const url = 'data:text/html,%3C!doctype html%3E%3Chtml%3E%3C/html%3E';
    assertEqual(await app.openUrl(url), false, 'refused');
    assert(app.error !== null && app.error.includes('did not return a trace') && app.error.includes('HTTP 200') && app.error.includes(url), String(app.error));
    app.remove();
  });

  it('the default sample stays out of Recent', async () => {
    const app = await mountApp({ autoOpen: true, sampleBase: FIXTURE_BASE });
    await waitFor('the default sample', () => app.opened);
    await new Promise((r) => setTimeout(r, 300));
    await app.refreshRecents();
    assertEqual(app.recents.length, 0, 'no recent entry for the default sample');
    assert(await app.openFile(await fixtureWtrace(), 'mine.wtrace'), 'opens');
    await waitFor('the recent entry of a file the user opened', () => app.recents.length === 1);
    app.remove();
  });

  it('the Recent popover closes on Esc and on an outside click', async () => {
    const app = await mountApp();
    const toggle = [...app.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent!.startsWith('Recent ('))!;
    toggle.click();
    await app.updateComplete;
    assert(app.shadowRoot!.querySelector('.recents-popover') !== null, 'open');
    await sendKeys({ press: 'Escape' });
    await app.updateComplete;
    assert(app.shadowRoot!.querySelector('.recents-popover') === null, 'Esc closes it');
    toggle.click();
    await app.updateComplete;
    assert(app.recentsOpen, 'open again');
    await sendMouse({ type: 'click', position: [600, 500] });
    await app.updateComplete;
    assertEqual(app.recentsOpen, false, 'an outside click closes it');
    app.remove();
  });

  it('hovering a collapsed lane shows occupancy by stage at that time', async () => {
    const app = await mountApp();
    assert(await app.openFile(await fixtureWtrace(), 'fixture.wtrace'), 'opens');
    const tl = app.timeline!;
    await tl.ready();
    tl.setView({ startNs: 1000, endNs: 9000 });
    await new Promise((r) => requestAnimationFrame(r));
    const row = tl.laneLayout.rows[0]!;
    assert(!row.expanded, 'collapsed');
    const s = tl.screenLayout;
    const rect = tl.shadowRoot!.querySelector('.surface')!.getBoundingClientRect();
    const lane = app.opened!.index.lanes[row.group]!;
    const w = app.opened!.trace.warps;
    const mid = w.startNs[lane.rowBegin]! + w.durationNs[lane.rowBegin]! / 2;
    const v = tl.visibleWindow;
    const x = Math.round(rect.left + s.gutter + ((mid - v.startNs) / (v.endNs - v.startNs)) * timeWidth(s));
    const y = Math.round(rect.top + s.lanes.y + row.y + row.height / 2 - tl.verticalScroll);
    await sendMouse({ type: 'move', position: [x, y] });
    const tip = await waitFor('the tooltip', () => tl.shadowRoot!.querySelector('.tooltip')?.textContent ?? null);
    assert(tip.includes('in flight') && !tip.includes(' warp ·'), `occupancy tooltip: ${tip}`);
    const counts = stagesInFlightAt(app.opened!.trace, lane, mid);
    const total = counts.reduce((a, b) => a + (b ?? 0), 0);
    assert(total > 0 && tip.includes(`${total} warp`), `counts ${total}: ${tip}`);
    app.remove();
  });

  it('a selected draw shows its stage statistics', async () => {
    const trace = synthesizeTrace({ warps: 20000, seed: 5 });
    const summary = analyzeTrace(trace);
    const el = document.createElement('wt-stats-panel');
    Object.assign(el, { summary, selectedDraw: 4 });
    document.body.append(el);
    await el.updateComplete;
    const table = el.shadowRoot!.querySelector('.selected-draw table[data-table="draw-stages"]');
    assert(table !== null, 'draw stage table');
    assertEqual(table.querySelectorAll('tbody tr').length, summary.draws[4]!.stages.length, 'one row per stage of the draw');
    assert(deepText(el).includes('Draw 4'), 'titled');
    el.selectedDraw = -1;
    await el.updateComplete;
    assert(el.shadowRoot!.querySelector('.selected-draw') === null, 'gone without a selection');
    el.remove();
  });
});

describe('issue 14: the decode worker copies the columns for the analysis', () => {
  it('a loaded trace carries a copy; the analysis takes it (the page keeps its own columns) and gives the same summary', async () => {
    const { loadTrace } = await import('../../viewer/loading/trace-loader.js');
    const { takeAnalysisCopy, registerAnalysisCopy } = await import('../../viewer/loading/analysis-copies.js');
    const loaded = await loadTrace({ kind: 'synthetic', warps: 20000, seed: 4 }, () => undefined);
    const copy = takeAnalysisCopy(loaded.trace);
    assert(copy !== null && copy.startNs !== loaded.trace.warps.startNs && copy.startNs.length === 20000, 'a separate copy');
    registerAnalysisCopy(loaded.trace, copy);
    const { summary } = await analyzeInWorker(loaded.trace);
    assertEqual(copy.startNs.length, 0, 'the copy was transferred, not copied again');
    assertEqual(loaded.trace.warps.startNs.length, 20000, 'the page keeps its columns');
    assertEqual(JSON.stringify(summary), JSON.stringify(analyzeTrace(loaded.trace)), 'same summary');
  });
});
