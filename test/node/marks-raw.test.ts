// Marks inside a warp (issue 23 part 2): mark records of a .wtraw placed on their warps, carried through .wtrace and JSON, refused when malformed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Packr, unpack } from 'msgpackr';
import {
  H100_CLOCKS,
  MARK_KIND_SHIFT,
  MARK_STAGE,
  MarkKind,
  MarkWord,
  PackedIds,
  RECORD_WORDS,
  RecordWord,
  TraceFormatError,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  packIds,
  rawCaptureOf,
  smIdPerWarp,
  splitMarks,
  synthesizeTrace,
  traceFromJson,
  traceToJson,
  wtrawToWtrace,
  type RawCapture,
  type Trace,
} from '../../shared-schema/index.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { ConvertPool } from '../../shared-schema/node/convert-pool.js';

const truth = synthesizeTrace({ warps: 2000, seed: 5, warpsPerDraw: 500 });
const base = rawCaptureOf(truth, { ...H100_CLOCKS, dropped: 3 }).raw;
const baseCount = base.records.length / RECORD_WORDS;

/** A mark on record `parent` at `fraction` of its clocks. */
interface MarkSpec {
  readonly parent: number;
  readonly fraction: number;
  readonly id: number;
  readonly sequence: number;
  readonly mask: number;
}

function markWords(parent: number, fraction: number, id: number, sequence: number, mask: number, warpStart?: number): number[] {
  const r = base.records;
  const at = parent * RECORD_WORDS;
  const start = r[at + RecordWord.CLOCK_START] as number;
  const cycles = ((r[at + RecordWord.CLOCK_END] as number) - start) >>> 0;
  const ids = r[at + RecordWord.PACKED_IDS] as number;
  const flags = ids >>> PackedIds.FLAGS_SHIFT;
  const words = new Array<number>(RECORD_WORDS).fill(0);
  words[MarkWord.CLOCK] = (start + Math.floor(fraction * cycles)) >>> 0;
  words[MarkWord.WARP_START] = warpStart ?? start;
  words[MarkWord.ID] = id;
  words[MarkWord.PACKED_IDS] = packIds(ids & PackedIds.SM_MASK, (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK, MARK_STAGE, flags);
  words[MarkWord.DRAW_ID] = r[at + RecordWord.DRAW_ID] as number;
  words[MarkWord.SEQUENCE] = sequence;
  words[MarkWord.ACTIVE_MASK_LO] = mask;
  return words;
}

/** The base dump with marks written before their warps' records (a warp's record is written at its end), and `extra` records at the end. */
function withMarks(specs: readonly MarkSpec[], extra: readonly number[][] = []): RawCapture {
  const before = new Map<number, number[][]>();
  for (const s of specs) before.set(s.parent, [...(before.get(s.parent) ?? []), markWords(s.parent, s.fraction, s.id, s.sequence, s.mask)]);
  const out: number[] = [];
  for (let i = 0; i < baseCount; i++) {
    for (const m of before.get(i) ?? []) out.push(...m);
    out.push(...base.records.subarray(i * RECORD_WORDS, (i + 1) * RECORD_WORDS));
  }
  for (const m of extra) out.push(...m);
  const added = specs.length + extra.length;
  return { ...base, records: Uint32Array.from(out), counter: base.counter + added, capacity: base.capacity + added };
}

const plain = decodeWtraw(encodeWtraw(base));
const smOf = smIdPerWarp(plain.warps);

/** The row of record i's warp in `plain`, found by every field, when only one row matches; else null. */
function uniqueRow(i: number): number | null {
  const r = base.records;
  const at = i * RECORD_WORDS;
  const ids = r[at + RecordWord.PACKED_IDS] as number;
  const cycles = ((r[at + RecordWord.CLOCK_END] as number) - (r[at + RecordWord.CLOCK_START] as number)) >>> 0;
  const w = plain.warps;
  const rows: number[] = [];
  for (let k = 0; k < w.count; k++) {
    if (
      smOf[k] === (ids & PackedIds.SM_MASK) &&
      w.warpSlot[k] === ((ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK) &&
      w.stage[k] === ((ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK) &&
      w.draw[k] === r[at + RecordWord.DRAW_ID] &&
      w.customId[k] === r[at + RecordWord.CUSTOM_ID] &&
      w.activeMask[k] === r[at + RecordWord.ACTIVE_MASK_LO] &&
      w.smCycleDuration![k] === cycles
    ) {
      rows.push(k);
    }
  }
  return rows.length === 1 ? (rows[0] as number) : null;
}

// Parents whose warp row is unique, so the test finds each mark's row on its own.
const parents: { record: number; row: number }[] = [];
for (let i = 3; i < baseCount && parents.length < 40; i += 47) {
  const row = uniqueRow(i);
  if (row !== null && (base.records[i * RECORD_WORDS + RecordWord.CLOCK_END]! - base.records[i * RECORD_WORDS + RecordWord.CLOCK_START]!) >>> 0 > 100) parents.push({ record: i, row });
}
const SPECS: MarkSpec[] = parents.flatMap(({ record }, k) => [
  // Written out of sequence order: the decoder sorts by sequence.
  { parent: record, fraction: 0.75, id: (MarkKind.AFTER_TRACE << MARK_KIND_SHIFT) | k, sequence: 1, mask: 0x0000ffff },
  { parent: record, fraction: 0.25, id: (MarkKind.BEFORE_TRACE << MARK_KIND_SHIFT) | k, sequence: 0, mask: 0xffffffff },
]);
/** Two orphans: a warp start no record has, and a draw that is not the warp's. */
const ORPHANS = [markWords(parents[0]!.record, 0.5, 7, 0, 1, 12345), markWords(parents[1]!.record, 0.5, 8, 0, 1).map((v, w) => (w === MarkWord.DRAW_ID ? (v + 1) % truth.draws.length : v))];
const marked = encodeWtraw(withMarks(SPECS, ORPHANS));

test('a dump without marks takes the path it took before: no copy, no marks key, the same bytes', () => {
  const words = new Uint32Array(base.records);
  const split = splitMarks(words, baseCount, { drawCount: truth.draws.length, smCount: null, warpsPerSm: null, subgroupSize: 32 });
  assert.equal(split.words, words);
  assert.equal(split.marks, null);
  assert.equal('marks' in plain, false);
  const file = wtrawToWtrace(encodeWtraw(base)).wtrace;
  assert.deepEqual(file, encodeWtrace(plain));
  assert.equal(new TextDecoder().decode(file).includes('marks'), false);
  assert.equal('marks' in traceToJson(plain), false);
});

test('marks land on their warps at their clocks, sorted by warp and sequence; orphans counted; the warps are those of the dump without marks', () => {
  const trace = decodeWtraw(marked);
  const m = trace.marks!;
  assert.equal(m.count, SPECS.length);
  assert.equal(m.orphans, 2);
  // The warps and capture summary are exactly those of the dump without marks: marks kept are neither warps nor dropped.
  // (The buffer held the marks too: its capacity is the one thing that differs.)
  assert.equal(trace.capture.bufferCapacity, plain.capture.bufferCapacity + SPECS.length + ORPHANS.length);
  assert.deepEqual(encodeWtrace({ ...trace, marks: null, capture: { ...trace.capture, bufferCapacity: plain.capture.bufferCapacity } }), encodeWtrace(plain));
  assert.equal(trace.capture.recordsWritten - trace.capture.recordsKept, 3);
  const expected = SPECS.map((s) => {
    const row = parents.find((p) => p.record === s.parent)!.row;
    const at = s.parent * RECORD_WORDS;
    const cycles = ((base.records[at + RecordWord.CLOCK_END] as number) - (base.records[at + RecordWord.CLOCK_START] as number)) >>> 0;
    return { row, sequence: s.sequence, id: s.id, mask: s.mask, ns: (Math.floor(s.fraction * cycles) / cycles) * (trace.warps.durationNs[row] as number) };
  }).sort((a, b) => a.row - b.row || a.sequence - b.sequence);
  expected.forEach((e, k) => {
    assert.equal(m.warp[k], e.row, `mark ${k}`);
    assert.equal(m.sequence[k], e.sequence);
    assert.equal(m.id[k], e.id);
    assert.equal(m.activeMask[k], e.mask);
    assert.ok(Math.abs((m.offsetNs[k] as number) - e.ns) <= 1 / 16, `mark ${k}: ${m.offsetNs[k]} vs ${e.ns}`);
  });
  assert.equal(m.activeMaskHi, null);
});

function roundTrips(trace: Trace): void {
  const file = encodeWtrace(trace);
  const back = decodeWtrace(file);
  assert.deepEqual(back.marks, trace.marks);
  assert.deepEqual(encodeWtrace(back), file);
  const json = traceToJson(trace);
  const text = new TextDecoder().decode(Buffer.concat([...traceJsonChunks(trace, 4096)]));
  assert.equal(text, JSON.stringify(json));
  assert.deepEqual(traceFromJson(text).marks, trace.marks);
}

test('marks survive .wtrace and JSON, and the raw dump converts to the bytes of its Trace (one thread and a pool)', async () => {
  const trace = decodeWtraw(marked);
  roundTrips(trace);
  assert.deepEqual(wtrawToWtrace(marked).wtrace, encodeWtrace(trace));
  const pool = await ConvertPool.create(2);
  try {
    assert.deepEqual((await pool.wtrawToWtrace(marked)).wtrace, encodeWtrace(trace));
    assert.deepEqual((await pool.decodeWtraw(marked)).marks, trace.marks);
  } finally {
    await pool.destroy();
  }
});

test('JSON marks name the file rows: warps out of canonical order are mapped to the trace rows', () => {
  const trace = decodeWtraw(marked);
  const json = traceToJson(trace) as { warps: Record<string, unknown[]>; marks: { warp: number[] } };
  const n = trace.warps.count;
  // The first SM's rows moved to the end (each SM's rows keep their order); the marks follow their warps.
  const first = trace.warps.smGroups.offsets[1] as number;
  for (const key of Object.keys(json.warps)) json.warps[key] = [...(json.warps[key] as unknown[]).slice(first), ...(json.warps[key] as unknown[]).slice(0, first)];
  json.marks.warp = json.marks.warp.map((r) => (r < first ? r + n - first : r - first));
  assert.deepEqual(traceFromJson(json).marks, trace.marks);
});

function expectError(run: () => unknown, code: string, field: RegExp): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.field, field, e.message);
    return true;
  });
}

test('malformed mark records are refused, naming the record by its index in the file', () => {
  const mark = markWords(parents[0]!.record, 0.5, 1, 0, 1);
  const at = baseCount; // the extra record's index
  const bad = (change: (w: number[]) => void) => {
    const words = [...mark];
    change(words);
    return encodeWtraw(withMarks([], [words]));
  };
  expectError(() => decodeWtraw(bad((w) => (w[MarkWord.DRAW_ID] = truth.draws.length))), 'bad-value', new RegExp(`^records\\[${at}\\]\\.drawId$`));
  expectError(() => decodeWtraw(bad((w) => (w[MarkWord.SEQUENCE] = 16))), 'bad-value', new RegExp(`^records\\[${at}\\]\\.sequence$`));
  expectError(() => decodeWtraw(bad((w) => (w[MarkWord.ACTIVE_MASK_LO] = 0))), 'bad-value', /\.activeMask$/);
  expectError(() => decodeWtraw(bad((w) => (w[MarkWord.ACTIVE_MASK_HI] = 1))), 'bad-value', /\.activeMask$/);
  expectError(() => decodeWtraw(bad((w) => (w[MarkWord.PACKED_IDS] = packIds(0, 0, MARK_STAGE, 1)))), 'bad-value', /\.flags$/);
  const smCount = truth.device.smCount!;
  expectError(() => decodeWtraw(bad((w) => (w[MarkWord.PACKED_IDS] = packIds(smCount, 0, MARK_STAGE, 3)))), 'bad-value', /\.sm$/);
});

/** The .wtrace of `trace` with its `marks` value changed. */
function withStoredMarks(trace: Trace, change: (marks: Record<string, unknown>) => void): Uint8Array {
  const file = encodeWtrace(trace);
  const body = unpack(file.subarray(8)) as Record<string, unknown>;
  change(body['marks'] as Record<string, unknown>);
  const packed = new Packr({ useRecords: false, variableMapSize: true }).pack(body);
  return Uint8Array.from([...file.subarray(0, 8), ...packed]);
}

test('a .wtrace whose marks are damaged is refused, naming the field; a trace with bad marks is not written', () => {
  const trace = decodeWtraw(marked);
  // Repacked unchanged, the file reads.
  assert.deepEqual(decodeWtrace(withStoredMarks(trace, () => {})).marks, trace.marks);
  expectError(() => decodeWtrace(withStoredMarks(trace, (m) => (m['count'] = (m['count'] as number) + 1))), 'size-mismatch', /^marks\.sequence$/);
  expectError(() => decodeWtrace(withStoredMarks(trace, (m) => (m['warp'] = Uint8Array.from([...(m['warp'] as Uint8Array).subarray(0, -1), 0x7f])))), 'bad-value', /^marks\.warp\[\d+\]$/);
  expectError(() => decodeWtrace(withStoredMarks(trace, (m) => (m['sequence'] = (m['sequence'] as Uint8Array).map((_, k) => (k % 2 === 0 ? 1 : 0))))), 'bad-value', /^marks\.warp\[1\]$/);
  expectError(() => decodeWtrace(withStoredMarks(trace, (m) => (m['sequence'] = (m['sequence'] as Uint8Array).map(() => 16)))), 'bad-value', /^marks\.sequence\[0\]$/);
  expectError(() => decodeWtrace(withStoredMarks(trace, (m) => (m['offset'] = Uint8Array.from([0xff, 0xff, 0xff, 0x7f, ...(m['offset'] as Uint8Array).subarray(1)])))), 'bad-value', /^marks\.offset\[0\]$/);
  expectError(() => decodeWtrace(withStoredMarks(trace, (m) => (m['inactiveMask'] = (m['inactiveMask'] as Uint8Array).map(() => 0)).fill(0xff))), 'bad-encoding', /^marks\.inactiveMask$/);
  expectError(() => decodeWtrace(withStoredMarks(trace, (m) => (m['id'] = 'x'))), 'bad-type', /^marks\.id$/);
  const m = trace.marks!;
  const bigWarp = Uint32Array.from(m.warp);
  bigWarp[m.count - 1] = trace.warps.count;
  expectError(() => encodeWtrace({ ...trace, marks: { ...m, warp: bigWarp } }), 'bad-value', /^marks\.warp\[\d+\]$/);
  const late = Float32Array.from(m.offsetNs);
  late[0] = (trace.warps.durationNs[m.warp[0]!] as number) + 1;
  expectError(() => traceToJson({ ...trace, marks: { ...m, offsetNs: late } }), 'bad-value', /^marks\.offsetNs\[0\]$/);
});
