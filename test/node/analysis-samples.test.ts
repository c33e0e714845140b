// The analyses on the real captures in samples/ (when there are any): what the
// summary says must be what the hardware rows show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { analyzeTrace } from '../../analysis/index.js';
import { decodeTrace, smIdPerWarp, stageInfo } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const dir = repoPath('samples');
const samples = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.wtrace')) : [];

test('real samples: stage SMs, percentiles and peaks agree with the rows', { skip: samples.length === 0 ? 'no samples/*.wtrace yet' : false }, () => {
  for (const name of samples) {
    const trace = decodeTrace(new Uint8Array(readFileSync(`${dir}/${name}`)));
    const s = analyzeTrace(trace);
    const w = trace.warps;
    const sm = smIdPerWarp(w);
    const smsOf = new Map<number, Set<number>>();
    const durations = new Map<number, number[]>();
    for (let i = 0; i < w.count; i++) {
      const st = w.stage[i]!;
      if (!smsOf.has(st)) smsOf.set(st, new Set()), durations.set(st, []);
      smsOf.get(st)!.add(sm[i]!);
      durations.get(st)!.push(w.durationNs[i]!);
    }
    assert.equal(s.stages.length, smsOf.size, `${name}: stages`);
    for (const st of s.stages) {
      // The stage ran on exactly the SMs its rows name (on the H100: graphics on 4 SMs, compute on all).
      assert.deepEqual(st.sms, [...smsOf.get(st.stageCode)!].sort((a, b) => a - b), `${name} ${st.stage} SMs`);
      const sorted = durations.get(st.stageCode)!.sort((a, b) => a - b);
      assert.equal(st.medianNs, sorted[Math.ceil(0.5 * sorted.length) - 1], `${name} ${st.stage} median`);
      assert.equal(st.p99Ns, sorted[Math.ceil(0.99 * sorted.length) - 1], `${name} ${st.stage} p99`);
      assert.equal(st.maxNs, sorted[sorted.length - 1]);
      if (trace.device.warpsPerSm !== null && st.occupancy.perSm !== null) assert.ok(st.occupancy.perSm.peak <= trace.device.warpsPerSm * 2, `${name} ${st.stage} peak within slots (with calibration slack)`);
      assert.equal(stageInfo(st.stageCode).name, st.stage);
    }
    assert.equal(s.reliability.alignedAcrossSms, trace.capture.calibration.alignedAcrossSms);
    assert.ok(!/NaN|Infinity/.test(JSON.stringify(s)));
  }
});
