// Occupancy: warps in flight per SM and stage, means, level times, capacity,
// the unknown SM, and the occupancy-cap finding (2016: "no more than 12 TCS warps").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace, resolveThresholds } from '../../analysis/index.js';
import { synthesizeTrace, UNKNOWN_SM } from '../../shared-schema/index.js';
import { denseTraffic, traceOf, type WarpSpec } from './analysis-fixtures.js';

test('two overlapping warps: peak 2, time-weighted mean and level times', () => {
  const s = analyzeTrace(
    traceOf({
      warps: [
        { sm: 3, slot: 0, stage: 'FS', draw: 0, start: 0, end: 100 },
        { sm: 3, slot: 1, stage: 'FS', draw: 0, start: 50, end: 150 },
      ],
      draws: 1,
    }),
  );
  const occ = s.stages[0]!.occupancy;
  assert.equal(occ.perSm!.peak, 2);
  assert.equal(occ.perSm!.peakSm, 3);
  assert.equal(occ.perSm!.peakAtNs, 50);
  assert.equal(occ.perSm!.activeSmTimeNs, 150);
  assert.equal(occ.perSm!.meanWhileActive, 200 / 150);
  assert.deepEqual(occ.perSm!.levelTimeNs, [0, 100, 50]);
  assert.equal(occ.perSm!.timeAtPeakShare, 50 / 150);
  assert.equal(occ.capacityWarps, 64);
  assert.equal(occ.peakShareOfSm, 2 / 64);
  assert.equal(s.sms[0]!.peakInFlight, 2);
  assert.equal(s.sms[0]!.busyNs, 150);
  assert.equal(s.draws[0]!.stages[0]!.occupancy!.peak, 2);
});

test('a warp ending when the next starts does not overlap it', () => {
  const s = analyzeTrace(
    traceOf({
      warps: [
        { sm: 0, slot: 0, stage: 'VS', draw: 0, start: 0, end: 100 },
        { sm: 0, slot: 0, stage: 'VS', draw: 0, start: 100, end: 200 },
      ],
      draws: 1,
    }),
  );
  assert.equal(s.stages[0]!.occupancy.perSm!.peak, 1);
  assert.equal(s.stages[0]!.occupancy.perSm!.meanWhileActive, 1);
});

test('TCS held at 12 warps per SM while TES reached 30: readable and flagged as a cap', () => {
  const warps: WarpSpec[] = [
    // TCS: 12 slots busy back to back for 30 warps each (360 warps), on SMs 0 and 1.
    ...denseTraffic({ sm: 0, slots: 12, perSlot: 30, stage: 'TCS', draw: 0, start: 1000, durationNs: 2000 }),
    ...denseTraffic({ sm: 1, slots: 12, perSlot: 30, stage: 'TCS', draw: 0, start: 1000, durationNs: 2000 }),
  ];
  // TES ramps up to 30 warps in flight once (no plateau).
  for (let k = 0; k < 30; k++) warps.push({ sm: 0, slot: 20 + k, stage: 'TES', draw: 0, start: 70000 + k * 20, end: 70600 + k * 15 });
  const s = analyzeTrace(traceOf({ warps, draws: 1 }));
  const tcs = s.stages.find((x) => x.stage === 'TCS')!;
  const tes = s.stages.find((x) => x.stage === 'TES')!;
  assert.equal(tcs.occupancy.perSm!.peak, 12);
  assert.equal(tes.occupancy.perSm!.peak, 30);
  assert.equal(tcs.occupancy.capacityWarps, 128); // 64 slots × 2 SMs that ran TCS
  assert.ok(tcs.occupancy.perSm!.timeAtPeakShare > 0.9, `time at peak ${tcs.occupancy.perSm!.timeAtPeakShare}`);
  assert.ok(Math.abs(tcs.occupancy.perSm!.meanWhileActive - 12) < 0.1);
  const caps = s.findings.filter((f) => f.kind === 'occupancy-cap');
  assert.deepEqual(
    caps.map((f) => f.stage),
    ['TCS'],
  );
  assert.match(caps[0]!.title, /TCS occupancy capped at 12 warps per SM/);
  assert.match(caps[0]!.detail, /At most 12 TCS warps ran at once on an SM/);
  assert.match(caps[0]!.detail, /TES reached 30/);
});

test('no cap finding for a stage that fills the SM, or for a handful of warps', () => {
  const full = denseTraffic({ sm: 0, slots: 64, perSlot: 8, stage: 'FS', draw: 0, start: 0, durationNs: 500 });
  const few = denseTraffic({ sm: 1, slots: 4, perSlot: 10, stage: 'VS', draw: 0, start: 0, durationNs: 80 });
  const s = analyzeTrace(traceOf({ warps: [...full, ...few], draws: 1 }));
  assert.equal(s.stages.find((x) => x.stage === 'FS')!.occupancy.perSm!.peak, 64);
  assert.equal(s.findings.filter((f) => f.kind === 'occupancy-cap').length, 0);
  // The threshold is adjustable: allowing small stages flags the 4-warp VS plateau.
  const loose = analyzeTrace(traceOf({ warps: [...full, ...few], draws: 1 }), { thresholds: resolveThresholds({ capMinWarps: 10 }) });
  assert.deepEqual(
    loose.findings.filter((f) => f.kind === 'occupancy-cap').map((f) => f.stage),
    ['VS'],
  );
});

test('warps without SM id: device-wide lane, no per-SM numbers or capacity, a warning', () => {
  const s = analyzeTrace(
    traceOf({
      warps: [
        { sm: UNKNOWN_SM, stage: 'FS', draw: 0, start: 0, end: 100 },
        { sm: UNKNOWN_SM, stage: 'FS', draw: 0, start: 10, end: 100 },
        { sm: UNKNOWN_SM, stage: 'FS', draw: 0, start: 20, end: 100 },
      ],
      draws: 1,
      smCount: null,
      warpsPerSm: null,
    }),
  );
  const occ = s.stages[0]!.occupancy;
  assert.equal(occ.perSm, null);
  assert.equal(occ.capacityWarps, null);
  assert.equal(occ.unknownSm!.peak, 3);
  assert.equal(occ.unknownSm!.meanWhileActive, 270 / 100);
  assert.deepEqual(s.stages[0]!.sms, [UNKNOWN_SM]);
  assert.ok(s.reliability.warnings.some((w) => /no SM id/.test(w)));
  assert.equal(s.draws[0]!.stages[0]!.occupancy!.peak, 3);
});

test('peaks match a brute-force count on a random trace', () => {
  const trace = synthesizeTrace({ warps: 6000, seed: 11, warpsPerDraw: 300 });
  const s = analyzeTrace(trace);
  const w = trace.warps;
  // Brute force: at every start, count same-SM same-stage warps with start ≤ t < end.
  const peak = new Map<number, number>();
  const perKeyPeak = new Map<string, number>();
  const { offsets } = w.smGroups;
  for (let g = 0; g < offsets.length - 1; g++) {
    for (let i = offsets[g]!; i < offsets[g + 1]!; i++) {
      const t = w.startNs[i]!;
      let c = 0;
      let ck = 0;
      for (let j = offsets[g]!; j < offsets[g + 1]! && w.startNs[j]! <= t; j++) {
        if (w.stage[j] !== w.stage[i] || w.startNs[j]! + w.durationNs[j]! <= t) continue;
        c++;
        if (w.draw[j] === w.draw[i]) ck++;
      }
      peak.set(w.stage[i]!, Math.max(peak.get(w.stage[i]!) ?? 0, c));
      const key = `${w.draw[i]}/${w.stage[i]}`;
      perKeyPeak.set(key, Math.max(perKeyPeak.get(key) ?? 0, ck));
    }
  }
  for (const st of s.stages) assert.equal(st.occupancy.perSm!.peak, peak.get(st.stageCode), st.stage);
  for (const d of s.draws) for (const st of d.stages) assert.equal(st.occupancy!.peak, perKeyPeak.get(`${d.index}/${st.stageCode}`));
});
