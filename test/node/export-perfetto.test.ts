// The Perfetto / Chrome JSON export: valid JSON, one process per SM, one
// thread per warp slot with no overlapping slices, unique thread ids, args.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace, type AnalysisSummary, type DrawSummary } from '../../analysis/index.js';
import { perfettoJsonChunks, type PerfettoStats } from '../../analysis/export/perfetto.js';
import { smIdPerWarp, synthesizeTrace, UNKNOWN_SM, type Trace } from '../../shared-schema/index.js';
import { traceOf } from './analysis-fixtures.js';

interface Event {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args: Record<string, unknown>;
}

function exportAll(trace: Trace, options: Parameters<typeof perfettoJsonChunks>[1] = {}): { json: { traceEvents: Event[]; displayTimeUnit: string }; stats: PerfettoStats; chunks: number } {
  const gen = perfettoJsonChunks(trace, options);
  const parts: string[] = [];
  let r = gen.next();
  while (!r.done) {
    parts.push(r.value);
    r = gen.next();
  }
  return { json: JSON.parse(parts.join('')), stats: r.value, chunks: parts.length };
}

test('a process per SM, a thread per slot, warps as non-overlapping X slices with args', () => {
  const trace = synthesizeTrace({ warps: 20000, seed: 6 });
  const { json, stats, chunks } = exportAll(trace, { summary: analyzeTrace(trace), chunkChars: 64 * 1024 });
  assert.ok(chunks > 10, `streamed in ${chunks} chunks`);
  const events = json.traceEvents;
  const warps = events.filter((e) => e.ph === 'X' && e.cat === undefined);
  assert.equal(warps.length, trace.warps.count);
  assert.equal(stats.warps, trace.warps.count);
  assert.equal(stats.slotOverlaps, 0);

  const processNames = new Map(events.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => [e.pid, e.args['name']]));
  const threadNames = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.tid, { pid: e.pid, name: e.args['name'] as string }]));
  const sms = new Set(smIdPerWarp(trace.warps));
  for (const sm of sms) assert.equal(processNames.get(sm + 1), `SM ${sm}`);
  // Every warp's thread is named "SM n / slot k" after its own SM and slot; tids are unique across processes.
  const tidPid = new Map<number, number>();
  for (const e of warps) {
    const t = threadNames.get(e.tid);
    assert.ok(t, `thread ${e.tid} has a name`);
    assert.equal(t.pid, e.pid);
    assert.match(t.name, new RegExp(`^SM ${e.pid - 1} / slot \\d+$`));
    if (tidPid.has(e.tid)) assert.equal(tidPid.get(e.tid), e.pid, 'a tid belongs to one process');
    tidPid.set(e.tid, e.pid);
    assert.equal(typeof e.args['draw'], 'number');
    assert.equal(typeof e.args['customId'], 'number');
    assert.equal(typeof e.args['drawLabel'], 'string');
    assert.ok((e.args['activeLanes'] as number) >= 1 && (e.args['activeLanes'] as number) <= 32);
    assert.ok(['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'].includes(e.name));
  }
  // Slices on one thread never overlap (in Perfetto's integer ns).
  const byTid = new Map<number, [number, number][]>();
  for (const e of warps) {
    const s = Math.round(e.ts! * 1000);
    const list = byTid.get(e.tid) ?? [];
    list.push([s, s + Math.round(e.dur! * 1000)]);
    byTid.set(e.tid, list);
  }
  for (const [tid, list] of byTid) {
    list.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < list.length; i++) assert.ok(list[i]![0] >= list[i - 1]![1], `tid ${tid} overlaps at ${list[i]![0]}`);
  }
  // Findings and draws tracks.
  assert.equal(processNames.get(70001), 'Findings');
  assert.equal(processNames.get(70000), 'Draws');
  assert.ok(events.some((e) => e.cat === 'finding' && e.args['kind'] === 'sync'));
  assert.equal(events.filter((e) => e.cat === 'draw').length, trace.draws.length);
});

test('times in µs with integer-ns resolution', () => {
  const trace = traceOf({ warps: [{ sm: 3, slot: 5, stage: 'TCS', draw: 0, start: 1234.5625, end: 3634.5625, custom: 17, mask: 0xff }], draws: [{ label: 'patches "irregular", 1/3\n' }] });
  const e = exportAll(trace).json.traceEvents.find((x) => x.ph === 'X')!;
  assert.equal(e.ts, 1.235); // 1234.5625 ns rounds to 1235 ns
  assert.equal(e.dur, 2.4);
  assert.equal(e.pid, 4);
  assert.deepEqual(e.args, { draw: 0, drawLabel: 'patches "irregular", 1/3\n', customId: 17, activeLanes: 8 });
});

test('a warp overlapping its slot (clock jitter) and warps without a slot go to extra lanes', () => {
  const trace = traceOf({
    warps: [
      { sm: 0, slot: 2, stage: 'FS', draw: 0, start: 0, end: 100 },
      { sm: 0, slot: 2, stage: 'FS', draw: 0, start: 90, end: 200 }, // overlaps its slot's previous warp
      { sm: 7, stage: 'FS', draw: 0, start: 0, end: 100 },
      { sm: 7, stage: 'FS', draw: 0, start: 50, end: 150 },
      { sm: 7, stage: 'FS', draw: 0, start: 120, end: 160 },
    ],
    draws: 1,
  });
  const { json, stats } = exportAll(trace, { drawLabels: false });
  assert.equal(stats.slotOverlaps, 1);
  const names = json.traceEvents.filter((e) => e.name === 'thread_name').map((e) => e.args['name']);
  assert.deepEqual(names, ['SM 0 / slot 2', 'SM 0 / extra 0', 'SM 7 / lane 0', 'SM 7 / lane 1']);
  const x = json.traceEvents.filter((e) => e.ph === 'X');
  assert.equal(x[4]!.tid, x[2]!.tid, 'the third unslotted warp reuses the first free lane');
  assert.equal(x[0]!.args['drawLabel'], undefined);
});

test('warps without SM id land in one "SM unknown" process', () => {
  const trace = traceOf({ warps: [{ sm: UNKNOWN_SM, stage: 'FS', draw: 0, start: 0, end: 10 }], draws: 1, smCount: null });
  const events = exportAll(trace).json.traceEvents;
  assert.ok(events.some((e) => e.name === 'process_name' && e.args['name'] === 'SM unknown' && e.pid === UNKNOWN_SM + 1));
});

const manyDrawsTrace = synthesizeTrace({ warps: 20000, seed: 12 });

/** A summary of a synthetic trace with `count` draws of 1 µs, starting every `everyNs` (overlapping when everyNs < 1000). */
function manyDraws(count: number, everyNs: number): AnalysisSummary {
  const summary = analyzeTrace(manyDrawsTrace);
  const template = summary.draws[0]!;
  const draws: DrawSummary[] = Array.from({ length: count }, (_, i) => ({ ...template, index: i, label: '', firstStartNs: i * everyNs, lastEndNs: i * everyNs + 1000, stages: [] }));
  return { ...summary, draws };
}

function drawTrack(summary: AnalysisSummary): { slices: { tid: number; ts: number; dur: number }[]; lanes: number } {
  const json = JSON.parse(Array.from(perfettoJsonChunks(manyDrawsTrace, { summary })).join('')) as { traceEvents: { ph: string; cat?: string; name: string; tid: number; ts: number; dur: number }[] };
  const slices = json.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'draw');
  const lanes = json.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.tid >= 300_000_000 && e.tid < 310_000_000).length;
  return { slices, lanes };
}

test('Perfetto export of 150,000 draws: a draws track of as many lanes as overlap, never a lane shared by overlapping draws', () => {
  // Each draw overlaps the next: two lanes, alternating.
  const chained = drawTrack(manyDraws(150_000, 600));
  assert.equal(chained.slices.length, 150_000);
  assert.equal(chained.lanes, 2);
  chained.slices.slice(0, 4).forEach((s, i) => assert.equal(s.tid, 300_000_000 + (i % 2)));
  // All overlapping: a lane each (found by heaps: a scan of every lane per draw is quadratic, ~20 s here).
  const stacked = drawTrack(manyDraws(150_000, 0.001));
  assert.equal(stacked.lanes, 150_000);
  assert.equal(new Set(stacked.slices.map((s) => s.tid)).size, 150_000);
  // Lanes are reused lowest first once free: three waves of 1,000 overlapping draws need 1,000 lanes.
  const waves = manyDraws(3000, 0);
  const spread = { ...waves, draws: waves.draws.map((d, i) => ({ ...d, firstStartNs: Math.floor(i / 1000) * 5000, lastEndNs: Math.floor(i / 1000) * 5000 + 1000 })) };
  const reused = drawTrack(spread);
  assert.equal(reused.lanes, 1000);
  assert.deepEqual(reused.slices.slice(1000, 1003).map((s) => s.tid - 300_000_000), [0, 1, 2]);
});
