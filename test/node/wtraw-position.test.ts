// Screen positions in raw GPU dumps: records flagged POSITION carry the word
// in record word 3 (subgroups of at most 32 lanes), draws carry their target
// in the metadata; one thread and a pool decode them alike, and bad records
// are refused naming the field.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  NO_POSITION,
  PackedIds,
  RECORD_WORDS,
  RecordFlag,
  RecordWord,
  TraceFormatError,
  buildTrace,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  packPosition,
  rawCaptureOf,
  synthesizeTrace,
  wtrawToWtrace,
  type RawCapture,
  type Trace,
} from '../../shared-schema/index.js';
import { ConvertPool } from '../../shared-schema/node/convert-pool.js';
import { checkInvariants } from './fixtures.js';

let pool: ConvertPool;
before(async () => {
  pool = await ConvertPool.create(3);
});
after(async () => {
  await pool.destroy();
});

/** A synthetic screen trace whose custom id is the row's index (rows are matched after decoding re-sorts them). */
function screenTrace(warps: number): Trace {
  const t = synthesizeTrace({ warps, seed: 21, warpsPerDraw: 500, positions: true });
  const w = t.warps;
  const sm = new Uint16Array(w.count);
  for (let g = 0; g < w.smGroups.sm.length; g++) sm.fill(w.smGroups.sm[g]!, w.smGroups.offsets[g], w.smGroups.offsets[g + 1]);
  return buildTrace({
    device: t.device,
    capture: t.capture,
    draws: t.draws,
    warps: {
      startNs: w.startNs,
      endNs: Float64Array.from(w.startNs, (s, i) => s + w.durationNs[i]!),
      sm,
      warpSlot: w.warpSlot,
      stage: w.stage,
      draw: w.draw,
      customId: Uint32Array.from({ length: w.count }, (_, i) => i),
      activeMask: w.activeMask,
      position: w.position,
    },
  });
}

const truth = screenTrace(30_000);
const capture = rawCaptureOf(truth, H100_CLOCKS).raw;
const raw = encodeWtraw(capture);

function positionsById(t: Trace): number[] {
  const out: number[] = [];
  for (let i = 0; i < t.warps.count; i++) out[t.warps.customId[i]!] = t.warps.position === null ? NO_POSITION : t.warps.position[i]!;
  return out;
}

test('flagged records decode to their warps\' positions, others to NO_POSITION; draws keep their targets', () => {
  const decoded = decodeWtraw(raw);
  checkInvariants(decoded);
  assert.deepEqual(positionsById(decoded), positionsById(truth));
  assert.deepEqual(decoded.draws.map((d) => d.target), truth.draws.map((d) => d.target));
  const flagged = Array.from({ length: capture.records.length / RECORD_WORDS }, (_, i) => capture.records[i * RECORD_WORDS + RecordWord.PACKED_IDS]! >>> PackedIds.FLAGS_SHIFT).filter((f) => (f & RecordFlag.POSITION) !== 0).length;
  assert.equal(flagged, truth.warps.position!.filter((p) => p !== NO_POSITION).length, 'one flagged record per positioned warp');
});

test('a raw dump with positions converts to the same .wtrace bytes on one thread, straight to the file, and on three', async () => {
  const expected = encodeWtrace(decodeWtraw(raw));
  assert.equal(Buffer.compare(Buffer.from(wtrawToWtrace(raw).wtrace), Buffer.from(expected)), 0);
  const { wtrace } = await pool.wtrawToWtrace(raw);
  assert.equal(Buffer.compare(Buffer.from(wtrace), Buffer.from(expected)), 0);
  assert.deepEqual(positionsById(decodeWtrace(wtrace)), positionsById(truth));
  const pooled = await pool.decodeWtraw(raw);
  assert.deepEqual(positionsById(pooled), positionsById(truth));
});

/** The capture with record `i`'s word 3 and flags changed. */
function withRecord(base: RawCapture, i: number, word3: number, metadata: object = base.metadata): Uint8Array {
  const records = base.records.slice();
  records[i * RECORD_WORDS + RecordWord.POSITION] = word3;
  records[i * RECORD_WORDS + RecordWord.PACKED_IDS] = (records[i * RECORD_WORDS + RecordWord.PACKED_IDS]! | (RecordFlag.POSITION << PackedIds.FLAGS_SHIFT)) >>> 0;
  return encodeWtraw({ ...base, records, metadata });
}

test('bad position records are refused naming the record; a flagged NO_POSITION is no position', async () => {
  const plain = rawCaptureOf(synthesizeTrace({ warps: 3000, seed: 4 }), H100_CLOCKS).raw;
  const named = (field: string) => (e: unknown) => e instanceof TraceFormatError && e.field === field;
  // x0 = 8191 outside NO_POSITION.
  const offScreen = withRecord(plain, 17, packPosition(0, 5, 1, 6) | 0x1fff);
  assert.throws(() => decodeWtraw(offScreen), named('records[17].position'));
  await assert.rejects(pool.wtrawToWtrace(offScreen), named('records[17].position'));
  // The flag where word 3 holds lanes 32..63.
  const meta = plain.metadata as { device: object };
  const wide = withRecord(plain, 5, 0, { ...meta, device: { ...meta.device, subgroupSize: 64 } });
  assert.throws(() => decodeWtraw(wide), (e: unknown) => named('records[5].position')(e) && /64-lane/.test((e as Error).message));
  // Flagged, but the shader found no pixel (a lane past 8190): the trace has no positions at all.
  assert.equal(decodeWtraw(withRecord(plain, 9, NO_POSITION)).warps.position, null);
  const one = decodeWtraw(withRecord(plain, 9, packPosition(40, 30, 47, 33)));
  assert.deepEqual(Array.from(one.warps.position!).filter((p) => p !== NO_POSITION), [packPosition(40, 30, 47, 33)]);
});

test('a draw target in the metadata is checked like the model\'s', () => {
  const meta = capture.metadata as { draws: object[] };
  const bad = (target: unknown) => encodeWtraw({ ...capture, metadata: { ...meta, draws: meta.draws.map((d, i) => (i === 2 ? { ...d, target } : d)) } });
  assert.throws(() => decodeWtraw(bad({ width: 0, height: 10 })), (e: unknown) => e instanceof TraceFormatError && e.field === 'metadata.draws[2].target.width');
  assert.throws(() => decodeWtraw(bad({ width: 10 })), (e: unknown) => e instanceof TraceFormatError && e.field === 'metadata.draws[2].target.height');
  assert.deepEqual(decodeWtraw(bad(null)).draws[2]!.target, null);
});
