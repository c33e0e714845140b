// What `warptrace info` says about the clock calibration: quality a user can
// trust on new files, honest "unknown" on older ones, SMs counted as SMs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H100_CLOCKS, decodeTrace, encodeWtrace, encodeWtraw, rawCaptureOf, type SmCalibration, type Trace } from '../../shared-schema/index.js';
import { summarizeCalibration } from '../../analysis/calibration-quality.js';
import { analyzeTrace } from '../../analysis/index.js';
import { GRAPHICS_SMS, phasedTrace, type Phase } from './clock-scenarios.js';
import { traceWithRowIds } from './fixtures.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-info-'));
/** H100 samples as the previous decoder wrote them (no quality, cross-check or draw-bounds fields). */
const olderFile = (name: string) => repoPath('test', 'node', 'older-files', name.replace('.wtrace', '-2026-11-21.wtrace'));
const sample = (name: string) => decodeTrace(new Uint8Array(readFileSync(olderFile(name))));

function info(path: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [bin, 'info', path, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('an older file (an H100 sample as the previous decoder wrote it): SMs counted as SMs, borrowed lines out of the median, unknowns said so', () => {
  const path = olderFile('h100-compute-graphics.wtrace');
  const out = info(path);
  // 374 of 378 segments are offset-only, on all 132 SMs (info used to say "374 SMs offset-only").
  assert.match(out, /378 segments on 132 SMs, 374 offset-only on 132 SMs/);
  assert.match(out, /over all samples: unknown \(older file\)/);
  assert.match(out, /cross-check: unknown \(older file\)/);
  assert.match(out, /draws: 0 of 34,491 warps outside their draw's timestamps by > 20\.0 µs, none out \(checked on reading: older file\)/);
  assert.match(out, /SM clock 1\.980 GHz \(warp-weighted; segments 1\.9791-1\.9800\)/);
  // 110 segments took another's line and kept no sample (RMS stored as 0): they stay out of the median.
  const trace = sample('h100-compute-graphics.wtrace');
  const zeros = trace.capture.calibration.perSm.filter((c) => c.samples === c.lateSamples);
  assert.ok(zeros.length >= 100 && zeros.every((c) => c.residualRmsNs === 0));
  const s = summarizeCalibration(trace);
  const kept = trace.capture.calibration.perSm.filter((c) => c.samples > c.lateSamples).map((c) => c.residualRmsNs).sort((a, b) => a - b);
  assert.equal(s.medianResidualRmsNs, kept[kept.length >> 1]);
  assert.ok(s.medianResidualRmsNs! > 9.5, `${s.medianResidualRmsNs}`);
  assert.ok(Math.abs(s.lateShare! - 0.103) < 0.001, `${s.lateShare}`);
  const json = JSON.parse(info(path, '--json')) as { summary: { calibration: { offsetOnlySms: number; offsetOnlySegments: number; crossCheck: null; drawBounds: { source: string } } } };
  assert.equal(json.summary.calibration.offsetOnlySms, 132);
  assert.equal(json.summary.calibration.offsetOnlySegments, 374);
  assert.equal(json.summary.calibration.crossCheck, null);
  assert.equal(json.summary.calibration.drawBounds.source, 'reading');
});

test('an older file whose warps lie outside their draws is shown not aligned, found on reading', () => {
  const trace = sample('h100-aqt.wtrace');
  const moved: Trace = { ...trace, warps: { ...trace.warps, startNs: trace.warps.startNs.map((s) => s + 40_000) } };
  const path = join(dir, 'moved.wtrace');
  writeFileSync(path, encodeWtrace(moved));
  const out = info(path);
  assert.match(out, /calibration per-sm-fit, SMs aligned: NO/);
  assert.match(out, /draws: [\d,]+ of 68,709 warps outside their draw's timestamps by > 20\.0 µs, worst 3\d\.\d µs out \(draw \d\) \(checked on reading: older file\)/);
});

test('the SM clock is weighted by warps: 128 SMs that saw a few µs do not outvote the four that ran 95% of the warps', () => {
  const trace = sample('h100-aqt.wtrace');
  const segment = (sm: number, samples: number, ghz: number): SmCalibration => ({ sm, samples, lateSamples: 0, fit: 'offset-only', nsPerCycle: 1 / ghz, offsetNs: 0, residualRmsNs: 9, residualMaxNs: 16, fromNs: 0, toNs: 1000 });
  const perSm = [...Array.from({ length: 128 }, (_, k) => segment(k + 2, 20, 1.949)), ...GRAPHICS_SMS.map((sm) => segment(sm, 12_000, 1.98))];
  const s = summarizeCalibration({ ...trace, capture: { ...trace.capture, calibration: { ...trace.capture.calibration, perSm } } });
  assert.ok(Math.abs(s.smClockHz!.weighted / 1.978e9 - 1) < 1e-3, `${s.smClockHz!.weighted}`);
  assert.ok(Math.abs(s.smClockHz!.min - 1.949e9) < 1 && Math.abs(s.smClockHz!.max - 1.98e9) < 1, JSON.stringify(s.smClockHz));
});

test('a new file reports residuals over all samples, the cross-check, late share and the draw check from the decoder', () => {
  const clean = join(dir, 'clean.wtraw');
  writeFileSync(clean, encodeWtraw(rawCaptureOf(traceWithRowIds(20_000), { ...H100_CLOCKS, lateReads: { fraction: 0.05, maxNs: 30_000 } }).raw));
  const out = info(clean);
  assert.match(out, /calibration per-sm-fit, SMs aligned: yes/);
  assert.match(out, /residual RMS 9\.\d+ ns robust \(segments: median [\d.]+ ns, worst [\d.]+ ns on SM \d+\); [\d.]+ µs over all samples, p99 2\d\.\d µs; [45]\.\d% late reads/);
  assert.match(out, /cross-check: passed, worst [\d.]+ ns on SM \d+ \(limit 64\.0 ns, \d+ checks\)/);
  assert.match(out, /draws: 0 of 20,000 warps outside their draw's timestamps by > 20\.0 µs, none out\n/);
  // A gated SM clock: its later warps are microseconds off, and info says so.
  const gatedSms = [10, 11, 12, 13];
  const phases: Phase[] = [{ sms: GRAPHICS_SMS, fromNs: 1000, toNs: 300_000, warpsPerSm: 5000, meanNs: 400, stage: 4 }];
  for (let b = 0; b < 6; b++) phases.push({ sms: gatedSms, fromNs: 100_000 + b * 6000, toNs: 102_000 + b * 6000, warpsPerSm: 3, meanNs: 1000, stage: 5 });
  const gated = join(dir, 'gated.wtraw');
  writeFileSync(gated, encodeWtraw(rawCaptureOf(phasedTrace(phases), { ...H100_CLOCKS, gatedSms }).raw));
  const bad = info(gated);
  // Only the cross-check failed (every segment fits its own samples): aligned to no better than its worst disagreement.
  assert.match(bad, /calibration per-sm-fit, SMs aligned: only to about 1\d\.\d µs \(cross-check failed\)/);
  assert.match(bad, /cross-check: FAILED 4 of \d+, worst 1\d\.\d µs on SM 1[0-3]/);
  assert.match(bad, /lines fitted on different samples disagree, so cross-SM alignment is NOT trustworthy/);
});

test('stats on an older file whose warps lie outside their draws: not aligned, and a warning says why', () => {
  const trace = sample('h100-aqt.wtrace');
  assert.equal(analyzeTrace(trace).reliability.alignedAcrossSms, true, 'in place, the older file is aligned');
  const moved: Trace = { ...trace, warps: { ...trace.warps, startNs: trace.warps.startNs.map((s) => s + 40_000) } };
  const r = analyzeTrace(moved).reliability;
  assert.equal(r.alignedAcrossSms, false);
  assert.equal(r.crossSmReliable, false);
  assert.ok(r.warnings.some((w) => /warps lie more than 20(\.0)? µs outside their draw's GPU timestamps/.test(w)), r.warnings.join('\n'));
});
