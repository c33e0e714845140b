// What the H100 (and lavapipe) captures in samples/ showed, found by the analyses
// without being told: forced syncs of ~7.4 µs, in-order tessellation stalls behind
// long TCS warps, graphics on 4 SMs, unaligned clocks flagged, no SM ids on lavapipe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { analyzeTrace, type AnalysisSummary } from '../../analysis/index.js';
import { diffSummaries } from '../../analysis/diff.js';
import { decodeTrace, UNKNOWN_SM, wtrawToWtrace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

function sample(name: string): AnalysisSummary | null {
  const path = repoPath('samples', `${name}.wtrace`);
  return existsSync(path) ? analyzeTrace(decodeTrace(new Uint8Array(readFileSync(path)))) : null;
}
const skip = (name: string) => (existsSync(repoPath('samples', `${name}.wtrace`)) ? false : `samples/${name}.wtrace not present`);
const GRAPHICS_SMS = [0, 1, 48, 49];

test('h100-syncs: each of the four barriers is a sync of ~7.4 µs; free-running draws overlap', { skip: skip('h100-syncs') }, () => {
  const s = sample('h100-syncs')!;
  assert.equal(s.reliability.crossSmReliable, true);
  assert.deepEqual(s.syncs.gaps.map((g) => g.beforeDraw), [4, 5, 6, 7]);
  for (const g of s.syncs.gaps) assert.ok(g.gapNs > 6500 && g.gapNs < 8500, `gap ${g.gapNs}`);
  assert.deepEqual(s.syncs.gaps.map((g) => g.afterDraw), [3, 4, 5, 6]);
  for (const d of s.draws.slice(0, 4)) assert.ok(d.hiddenShare! > 0.5, `free-running draw ${d.index} overlaps others`);
  for (const d of s.draws.slice(4)) assert.equal(d.overlapNs, 0);
  // Inside each draw the SMs wait ~2.4 µs between the last VS warp and the first FS warp
  // (fixed-function work, not traced): idle windows inside draws, not syncs.
  assert.deepEqual(s.findings.map((f) => f.kind).sort(), ['idle', 'idle', 'idle', 'idle', 'idle', 'sync', 'sync', 'sync', 'sync']);
  assert.equal(s.idle.count, 5);
  for (const w of s.idle.windows) {
    assert.ok(w.durationNs > 2000 && w.durationNs < 2800, `idle ${w.durationNs}`);
    assert.deepEqual([w.before.stage, w.after.stage], ['VS', 'FS']);
    for (const g of s.syncs.gaps) assert.ok(w.endNs <= g.startNs || w.startNs >= g.endNs, 'an idle window is never a sync gap');
  }
  assert.deepEqual(s.idle.windows.map((w) => w.draw).sort(), [0, 4, 5, 6, 7]);
  assert.equal(s.idle.windows.find((w) => w.draw === 0)!.openDrawCount, 4, 'the free-running draws were all open');
  assert.ok(Math.abs(s.frame.drawBusyNs - s.frame.gpuBusyNs - s.idle.totalNs) < 1);
  for (const st of s.stages) assert.deepEqual(st.sms, GRAPHICS_SMS, st.stage);
});

test('h100-tess-stall: four stalls in submission order, one once sorted, and a shorter draw', { skip: skip('h100-tess-stall') }, () => {
  const s = sample('h100-tess-stall')!;
  // 6 expensive patches per draw: 12 long TCS warps, all of them stalling the 4 graphics SMs.
  assert.equal(s.stalls.candidates, 12);
  assert.equal(s.stalls.count, 12);
  for (const st of s.stalls.items) {
    assert.equal(st.stage, 'TCS');
    assert.deepEqual(st.sms, GRAPHICS_SMS);
    assert.ok(st.factor > 50, `factor ${st.factor}`);
  }
  const stalls = s.findings.filter((f) => f.kind === 'stall');
  assert.equal(stalls.filter((f) => f.draw === 0).length, 4, 'submission order: the tessellator waits four times');
  assert.equal(stalls.filter((f) => f.draw === 1).length, 1, 'sorted: the long warps run together, once');
  for (const f of stalls) assert.ok(f.costNs > 60_000 && f.costNs < 95_000, `stall ${f.costNs}`);
  assert.match(stalls.find((f) => f.draw === 1)!.title, /^Draw 1 "sync barrier → same patches sorted by T…": 6 long TCS warps \(up to \d+\.\d× median\) stalled SMs 0, 1, 48, 49 for /);
  for (const f of stalls) assert.equal(f.stage, 'TCS');
  // Measured against each draw's own peak on the graphics SMs.
  for (const st of s.stalls.items) assert.ok(st.peakOccupancy > 100 && st.meanOccupancyDuring < 0.1 * st.peakOccupancy, `${st.meanOccupancyDuring} of ${st.peakOccupancy}`);
  // The long TCS warps keep the SMs from idling: no window of 1 µs without a warp.
  assert.equal(s.idle.count, 0);
  // The barrier between the two halves is a sync; sorting shortened the draw by more than a third.
  assert.deepEqual(s.syncs.gaps.map((g) => g.beforeDraw), [1]);
  assert.ok(s.draws[1]!.spanNs! < 0.7 * s.draws[0]!.spanNs!, `${s.draws[1]!.spanNs} vs ${s.draws[0]!.spanNs}`);
  for (const st of s.stages) assert.deepEqual(st.sms, GRAPHICS_SMS, st.stage);
});

test('h100-compute-graphics: compute on all 132 SMs, graphics on 4; despite late reads and a boost change the clocks align', { skip: skip('h100-compute-graphics') }, () => {
  const s = sample('h100-compute-graphics')!;
  const cs = s.stages.find((x) => x.stage === 'CS')!;
  assert.deepEqual(cs.sms, Array.from({ length: 132 }, (_, i) => i));
  assert.equal(cs.occupancy.capacityWarps, 132 * 64);
  for (const st of s.stages.filter((x) => x.stage !== 'CS')) assert.deepEqual(st.sms, GRAPHICS_SMS, st.stage);
  // The capture has late device-clock reads and a clock-rate change between its
  // dispatches; the robust calibration still aligns every SM.
  assert.equal(s.reliability.alignedAcrossSms, true);
  assert.ok(!s.reliability.warnings.some((w) => /not aligned/.test(w)));
  const syncs = s.findings.filter((f) => f.kind === 'sync');
  assert.ok(syncs.length >= 1);
  for (const f of syncs) assert.equal(f.reliable, true);
  // "the draw does not overlap the dispatch: graphics starts 15 µs after the last compute warp"
  assert.ok(s.syncs.gaps.some((g) => g.beforeDraw === 1 && g.gapNs > 10_000 && g.gapNs < 16_000));
  // The first dispatch launches all its warps at once (3–58 µs) and drains: its long
  // warps are long only against the second dispatch's short ones, which is no stall.
  assert.equal(s.stalls.count, 0);
  assert.ok(!s.findings.some((f) => f.kind === 'stall'));
  // Inside the draw, the SMs wait 1.8 µs between the VS and the FS warps.
  assert.deepEqual(s.idle.windows.map((w) => [w.draw, w.before.stage, w.after.stage]), [[1, 'VS', 'FS']]);
  assert.ok(s.idle.windows[0]!.durationNs > 1500 && s.idle.windows[0]!.durationNs < 1800);
  // Compute held at 32 warps per SM: half the slots, an occupancy cap.
  assert.equal(cs.occupancy.perSm!.peak, 32);
  assert.ok(s.findings.some((f) => f.kind === 'occupancy-cap' && f.stage === 'CS'));
});

test('h100-aqt: overlapping draws, no syncs; graphics on 4 SMs; the heavy variant has longer FS warps', { skip: skip('h100-aqt') || skip('h100-aqt-heavy') }, () => {
  const light = sample('h100-aqt')!;
  const heavy = sample('h100-aqt-heavy')!;
  assert.equal(light.syncs.count, 0);
  for (const st of light.stages) assert.deepEqual(st.sms, GRAPHICS_SMS, st.stage);
  assert.ok(light.draws.filter((d) => d.warps > 0).some((d) => d.hiddenShare! > 0), 'draws overlap');
  const tcs = light.stages.find((x) => x.stage === 'TCS')!;
  assert.ok(tcs.occupancy.perSm!.peak <= 64 && tcs.occupancy.perSm!.peak >= 8, `TCS peak ${tcs.occupancy.perSm!.peak}`);
  const d = diffSummaries(light, heavy);
  const fs = d.stages.find((x) => x.stage === 'FS')!;
  assert.ok(fs.meanNs.relative! > 1, `FS mean ${fs.meanNs.a} → ${fs.meanNs.b}`);
  assert.ok(d.frame.spanNs.relative! > 1);
});

test('lavapipe-aqt: no SM ids, so one device-wide lane and no capacity', { skip: skip('lavapipe-aqt') }, () => {
  const s = sample('lavapipe-aqt')!;
  for (const st of s.stages) {
    assert.deepEqual(st.sms, [UNKNOWN_SM], st.stage);
    assert.equal(st.occupancy.perSm, null);
    assert.equal(st.occupancy.capacityWarps, null);
    assert.ok(st.occupancy.unknownSm!.peak >= 1);
  }
  assert.ok(s.reliability.warnings.some((w) => /no SM id/.test(w)));
  assert.ok(!s.findings.some((f) => /SM 65535/.test(f.title)), 'no "SM 65535" in findings');
  // No SM ids: the idle windows say "shaders", not "SMs".
  const idle = s.findings.filter((f) => f.kind === 'idle');
  assert.ok(idle.length > 0);
  for (const f of idle) assert.match(f.title, /^Shaders idle /);
});

test('h100-aqt in Perfetto: one thread per warp slot of the 4 graphics SMs, no slot ever held two warps at once', { skip: skip('h100-aqt') }, async () => {
  const { perfettoJsonChunks } = await import('../../analysis/export/perfetto.js');
  const trace = decodeTrace(new Uint8Array(readFileSync(repoPath('samples', 'h100-aqt.wtrace'))));
  const gen = perfettoJsonChunks(trace);
  let r = gen.next();
  while (!r.done) r = gen.next();
  assert.equal(r.value.warps, trace.warps.count);
  assert.equal(r.value.slotOverlaps, 0);
  assert.equal(r.value.lanes, 4 * 64);
});

test('each H100 sample is its raw dump converted by today\'s decoder, byte for byte (samples/raw/README.md)', () => {
  for (const name of ['aqt', 'aqt-heavy', 'tess-stall', 'syncs', 'compute-graphics', 'ray-tracing', 'meshlets']) {
    const raw = repoPath('samples', 'raw', `h100-${name}.wtraw`);
    const sample = repoPath('samples', `h100-${name}.wtrace`);
    assert.ok(existsSync(raw) && existsSync(sample), `samples/raw/h100-${name}.wtraw and samples/h100-${name}.wtrace`);
    const { wtrace } = wtrawToWtrace(new Uint8Array(readFileSync(raw)));
    assert.ok(Buffer.from(wtrace).equals(readFileSync(sample)), `samples/h100-${name}.wtrace is stale: re-convert it from samples/raw`);
  }
});
