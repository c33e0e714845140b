// Calibration quality that can fail: known-answer captures where the clocks
// are wrong in ways the robust fit hides (its residual stays ~9 ns), and the
// checks that must say so: cross-validation of lines fitted on disjoint
// samples, warps against their draws' timestamps, clocks that are no clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  H100_CLOCKS,
  TraceFormatError,
  decodeTrace,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  rawCaptureOf,
  traceFromJson,
  traceToJson,
  wtrawToWtrace,
  type RawClockModel,
  TICKS_PER_NS,
  type Trace,
} from '../../shared-schema/index.js';
import { DRAW_BOUNDS_TOLERANCE_NS, drawBoundsOfTrace, drawBoundsTicks } from '../../shared-schema/draw-bounds.js';
import { GRAPHICS_SMS, phasedTrace, worstStartErrorNs, type Phase } from './clock-scenarios.js';
import { traceWithRowIds } from './fixtures.js';
import { repoPath } from './paths.js';

const SAMPLES_DIR = repoPath('samples');

const GATED_SMS = [10, 11, 12, 13];

/** Graphics on four SMs for 300 µs; four other SMs run six bursts of three warps, 6 µs apart. */
function burstsTrace(): Trace {
  const phases: Phase[] = [{ sms: GRAPHICS_SMS, fromNs: 1000, toNs: 300_000, warpsPerSm: 5000, meanNs: 400, stage: 4 }];
  for (let b = 0; b < 6; b++) phases.push({ sms: GATED_SMS, fromNs: 100_000 + b * 6000, toNs: 102_000 + b * 6000, warpsPerSm: 3, meanNs: 1000, stage: 5 });
  return phasedTrace(phases);
}

const decode = (truth: Trace, model: RawClockModel) => decodeWtraw(encodeWtraw(rawCaptureOf(truth, model).raw));

test('an SM clock that stops while the SM idles: warps µs off, the robust residual 9 ns, the cross-check fails', () => {
  const truth = burstsTrace();
  const gated: RawClockModel = { ...H100_CLOCKS, gatedSms: GATED_SMS };
  const decoded = decode(truth, gated);
  const cal = decoded.capture.calibration;
  // A real misalignment: the later bursts' warps are placed microseconds off...
  assert.ok(worstStartErrorNs(truth, decoded, gated, (t) => (truth.warps.draw[t] as number) > 0) > 5000);
  // ...which the fit's own residual does not show.
  assert.ok(cal.quality!.keptRmsNs < 12, `kept RMS ${cal.quality!.keptRmsNs}`);
  const check = cal.quality!.crossCheck;
  assert.ok(check.failed >= GATED_SMS.length, JSON.stringify(check));
  assert.ok(GATED_SMS.includes(check.worstSm!) && check.worstNs > 1000, JSON.stringify(check));
  assert.equal(cal.alignedAcrossSms, false);
  assert.match(cal.note, /cross-check\(s\) failed/);
  // The same capture with clocks that keep counting passes, and is placed right.
  const plain = decode(truth, H100_CLOCKS);
  assert.equal(plain.capture.calibration.quality!.crossCheck.failed, 0);
  assert.equal(plain.capture.calibration.alignedAcrossSms, true);
  assert.ok(worstStartErrorNs(truth, plain, H100_CLOCKS, () => true) <= 16);
});

test('quality over all samples: late reads show in the RMS, p99 and late share beside the robust figure', () => {
  const truth = traceWithRowIds(60_000, 3);
  const clean = decode(truth, H100_CLOCKS).capture.calibration.quality!;
  // 32 ns steps: 32/√12 ≈ 9.2 ns, and nothing late.
  assert.ok(clean.keptRmsNs > 8 && clean.keptRmsNs < 10.5, `${clean.keptRmsNs}`);
  assert.equal(clean.lateSamples, 0);
  assert.equal(clean.allRmsNs, clean.keptRmsNs);
  assert.ok(clean.allP99Ns <= 17, `${clean.allP99Ns}`);
  assert.equal(clean.samples, 60_000);
  const late = decode(truth, { ...H100_CLOCKS, lateReads: { fraction: 0.1, maxNs: 40_000 } }).capture.calibration.quality!;
  assert.ok(late.keptRmsNs < 10.5, `${late.keptRmsNs}`);
  assert.ok(Math.abs(late.lateSamples / late.samples - 0.1) < 0.02, `${late.lateSamples} of ${late.samples} late`);
  // Late by up to 40 µs, uniformly: RMS ≈ √(0.1 × 40²/3) µs ≈ 7.3 µs; the 99th percentile ≈ 36 µs.
  assert.ok(late.allRmsNs > 5000 && late.allRmsNs < 10_000, `${late.allRmsNs}`);
  assert.ok(late.allP99Ns > 30_000 && late.allP99Ns < 42_000, `${late.allP99Ns}`);
  assert.equal(late.crossCheck.failed, 0);
});

test('warps on another time base than the draw timestamps (197 ms) make the capture not aligned', () => {
  const truth = traceWithRowIds(20_000);
  const skewed = decode(truth, { ...H100_CLOCKS, timestampSkewNs: 197e6 });
  const cal = skewed.capture.calibration;
  // Every SM fits perfectly: only the draws tell.
  assert.equal(cal.quality!.crossCheck.failed, 0);
  assert.equal(cal.drawBounds!.outside, 20_000);
  assert.equal(cal.drawBounds!.checked, 20_000);
  assert.ok(Math.abs(cal.drawBounds!.worstExcessNs - 197e6) < 2e6, `${cal.drawBounds!.worstExcessNs}`);
  assert.equal(cal.alignedAcrossSms, false);
  assert.match(cal.note, /outside their draw's GPU timestamps/);
  // The device-clock path checks too.
  const deviceOnly = decode(truth, { ...H100_CLOCKS, smClock: false, timestampSkewNs: 197e6 }).capture.calibration;
  assert.equal(deviceOnly.method, 'device-clock');
  assert.equal(deviceOnly.alignedAcrossSms, false);
  assert.equal(deviceOnly.drawBounds!.outside, 20_000);
  // A skew within the tolerance (NVIDIA writes begin timestamps when earlier work drains: µs) passes.
  const near = decode(truth, { ...H100_CLOCKS, timestampSkewNs: 3000 }).capture.calibration;
  assert.equal(near.drawBounds!.outside, 0);
  assert.equal(near.alignedAcrossSms, true);
});

test('the draw-bounds tolerance never flags the real samples, yet catches them 30 µs off', () => {
  const files = readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.wtrace'));
  assert.ok(files.length >= 6);
  for (const file of files) {
    const trace = decodeTrace(new Uint8Array(readFileSync(join(SAMPLES_DIR, file))));
    const check = drawBoundsOfTrace(trace)!;
    assert.equal(check.checked, trace.warps.count, file);
    assert.equal(check.outside, 0, `${file}: worst ${check.worstExcessNs} ns`);
    // The worst real excess (8.4 µs on lavapipe, 2.2 µs on the H100) stays well inside the tolerance.
    assert.ok(check.worstExcessNs < DRAW_BOUNDS_TOLERANCE_NS / 2, `${file}: ${check.worstExcessNs} ns`);
    // A shift shows minus the room the warps had inside their draws on that side: earlier by 30 µs shows only
    // where the first warps start near their draw's begin timestamp (the H100's graphics; lavapipe's start 30 µs
    // late, the H100's ray-tracing launch ~7 µs late; through the layer a frame's first draws wait on the app's
    // earlier work, and its vertex warps, bounded by the capture start, stand first).
    const room = roomInsideDraws(trace);
    const harness = file.startsWith('h100') && (trace.capture.layer ?? null) === null;
    for (const shiftNs of harness ? [30_000, -30_000] : [30_000]) {
      const startNs = trace.warps.startNs.map((s) => s + shiftNs);
      const moved = drawBoundsOfTrace({ ...trace, warps: { ...trace.warps, startNs } })!;
      assert.ok(moved.outside > 0, `${file} moved ${shiftNs} ns`);
      const expected = Math.abs(shiftNs) - (shiftNs < 0 ? room.before : room.after);
      assert.ok(expected > DRAW_BOUNDS_TOLERANCE_NS / 2, `${file}: ${shiftNs} ns is a real test (room ${JSON.stringify(room)})`);
      assert.ok(Math.abs(moved.worstExcessNs - expected) < 1, `${file} moved ${shiftNs} ns: worst ${moved.worstExcessNs}, expected ${expected}`);
    }
  }
});

/** The least room any warp had inside the bounds the draw check uses (drawBoundsTicks): before its start, after its end (ns). */
function roomInsideDraws(trace: Trace): { before: number; after: number } {
  const bounds = drawBoundsTicks(trace.draws.map((d) => d.gpuBeginNs), trace.draws.map((d) => d.gpuEndNs))!;
  let before = Infinity;
  let after = Infinity;
  const w = trace.warps;
  for (let i = 0; i < w.count; i++) {
    const d = w.draw[i]!;
    before = Math.min(before, w.startNs[i]! - bounds.lower[d]! / TICKS_PER_NS);
    after = Math.min(after, bounds.upper[d]! / TICKS_PER_NS - (w.startNs[i]! + w.durationNs[i]!));
  }
  return { before, after };
}

test('an SM clock running backwards, or clock words that count nothing, are refused with a clear message', () => {
  const truth = traceWithRowIds(20_000);
  assert.throws(
    () => decode(truth, { ...H100_CLOCKS, backwardsSms: [48] }),
    (e: unknown) => e instanceof TraceFormatError && e.field === 'records' && /SM 48's clock runs backwards/.test(e.message),
  );
  assert.throws(
    () => decode(truth, { ...H100_CLOCKS, smClockHz: -1.98e9 }),
    (e: unknown) => e instanceof TraceFormatError && /runs backwards/.test(e.message),
  );
  // Clock words that are noise: no rate fits, and nothing is written that a reader would refuse.
  const { raw } = rawCaptureOf(truth, H100_CLOCKS);
  let seed = 1;
  for (let r = 0; r < raw.records.length; r += 8) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    raw.records[r] = seed;
    raw.records[r + 1] = (seed + 1000) >>> 0;
  }
  assert.throws(
    () => wtrawToWtrace(encodeWtraw(raw)),
    (e: unknown) => e instanceof TraceFormatError && e.field === 'records',
  );
});

test('what the decoder writes, the readers read back: quality and draw checks round-trip through .wtrace and JSON', () => {
  const truth = burstsTrace();
  for (const model of [{ ...H100_CLOCKS, gatedSms: GATED_SMS }, { ...H100_CLOCKS, timestampSkewNs: 197e6 }]) {
    const { wtrace, header } = wtrawToWtrace(encodeWtraw(rawCaptureOf(truth, model).raw));
    const read = decodeWtrace(wtrace);
    assert.deepEqual(read.capture.calibration, header.capture.calibration);
    assert.ok(read.capture.calibration.quality !== undefined && read.capture.calibration.drawBounds !== undefined);
    assert.deepEqual(traceFromJson(JSON.stringify(traceToJson(read))).capture.calibration, header.capture.calibration);
    assert.deepEqual(decodeWtrace(encodeWtrace(read)).capture.calibration, header.capture.calibration);
  }
});

test('old files without the new fields still read, and say nothing about them; bad values are refused by name', () => {
  const old = decodeTrace(new Uint8Array(readFileSync(repoPath('test', 'node', 'older-files', 'h100-aqt-2026-11-21.wtrace'))));
  assert.equal(old.capture.calibration.quality, undefined);
  assert.equal(old.capture.calibration.drawBounds, undefined);
  const decoded = decode(traceWithRowIds(5000), H100_CLOCKS);
  const json = JSON.parse(JSON.stringify(traceToJson(decoded))) as { capture: { calibration: { quality: { lateSamples: number }; drawBounds: { outside: number } } } };
  json.capture.calibration.quality.lateSamples = 1e9;
  assert.throws(() => traceFromJson(JSON.stringify(json)), (e: unknown) => e instanceof TraceFormatError && e.field === 'capture.calibration.quality.lateSamples');
  json.capture.calibration.quality.lateSamples = 0;
  json.capture.calibration.drawBounds.outside = -1;
  assert.throws(() => traceFromJson(JSON.stringify(json)), (e: unknown) => e instanceof TraceFormatError && e.field === 'capture.calibration.drawBounds.outside');
});

test('timestamps moved into the device clock base by an imprecise clock check: the draw check allows its uncertainty, no more', () => {
  const truth = traceWithRowIds(20_000);
  // The host shifted the timestamps with an offset 60 µs off (lavapipe: the check's brackets are 30-90 µs wide).
  const raw = rawCaptureOf(truth, { ...H100_CLOCKS, timestampSkewNs: 60_000 }).raw;
  const withCheck = (clockCheck: object | undefined) => decodeWtraw(encodeWtraw({ ...raw, metadata: { ...raw.metadata, clockCheck } })).capture.calibration;
  const lavapipeDisagree = { fit: 'disagree', sharedTimeBase: false, bracketNs: { median: 80_000, widest: 150_000 }, timestampMinusDeviceNs: [5e11, 5e11] };
  // Without a check (or with shared time bases) the 20 µs tolerance stands and 60 µs is caught.
  for (const check of [undefined, { ...lavapipeDisagree, sharedTimeBase: true }]) {
    const cal = withCheck(check);
    assert.equal(cal.drawBounds!.toleranceNs, DRAW_BOUNDS_TOLERANCE_NS);
    assert.equal(cal.alignedAcrossSms, false);
  }
  // Brackets that disagree: the median bracket is added (80 µs): 60 µs off is within what the check could know.
  const disagree = withCheck(lavapipeDisagree);
  assert.equal(disagree.drawBounds!.toleranceNs, DRAW_BOUNDS_TOLERANCE_NS + 80_000);
  assert.equal(disagree.drawBounds!.outside, 0);
  assert.equal(disagree.alignedAcrossSms, true);
  // Brackets that agree on an offset range 30 µs wide: half of it is added, and 60 µs is still caught.
  const agree = withCheck({ ...lavapipeDisagree, fit: 'unit-rate', timestampMinusDeviceNs: [5e11, 5e11 + 30_000] });
  assert.equal(agree.drawBounds!.toleranceNs, DRAW_BOUNDS_TOLERANCE_NS + 15_000);
  assert.ok(agree.drawBounds!.outside > 0, `${agree.drawBounds!.outside}`);
  assert.equal(agree.alignedAcrossSms, false);
  // A huge claimed uncertainty cannot hide a capture milliseconds off: the allowance stops at 1 ms.
  const far = rawCaptureOf(truth, { ...H100_CLOCKS, timestampSkewNs: 5e6 }).raw;
  const hidden = decodeWtraw(encodeWtraw({ ...far, metadata: { ...far.metadata, clockCheck: { ...lavapipeDisagree, bracketNs: { median: 1e9, widest: 1e9 } } } }));
  assert.equal(hidden.capture.calibration.drawBounds!.toleranceNs, DRAW_BOUNDS_TOLERANCE_NS + 1_000_000);
  assert.equal(hidden.capture.calibration.alignedAcrossSms, false);
  // A malformed check is refused by name.
  assert.throws(
    () => withCheck({ ...lavapipeDisagree, bracketNs: { median: 'wide' } }),
    (e: unknown) => e instanceof TraceFormatError && e.field === 'metadata.clockCheck.bracketNs.median',
  );
});

test('a draw\'s vertex warps may precede its begin timestamp on every device; on llvmpipe (other tiles, a dispatch run at once) any stage may, elsewhere fragment and compute warps may not', () => {
  // Draw 0: vertex warps at 100-150 µs, its timestamps written at 290-295 µs (when the rasterizer reached them); draw 1: fragment warps.
  const phases: Phase[] = [
    { sms: GRAPHICS_SMS, fromNs: 100_000, toNs: 150_000, warpsPerSm: 400, meanNs: 300, stage: 0 },
    { sms: GRAPHICS_SMS, fromNs: 300_000, toNs: 600_000, warpsPerSm: 3000, meanNs: 300, stage: 4 },
  ];
  const late = (fragmentsLate: boolean, truth = phasedTrace(phases)): Trace => ({
    ...truth,
    // Fragment warps late: every begin timestamp of draws 0..1 after the first fragment warps (the bound is the earliest of them).
    draws: truth.draws.map((d) =>
      d.index === 0
        ? { ...d, gpuBeginNs: fragmentsLate ? 400_000 : 290_000, gpuEndNs: fragmentsLate ? 405_000 : 295_000 }
        : { ...d, gpuBeginNs: fragmentsLate ? (d.gpuBeginNs as number) + 100_000 : d.gpuBeginNs },
    ),
  });
  const decodeOn = (trace: Trace, driverName: string) => {
    const raw = rawCaptureOf(trace, H100_CLOCKS).raw;
    const metadata = raw.metadata as { device: object };
    return decodeWtraw(encodeWtraw({ ...raw, metadata: { ...metadata, device: { ...metadata.device, driverName } } })).capture.calibration;
  };
  // A begin timestamp held back by a dependency that gates only later stages (a semaphore waited at colour output):
  // the draw's vertex warps run before it on NVIDIA too (H200, SaschaWillems' examples), so they are checked against
  // the capture start (and their draw's end).
  const nvidia = decodeOn(late(false), 'NVIDIA');
  assert.equal(nvidia.drawBounds!.outside, 0, JSON.stringify(nvidia.drawBounds));
  assert.equal(nvidia.alignedAcrossSms, true);
  // Fragment warps that long before their draw's begin mean the clocks disagree there.
  const fragmentsNvidia = decodeOn(late(true), 'NVIDIA');
  assert.equal(fragmentsNvidia.alignedAcrossSms, false);
  assert.ok(fragmentsNvidia.drawBounds!.outside > 0);
  // On llvmpipe the vertex warps are checked against the capture start too: aligned.
  const llvmpipe = decodeOn(late(false), 'llvmpipe');
  assert.equal(llvmpipe.drawBounds!.outside, 0, JSON.stringify(llvmpipe.drawBounds));
  assert.equal(llvmpipe.alignedAcrossSms, true);
  // Inside a render pass its timestamps are taken when its last tile reaches them: fragment warps in other tiles precede the begin.
  const fragments = decodeOn(late(true), 'llvmpipe');
  assert.equal(fragments.drawBounds!.outside, 0, JSON.stringify(fragments.drawBounds));
  assert.equal(fragments.alignedAcrossSms, true);
  // A dispatch's begin waits for the next flush, while its compute warps run at once: they precede it too.
  const computeLate = late(true, phasedTrace([phases[0] as Phase, { ...(phases[1] as Phase), stage: 5 }]));
  assert.equal(decodeOn(computeLate, 'llvmpipe').drawBounds!.outside, 0);
  // Elsewhere they are caught (beside draw 0's vertex warps, all outside either way).
  const elsewhere = decodeOn(computeLate, 'NVIDIA');
  assert.equal(elsewhere.alignedAcrossSms, false);
  assert.ok(elsewhere.drawBounds!.outside > 0, JSON.stringify(elsewhere.drawBounds));
});
