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
  assert.match(f.title, /Long TCS warp \(43\.3× median\) stalled SMs 0, 1, 2, 3 for \d+(\.\d)? µs/);
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
  assert.match(stalls[0]!.title, /^2 long TCS warps/);
});
