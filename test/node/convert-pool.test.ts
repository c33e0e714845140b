// The thread pool converts raw dumps to exactly the bytes the one-thread path
// writes, whatever the thread count, and bad records are reported the same way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  RECORD_WORDS,
  RecordWord,
  TraceFormatError,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  rawCaptureOf,
  synthesizeTrace,
  wtrawToWtrace,
} from '../../shared-schema/index.js';
import { ConvertPool } from '../../shared-schema/node/convert-pool.js';
import { shortDispatches } from './clock-scenarios.js';
import { checkInvariants, traceWithRowIds } from './fixtures.js';

let pool: ConvertPool;
before(async () => {
  pool = await ConvertPool.create(3);
});
after(async () => {
  await pool.destroy();
});

function shared(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

test('three threads write the same .wtrace bytes as one, on an H100-shaped capture with late reads and a boost change', async () => {
  const truth = synthesizeTrace({ warps: 60_000, seed: 7 });
  const model = { ...H100_CLOCKS, lateReads: { fraction: 0.05, maxNs: 20_000 }, rateChange: { atNs: 300_000, factor: 0.986 } };
  const raw = encodeWtraw(rawCaptureOf(truth, model).raw);
  const expected = encodeWtrace(decodeWtraw(raw));
  // Plain and shared input: the pool copies the first into shared memory.
  for (const input of [raw, shared(raw)]) {
    const { wtrace, header, warpCount } = await pool.wtrawToWtrace(input);
    assert.equal(Buffer.compare(Buffer.from(wtrace), Buffer.from(expected)), 0);
    const trace = decodeWtrace(wtrace);
    checkInvariants(trace);
    assert.equal(warpCount, trace.warps.count);
    assert.deepEqual(header.capture, trace.capture);
  }
  // One thread, straight to the file, writes them too.
  assert.equal(Buffer.compare(Buffer.from(wtrawToWtrace(raw).wtrace), Buffer.from(expected)), 0);
});

test('without both clocks (device clock only, SM clock only) the pool still writes the one-thread bytes', async () => {
  for (const model of [{ ...H100_CLOCKS, smClock: false }, { ...H100_CLOCKS, deviceClock: false }]) {
    const raw = encodeWtraw(rawCaptureOf(traceWithRowIds(7000), model).raw);
    const expected = encodeWtrace(decodeWtraw(raw));
    const { header, wtrace } = await pool.wtrawToWtrace(raw);
    const method = header.capture.calibration.method;
    assert.notEqual(method, 'per-sm-fit');
    assert.equal(Buffer.compare(Buffer.from(wtrace), Buffer.from(expected)), 0, method);
    assert.equal(Buffer.compare(Buffer.from(wtrawToWtrace(raw).wtrace), Buffer.from(expected)), 0, `${method}, one thread`);
  }
});

test('the pooled Trace matches the one-thread Trace column by column, with dropped records counted', async () => {
  const raw = encodeWtraw(rawCaptureOf(traceWithRowIds(5000), { ...H100_CLOCKS, dropped: 12 }).raw);
  const one = decodeWtraw(raw);
  const many = await pool.decodeWtraw(raw);
  assert.deepEqual(many.capture, one.capture);
  assert.equal(many.capture.recordsWritten - many.capture.recordsKept, 12);
  for (const key of ['startNs', 'durationNs', 'warpSlot', 'stage', 'draw', 'customId', 'activeMask', 'smCycleStart', 'smCycleDuration'] as const) {
    assert.deepEqual(Array.from(many.warps[key] ?? []), Array.from(one.warps[key] ?? []), key);
  }
});

test('a bad record found by a worker thread is the same typed error, naming the record', async () => {
  const capture = rawCaptureOf(traceWithRowIds(9000), H100_CLOCKS).raw;
  const records = capture.records.slice();
  // In the last thread's range, so the error crosses a thread boundary.
  records[8500 * RECORD_WORDS + RecordWord.DRAW_ID] = 1_000_000;
  const raw = encodeWtraw({ ...capture, records });
  await assert.rejects(pool.wtrawToWtrace(raw), (error: unknown) => {
    assert.ok(error instanceof TraceFormatError);
    assert.equal(error.field, 'records[8500].drawId');
    assert.equal(error.code, 'bad-value');
    return true;
  });
  // The pool still works afterwards.
  assert.equal((await pool.decodeWtraw(encodeWtraw(capture))).warps.count, 9000);
});

test('the quality checks and the draw check report the same on three threads as on one: short dispatches, a gated clock, timestamps 197 ms off', async () => {
  const scenarios = [
    encodeWtraw(rawCaptureOf(shortDispatches(), { ...H100_CLOCKS, smClockHz: 1.98e9, wakeUpNs: 20_000, lateReads: { fraction: 0.05, maxNs: 37_000 }, rateChange: { atNs: 18_000, factor: 0.986 } }).raw),
    encodeWtraw(rawCaptureOf(synthesizeTrace({ warps: 40_000, seed: 3 }), { ...H100_CLOCKS, gatedSms: [5, 6, 7], timestampSkewNs: 197e6 }).raw),
  ];
  for (const raw of scenarios) {
    const one = wtrawToWtrace(raw);
    const { wtrace, header } = await pool.wtrawToWtrace(raw);
    assert.deepEqual(header.capture.calibration, one.header.capture.calibration);
    assert.ok(header.capture.calibration.quality!.crossCheck.checks > 0 && header.capture.calibration.drawBounds!.checked > 0);
    assert.equal(Buffer.compare(Buffer.from(wtrace), Buffer.from(one.wtrace)), 0);
  }
});

test('a backwards SM clock found on a worker thread is the same refusal as on one', async () => {
  const raw = encodeWtraw(rawCaptureOf(traceWithRowIds(9000), { ...H100_CLOCKS, backwardsSms: [1] }).raw);
  assert.throws(() => wtrawToWtrace(raw), /SM 1's clock runs backwards/);
  await assert.rejects(pool.wtrawToWtrace(raw), (error: unknown) => error instanceof TraceFormatError && error.field === 'records' && /SM 1's clock runs backwards/.test(error.message));
});
