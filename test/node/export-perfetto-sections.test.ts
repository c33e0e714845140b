// Perfetto exports of the new data, decoded back: marks as phase slices
// nested in their warps (count, times and names against the mark columns and
// marks.ts's table), block profiles' hottest lines and ray-event totals as
// the draw slices' arguments, and nothing of it for traces without the data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace } from '../../analysis/index.js';
import { phaseLabel, phaseTable } from '../../analysis/marks.js';
import { blockSection, RAY_EVENT_KEYS } from '../../analysis/trace-sections.js';
import { blockSite } from '../../analysis/export/perfetto-args.js';
import { perfettoJsonChunks } from '../../analysis/export/perfetto.js';
import { RAY_EVENTS, type Trace } from '../../shared-schema/index.js';
import type { PerfettoProtoStats } from '../../analysis/export/perfetto-proto.js';
import { decodePerfetto, type DecodedPerfetto, type Slice } from './perfetto/decode-perfetto.js';
import { BLOCK_SAMPLES, exportProto, MARK_SAMPLE, rayTrace, sample, stripped } from './section-fixtures.js';

const DRAWS_PID = 70000;

const pidOf = (d: DecodedPerfetto, sl: Slice) => d.tracks.get(sl.track)?.pid ?? null;
const onSms = (d: DecodedPerfetto) => d.slices.filter((sl) => (pidOf(d, sl) ?? DRAWS_PID) < DRAWS_PID);
const drawSlices = (d: DecodedPerfetto) => d.slices.filter((sl) => pidOf(d, sl) === DRAWS_PID);
const drawName = (t: Trace, draw: number) => (t.draws[draw]!.label === '' ? `draw ${draw}` : t.draws[draw]!.label);

/** The marks sample and its protobuf export, decoded once for the tests that read it. */
let marked: { trace: Trace; bytes: Uint8Array; stats: PerfettoProtoStats; decoded: DecodedPerfetto } | null = null;
function markedExport(): NonNullable<typeof marked> {
  if (marked === null) {
    const trace = sample(MARK_SAMPLE);
    const { bytes, stats } = exportProto(trace);
    marked = { trace, bytes, stats, decoded: decodePerfetto(bytes) };
  }
  return marked;
}

test(`${MARK_SAMPLE}: every marked warp's phases nest in its slice, tile it, and are cut at its marks`, () => {
  const { trace, bytes, stats, decoded } = markedExport();
  const marks = trace.marks!;
  const sm = onSms(decoded);
  const warps = sm.filter((sl) => sl.depth === 0);
  const phases = sm.filter((sl) => sl.depth === 1);
  assert.equal(warps.length, trace.warps.count);
  assert.equal(stats.forcedOverlaps, 0);
  assert.ok(sm.every((sl) => sl.depth <= 1));
  // A warp with k marks has k + 1 phases.
  let marked = 0;
  for (let k = 0; k < marks.count; k++) if (k === 0 || marks.warp[k] !== marks.warp[k - 1]) marked++;
  assert.equal(phases.length, marks.count + marked);
  assert.equal(stats.phaseSlices, phases.length);

  // Per warp (its slice found by its SM's process and its times): its phases, in order, from its start to its end through each mark.
  const children = new Map<number, Slice[]>();
  for (const p of phases) children.set(p.parent, [...(children.get(p.parent) ?? []), p]);
  const bySpan = new Map<string, number[]>();
  decoded.slices.forEach((sl, index) => {
    if (sl.depth !== 0 || (pidOf(decoded, sl) ?? DRAWS_PID) >= DRAWS_PID) return;
    const key = `${pidOf(decoded, sl)}|${sl.start}|${sl.end}`;
    bySpan.set(key, [...(bySpan.get(key) ?? []), index]);
  });
  const w = trace.warps;
  const smOf = new Uint32Array(w.count);
  for (let g = 0; g < w.smGroups.sm.length; g++) smOf.fill(w.smGroups.sm[g]!, w.smGroups.offsets[g]!, w.smGroups.offsets[g + 1]!);
  let checked = 0;
  for (let k = 0; k < marks.count; ) {
    const row = marks.warp[k]!;
    let end = k;
    while (end < marks.count && marks.warp[end] === row) end++;
    const s = Math.round(w.startNs[row]!);
    const e = Math.round(w.startNs[row]! + w.durationNs[row]!);
    const expected: string[] = [];
    for (let j = 0, at = s; j <= end - k; j++) {
      const boundary = j === end - k ? e : Math.min(e, Math.max(at, Math.round(w.startNs[row]! + marks.offsetNs[k + j]!)));
      expected.push(`${phaseLabel(j === 0 ? null : marks.id[k + j - 1]!, j === end - k ? null : marks.id[k + j]!)}|${at}|${boundary}`);
      at = boundary;
    }
    // Warps of one SM alike in times: one of them has exactly these phases.
    const candidates = bySpan.get(`${smOf[row]! + 1}|${s}|${e}`) ?? [];
    assert.ok(candidates.length > 0, `warp row ${row} has its slice`);
    const found = candidates.some((c) => (children.get(c) ?? []).map((p) => `${p.name}|${p.start}|${p.end}`).join('\n') === expected.join('\n'));
    assert.ok(found, `warp row ${row}: ${expected.join(', ')}`);
    checked++;
    k = end;
  }
  assert.equal(checked, marked);

  // Per phase name: as many slices as marks.ts counts occurrences, their time within 1 ns a slice of its total (rounding).
  const table = phaseTable(trace, { draws: null, stage: null });
  const byName = new Map<string, { n: number; ns: number }>();
  for (const p of phases) {
    const x = byName.get(p.name) ?? { n: 0, ns: 0 };
    x.n++;
    x.ns += p.end - p.start;
    byName.set(p.name, x);
  }
  assert.equal(byName.size, table.phases.length, 'one draw and stage: a name per phase');
  for (const p of table.phases) {
    const x = byName.get(p.label)!;
    assert.equal(x.n, p.occurrences, p.label);
    assert.ok(Math.abs(x.ns - p.totalNs) <= p.occurrences, `${p.label}: ${x.ns} vs ${p.totalNs}`);
  }
  // The phases are extra slices only: without them (or without the marks) the warps' file is the same.
  const plain = exportProto(stripped(trace)).bytes;
  assert.deepEqual(exportProto(trace, { phases: false }).bytes, plain);
  const withoutPhases = (d: DecodedPerfetto) => d.slices.filter((sl) => sl.depth === 0 || (pidOf(d, sl) ?? 0) >= DRAWS_PID).map((sl) => `${d.tracks.get(sl.track)!.name}|${sl.start}|${sl.end}|${sl.name}`);
  assert.deepEqual(withoutPhases(decoded), withoutPhases(decodePerfetto(plain)));
  console.log(`${MARK_SAMPLE}: ${phases.length} phase slices, ${bytes.length} B (${(bytes.length / trace.warps.count).toFixed(1)} B/warp; without phases ${(plain.length / trace.warps.count).toFixed(1)})`);
});

test(`${MARK_SAMPLE}: the JSON export nests the same phases in its warps' "X" slices`, () => {
  const { trace, decoded: proto } = markedExport();
  const chunks = perfettoJsonChunks(trace, { chunkChars: 1 << 16 });
  let text = '';
  let r = chunks.next();
  while (!r.done) {
    text += r.value;
    r = chunks.next();
  }
  const events = (JSON.parse(text) as { traceEvents: { ph: string; name: string; tid: number; ts: number; dur: number; args?: unknown }[] }).traceEvents.filter((e) => e.ph === 'X');
  const warps = events.filter((e) => e.args !== undefined);
  const phases = events.filter((e) => e.args === undefined);
  assert.equal(warps.length, trace.warps.count);
  assert.equal(r.value.phaseSlices, phases.length);
  const fromProto = onSms(proto).filter((sl) => sl.depth === 1).map((sl) => `${sl.name}|${sl.start}|${sl.end}`).sort();
  assert.deepEqual(phases.map((e) => `${e.name}|${Math.round(e.ts * 1000)}|${Math.round((e.ts + e.dur) * 1000)}`).sort(), fromProto);
  // Each phase follows its warp on the warp's thread and lies within it.
  let warp = events[0]!;
  for (const e of events) {
    if (e.args !== undefined) warp = e;
    else assert.ok(e.tid === warp.tid && e.ts >= warp.ts && e.ts + e.dur <= warp.ts + warp.dur + 1e-9, `${e.name} at ${e.ts}`);
  }
});

for (const name of BLOCK_SAMPLES) {
  test(`${name}: each profiled draw's slice carries its hottest lines as arguments`, () => {
    const trace = sample(name);
    const section = blockSection(trace)!;
    const decoded = decodePerfetto(exportProto(trace).bytes);
    const draws = drawSlices(decoded);
    for (const scope of section.draws) {
      const sl = draws.find((x) => x.name === drawName(trace, scope.draw!))!;
      assert.ok(sl, `draw ${scope.draw}`);
      scope.top.forEach((stat, i) => {
        const at = `debug.block_profile[${i}]`;
        assert.equal(sl.args.get(`${at}.site`), blockSite(stat));
        assert.equal(sl.args.get(`${at}.module`), stat.moduleName);
        assert.equal(sl.args.get(`${at}.executions`), stat.executions);
        assert.equal(sl.args.get(`${at}.ticks`), stat.ticks);
        assert.equal(sl.args.get(`${at}.tick_share`), stat.tickShare);
        assert.equal(sl.args.get(`${at}.simt_efficiency`), stat.simtEfficiency ?? undefined);
        assert.equal(sl.args.get(`${at}.ns`), stat.ns ?? undefined);
      });
      assert.equal(sl.args.has(`debug.block_profile[${scope.top.length}].site`), false);
    }
    // The Chrome JSON export's draw slices carry the same entries (from the summary's section).
    const json = JSON.parse([...perfettoJsonChunks(trace, { summary: analyzeTrace(trace) })].join('')) as { traceEvents: { cat?: string; args: { draw: number; block_profile?: { site: string; ticks: number }[] } }[] };
    for (const scope of section.draws) {
      const e = json.traceEvents.find((x) => x.cat === 'draw' && x.args.draw === scope.draw)!;
      assert.deepEqual(e.args.block_profile!.map((b) => [b.site, b.ticks]), scope.top.map((s) => [blockSite(s), s.ticks]));
    }
  });
}

test('ray events: the trace-rays draws carry their launches, size and totals; other draws nothing', () => {
  const trace = rayTrace();
  const decoded = decodePerfetto(exportProto(trace).bytes);
  const draws = drawSlices(decoded);
  for (const row of trace.rayEvents!.rows) {
    const sl = draws.find((x) => x.name === drawName(trace, row.draw))!;
    assert.deepEqual(
      ['launches', 'launch_width', 'launch_height', 'launch_depth', 'mixed_sizes'].map((k) => sl.args.get(`debug.ray_events.${k}`)),
      [row.launches, row.launchWidth, row.launchHeight, row.launchDepth, row.mixedSizes],
    );
    for (const e of RAY_EVENTS) assert.equal(sl.args.get(`debug.ray_events.${RAY_EVENT_KEYS[e]}`), row.totals[e], e);
  }
  assert.equal(draws.find((x) => x.name === 'gbuffer')!.args.size, 0);
  const json = JSON.parse([...perfettoJsonChunks(trace, { summary: analyzeTrace(trace) })].join('')) as { traceEvents: { cat?: string; args: { draw: number; ray_events?: Record<string, number | boolean> } }[] };
  const shadow = json.traceEvents.find((x) => x.cat === 'draw' && x.args.draw === 1)!;
  assert.equal(shadow.args.ray_events!['trace_calls'], trace.rayEvents!.rows[0]!.totals.traceCalls);
  assert.equal(json.traceEvents.find((x) => x.cat === 'draw' && x.args.draw === 0)!.args.ray_events, undefined);
});

test('traces without marks, block profiles or ray events: the same Perfetto bytes with or without the option', () => {
  for (const name of ['h100-aqt', 'h100-ray-tracing']) {
    const trace = sample(name);
    const { bytes, stats } = exportProto(trace);
    assert.equal(stats.phaseSlices, 0);
    assert.deepEqual(exportProto(trace, { phases: false }).bytes, bytes);
    const decoded = decodePerfetto(bytes);
    assert.ok(decoded.slices.every((sl) => sl.args.size === 0 && (sl.depth === 0 || (pidOf(decoded, sl) ?? 0) >= DRAWS_PID)));
  }
});
