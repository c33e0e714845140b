// The Perfetto protobuf export, decoded with protobufjs against Perfetto's
// published field numbers (perfetto/perfetto-trace.proto): every warp is
// exactly one slice on its SM-slot track with its rounded begin and end,
// draw and region slices nest, names are interned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { perfettoProtoChunks, type PerfettoProtoOptions, type PerfettoProtoStats } from '../../analysis/export/perfetto-proto.js';
import { decodeTrace, smIdPerWarp, synthesizeTrace, UNKNOWN_SLOT, UNKNOWN_SM, type Trace } from '../../shared-schema/index.js';
import { STAGES, STAGE_COUNT } from '../../shared-schema/stages.js';
import { traceOf } from './analysis-fixtures.js';
import { withPassHierarchy } from './fixtures.js';
import { decodePerfetto, type DecodedPerfetto, type Slice } from './perfetto/decode-perfetto.js';
import { repoPath } from './paths.js';

function exportProto(trace: Trace, options: PerfettoProtoOptions = {}): { bytes: Uint8Array; stats: PerfettoProtoStats; chunks: number[] } {
  const gen = perfettoProtoChunks(trace, options);
  const parts: Uint8Array[] = [];
  let r = gen.next();
  while (!r.done) {
    parts.push(r.value);
    r = gen.next();
  }
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, stats: r.value, chunks: parts.map((p) => p.length) };
}

/** Checks every warp against the decoded slices; returns the decoded trace. */
function checkWarps(trace: Trace, decoded: DecodedPerfetto, stats: PerfettoProtoStats, withDraw = false): void {
  const w = trace.warps;
  const sms = smIdPerWarp(w);
  const { tracks, slices } = decoded;
  // Expected per warp: "<thread name>|start|end|name"; lanes other than the slot only for overlaps.
  const expected: string[] = [];
  for (let i = 0; i < w.count; i++) {
    const s = Math.round(w.startNs[i]!);
    const e = Math.round(w.startNs[i]! + w.durationNs[i]!);
    const sm = sms[i]!;
    const smName = sm === UNKNOWN_SM ? 'SM unknown' : `SM ${sm}`;
    const slot = w.warpSlot[i]!;
    const lane = slot === UNKNOWN_SLOT ? `${smName} / lane` : stats.slotOverlaps === 0 ? `${smName} / slot ${slot}` : `${smName} /`;
    expected.push(`${lane}|${s}|${e}|${STAGES[w.stage[i]!]!.name}${withDraw ? ` draw ${w.draw[i]}` : ''}`);
  }
  const warpSlices = slices.filter((sl) => tracks.get(sl.track)?.pid !== undefined && tracks.get(sl.track)!.pid! < 70000);
  assert.equal(warpSlices.length, w.count, 'one slice per warp');
  const actual = warpSlices.map((sl) => {
    const t = tracks.get(sl.track)!;
    assert.equal(t.kind, 'thread');
    assert.equal(sl.depth, 0, `warp slices do not nest (${t.name} at ${sl.start})`);
    const name = stats.slotOverlaps === 0 || t.name.includes('/ lane') ? t.name.replace(/ \/ lane \d+$/, ' / lane') : t.name.replace(/ \/ (slot|extra) \d+$/, ' /');
    return `${name}|${sl.start}|${sl.end}|${sl.name}`;
  });
  expected.sort();
  actual.sort();
  assert.deepEqual(actual, expected);
  // Each lane's thread belongs to its SM's process (pid = SM + 1, as in the JSON export).
  const processes = new Map([...tracks.values()].filter((t) => t.kind === 'process').map((t) => [t.pid, t.name]));
  for (const t of tracks.values()) {
    if (t.kind !== 'thread' || t.pid! >= 70000) continue;
    const smName = processes.get(t.pid);
    assert.ok(smName !== undefined && t.name.startsWith(`${smName} / `), `${t.name} under ${smName}`);
  }
  assert.equal(decoded.inlineNames, 0, 'every name interned');
}

function spansByName(decoded: DecodedPerfetto, pid: number): Slice[] {
  return decoded.slices.filter((sl) => decoded.tracks.get(sl.track)!.pid === pid);
}

test('warps named by stage and draw', () => {
  const trace = synthesizeTrace({ warps: 5000, seed: 3 });
  const { bytes, stats } = exportProto(trace, { warpNames: 'stage-draw' });
  checkWarps(trace, decodePerfetto(bytes), stats, true);
});

test('synthetic trace: a slice per warp on its slot track, draws track, interned names, streamed', () => {
  const trace = synthesizeTrace({ warps: 20000, seed: 6 });
  const { bytes, stats, chunks } = exportProto(trace, { chunkBytes: 16 * 1024 });
  assert.ok(chunks.length > 10, `streamed in ${chunks.length} chunks`);
  assert.ok(Math.max(...chunks) < 16 * 1024 + 4096, 'chunks stay near the asked size');
  assert.equal(stats.bytes, bytes.length);
  const decoded = decodePerfetto(bytes);
  checkWarps(trace, decoded, stats);
  // Draws: one slice per draw with warps, first warp start to last warp end, never nested.
  const draws = spansByName(decoded, 70000);
  assert.equal(draws.length, trace.draws.length);
  for (const sl of draws) assert.equal(sl.depth, 0);
  const w = trace.warps;
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  for (let i = 0; i < w.count; i++) {
    const d = w.draw[i]!;
    first.set(d, Math.min(first.get(d) ?? Infinity, w.startNs[i]!));
    last.set(d, Math.max(last.get(d) ?? -Infinity, w.startNs[i]! + w.durationNs[i]!));
  }
  for (const d of trace.draws) {
    const name = d.label === '' ? `draw ${d.index}` : d.label;
    const sl = draws.find((x) => x.name === name);
    assert.ok(sl, `draw ${d.index} has a slice`);
    assert.equal(sl.start, Math.round(first.get(d.index)!));
    assert.equal(sl.end, Math.round(last.get(d.index)!));
  }
  // Interning: a sequence holds each name once, at most the stage × draw pairs there are.
  for (const n of decoded.internedPerSequence.values()) assert.ok(n <= Math.max(trace.draws.length, STAGE_COUNT));
  assert.equal([...decoded.internedPerSequence.values()].reduce((a, b) => a + b, 0), stats.internedNames);
  const perWarp = bytes.length / w.count;
  console.log(`synthetic 20,000 warps: ${bytes.length} B, ${perWarp.toFixed(1)} B/warp, ${stats.lanes} lanes, ${stats.internedNames} names`);
  // Small traces pay per lane (its track, its sequence start, its names): ~7 warps per lane here; the bench measures the per-warp cost.
  assert.ok(perWarp < 60, `${perWarp} B/warp`);
});

test('regions: nested region slices on their own track, parents around their children', () => {
  const trace = withPassHierarchy(synthesizeTrace({ warps: 2400, seed: 9, warpsPerDraw: 300 }));
  assert.ok(trace.regions.length > 0);
  const { bytes, stats } = exportProto(trace);
  const decoded = decodePerfetto(bytes);
  checkWarps(trace, decoded, stats);
  const regions = spansByName(decoded, 70002);
  const withWarps = new Set<number>();
  for (const d of trace.draws) {
    for (let r = d.region; r !== null; r = trace.regions[r]!.parent) withWarps.add(r);
  }
  assert.equal(regions.length, withWarps.size, 'a slice per region that holds warps');
  assert.ok(regions.some((sl) => sl.depth > 0), 'some regions nest');
  const byName = new Map(trace.regions.map((r) => [r.label, r]));
  for (const sl of regions) {
    const region = byName.get(sl.name)!;
    assert.ok(region, `region ${sl.name}`);
    if (sl.parent >= 0) {
      // The enclosing slice is an ancestor region and contains this one.
      const outer = decoded.slices[sl.parent]!;
      assert.ok(outer.start <= sl.start && sl.end <= outer.end, `${outer.name} contains ${sl.name}`);
      let ancestor = region.parent;
      while (ancestor !== null && trace.regions[ancestor]!.label !== outer.name) ancestor = trace.regions[ancestor]!.parent;
      assert.ok(ancestor !== null, `${outer.name} is an ancestor of ${sl.name}`);
    } else if (region.parent !== null) {
      // A top-level slice of a child region: its parent is on another lane (siblings overlapped).
      assert.ok(regions.some((o) => o.name === trace.regions[region.parent!]!.label && o.track !== sl.track));
    }
  }
  // Every region's slice spans its draws.
  const draws = spansByName(decoded, 70000);
  for (const d of trace.draws) {
    if (d.region === null) continue;
    const ds = draws.find((x) => x.name === (d.label === '' ? `draw ${d.index}` : d.label))!;
    const rs = regions.find((x) => x.name === trace.regions[d.region!]!.label)!;
    assert.ok(rs.start <= ds.start && ds.end <= rs.end, `region ${rs.name} spans draw ${d.index}`);
  }
});

test('overlapping warps and slot-less warps go to extra lanes; warps without SM id', () => {
  const trace = traceOf({
    warps: [
      { sm: 0, slot: 2, stage: 'FS', draw: 0, start: 0, end: 100 },
      { sm: 0, slot: 2, stage: 'FS', draw: 0, start: 90, end: 200 }, // overlaps its slot's previous warp
      { sm: 7, stage: 'VS', draw: 0, start: 0, end: 100 },
      { sm: 7, stage: 'FS', draw: 0, start: 50, end: 150 },
      { sm: 7, stage: 'FS', draw: 0, start: 120, end: 160 },
    ],
    draws: 1,
  });
  const { bytes, stats } = exportProto(trace);
  assert.equal(stats.slotOverlaps, 1);
  const decoded = decodePerfetto(bytes);
  checkWarps(trace, decoded, stats);
  const lanes = [...decoded.tracks.values()].filter((t) => t.kind === 'thread' && t.pid! < 70000).map((t) => t.name);
  assert.deepEqual(lanes, ['SM 0 / slot 2', 'SM 0 / extra 0', 'SM 7 / lane 0', 'SM 7 / lane 1']);
  const unknown = traceOf({ warps: [{ sm: UNKNOWN_SM, stage: 'FS', draw: 0, start: 0, end: 10 }], draws: 1, smCount: null });
  const u = decodePerfetto(exportProto(unknown).bytes);
  assert.ok([...u.tracks.values()].some((t) => t.kind === 'process' && t.name === 'SM unknown' && t.pid === UNKNOWN_SM + 1));
});

for (const name of ['h100-aqt', 'h100-aqt-heavy', 'h100-compute-graphics', 'h100-syncs', 'h100-tess-stall', 'lavapipe-aqt']) {
  const path = repoPath('samples', `${name}.wtrace`);
  test(`sample ${name}: every warp one slice on its slot track`, { skip: existsSync(path) ? false : `${path} not present` }, () => {
    const trace = decodeTrace(new Uint8Array(readFileSync(path)));
    const { bytes, stats } = exportProto(trace);
    const decoded = decodePerfetto(bytes);
    checkWarps(trace, decoded, stats);
    assert.equal(spansByName(decoded, 70000).length, new Set(trace.warps.draw).size);
    console.log(`${name}: ${trace.warps.count} warps, ${bytes.length} B (${(bytes.length / trace.warps.count).toFixed(1)} B/warp), ${stats.lanes} lanes, ${stats.slotOverlaps} slot overlaps`);
  });
}
