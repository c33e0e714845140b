// Known-answer tests: warps with known times go through a simulated GPU
// (per-SM clock offsets and rates, a 32 ns device clock, wrapping 32-bit
// words) and must come back where they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  buildTrace,
  decodeWtraw,
  encodeWtraw,
  rawCaptureOf,
  smIdPerWarp,
  type RawClockModel,
  type Trace,
} from '../../shared-schema/index.js';
import { GRAPHICS_SMS, decodedRows, shortDispatches, worstStartErrorNs } from './clock-scenarios.js';
import { checkInvariants, traceWithRowIds } from './fixtures.js';

/**
 * Largest |decoded − true| over start and end of every warp, matched by custom id,
 * on the absolute device time base (time 0 is a floored device-clock sample, so
 * the two traces' origins differ by up to one clock step).
 */
function worstErrorNs(truth: Trace, decoded: Trace, model: RawClockModel): number {
  const shift = Number(decoded.capture.originDeviceNs) - model.originDeviceNs;
  const row = new Int32Array(truth.warps.count).fill(-1);
  for (let i = 0; i < decoded.warps.count; i++) row[decoded.warps.customId[i] as number] = i;
  let worst = 0;
  for (let t = 0; t < truth.warps.count; t++) {
    const d = row[t] as number;
    assert.ok(d >= 0, `warp ${t} is missing`);
    const ts = truth.warps.startNs[t] as number;
    const te = ts + (truth.warps.durationNs[t] as number);
    const ds = (decoded.warps.startNs[d] as number) + shift;
    const de = ds + (decoded.warps.durationNs[d] as number);
    worst = Math.max(worst, Math.abs(ds - ts), Math.abs(de - te));
  }
  return worst;
}

function roundTrip(truth: Trace, model: RawClockModel): Trace {
  const decoded = decodeWtraw(encodeWtraw(rawCaptureOf(truth, model).raw));
  checkInvariants(decoded);
  return decoded;
}

test('per-SM calibration puts every warp within 2 ns of the truth (H100 clocks)', () => {
  const truth = traceWithRowIds(120_000);
  const decoded = roundTrip(truth, H100_CLOCKS);
  const cal = decoded.capture.calibration;
  assert.equal(cal.method, 'per-sm-fit');
  assert.equal(cal.alignedAcrossSms, true);
  assert.deepEqual([...new Set(cal.perSm.map((c) => c.sm))], Array.from(truth.warps.smGroups.sm));
  const worst = worstErrorNs(truth, decoded, H100_CLOCKS);
  assert.ok(worst <= 2, `worst error ${worst.toFixed(3)} ns`);
  assert.equal(decoded.device.clocks.deviceClockGranularityNs, 32);
  // A 32 ns floor step leaves a residual of about 32/√12 ≈ 9.2 ns RMS.
  for (const sm of cal.perSm.filter((c) => c.samples >= 100)) {
    assert.ok(sm.residualRmsNs > 5 && sm.residualRmsNs < 14, `SM ${sm.sm} residual ${sm.residualRmsNs}`);
  }
  assert.ok(Math.abs(decoded.device.clocks.smClockRateHz! / H100_CLOCKS.smClockHz - 1) < 1e-3);
});

/** Error quantiles (start and end of every warp) on the absolute device time base. */
function errorQuantiles(truth: Trace, decoded: Trace, model: RawClockModel, keep: (row: number) => boolean = () => true) {
  const shift = Number(decoded.capture.originDeviceNs) - model.originDeviceNs;
  const row = new Int32Array(truth.warps.count);
  for (let i = 0; i < decoded.warps.count; i++) row[decoded.warps.customId[i] as number] = i;
  const errors: number[] = [];
  for (let t = 0; t < truth.warps.count; t++) {
    if (!keep(t)) continue;
    const d = row[t] as number;
    const ds = (decoded.warps.startNs[d] as number) + shift;
    const ts = truth.warps.startNs[t] as number;
    errors.push(Math.max(Math.abs(ds - ts), Math.abs(ds + (decoded.warps.durationNs[d] as number) - ts - (truth.warps.durationNs[t] as number))));
  }
  errors.sort((a, b) => a - b);
  const q = (p: number) => errors[Math.min(errors.length - 1, Math.floor(errors.length * p))] as number;
  return { median: q(0.5), p99: q(0.99), p999: q(0.999), max: q(1) };
}

test('late device-clock reads (never early) are found and left out', () => {
  // Seen on the H100: some reads of the device clock come back microseconds late.
  const truth = traceWithRowIds(120_000, 3);
  const model: RawClockModel = { ...H100_CLOCKS, lateReads: { fraction: 0.1, maxNs: 40_000 } };
  const decoded = roundTrip(truth, model);
  const late = decoded.capture.calibration.perSm.reduce((n, c) => n + c.lateSamples, 0);
  assert.ok(late > 0.08 * truth.warps.count, `${late} late reads found`);
  assert.equal(decoded.capture.calibration.alignedAcrossSms, true);
  assert.ok(worstErrorNs(truth, decoded, model) <= 2);
});

test("an SM's wake-up window, where every read returns one later instant, stays within bounds", () => {
  // Seen on the H100: warps ending in an SM's first ~20 µs all read the device clock at its end.
  const truth = traceWithRowIds(120_000, 3);
  const model: RawClockModel = { ...H100_CLOCKS, wakeUpNs: 20_000 };
  const decoded = roundTrip(truth, model);
  const sm = smIdPerWarp(truth.warps);
  const first = new Map<number, number>();
  for (let t = 0; t < truth.warps.count; t++) first.set(sm[t] as number, Math.min(first.get(sm[t] as number) ?? Infinity, truth.warps.startNs[t] as number));
  const inWindow = (t: number) => (truth.warps.startNs[t] as number) < (first.get(sm[t] as number) as number) + 25_000;
  const after = errorQuantiles(truth, decoded, model, (t) => !inWindow(t));
  const during = errorQuantiles(truth, decoded, model, inWindow);
  assert.ok(after.p99 <= 2 && after.max <= 16, `after the window: ${JSON.stringify(after)}`);
  // Inside it the samples only bound the truth from above: the SM's later line is carried back.
  assert.ok(during.median <= 16 && during.max <= 100, `inside the window: ${JSON.stringify(during)}`);
});

test('a boost-clock change mid-capture is found and each side gets its own line', () => {
  const truth = traceWithRowIds(120_000, 3);
  const model: RawClockModel = { ...H100_CLOCKS, rateChange: { atNs: 300_000, factor: 0.986 } };
  const decoded = roundTrip(truth, model);
  assert.equal(decoded.capture.calibration.alignedAcrossSms, true);
  const slopes = decoded.capture.calibration.perSm.filter((c) => c.fit === 'linear').map((c) => c.nsPerCycle);
  assert.ok(Math.max(...slopes) / Math.min(...slopes) > 1.01, 'both rates appear');
  const e = errorQuantiles(truth, decoded, model);
  // Warps that straddle the change point inherit a few ns of it.
  assert.ok(e.median <= 0.5 && e.p99 <= 8 && e.p999 <= 16, JSON.stringify(e));
});

test('draw timestamp bounds land on the same time base as the warps', () => {
  const truth = traceWithRowIds(20_000);
  const decoded = roundTrip(truth, H100_CLOCKS);
  for (const d of decoded.draws) {
    const t = truth.draws[d.index]!;
    // Timestamps are floored to 32 ns like the device clock.
    assert.ok(Math.abs(d.gpuBeginNs! - t.gpuBeginNs!) <= 32, `draw ${d.index} begin ${d.gpuBeginNs} vs ${t.gpuBeginNs}`);
  }
});

test('calibration survives 32-bit wraps of both clocks mid-capture', () => {
  const truth = traceWithRowIds(120_000, 8);
  // The device clock's low word wraps 2 µs into the capture; SM counters start near 2^32.
  const model = { ...H100_CLOCKS, originDeviceNs: 409_000 * 4294967296 - 2000, offsetSpreadCycles: 4294967296 };
  const decoded = roundTrip(truth, model);
  assert.ok(worstErrorNs(truth, decoded, model) <= 2);
});

test('SMs with only a few warps borrow the median slope and are still placed', () => {
  const dense = traceWithRowIds(20_000, 12);
  // Keep only 3 warps on every compute SM other than 0, 1, 48, 49.
  const sm = smIdPerWarp(dense.warps);
  const seen = new Map<number, number>();
  const keep: number[] = [];
  for (let i = 0; i < dense.warps.count; i++) {
    const s = sm[i] as number;
    const n = seen.get(s) ?? 0;
    if ([0, 1, 48, 49].includes(s) || n < 3) keep.push(i);
    seen.set(s, n + 1);
  }
  const w = dense.warps;
  const pick = <T extends { [k: number]: number }>(col: T) => Float64Array.from(keep, (i) => col[i] as number);
  const truth = buildTrace({
    ...dense,
    capture: { ...dense.capture, recordsKept: keep.length, recordsWritten: keep.length, bufferCapacity: keep.length },
    warps: {
      startNs: pick(w.startNs),
      endNs: Float64Array.from(keep, (i) => (w.startNs[i] as number) + (w.durationNs[i] as number)),
      sm: pick(sm),
      warpSlot: pick(w.warpSlot),
      stage: pick(w.stage),
      draw: pick(w.draw),
      customId: Float64Array.from(keep, (_, k) => k),
      activeMask: pick(w.activeMask),
    },
  });
  const decoded = roundTrip(truth, H100_CLOCKS);
  const sparse = decoded.capture.calibration.perSm.filter((c) => c.fit === 'offset-only');
  assert.ok(sparse.length > 100, `${sparse.length} SMs borrowed a slope`);
  // Three 32 ns-step samples pin an offset to well within half a step.
  assert.ok(worstErrorNs(truth, decoded, H100_CLOCKS) <= 16);
});

test('device clock only: times come straight from it, aligned, quantized to its step', () => {
  const truth = traceWithRowIds(10_000);
  const model = { ...H100_CLOCKS, smClock: false };
  const decoded = roundTrip(truth, model);
  assert.equal(decoded.capture.calibration.method, 'device-clock');
  assert.equal(decoded.capture.calibration.alignedAcrossSms, true);
  assert.equal(decoded.warps.smCycleStart, null);
  assert.ok(worstErrorNs(truth, decoded, model) <= 16.25, 'half a step (plus time quanta)');
});

test('SM clock only: per-SM rebase, durations right, flagged as not aligned', () => {
  const truth = traceWithRowIds(10_000);
  const decoded = roundTrip(truth, { ...H100_CLOCKS, deviceClock: false, rateSpread: 0 });
  const cal = decoded.capture.calibration;
  assert.equal(cal.method, 'sm-clock-rebased');
  assert.equal(cal.alignedAcrossSms, false);
  assert.match(cal.note, /NOT aligned/);
  const row = new Map<number, number>();
  for (let i = 0; i < decoded.warps.count; i++) row.set(decoded.warps.customId[i] as number, i);
  const sm = smIdPerWarp(decoded.warps);
  for (let t = 0; t < truth.warps.count; t += 97) {
    const d = row.get(t)!;
    assert.ok(Math.abs((decoded.warps.durationNs[d] as number) - (truth.warps.durationNs[t] as number)) <= 1.5);
    assert.ok(sm[d] !== undefined);
  }
  // Each SM's first warp sits at 0.
  const { offsets } = decoded.warps.smGroups;
  for (let g = 0; g + 1 < offsets.length; g++) assert.equal(decoded.warps.startNs[offsets[g] as number], 0);
});

test('dropped records are counted, never hidden', () => {
  const truth = traceWithRowIds(5000);
  const decoded = roundTrip(truth, { ...H100_CLOCKS, dropped: 1234 });
  assert.equal(decoded.capture.recordsKept, 5000);
  assert.equal(decoded.capture.recordsWritten, 6234);
  assert.equal(decoded.capture.bufferCapacity, 5000);
});

test('raw SM cycles are kept and match the clock model', () => {
  const truth = traceWithRowIds(20_000);
  const { raw, clocks } = rawCaptureOf(truth, H100_CLOCKS);
  const decoded = decodeWtraw(encodeWtraw(raw));
  const sm = smIdPerWarp(decoded.warps);
  for (let i = 0; i < decoded.warps.count; i += 53) {
    const rate = clocks.get(sm[i] as number)!.cyclesPerNs;
    const cycles = decoded.warps.smCycleDuration![i] as number;
    assert.ok(Math.abs(cycles / rate - (decoded.warps.durationNs[i] as number)) <= 2, `row ${i}`);
  }
});

test('SMs that only ran short dispatches take the chip clock rate of their moment, not one pooled among themselves', () => {
  // As on the H100: 128 SMs saw only 6-23 µs dispatches (their first ~20 µs of reads all late), four ran the graphics; the rate dropped between.
  const truth = shortDispatches();
  const model: RawClockModel = { ...H100_CLOCKS, smClockHz: 1.98e9, wakeUpNs: 20_000, lateReads: { fraction: 0.05, maxNs: 37_000 }, rateChange: { atNs: 18_000, factor: 0.986 } };
  const decoded = roundTrip(truth, model);
  const cal = decoded.capture.calibration;
  const rateAfter = model.smClockHz * 0.986;
  // Every segment of the second dispatch (all 132 SMs at one moment) uses the chip's rate then.
  const second = decoded.draws[2]!;
  const dispatchSegments = cal.perSm.filter((c) => c.toNs >= second.gpuBeginNs!);
  assert.deepEqual(new Set(dispatchSegments.map((c) => c.sm)).size, 132);
  for (const c of dispatchSegments) assert.ok(Math.abs(1e9 / c.nsPerCycle / rateAfter - 1) < 5e-4, `SM ${c.sm}: ${(1 / c.nsPerCycle).toFixed(4)} GHz, the chip ran ${(rateAfter / 1e9).toFixed(4)}`);
  // The reported rate is the one most warps ran at.
  assert.ok(Math.abs(decoded.device.clocks.smClockRateHz! / rateAfter - 1) < 5e-4, `${decoded.device.clocks.smClockRateHz} Hz`);
  // Warps after the rate change are where they ran (the first dispatch's reads were all late: only bounds).
  assert.ok(worstStartErrorNs(truth, decoded, model, (t) => (truth.warps.draw[t] as number) > 0) <= 16);
  // Durations are cycles at the chip's rate.
  const row = decodedRows(truth, decoded);
  for (let t = 0; t < truth.warps.count; t++) {
    if (truth.warps.draw[t] !== 2) continue;
    const d = row[t] as number;
    const cycles = decoded.warps.smCycleDuration![d] as number;
    const duration = decoded.warps.durationNs[d] as number;
    assert.ok(Math.abs(duration - (cycles / rateAfter) * 1e9) <= 1 + 1e-3 * duration, `warp ${t}: ${duration} ns for ${cycles} cycles`);
  }
  assert.ok(GRAPHICS_SMS.every((sm) => cal.perSm.some((c) => c.sm === sm && c.fit === 'linear')), 'the graphics SMs fit their own slopes');
});
