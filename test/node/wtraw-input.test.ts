// Raw GPU dumps are untrusted: every inconsistency is a TraceFormatError naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  RECORD_WORDS,
  RecordWord,
  TraceFormatError,
  WtrawHeaderWord,
  decodeWtraw,
  encodeWtraw,
  rawCaptureOf,
  type RawCapture,
} from '../../shared-schema/index.js';
import { traceWithRowIds } from './fixtures.js';

const base = rawCaptureOf(traceWithRowIds(6000), H100_CLOCKS).raw;

function expectError(bytes: Uint8Array, code: string, field: RegExp): void {
  assert.throws(
    () => decodeWtraw(bytes),
    (e: unknown) => {
      assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
      assert.equal(e.code, code, e.message);
      assert.match(e.field, field, e.message);
      return true;
    },
  );
}

function withHeaderWord(word: number, value: number): Uint8Array {
  const bytes = encodeWtraw(base);
  new DataView(bytes.buffer).setUint32(word * 4, value, true);
  return bytes;
}

function withRaw(change: Partial<RawCapture>): Uint8Array {
  return encodeWtraw({ ...base, ...change });
}

test('a valid dump decodes', () => {
  assert.equal(decodeWtraw(encodeWtraw(base)).warps.count, 6000);
  assert.ok(base.timestamps!.length >= 3);
});

test('header problems are caught before anything is allocated', () => {
  expectError(encodeWtraw(base).subarray(0, 40), 'truncated', /^header$/);
  expectError(withHeaderWord(WtrawHeaderWord.MAGIC, 0x12345678), 'bad-magic', /^header\.magic$/);
  expectError(withHeaderWord(WtrawHeaderWord.VERSION, 9), 'unsupported-version', /^header\.version$/);
  expectError(withHeaderWord(WtrawHeaderWord.RECORD_BYTES, 48), 'bad-value', /^header\.recordBytes$/);
  expectError(withHeaderWord(WtrawHeaderWord.RECORD_COUNT, 4_000_000_000), 'too-large', /^header\.recordCount$/);
  expectError(withHeaderWord(WtrawHeaderWord.RECORD_COUNT, 5999), 'bad-value', /^header\.recordCount$/);
  expectError(withHeaderWord(WtrawHeaderWord.METADATA_BYTES, 0x7fffffff), 'too-large', /^header\.metadataBytes$/);
  expectError(withHeaderWord(WtrawHeaderWord.TIMESTAMP_COUNT, 5000), 'truncated', /^file$/);
  expectError(withHeaderWord(WtrawHeaderWord.TIMESTAMP_COUNT, 1), 'size-mismatch', /^file$/);
  expectError(encodeWtraw(base).subarray(0, encodeWtraw(base).length - 1), 'truncated', /^file$/);
});

test('metadata problems name the metadata field', () => {
  expectError(withRaw({ metadata: { ...base.metadata, draws: 'none' } }), 'bad-type', /^metadata\.draws$/);
  const metadata = base.metadata as { device: Record<string, unknown> };
  expectError(withRaw({ metadata: { ...metadata, device: { ...metadata.device, subgroupSize: 0 } } }), 'bad-value', /^metadata\.device\.subgroupSize$/);
  expectError(withRaw({ metadata: { ...metadata, device: { ...metadata.device, timestampPeriodNs: -1 } } }), 'bad-value', /^metadata\.device\.timestampPeriodNs$/);
  expectError(withRaw({ timestamps: base.timestamps!.slice(1) }), 'size-mismatch', /^header\.timestampCount$/);
});

test('record problems name the record', () => {
  const records = base.records.slice();
  records[7 * RECORD_WORDS + RecordWord.DRAW_ID] = 999;
  expectError(withRaw({ records }), 'bad-value', /^records\[7\]\.drawId$/);
  const stages = base.records.slice();
  stages[3 * RECORD_WORDS + RecordWord.PACKED_IDS] = (stages[3 * RECORD_WORDS + RecordWord.PACKED_IDS]! & ~(0xf << 24)) | (15 << 24);
  // Stage 15 is a mark (mark-layout.ts): this warp record now reads as one, and its word 6 (a custom id) is no mark sequence.
  expectError(withRaw({ records: stages }), 'bad-value', /^records\[3\]\.sequence$/);
  const flags = base.records.slice();
  flags[5 * RECORD_WORDS + RecordWord.PACKED_IDS] = flags[5 * RECORD_WORDS + RecordWord.PACKED_IDS]! & 0x0fffffff;
  expectError(withRaw({ records: flags }), 'bad-value', /^records\[5\]\.flags$/);
  const masks = base.records.slice();
  masks[9 * RECORD_WORDS + RecordWord.ACTIVE_MASK_LO] = 0;
  expectError(withRaw({ records: masks }), 'bad-value', /^records\[9\]\.activeMask$/);
  const sms = base.records.slice();
  sms[2 * RECORD_WORDS + RecordWord.PACKED_IDS] = (sms[2 * RECORD_WORDS + RecordWord.PACKED_IDS]! & ~0xffff) | 500;
  expectError(withRaw({ records: sms }), 'bad-value', /^records\[2\]\.sm$/);
  const slots = base.records.slice();
  slots[4 * RECORD_WORDS + RecordWord.PACKED_IDS] = (slots[4 * RECORD_WORDS + RecordWord.PACKED_IDS]! & ~(0xff << 16)) | (200 << 16);
  expectError(withRaw({ records: slots }), 'bad-value', /^records\[4\]\.warpSlot$/);
});
