import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unpack } from 'msgpackr';
import {
  TraceFormatError,
  decodeTrace,
  decodeWtrace,
  encodeWtrace,
  synthesizeTrace,
  type Trace,
} from '../../shared-schema/index.js';
import { checkInvariants, traceWithRowIds } from './fixtures.js';

function assertSameTrace(a: Trace, b: Trace): void {
  assert.deepEqual(b.device, a.device);
  assert.deepEqual(b.capture, a.capture);
  assert.deepEqual(b.draws, a.draws);
  const wa = a.warps;
  const wb = b.warps;
  assert.equal(wb.count, wa.count);
  for (const key of ['startNs', 'durationNs', 'warpSlot', 'stage', 'draw', 'customId', 'activeMask'] as const) {
    assert.deepEqual(Array.from(wb[key]), Array.from(wa[key]), `column ${key}`);
  }
  assert.deepEqual(Array.from(wb.smGroups.sm), Array.from(wa.smGroups.sm));
  assert.deepEqual(Array.from(wb.smGroups.offsets), Array.from(wa.smGroups.offsets));
}

test('a synthetic trace survives encode → decode unchanged', () => {
  const trace = synthesizeTrace({ warps: 30_000, seed: 11 });
  const bytes = encodeWtrace(trace);
  const back = decodeWtrace(bytes);
  checkInvariants(back);
  assertSameTrace(trace, back);
  assert.deepEqual(decodeTrace(bytes).warps.startNs, back.warps.startNs);
});

test('.wtrace stays under 16 bytes per warp on H100-shaped data', () => {
  const trace = traceWithRowIds(100_000);
  const perWarp = encodeWtrace(trace).length / trace.warps.count;
  assert.ok(perWarp <= 16, `${perWarp.toFixed(2)} bytes per warp`);
});

test('times keep sub-ns precision far from the origin (no float32 loss)', () => {
  const base = synthesizeTrace({ warps: 2000, seed: 2 });
  const w = base.warps;
  // Shift everything 3 hours out: a float32 could not tell these ns apart.
  const offset = 3 * 3600e9 + 0.0625;
  const shifted = decodeWtrace(
    encodeWtrace({ ...base, warps: { ...w, startNs: w.startNs.map((s) => s + offset) } }),
  );
  for (let i = 0; i < w.count; i++) assert.equal(shifted.warps.startNs[i], (w.startNs[i] as number) + offset);
});

test('the body is plain MessagePack that msgpackr itself reads', () => {
  const trace = synthesizeTrace({ warps: 500, seed: 4 });
  const bytes = encodeWtrace(trace);
  assert.deepEqual(Array.from(bytes.subarray(0, 4)), [0x57, 0x54, 0x52, 0x43]);
  const body = unpack(bytes.subarray(8)) as { formatVersion: number; warps: { count: number }; device: { name: string } };
  assert.equal(body.formatVersion, 1);
  assert.equal(body.warps.count, 500);
  assert.equal(body.device.name, trace.device.name);
});

test('readers reject a newer major version with a typed error', () => {
  const bytes = encodeWtrace(synthesizeTrace({ warps: 10 }));
  new DataView(bytes.buffer).setUint32(4, 2, true);
  assert.throws(() => decodeWtrace(bytes), (e: unknown) => e instanceof TraceFormatError && e.code === 'unsupported-version' && e.field === 'header.version');
});

test('readers ignore unknown fields from newer writers', async () => {
  const { Packr } = await import('msgpackr');
  const trace = synthesizeTrace({ warps: 100, seed: 9 });
  const bytes = encodeWtrace(trace);
  const body = unpack(bytes.subarray(8)) as Record<string, unknown>;
  body['futureField'] = { anything: [1, 2, 3] };
  (body['device'] as Record<string, unknown>)['newDeviceFact'] = 'x';
  const packed = new Packr({ useRecords: false }).pack(body);
  const out = new Uint8Array(8 + packed.length);
  out.set(bytes.subarray(0, 8));
  out.set(packed, 8);
  assertSameTrace(trace, decodeWtrace(out));
});

test('a column shorter than the warp count is rejected, naming the column', () => {
  const trace = synthesizeTrace({ warps: 200, seed: 1 });
  const body = unpack(encodeWtrace(trace).subarray(8)) as { warps: { columns: Record<string, Uint8Array> } };
  body.warps.columns['stage'] = body.warps.columns['stage']!.subarray(0, 100);
  return import('msgpackr').then(({ Packr }) => {
    const packed = new Packr({ useRecords: false }).pack(body);
    const out = new Uint8Array(8 + packed.length);
    out.set([0x57, 0x54, 0x52, 0x43, 1, 0, 0, 0]);
    out.set(packed, 8);
    assert.throws(() => decodeWtrace(out), /warps\.columns\.stage: 100 bytes for 200 warps/);
  });
});

test('warps.lanes is checked whenever present, whichever mask column the file holds: a wrong value names the field', async () => {
  const { Packr } = await import('msgpackr');
  const withLanes = (bytes: Uint8Array, lanes: unknown): Uint8Array => {
    const body = unpack(bytes.subarray(8)) as { warps: Record<string, unknown> };
    if (lanes === undefined) delete body.warps['lanes'];
    else body.warps['lanes'] = lanes;
    const packed = new Packr({ useRecords: false }).pack(body);
    const out = new Uint8Array(8 + packed.length);
    out.set(bytes.subarray(0, 8));
    out.set(packed, 8);
    return out;
  };
  const columnsOf = (bytes: Uint8Array) => Object.keys((unpack(bytes.subarray(8)) as { warps: { columns: object } }).warps.columns);
  // Full warps: the inactive-lane varints; scattered lanes: raw mask bytes.
  const full = encodeWtrace(synthesizeTrace({ warps: 300, seed: 4 }));
  const scattered = traceWithRowIds(300);
  for (let i = 0; i < scattered.warps.count; i++) scattered.warps.activeMask[i] = (i * 2654435761) >>> 0 || 1;
  const raw = encodeWtrace(scattered);
  assert.ok(columnsOf(full).includes('inactiveMask'));
  assert.ok(columnsOf(raw).includes('activeMask'));
  for (const bytes of [full, raw]) {
    assert.equal(decodeWtrace(withLanes(bytes, 32)).warps.count, 300);
    // Files are always written with lanes; one without it still reads (the device says how wide the masks are).
    assert.equal(decodeWtrace(withLanes(bytes, undefined)).warps.count, 300);
    for (const lanes of [-1, 0, 17, 64, 128, Infinity, NaN, '32', null]) {
      assert.throws(
        () => decodeWtrace(withLanes(bytes, lanes)),
        (e: unknown) => e instanceof TraceFormatError && e.code === 'bad-value' && e.field === 'warps.lanes' && /^warps\.lanes: expected 32 for a 32-lane subgroup, got /.test(e.message),
        `lanes ${String(lanes)} in a file with ${columnsOf(bytes).join(', ')}`,
      );
    }
  }
});
