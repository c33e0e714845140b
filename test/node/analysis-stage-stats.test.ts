// Per-stage and per draw × stage duration statistics: known answers, and a
// brute-force cross-check on random traces (sorting every group).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace } from '../../analysis/index.js';
import { makeRandom, smIdPerWarp, stageInfo, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import { traceOf, type WarpSpec } from './analysis-fixtures.js';

test('known durations give exact mean, nearest-rank percentiles, stddev, lanes and SMs', () => {
  // Ten TCS warps of 100..1000 ns on SMs 0 and 1, one VS warp of 80 ns with 16 active lanes.
  const warps: WarpSpec[] = [];
  for (let i = 1; i <= 10; i++) warps.push({ sm: i % 2, slot: i, stage: 'TCS', draw: 0, start: 1000 * i, end: 1000 * i + 100 * i });
  warps.push({ sm: 48, slot: 0, stage: 'VS', draw: 1, start: 50, end: 130, mask: 0xffff });
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  const tcs = s.stages.find((x) => x.stage === 'TCS')!;
  assert.equal(tcs.warps, 10);
  assert.equal(tcs.totalNs, 5500);
  assert.equal(tcs.meanNs, 550);
  assert.equal(tcs.medianNs, 500); // nearest rank: ceil(0.5 × 10) = 5th value
  assert.equal(tcs.p90Ns, 900);
  assert.equal(tcs.p99Ns, 1000);
  assert.equal(tcs.minNs, 100);
  assert.equal(tcs.maxNs, 1000);
  assert.ok(Math.abs(tcs.stddevNs - Math.sqrt(82500)) < 1e-9, `stddev ${tcs.stddevNs}`);
  assert.deepEqual(tcs.sms, [0, 1]);
  assert.equal(tcs.smsUsed, 2);
  assert.equal(tcs.meanActiveLanes, 32);
  assert.equal(tcs.simtEfficiency, 1);
  assert.equal(tcs.histogram.counts.reduce((a, b) => a + b, 0), 10);
  const vs = s.stages.find((x) => x.stage === 'VS')!;
  assert.equal(vs.meanActiveLanes, 16);
  assert.equal(vs.simtEfficiency, 0.5);
  assert.equal(vs.activeLaneCounts[16], 1);
  assert.deepEqual(vs.sms, [48]);
  // Per draw × stage.
  assert.equal(s.draws[0]!.stages.length, 1);
  assert.equal(s.draws[0]!.stages[0]!.stage, 'TCS');
  assert.equal(s.draws[0]!.stages[0]!.medianNs, 500);
  assert.equal(s.draws[1]!.stages[0]!.maxNs, 80);
});

test('histogram bins are quarter octaves with exact edges', () => {
  // 100 ns lies in [96, 112), 130 in [128, 160), 1000 in [896, 1024).
  const warps: WarpSpec[] = [100, 100, 130, 1000].map((d, i) => ({ sm: 0, slot: i, stage: 'FS', draw: 0, start: i * 2000, end: i * 2000 + d }));
  const fs = analyzeTrace(traceOf({ warps, draws: 1 })).stages[0]!;
  const h = fs.histogram;
  assert.equal(h.lowerNs[0], 96);
  assert.equal(h.counts[0], 2);
  const at = (ns: number) => h.lowerNs.findIndex((lo, k) => ns >= lo && ns < (h.lowerNs[k + 1] ?? h.upperNs));
  assert.equal(h.counts[at(130)], 1);
  assert.equal(h.lowerNs[at(130)], 128);
  assert.equal(h.lowerNs[at(1000)], 896);
  assert.equal(h.upperNs, 1024);
  assert.equal(h.counts.reduce((a, b) => a + b, 0), 4);
});

/** Reference: sort each group's durations and read nearest ranks. */
function reference(trace: Trace) {
  const w = trace.warps;
  const groups = new Map<string, number[]>();
  const add = (key: string, d: number) => {
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(d);
  };
  for (let i = 0; i < w.count; i++) {
    add(`stage ${w.stage[i]}`, w.durationNs[i]!);
    add(`draw ${w.draw[i]} stage ${w.stage[i]}`, w.durationNs[i]!);
  }
  const out = new Map<string, { n: number; median: number; p90: number; p99: number; min: number; max: number; mean: number; sd: number }>();
  for (const [key, list] of groups) {
    list.sort((a, b) => a - b);
    const n = list.length;
    const rank = (p: number) => list[Math.min(n, Math.max(1, Math.ceil(p * n))) - 1]!;
    const mean = list.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(list.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
    out.set(key, { n, median: rank(0.5), p90: rank(0.9), p99: rank(0.99), min: list[0]!, max: list[n - 1]!, mean, sd });
  }
  return out;
}

test('matches a sort-based reference on random synthetic traces', () => {
  for (const seed of [1, 2, 3]) {
    const trace = synthesizeTrace({ warps: 30000, seed, warpsPerDraw: 700 });
    const s = analyzeTrace(trace);
    const ref = reference(trace);
    for (const st of s.stages) {
      const r = ref.get(`stage ${st.stageCode}`)!;
      assert.equal(st.warps, r.n);
      assert.equal(st.medianNs, r.median, `${st.stage} median`);
      assert.equal(st.p90Ns, r.p90, `${st.stage} p90`);
      assert.equal(st.p99Ns, r.p99, `${st.stage} p99`);
      assert.equal(st.minNs, r.min);
      assert.equal(st.maxNs, r.max);
      assert.ok(Math.abs(st.meanNs - r.mean) < 1e-6 * r.mean, `${st.stage} mean`);
      assert.ok(Math.abs(st.stddevNs - r.sd) < 1e-6 * r.mean, `${st.stage} sd ${st.stddevNs} vs ${r.sd}`);
      assert.equal(st.histogram.counts.reduce((a, b) => a + b, 0), r.n);
    }
    let checked = 0;
    for (const d of s.draws) {
      for (const st of d.stages) {
        const r = ref.get(`draw ${d.index} stage ${st.stageCode}`)!;
        assert.equal(st.warps, r.n);
        assert.equal(st.medianNs, r.median);
        assert.equal(st.p90Ns, r.p90);
        assert.equal(st.p99Ns, r.p99);
        assert.equal(st.minNs, r.min);
        assert.equal(st.maxNs, r.max);
        checked++;
      }
    }
    assert.ok(checked > 20, `checked ${checked} draw × stage groups`);
  }
});

test('selection stays exact when every duration falls in one histogram bin', () => {
  // 5000 durations within [1024, 1152): one level-1 bin, refined by the second level.
  const random = makeRandom(9);
  const warps: WarpSpec[] = [];
  for (let i = 0; i < 5000; i++) {
    const d = 1024 + Math.floor(random() * 128 * 16) / 16;
    warps.push({ sm: i % 8, slot: i % 64, stage: 'CS', draw: 0, start: i * 10, end: i * 10 + d });
  }
  const trace = traceOf({ warps, draws: 1 });
  const s = analyzeTrace(trace);
  const sorted = Array.from(trace.warps.durationNs).sort((a, b) => a - b);
  assert.equal(s.stages[0]!.medianNs, sorted[2499]);
  assert.equal(s.stages[0]!.p90Ns, sorted[4499]);
  assert.equal(s.stages[0]!.p99Ns, sorted[4949]);
});

test('SMs used: graphics stages on exactly the SMs that ran them', () => {
  const trace = synthesizeTrace({ warps: 20000, seed: 4 });
  const s = analyzeTrace(trace);
  const sm = smIdPerWarp(trace.warps);
  const expected = new Map<number, Set<number>>();
  for (let i = 0; i < trace.warps.count; i++) {
    const st = trace.warps.stage[i]!;
    if (!expected.has(st)) expected.set(st, new Set());
    expected.get(st)!.add(sm[i]!);
  }
  for (const st of s.stages) {
    assert.deepEqual(st.sms, [...expected.get(st.stageCode)!].sort((a, b) => a - b), stageInfo(st.stageCode).name);
  }
  assert.deepEqual(s.stages.find((x) => x.stage === 'TCS')!.sms, [0, 1, 48, 49]);
});
