// Real sampled captures (issue 25): the AQT default frame on an H200 traced in full and with every stage at 1 in 8
// and at 1 in 64 (the instrumenter's shaders, the sampling decided in each warp's prologue; bench/RESULTS.md "Warp
// sampling"). Three separate GPU runs, so this checks the capture as well as the estimators: the estimated warp
// counts of the sampled captures lie within their stated uncertainty of the full capture's, the two rates agree with
// each other on shares and mean durations (the full capture's fragment warps are longer: every one of them paid the
// record), and a sampled capture reports no finding that needs every warp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/index.js';
import type { StageEstimate } from '../../analysis/sampled.js';
import { full, s8, s64, skip } from './h200-aqt-samples.js';

function estimates(trace: Trace): Map<string, StageEstimate> {
  const section = analyzeTrace(trace).sampling;
  assert.ok(section !== undefined, 'a sampled capture has a sampling section');
  return new Map(section.stages.map((e) => [e.stage, e]));
}

test('the sampled captures say how they were sampled; the full one is not sampled', { skip }, () => {
  assert.equal(full!.capture.sampling, null);
  for (const [trace, n] of [[s8!, 8], [s64!, 64]] as const) {
    const sampling = trace.capture.sampling;
    assert.ok(sampling !== null);
    assert.equal(sampling.chosenBy, 'flag');
    for (const stage of ['VS', 'TCS', 'TES', 'FS'] as const) assert.equal(sampling.every[stage], n, stage);
  }
});

test('estimated warp counts of both sampled captures lie within 3 standard errors of the full capture, and fewer warps were recorded', { skip }, () => {
  const truth = new Map(analyzeTrace(full!).stages.map((s) => [s.stage, s.warps]));
  for (const trace of [s8!, s64!]) {
    for (const [stage, e] of estimates(trace)) {
      const n = truth.get(stage as never);
      assert.ok(n !== undefined, `${stage} ran in the full capture`);
      assert.ok(e.recordedWarps < n, `${stage}: ${e.recordedWarps} recorded of ${n}`);
      assert.ok(Math.abs(e.warps - n) <= 3 * e.warpsSe, `${stage}: ≈${e.warps} ± ${e.warpsSe.toFixed(0)} against ${n}`);
    }
  }
});

test('1 in 8 and 1 in 64 agree on the fragment and tessellation stages: shares within 3 combined standard errors, fragment means within 2%', { skip }, () => {
  const a = estimates(s8!);
  const b = estimates(s64!);
  for (const stage of ['FS', 'TES']) {
    const x = a.get(stage)!;
    const y = b.get(stage)!;
    const shareSe = Math.hypot(x.shareSe, y.shareSe);
    assert.ok(Math.abs(x.shareOfWarpTime - y.shareOfWarpTime) <= 3 * shareSe, `${stage} share ${x.shareOfWarpTime} vs ${y.shareOfWarpTime} (± ${shareSe})`);
    const meanSe = Math.hypot(x.meanSeNs, y.meanSeNs);
    assert.ok(Math.abs(x.meanNs - y.meanNs) <= 3 * meanSe, `${stage} mean ${x.meanNs} vs ${y.meanNs} (± ${meanSe})`);
  }
  const fs8 = a.get('FS')!.meanNs;
  assert.ok(Math.abs(fs8 / b.get('FS')!.meanNs - 1) < 0.02, 'FS means within 2%');
  // The full capture's fragment warps each paid the record: longer than the sampled ones by far more than noise.
  const fullFs = analyzeTrace(full!).stages.find((s) => s.stage === 'FS')!.meanNs;
  assert.ok(fullFs > fs8 * 1.2, `full FS mean ${fullFs} ns against ${fs8} ns at 1 in 8`);
});

test('a sampled capture reports no idle, sync or stall finding, and says what it withheld', { skip }, () => {
  for (const trace of [s8!, s64!]) {
    const summary = analyzeTrace(trace);
    const kinds = new Set(summary.findings.map((f) => f.kind));
    for (const kind of kinds) assert.ok(!/idle|sync|stall|leftover/i.test(kind), `finding ${kind} in a sampled capture`);
    assert.ok((summary.sampling?.withheld.length ?? 0) > 0);
  }
});
