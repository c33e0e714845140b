// Draws that ran untraced (issue 21 D): a draw whose pipeline the capture
// layer skipped stays a draw of the trace, without warps, marked with why.
// The mark survives every file format (and files without it keep their
// bytes), and the analyses do not report the GPU idle while such a draw ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace } from '../../analysis/index.js';
import { decodeTrace, decodeWtraw, encodeWtrace, encodeWtraw, rawCaptureOf, traceFromJson, traceToJson, H100_CLOCKS, type Trace } from '../../shared-schema/index.js';
import { denseTraffic, traceOf, type WarpSpec } from './analysis-fixtures.js';
import { traceWithRowIds } from './fixtures.js';
import { drawTooltip } from '../../viewer/components/timeline-tooltips.js';
import { buildDrawLayout } from '../../viewer/model/draw-layout.js';
import { buildDrawTrack } from '../../viewer/model/draw-track.js';
import { InstanceWriter } from '../../viewer/model/instances.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';

const WHY = 'pipeline 0x5581c2d0: its layout uses 8 descriptor sets, including set 7 that the trace buffer needs';

/** Draw 0 (VS, 0-10 µs), draw 1 untraced (no warps), draw 2 (VS 15-20 µs, FS 23-28 µs) on two SMs; draw 1 ran from `from` to `to`. */
function frameAround(from: number, to: number, untraced: boolean): Trace {
  const warps: WarpSpec[] = [];
  for (let sm = 0; sm < 2; sm++) {
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 5, stage: 'VS', draw: 0, start: 0, durationNs: 1990 }));
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 2, stage: 'VS', draw: 2, start: 15000, durationNs: 2490 }));
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 2, stage: 'FS', draw: 2, start: 23000, durationNs: 2490 }));
  }
  const trace = traceOf({ warps, draws: 3 });
  return { ...trace, draws: trace.draws.map((d) => (d.index === 1 ? { ...d, gpuBeginNs: from, gpuEndNs: to, untraced: untraced ? WHY : null } : d)) };
}

const kinds = (t: Trace) =>
  analyzeTrace(t)
    .findings.filter((f) => f.kind === 'sync' || f.kind === 'idle')
    .map((f) => f.kind)
    .sort();

test('the GPU idle while an untraced draw ran is neither a sync nor an idle finding', () => {
  // Marked traced (its warps would be there), the gap before draw 2 is a sync and the one inside it idle.
  assert.deepEqual(kinds(frameAround(11000, 14000, false)), ['idle', 'sync']);
  // Untraced between draws 0 and 2: no sync.
  const between = analyzeTrace(frameAround(11000, 14000, true));
  assert.equal(between.syncs.count, 0);
  assert.deepEqual(kinds(frameAround(11000, 14000, true)), ['idle']);
  // Untraced inside draw 2's idle window: no idle window, the sync stays.
  const inside = analyzeTrace(frameAround(21000, 22000, true));
  assert.equal(inside.idle.count, 0);
  assert.equal(inside.draws[2]!.idleNs, 0);
  assert.deepEqual(kinds(frameAround(21000, 22000, true)), ['sync']);
});

test('a draw\'s untraced reason survives .wtraw, .wtrace and JSON; files without one keep their bytes', () => {
  const truth = traceWithRowIds(2000);
  const marked: Trace = { ...truth, draws: truth.draws.map((d) => (d.index === 1 ? { ...d, untraced: WHY } : d)) };
  const fromRaw = decodeWtraw(encodeWtraw(rawCaptureOf(marked, H100_CLOCKS).raw));
  assert.deepEqual(
    fromRaw.draws.map((d) => d.untraced),
    marked.draws.map((d, i) => (i === 1 ? WHY : null)),
  );
  for (const read of [decodeTrace(encodeWtrace(fromRaw)), traceFromJson(JSON.parse(JSON.stringify(traceToJson(fromRaw))))]) {
    assert.deepEqual(
      read.draws.map((d) => d.untraced),
      fromRaw.draws.map((d) => d.untraced),
    );
  }
  // Without a mark, the bytes of a file are those of a draw list that never had the key.
  const plain = encodeWtrace(truth);
  const older = encodeWtrace({ ...truth, draws: truth.draws.map(({ untraced: _, ...d }) => d as Trace['draws'][number]) });
  assert.ok(Buffer.from(plain).equals(Buffer.from(older)));
  assert.ok(!JSON.stringify(traceToJson(truth)).includes('untraced'));
  // A reason must be a string.
  const json = traceToJson(truth) as { draws: object[] };
  const bad = { ...json, draws: json.draws.map((d, i) => (i === 0 ? { ...d, untraced: 7 } : d)) };
  assert.throws(() => traceFromJson(JSON.parse(JSON.stringify(bad))), /draws\[0\]\.untraced/);
});

test('the viewer draws an untraced draw over its timestamps, unlike a traced one, with its reason in the tooltip', () => {
  const colorsOf = (t: Trace) => {
    const layout = buildDrawLayout(t, buildLaneIndex(t));
    const out = new InstanceWriter();
    buildDrawTrack({ trace: t, layout, draws: [0, 1, 2], originNs: 0, y: 0, rowHeight: 16, selectedDraw: -1 }, out);
    // Per rectangle: [x0, x1, color].
    const rects = Array.from({ length: out.count }, (_, k) => [out.f32[k * 5]!, out.f32[k * 5 + 1]!, out.u32[k * 5 + 4]!] as const);
    return { layout, rects };
  };
  const traced = colorsOf(frameAround(11000, 14000, false));
  const untraced = colorsOf(frameAround(11000, 14000, true));
  // Its bar spans its timestamps either way; only the untraced one is drawn with other colors (a hollow grey bar).
  const barsOf = (rects: readonly (readonly [number, number, number])[]) => rects.filter(([x0, x1]) => x0 === 11000 && x1 === 14000);
  assert.ok(barsOf(traced.rects).length >= 1 && barsOf(untraced.rects).length >= 2);
  const tracedColors = new Set(barsOf(traced.rects).map(([, , c]) => c));
  assert.ok(barsOf(untraced.rects).every(([, , c]) => !tracedColors.has(c)));
  const tip = drawTooltip(frameAround(11000, 14000, true), untraced.layout, 1);
  assert.ok(tip.some((line) => line === `untraced (no warps): ${WHY}`), tip.join('\n'));
  assert.ok(!drawTooltip(frameAround(11000, 14000, false), traced.layout, 1).some((line) => line.startsWith('untraced')));
});
