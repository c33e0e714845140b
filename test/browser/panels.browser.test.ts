// The analysis panels in a real browser: they render summaries they are given,
// send wt-zoom-to / wt-export events, and never inject trace strings as HTML.
import { analyzeTrace } from '../../analysis/index.js';
import type { AnalysisSummary } from '../../analysis/summary.js';
import { buildTrace, synthesizeTrace, Stage, type Trace } from '../../shared-schema/index.js';
import '../../viewer/panels/index.js';
import type { ExportDetail, ZoomToDetail } from '../../viewer/panels/index.js';
import { assert, assertEqual } from './assert.js';

const trace = synthesizeTrace({ warps: 20000, seed: 5 });
const summary = analyzeTrace(trace);

async function mount<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]>): Promise<HTMLElementTagNameMap[K]> {
  const el = document.createElement(tag);
  Object.assign(el, props);
  document.body.appendChild(el);
  await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
  return el;
}

const root = (el: Element) => el.shadowRoot!;

/** A tiny trace with a hostile draw label and a TCS cap at 12 warps per SM. */
function hostileTrace(): Trace {
  const startNs: number[] = [];
  const endNs: number[] = [];
  for (let slot = 0; slot < 12; slot++) for (let k = 0; k < 30; k++) startNs.push(k * 2010 + slot), endNs.push(k * 2010 + slot + 2000);
  const n = startNs.length;
  return buildTrace({
    device: { ...trace.device },
    capture: { ...trace.capture, recordsWritten: n, recordsKept: n, bufferCapacity: n },
    draws: [{ index: 0, label: '<img src=x onerror="window.__pwned=1">', kind: 'draw', gpuBeginNs: null, gpuEndNs: null }],
    warps: {
      startNs,
      endNs,
      sm: new Array(n).fill(0),
      warpSlot: startNs.map((_, i) => Math.floor(i / 30)),
      stage: new Array(n).fill(Stage.TCS),
      draw: new Array(n).fill(0),
      customId: startNs.map((_, i) => i),
      activeMask: new Array(n).fill(0xffffffff),
    },
  });
}

afterEach(() => {
  document.body.innerHTML = '';
});

it('stats panel: stage table, occupancy sentences, draws that zoom the timeline', async () => {
  const el = await mount('wt-stats-panel', { summary });
  const rows = root(el).querySelectorAll('table[data-table="stages"] tbody tr');
  assertEqual(rows.length, summary.stages.length, 'one row per stage');
  const tcs = root(el).querySelector('tr[data-stage="TCS"]')!;
  assert(tcs.textContent!.includes(summary.stages.find((s) => s.stage === 'TCS')!.warps.toLocaleString('en-US')), 'TCS warp count shown');
  assert(tcs.querySelector('svg rect') !== null, 'histogram drawn');

  (root(el).querySelector('button[data-tab="occupancy"]') as HTMLButtonElement).click();
  await el.updateComplete;
  const tcsPeak = summary.stages.find((s) => s.stage === 'TCS')!.occupancy.perSm!.peak;
  const sentence = root(el).querySelector('li[data-stage="TCS"]')!.textContent!.replace(/\s+/g, ' ');
  assert(sentence.includes(`At most ${tcsPeak} TCS warps ran at once on an SM`), sentence);

  (root(el).querySelector('button[data-tab="draws"]') as HTMLButtonElement).click();
  await el.updateComplete;
  const events: ZoomToDetail[] = [];
  const selected: number[] = [];
  document.body.addEventListener('wt-zoom-to', (e) => events.push(e.detail));
  document.body.addEventListener('wt-draw-select', (e) => selected.push((e as CustomEvent<{ draw: number }>).detail.draw));
  (root(el).querySelector('tr[data-draw="3"]') as HTMLElement).click();
  const d3 = summary.draws[3]!;
  assertEqual(events.length, 1, 'zoom event crossed the shadow root and bubbled');
  assertEqual(events[0]!.startNs, d3.firstStartNs, 'zoom start');
  assertEqual(events[0]!.endNs, d3.lastEndNs, 'zoom end');
  assertEqual(selected[0], 3, 'draw selected');
});

it('stats panel: one draw, and warnings shown', async () => {
  const unaligned: AnalysisSummary = { ...summary, reliability: { ...summary.reliability, crossSmReliable: false, warnings: ['SM clocks are not aligned'] } };
  const el = await mount('wt-stats-panel', { summary: unaligned, draw: 2 });
  assert(root(el).querySelector('h3')!.textContent!.includes('Draw 2'), 'draw heading');
  assertEqual(root(el).querySelectorAll('table[data-table="draw-stages"] tbody tr').length, summary.draws[2]!.stages.length, 'draw stage rows');
  assert(root(el).querySelector('.warning')!.textContent!.includes('not aligned'), 'warning shown');
});

it('findings list: click or Enter zooms to the finding (expanded); kinds filter', async () => {
  const el = await mount('wt-findings-list', { findings: summary.findings, groups: summary.findingGroups });
  // Every finding is one item once the small groups are shown and every group is expanded.
  (root(el).querySelector('button.more') as HTMLButtonElement | null)?.click();
  await el.updateComplete;
  for (const b of root(el).querySelectorAll('li.group[aria-expanded="false"] button.expand')) (b as HTMLButtonElement).click();
  await el.updateComplete;
  assertEqual(root(el).querySelectorAll('li[data-id]').length, summary.findings.length, 'one item per finding');
  assertEqual(root(el).querySelectorAll('li.group').length, summary.findingGroups.filter((g) => g.count > 1).length, 'one item per group of several');
  const zooms: ZoomToDetail[] = [];
  document.body.addEventListener('wt-zoom-to', (e) => zooms.push(e.detail));
  const stall = summary.findings.find((f) => f.sm !== null)!;
  assert(stall !== undefined, 'a finding about one SM');
  (root(el).querySelector(`li[data-id="${stall.id}"]`) as HTMLElement).click();
  assertEqual(zooms.length, 1, 'one zoom');
  assertEqual(zooms[0]!.startNs, stall.startNs, 'start');
  assertEqual(zooms[0]!.endNs, stall.endNs, 'end');
  assertEqual(zooms[0]!.sm, stall.sm!, 'sm');
  await el.updateComplete;
  assertEqual(root(el).querySelector(`li[data-id="${stall.id}"]`)!.getAttribute('aria-selected'), 'true', 'selected');

  const sync = summary.findings.find((f) => f.kind === 'sync')!;
  (root(el).querySelector(`li[data-id="${sync.id}"]`) as HTMLElement).dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
  assertEqual(zooms.length, 2, 'Enter zooms');
  assertEqual(zooms[1]!.sm, undefined, 'a sync is not about one SM');

  (root(el).querySelector('button[data-kind="sync"]') as HTMLButtonElement).click();
  await el.updateComplete;
  assertEqual(root(el).querySelectorAll('li[data-kind="sync"]').length, 0, 'syncs hidden');
  assert(root(el).querySelectorAll(`li[data-kind="${stall.kind}"]`).length > 0, 'other kinds still shown');
});

it('trace strings are text, never HTML', async () => {
  const hostile = analyzeTrace(hostileTrace());
  assert(hostile.findings.some((f) => f.kind === 'occupancy-cap'), 'the cap is found');
  const stats = await mount('wt-stats-panel', { summary: hostile, tab: 'draws' });
  const findings = await mount('wt-findings-list', { findings: hostile.findings });
  for (const el of [stats, findings]) assertEqual(root(el).querySelector('img'), null, 'no <img> element created');
  assert(root(stats).textContent!.includes('<img src=x'), 'label shown as text');
  assertEqual((window as unknown as { __pwned?: number }).__pwned, undefined, 'no script ran');
});

/** Waits until `done()` holds (the Perfetto export finishes in a worker). */
async function until(done: () => boolean, what: string, ms = 20_000): Promise<void> {
  const t0 = performance.now();
  while (!done()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Top-level packets of a Perfetto protobuf trace (every field must be Trace.packet, field 1, length-delimited). */
function perfettoPackets(bytes: Uint8Array): number {
  let p = 0;
  let packets = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 1; ; shift *= 128) {
      const b = bytes[p++]!;
      v += (b & 0x7f) * shift;
      if (b < 0x80) return v;
    }
  };
  while (p < bytes.length) {
    const at = p;
    assertEqual(varint(), 0x0a, `Trace.packet tag at ${at}`);
    const length = varint(); // not `p += varint()`: that adds to p as it was before the read
    p += length;
    packets++;
  }
  assertEqual(p, bytes.length, 'packets end with the file');
  return packets;
}

it('export buttons: blobs from the formatters, cancelable wt-export event', async () => {
  const el = await mount('wt-export-buttons', { summary, trace, fileName: 'frame' });
  const exports: ExportDetail[] = [];
  el.addEventListener('wt-export', (e) => {
    exports.push(e.detail);
    e.preventDefault(); // the test saves nothing
  });
  (root(el).querySelector('button[data-format="summary-json"]') as HTMLButtonElement).click();
  (root(el).querySelector('button[data-format="stages-csv"]') as HTMLButtonElement).click();
  (root(el).querySelector('button[data-format="perfetto"]') as HTMLButtonElement).click();
  await until(() => exports.length === 3, 'three exports');
  assertEqual(exports.map((e) => e.fileName).join(' '), 'frame.summary.json frame.stages.csv frame.perfetto-trace', 'file names');
  const json = JSON.parse(await exports[0]!.blob.text());
  assertEqual(json.schema, 'warptrace-summary', 'summary schema');
  assert((await exports[1]!.blob.text()).startsWith('stage,warps,'), 'csv header');
  // Perfetto's protobuf (decoded against Perfetto's definitions in test/node/export-perfetto-proto.test.ts):
  // here, two packets per warp (begin, end) plus tracks, and about 25 bytes per warp.
  const bytes = new Uint8Array(await exports[2]!.blob.arrayBuffer());
  assert(perfettoPackets(bytes) > 2 * trace.warps.count, 'a begin and an end per warp');
  assert(bytes.length < 40 * trace.warps.count, `${bytes.length} bytes`);

  const noTrace = await mount('wt-export-buttons', { summary });
  assert((root(noTrace).querySelector('button[data-format="perfetto"]') as HTMLButtonElement).disabled, 'Perfetto needs the trace');
});

it('export buttons: Perfetto from a worker, the page stays free; a failed export is shown, not thrown', async () => {
  const big = synthesizeTrace({ warps: 300_000, seed: 4 });
  const el = await mount('wt-export-buttons', { trace: big, fileName: 'big' });
  const exports: ExportDetail[] = [];
  el.addEventListener('wt-export', (e) => {
    exports.push(e.detail);
    e.preventDefault();
  });
  (root(el).querySelector('button[data-format="perfetto"]') as HTMLButtonElement).click();
  await el.updateComplete;
  assert((root(el).querySelector('button[data-format="perfetto"]') as HTMLButtonElement).disabled, 'disabled while it runs');
  // The page keeps running timers while the worker writes.
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  await until(() => exports.length === 1, 'the Perfetto export');
  clearInterval(timer);
  assert(ticks > 0, 'the page ran while the worker exported');
  assert(perfettoPackets(new Uint8Array(await exports[0]!.blob.arrayBuffer())) > 2 * big.warps.count, 'every warp exported');
  assertEqual(root(el).querySelector('[role="alert"]'), null, 'no error shown');

  // Columns the exporter cannot read: the worker's error is shown instead of thrown into the console.
  const brokenTrace = { ...trace, warps: { ...trace.warps, smGroups: undefined } } as unknown as Trace;
  const broken = await mount('wt-export-buttons', { summary, trace: brokenTrace, fileName: 'broken' });
  broken.addEventListener('wt-export', (e) => exports.push(e.detail));
  (root(broken).querySelector('button[data-format="perfetto"]') as HTMLButtonElement).click();
  await until(() => root(broken).querySelector('[role="alert"]') !== null, 'the failure');
  assertEqual(exports.length, 1, 'no file for the failed export');
  const alert = root(broken).querySelector('[role="alert"]');
  assert(alert !== null && alert.textContent!.startsWith('Perfetto trace export failed: '), `the failure is shown: ${alert?.textContent}`);
  assert(!(root(broken).querySelector('button[data-format="perfetto"]') as HTMLButtonElement).disabled, 'usable again');
});

it('compare panel: longer TCS warps flagged bad, highlights listed', async () => {
  const b = analyzeTrace(synthesizeTrace({ warps: 20000, seed: 6 }));
  const el = await mount('wt-compare-panel', { a: summary, b, labelA: 'before', labelB: 'after' });
  assert(root(el).querySelectorAll('ul.highlights li').length > 0, 'highlights');
  const rows = root(el).querySelectorAll('table[data-table="stages"] tbody tr');
  assertEqual(rows.length, new Set([...summary.stages, ...b.stages].map((s) => s.stage)).size, 'stage rows');
  // The traces are named once above the tables, whose headers say A and B.
  const names = root(el).querySelector('[data-names]')!.textContent!.replace(/\s+/g, ' ');
  assert(names.includes('A before') && names.includes('B after'), `the traces named: ${names}`);
  const head = [...root(el).querySelectorAll('table[data-table="frame"] thead th')].map((th) => th.textContent!.trim());
  assert(head.includes('A') && head.includes('B'), `A and B in the header: ${head.join('|')}`);
  const tcs = root(el).querySelector('tr[data-stage="TCS"]')!;
  const a = summary.stages.find((s) => s.stage === 'TCS')!.meanNs;
  const bm = b.stages.find((s) => s.stage === 'TCS')!.meanNs;
  const cell = tcs.querySelectorAll('td')[4]!;
  assertEqual(cell.classList.contains(bm > a ? 'bad' : 'good'), true, 'longer is bad, shorter is good');
  const empty = await mount('wt-compare-panel', { a: summary });
  assert(root(empty).textContent!.includes('Open two traces'), 'needs both');
});

it('analysis panels: analyze the trace the shell hands down, once, then show findings and stats', async () => {
  const el = await mount('wt-analysis-panels', {});
  assert(root(el).textContent!.includes('Open a trace'), 'empty state');
  const ready = new Promise<AnalysisSummary>((resolve) => el.addEventListener('wt-analysis-ready', (e) => resolve((e as CustomEvent<{ summary: AnalysisSummary }>).detail.summary), { once: true }));
  el.trace = trace;
  el.selectedDraw = 4;
  await el.updateComplete;
  assert(root(el).textContent!.includes('Analyzing'), 'analyzing state');
  const s = await ready;
  await el.updateComplete;
  assertEqual(s.trace.warps, trace.warps.count, 'analyzed the given trace');
  const findings = root(el).querySelector('wt-findings-list')!;
  assertEqual(findings.findings.length, summary.findings.length, 'findings handed down');
  const stats = root(el).querySelector('wt-stats-panel')!;
  assertEqual(stats.selectedDraw, 4, 'selected draw handed down');
  stats.tab = 'draws';
  await stats.updateComplete;
  assertEqual(root(stats).querySelector('tr[data-draw="4"]')!.getAttribute('aria-selected'), 'true', 'selected draw highlighted');
  // Same trace again: no new analysis; a summary from outside wins.
  el.trace = trace;
  await el.updateComplete;
  assert(el.summary === s, 'kept');
});

it('analysis panels: a summary from the shell replaces the analysis', async () => {
  const el = await mount('wt-analysis-panels', { trace, summary });
  let analyzed = false;
  el.addEventListener('wt-analysis-ready', () => (analyzed = true));
  await new Promise((r) => setTimeout(r, 50));
  await el.updateComplete;
  assertEqual(analyzed, false, 'no analysis of its own');
  assert(el.summary === summary, 'shell summary kept');
  assert(root(el).querySelector('wt-stats-panel') !== null, 'panels shown');
});
