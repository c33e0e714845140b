// Long-warp stalls (2016 Stirling: one long TCS warp stalls the whole GPU,
// because tessellated patches must rasterize in order).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace } from '../../analysis/index.js';
import { denseTraffic, traceOf, type WarpSpec } from './analysis-fixtures.js';

/** TCS on SMs 0–3 for 20 µs, TES after `tesStart`, compute on SMs 10–13 throughout. */
function frame(tesStart: number): WarpSpec[] {
  const warps: WarpSpec[] = [];
  for (let sm = 0; sm < 4; sm++) {
    warps.push(...denseTraffic({ sm, slots: 16, perSlot: 13, stage: 'TCS', draw: 0, start: 0, durationNs: 1500 }));
    warps.push(...denseTraffic({ sm, slots: 16, perSlot: 20, stage: 'TES', draw: 0, start: tesStart, durationNs: 1000 }));
  }
  for (let sm = 10; sm < 14; sm++) warps.push(...denseTraffic({ sm, slots: 32, perSlot: 60, stage: 'CS', draw: 1, start: 0, durationNs: 1600 }));
  return warps;
}

test('one long TCS warp with the graphics SMs idle around it is a stall', () => {
  const warps = frame(80000);
  warps.push({ sm: 2, slot: 40, stage: 'TCS', draw: 0, start: 15000, end: 80000, custom: 77 });
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  assert.equal(s.stalls.count, 1);
  const st = s.stalls.items[0]!;
  assert.equal(st.stage, 'TCS');
  assert.equal(st.sm, 2);
  assert.equal(st.customId, 77);
  assert.equal(st.durationNs, 65000);
  assert.deepEqual(st.sms, [0, 1, 2, 3]); // compute SMs do not hide the stall
  assert.equal(st.stageMedianNs, 1500);
  // Occupancy on SMs 0–3 is ~64 until 20 µs, then 1 (the long warp) until 80 µs.
  const idle = 80000 - 19660; // last regular TCS warp ends at 45 + 12·1510 + 1500 + 15 (slot stagger)
  assert.ok(Math.abs(st.stallNs - idle) < 2 * st.binNs + 400, `stall ${st.stallNs} vs ~${idle}`);
  assert.ok(st.meanOccupancyDuring < 0.3 * st.peakOccupancy);
  assert.equal(st.shareOfFrame, st.stallNs / s.frame.spanNs);
  const f = s.findings[0]!;
  assert.equal(f.kind, 'stall');
  assert.match(f.title, /^Draw 0: long TCS warp \(43\.3× median\) stalled SMs 0, 1, 2, 3 for \d+(\.\d)? µs$/);
  assert.equal(f.startNs, 15000);
  assert.equal(f.endNs, 80000);
  assert.equal(f.sm, 2);
});

test('a long warp while its SMs stay busy is not a stall', () => {
  const warps = frame(20000);
  warps.push({ sm: 2, slot: 40, stage: 'TCS', draw: 0, start: 15000, end: 40000 });
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  assert.ok(s.stalls.candidates >= 1);
  assert.equal(s.stalls.count, 0);
  assert.equal(s.findings.filter((f) => f.kind === 'stall').length, 0);
});

test('dense normal traffic has no stall candidates', () => {
  const s = analyzeTrace(traceOf({ warps: frame(20000), draws: 2 }));
  assert.equal(s.stalls.candidates, 0);
  assert.equal(s.findings.filter((f) => f.kind === 'stall').length, 0);
});

test('overlapping long warps on the same SMs form one finding', () => {
  const warps = frame(80000);
  warps.push({ sm: 2, slot: 40, stage: 'TCS', draw: 0, start: 15000, end: 80000 });
  warps.push({ sm: 0, slot: 41, stage: 'TCS', draw: 0, start: 16000, end: 60000 });
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  assert.equal(s.stalls.count, 2);
  const stalls = s.findings.filter((f) => f.kind === 'stall');
  assert.equal(stalls.length, 1);
  assert.match(stalls[0]!.title, /^Draw 0: 2 long TCS warps \(up to 43\.3× median\)/);
  assert.equal(stalls[0]!.stage, 'TCS');
});

test('a stall group names each stage and its count instead of one stage for all', () => {
  const warps = frame(80000);
  for (let sm = 0; sm < 4; sm++) warps.push(...denseTraffic({ sm, slots: 16, perSlot: 20, stage: 'FS', draw: 0, start: 80000, durationNs: 800 }));
  warps.push({ sm: 2, slot: 40, stage: 'TCS', draw: 0, start: 15000, end: 80000 });
  warps.push({ sm: 0, slot: 41, stage: 'TCS', draw: 0, start: 16000, end: 60000 });
  warps.push({ sm: 1, slot: 42, stage: 'TCS', draw: 0, start: 17000, end: 70000 });
  warps.push({ sm: 3, slot: 43, stage: 'FS', draw: 0, start: 18000, end: 75000 });
  warps.push({ sm: 1, slot: 44, stage: 'FS', draw: 0, start: 19000, end: 65000 });
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  assert.equal(s.stalls.count, 5);
  const stalls = s.findings.filter((f) => f.kind === 'stall');
  assert.equal(stalls.length, 1);
  // 65 µs / 1500 ns = 43.3× (TCS); 57 µs / 800 ns = 71.3× (FS).
  assert.match(stalls[0]!.title, /^Draw 0: 5 long warps \(3 TCS, 2 FS; up to 71\.3× their stage median\) stalled SMs 0, 1, 2, 3 for /);
  assert.equal(stalls[0]!.stage, null, 'no single stage');
  assert.match(stalls[0]!.detail, /4 more long warps of the draw \(2 TCS, 2 FS\) overlapped it/);
});

test('overlapping stall warps of different draws are separate findings, each about its draw', () => {
  const warps = frame(80000);
  for (let sm = 0; sm < 4; sm++) warps.push(...denseTraffic({ sm, slots: 16, perSlot: 20, stage: 'TCS', draw: 2, start: 85000, durationNs: 1500 }));
  warps.push({ sm: 2, slot: 40, stage: 'TCS', draw: 0, start: 15000, end: 80000 });
  warps.push({ sm: 1, slot: 41, stage: 'TCS', draw: 2, start: 16000, end: 70000 });
  const s = analyzeTrace(traceOf({ warps, draws: 3 }));
  const stalls = s.findings.filter((f) => f.kind === 'stall');
  assert.deepEqual(stalls.map((f) => f.draw).sort(), [0, 2]);
  for (const f of stalls) assert.match(f.title, new RegExp(`^Draw ${f.draw}: long TCS warp`));
});

/**
 * Graphics on SMs 0–3: draw 0 stalls behind one long TCS warp; draw 1 runs 8 FS warps
 * per SM with a long FS warp among them (its occupancy stays normal). `withDispatch`
 * adds a compute dispatch after all graphics: 64 warps per SM on 132 SMs.
 */
function graphicsThenDispatch(withDispatch: boolean): WarpSpec[] {
  const warps: WarpSpec[] = [];
  for (let sm = 0; sm < 4; sm++) {
    warps.push(...denseTraffic({ sm, slots: 16, perSlot: 13, stage: 'TCS', draw: 0, start: 0, durationNs: 1500 }));
    warps.push(...denseTraffic({ sm, slots: 16, perSlot: 20, stage: 'TES', draw: 0, start: 80000, durationNs: 1000 }));
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 40, stage: 'FS', draw: 1, start: 110000, durationNs: 1000 }));
  }
  warps.push({ sm: 2, slot: 40, stage: 'TCS', draw: 0, start: 15000, end: 80000, custom: 1 });
  warps.push({ sm: 1, slot: 41, stage: 'FS', draw: 1, start: 115000, end: 135000, custom: 2 });
  if (withDispatch) for (let sm = 0; sm < 132; sm++) warps.push(...denseTraffic({ sm, slots: 64, perSlot: 4, stage: 'CS', draw: 2, start: 200000, durationNs: 2000 }));
  return warps;
}

test('a later dispatch on every SM changes no stall finding of the draws before it', () => {
  const without = analyzeTrace(traceOf({ warps: graphicsThenDispatch(false), draws: 3 }));
  const withDispatch = analyzeTrace(traceOf({ warps: graphicsThenDispatch(true), draws: 3 }));
  const findings = (s: typeof without) =>
    s.findings.filter((f) => f.kind === 'stall').map((f) => ({ title: f.title, startNs: f.startNs, endNs: f.endNs, costNs: f.costNs, sm: f.sm, draw: f.draw, stage: f.stage }));
  const items = (s: typeof without) =>
    s.stalls.items.map(({ row: _row, shareOfFrame: _share, ...rest }) => rest); // rows move and the frame grows with the dispatch
  assert.deepEqual(findings(withDispatch), findings(without));
  assert.deepEqual(items(withDispatch), items(without));
  // Draw 0 stalled; draw 1's long FS warp ran while draw 1 held its usual 32 warps: no stall.
  assert.deepEqual(findings(without).map((f) => f.draw), [0]);
  assert.ok(withDispatch.stalls.candidates >= 2, 'the long FS warp was a candidate');
  // Draw 0's own peak (16 TCS slots on 4 SMs, plus the long warp), not the dispatch's 256.
  assert.equal(withDispatch.stalls.items[0]!.peakOccupancy, 65);
});

test('a dispatch that drains (all warps launched at once, long only against another dispatch) is no stall', () => {
  const warps: WarpSpec[] = [];
  for (let sm = 0; sm < 16; sm++) {
    // Draw 0: 32 warps per SM launched together, 5–60 µs long (most of them short, as in
    // h100-compute-graphics): occupancy falls as they finish, the longest run nearly alone.
    for (let slot = 0; slot < 32; slot++) warps.push({ sm, slot, stage: 'CS', draw: 0, start: 0, end: 5000 + 55000 * ((slot * 16 + sm) / 511) ** 3 });
    // Draw 1: ten times as many 3 µs warps, so the CS median is 3 µs.
    warps.push(...denseTraffic({ sm, slots: 32, perSlot: 10, stage: 'CS', draw: 1, start: 80000, durationNs: 3000 }));
  }
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  assert.equal(s.stages[0]!.medianNs, 3000);
  assert.equal(s.stalls.count, 0);
  assert.equal(s.stalls.candidates, 0, "no warp of draw 0 is 8× draw 0's own CS median");
  assert.equal(s.findings.filter((f) => f.kind === 'stall').length, 0);
});

test("drawPeaks: each draw's own binned peak on the SMs, whether its rows are searched or bucketed", async () => {
  const { binGrid, drawPeaks } = await import('../../analysis/occupancy-profile.js');
  // Three overlapping draws on SMs 0 and 1 (draw 1 on SM 1 only), compute on SM 5.
  const warps: WarpSpec[] = [
    ...denseTraffic({ sm: 0, slots: 6, perSlot: 5, stage: 'VS', draw: 0, start: 0, durationNs: 400 }),
    ...denseTraffic({ sm: 1, slots: 3, perSlot: 5, stage: 'VS', draw: 0, start: 0, durationNs: 400 }),
    ...denseTraffic({ sm: 1, slots: 9, perSlot: 4, stage: 'FS', draw: 1, start: 700, durationNs: 300 }),
    ...denseTraffic({ sm: 0, slots: 2, perSlot: 20, stage: 'FS', draw: 2, start: 100, durationNs: 250 }),
    ...denseTraffic({ sm: 5, slots: 32, perSlot: 3, stage: 'CS', draw: 2, start: 0, durationNs: 500 }),
  ];
  const trace = traceOf({ warps, draws: 3 });
  const w = trace.warps;
  const groups = [0, 1]; // smGroups are sorted by SM: 0, 1, 5
  assert.deepEqual([...w.smGroups.sm], [0, 1, 5]);
  const spans = { firstStart: new Float64Array(3).fill(Infinity), lastEnd: new Float64Array(3).fill(-Infinity) };
  for (let i = 0; i < w.count; i++) {
    const d = w.draw[i]!;
    spans.firstStart[d] = Math.min(spans.firstStart[d]!, w.startNs[i]!);
    spans.lastEnd[d] = Math.max(spans.lastEnd[d]!, w.startNs[i]! + w.durationNs[i]!);
  }
  const grid = binGrid(0, Math.max(...spans.lastEnd), 50);
  // Naive: per bin, each draw's warp-time on SMs 0 and 1 divided by the bin width.
  const expected = [0, 1, 2].map((d) => {
    let peak = 0;
    for (let b = 0; b < grid.bins; b++) {
      const lo = b * 50;
      const hi = Math.min(lo + 50, grid.endNs);
      let time = 0;
      for (let i = 0; i < w.smGroups.offsets[2]!; i++) {
        if (w.draw[i] !== d) continue;
        time += Math.max(0, Math.min(hi, w.startNs[i]! + w.durationNs[i]!) - Math.max(lo, w.startNs[i]!));
      }
      peak = Math.max(peak, time / (hi - lo));
    }
    return peak;
  });
  for (const method of ['search', 'bucket', 'auto'] as const) {
    const peaks = [...drawPeaks(trace, groups, grid, [0, 1, 2], spans, method)];
    peaks.forEach((p, d) => assert.ok(Math.abs(p - expected[d]!) < 1e-9, `${method}: draw ${d} ${p} vs ${expected[d]}`));
  }
  assert.ok(expected.every((p) => p > 1));
});
