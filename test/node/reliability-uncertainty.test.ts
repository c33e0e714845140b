// Cross-SM results when the calibration could not certify SM alignment only
// because some cross-checks failed: the worst disagreement bounds how far SM
// clocks may be apart, and effects ten times larger stand (no false
// "unreliable" on a 7 µs gap for an 88 ns doubt, no trusted 1 µs gap for a
// 5 µs doubt).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { decodeTrace, type Calibration, type Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/index.js';
import { UNCERTAINTY_FACTOR, crossSmUncertaintyNs } from '../../analysis/reliability.js';
import { repoPath } from './paths.js';

const sample = (name: string) => decodeTrace(new Uint8Array(readFileSync(repoPath('samples', name))));

/** The trace as if its decoder's cross-check had failed with this worst disagreement (everything else as captured). */
function withFailedCrossCheck(trace: Trace, worstNs: number, changes: Partial<Calibration> = {}): Trace {
  const cal = trace.capture.calibration;
  assert.ok(cal.quality, 'the sample carries the cross-check');
  const crossCheck = { ...cal.quality.crossCheck, failed: 1, worstNs };
  const calibration: Calibration = { ...cal, alignedAcrossSms: false, quality: { ...cal.quality, crossCheck }, ...changes };
  return { ...trace, capture: { ...trace.capture, calibration } };
}

test('the H100 ray-tracing sample: not certified, aligned to its worst cross-check disagreement, and said so', () => {
  const trace = sample('h100-ray-tracing.wtrace');
  const cal = trace.capture.calibration;
  assert.equal(cal.alignedAcrossSms, false);
  const worst = cal.quality!.crossCheck.worstNs;
  assert.ok(worst > cal.quality!.crossCheck.limitNs && worst < 200, `${worst}`);
  const r = analyzeTrace(trace).reliability;
  assert.equal(r.crossSmReliable, false);
  assert.equal(r.crossSmUncertaintyNs, worst);
  assert.ok(r.warnings.some((w) => w.startsWith(`SM clocks are aligned to about ${worst.toFixed(1)} ns only`)), r.warnings.join('\n'));
  const out = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'info', repoPath('samples', 'h100-ray-tracing.wtrace')], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, new RegExp(`SMs aligned: only to about ${worst.toFixed(1)} ns \\(cross-check failed\\)`));
});

test('syncs between draws (7.4 µs gaps across SMs) stand against a 100 ns doubt, not against a 1 µs one', () => {
  const trace = sample('h100-syncs.wtrace');
  const certified = analyzeTrace(trace);
  assert.ok(certified.syncs.count > 0 && certified.syncs.reliable);
  const smallest = Math.min(...certified.syncs.gaps.map((g) => g.gapNs));
  assert.ok(smallest > 10 * 100 && smallest < 10 * 1000, `smallest gap ${smallest} ns`);
  const slightly = analyzeTrace(withFailedCrossCheck(trace, 100));
  assert.equal(slightly.reliability.crossSmUncertaintyNs, 100);
  assert.equal(slightly.syncs.reliable, true);
  assert.ok(slightly.findings.filter((f) => f.kind === 'sync').every((f) => f.reliable));
  const badly = analyzeTrace(withFailedCrossCheck(trace, 1000));
  assert.equal(badly.syncs.reliable, false);
  assert.ok(badly.findings.filter((f) => f.kind === 'sync').every((f) => !f.reliable));
});

test('multi-SM stalls (tens of µs) stand against a 100 ns doubt and fall with one over a tenth of their size', () => {
  const trace = sample('h100-tess-stall.wtrace');
  const stalls = analyzeTrace(trace).stalls.items.filter((s) => s.sms.length > 1);
  assert.ok(stalls.length > 0 && stalls.every((s) => s.reliable));
  const smallest = Math.min(...stalls.map((s) => s.stallNs));
  assert.ok(analyzeTrace(withFailedCrossCheck(trace, 100)).stalls.items.filter((s) => s.sms.length > 1).every((s) => s.reliable));
  const doubt = smallest / UNCERTAINTY_FACTOR + 1;
  const doubted = analyzeTrace(withFailedCrossCheck(trace, doubt)).stalls.items.find((s) => s.stallNs === smallest && s.sms.length > 1);
  assert.equal(doubted?.reliable, false, `the ${smallest} ns stall against a ${doubt} ns doubt`);
});

test('nothing bounds the doubt when more than the cross-check failed: rebased clocks, residuals off the clock step, warps outside their draws', () => {
  const trace = sample('h100-syncs.wtrace');
  assert.equal(crossSmUncertaintyNs(trace, false), 0);
  assert.equal(crossSmUncertaintyNs(withFailedCrossCheck(trace, 100), false), 100);
  assert.equal(crossSmUncertaintyNs(withFailedCrossCheck(trace, 100), true), Infinity);
  assert.equal(crossSmUncertaintyNs(withFailedCrossCheck(trace, 100, { method: 'sm-clock-rebased' }), false), Infinity);
  const offStep = trace.capture.calibration.perSm.map((c, i) => (i === 0 ? { ...c, residualRmsNs: 500 } : c));
  assert.equal(crossSmUncertaintyNs(withFailedCrossCheck(trace, 100, { perSm: offStep }), false), Infinity);
  const r = analyzeTrace(withFailedCrossCheck(trace, 100, { method: 'sm-clock-rebased' })).reliability;
  assert.equal(r.crossSmUncertaintyNs, null);
  assert.equal(analyzeTrace(withFailedCrossCheck(trace, 100, { method: 'sm-clock-rebased' })).syncs.reliable, false);
});
