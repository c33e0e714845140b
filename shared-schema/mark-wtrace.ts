/**
 * Marks in a .wtrace body (README "`.wtrace`": the `marks` key, written only
 * when a trace has marks) and in the JSON import format (the same columns as
 * plain arrays). Both readers end in checkMarkColumns: one set of checks for
 * untrusted input, whichever format it came in.
 */
import { laneMasks } from './columns.js';
import { MAX_WARPS, describeValue, fail } from './errors.js';
import { type Obj, readArray, readInteger, readObject } from './fields.js';
import { MAX_MARKS } from './mark-layout.js';
import type { MarkColumns } from './mark-model.js';
import { TICKS_PER_NS, type WarpColumns } from './model.js';
import { sortedOrder } from './sort.js';
import { putDelta32, putU32, putUint } from './varint-write.js';
import { ByteReader } from './varint.js';

/** Marks a file may hold: each is a record of the trace buffer, as a warp is. */
export const MAX_MARK_COUNT = MAX_WARPS;

/** Offset ticks of a mark (the file stores ticks, as it stores warp times). */
function offsetTicks(offsetNs: number): number {
  return Math.round(offsetNs * TICKS_PER_NS);
}

/**
 * The marks as the file stores them (msgpack-ready): warp rows as LEB128
 * deltas from the previous mark's (sorted, so never negative), ids as zigzag
 * deltas, sequences one byte each, offsets as LEB128 ticks, live lanes as
 * LEB128 of the inactive ones (a full warp costs one byte, as in the warps'
 * inactiveMask column); lanes 32..63 only for subgroups wider than 32.
 */
export function storedMarks(marks: MarkColumns, subgroupSize: number): object {
  const n = marks.count;
  const { lo, hi } = laneMasks(subgroupSize);
  const column = (bytesPer: number, put: (b: Uint8Array, p: number, k: number) => number): Uint8Array => {
    const out = new Uint8Array(n * bytesPer);
    let p = 0;
    for (let k = 0; k < n; k++) p = put(out, p, k);
    return out.slice(0, p);
  };
  const stored: Record<string, unknown> = {
    count: n,
    orphans: marks.orphans,
    warp: column(5, (b, p, k) => putU32(b, p, (marks.warp[k] as number) - (k === 0 ? 0 : (marks.warp[k - 1] as number)))),
    id: column(5, (b, p, k) => putDelta32(b, p, k === 0 ? 0 : (marks.id[k - 1] as number), marks.id[k] as number)),
    sequence: marks.sequence.slice(0, n),
    offset: column(8, (b, p, k) => putUint(b, p, offsetTicks(marks.offsetNs[k] as number))),
    inactiveMask: column(5, (b, p, k) => putU32(b, p, ~(marks.activeMask[k] as number) & lo)),
  };
  if (hi !== 0) {
    const maskHi = marks.activeMaskHi;
    stored['inactiveMaskHi'] = column(5, (b, p, k) => putU32(b, p, ~(maskHi === null ? 0 : (maskHi[k] as number)) & hi));
  }
  return stored;
}

function bytesOf(o: Obj, key: string, count: number, maxPerValue: number): Uint8Array {
  const v = o[key];
  const field = `marks.${key}`;
  if (!(v instanceof Uint8Array)) fail('bad-type', field, `expected binary data, got ${describeValue(v)}`);
  // Sizes before anything is allocated: each value takes 1 to maxPerValue bytes.
  if (v.length < count || v.length > count * maxPerValue) fail('size-mismatch', field, `${v.length} bytes cannot hold exactly ${count} values`);
  return v;
}

function expectEnd(r: ByteReader, field: string): void {
  if (!r.atEnd) fail('size-mismatch', field, `${r.remaining} bytes left after the last value`);
}

/** A stored `marks` value read back against the trace's warps, every field checked. */
export function readMarks(value: unknown, warps: WarpColumns, subgroupSize: number): MarkColumns {
  const o = readObject(value, 'marks');
  const count = readInteger(o, 'count', 'marks', 0, MAX_MARK_COUNT);
  const orphans = readInteger(o, 'orphans', 'marks', 0, MAX_MARK_COUNT);
  const { lo, hi } = laneMasks(subgroupSize);
  const wide = hi !== 0;
  const warpBytes = bytesOf(o, 'warp', count, 5);
  const idBytes = bytesOf(o, 'id', count, 5);
  const offsetBytes = bytesOf(o, 'offset', count, 8);
  const maskBytes = bytesOf(o, 'inactiveMask', count, 5);
  const maskHiBytes = wide ? bytesOf(o, 'inactiveMaskHi', count, 5) : null;
  if (!wide && o['inactiveMaskHi'] !== undefined) fail('bad-value', 'marks.inactiveMaskHi', `a ${subgroupSize}-lane subgroup has no lanes 32..63`);
  const sequence = o['sequence'];
  if (!(sequence instanceof Uint8Array)) fail('bad-type', 'marks.sequence', `expected binary data, got ${describeValue(sequence)}`);
  if (sequence.length !== count) fail('size-mismatch', 'marks.sequence', `${sequence.length} bytes for ${count} marks`);
  const out = {
    count,
    warp: new Uint32Array(count),
    id: new Uint32Array(count),
    sequence: sequence.slice(),
    offsetNs: new Float32Array(count),
    activeMask: new Uint32Array(count),
    activeMaskHi: wide ? new Uint32Array(count) : null,
    orphans,
  };
  const warp = new ByteReader(warpBytes, 'marks.warp');
  const id = new ByteReader(idBytes, 'marks.id');
  const offset = new ByteReader(offsetBytes, 'marks.offset');
  const mask = new ByteReader(maskBytes, 'marks.inactiveMask');
  const maskHi = maskHiBytes === null ? null : new ByteReader(maskHiBytes, 'marks.inactiveMaskHi');
  let row = 0;
  let lastId = 0;
  for (let k = 0; k < count; k++) {
    row += warp.u32();
    // Checked before the next delta: the sum stays a small integer.
    if (row >= warps.count) fail('bad-value', `marks.warp[${k}]`, `warp ${row}, but the trace holds ${warps.count}`);
    out.warp[k] = row;
    lastId = id.delta32(lastId);
    out.id[k] = lastId;
    const ticks = offset.uint();
    if (ticks > offsetTicks(warps.durationNs[row] as number) + 1) fail('bad-value', `marks.offset[${k}]`, `${ticks / TICKS_PER_NS} ns after the start of warp ${row}, which lasts ${warps.durationNs[row]} ns`);
    out.offsetNs[k] = ticks / TICKS_PER_NS;
    out.activeMask[k] = ~mask.u32() & lo;
    if (maskHi !== null && out.activeMaskHi !== null) out.activeMaskHi[k] = ~maskHi.u32() & hi;
  }
  expectEnd(warp, 'marks.warp');
  expectEnd(id, 'marks.id');
  expectEnd(offset, 'marks.offset');
  expectEnd(mask, 'marks.inactiveMask');
  if (maskHi !== null) expectEnd(maskHi, 'marks.inactiveMaskHi');
  checkMarkColumns(out, warps, subgroupSize);
  return out;
}

/**
 * Every rule of MarkColumns (mark-model.ts) against the trace's warps: rows
 * in range and sorted by warp, then sequence; sequences below MAX_MARKS;
 * offsets within the warp (a tick of slack: durations are float32); live
 * lanes within the subgroup, at least one.
 */
export function checkMarkColumns(marks: MarkColumns, warps: WarpColumns, subgroupSize: number): void {
  const { lo, hi } = laneMasks(subgroupSize);
  const n = marks.count;
  if (!Number.isInteger(n) || n < 0 || n > MAX_MARK_COUNT) fail('bad-value', 'marks.count', `expected a count up to ${MAX_MARK_COUNT}, got ${describeValue(n)}`);
  if (!Number.isInteger(marks.orphans) || marks.orphans < 0 || marks.orphans > MAX_MARK_COUNT) fail('bad-value', 'marks.orphans', `expected a count, got ${describeValue(marks.orphans)}`);
  for (const [name, column] of [
    ['warp', marks.warp],
    ['id', marks.id],
    ['sequence', marks.sequence],
    ['offsetNs', marks.offsetNs],
    ['activeMask', marks.activeMask],
  ] as const) {
    if (column.length < n) fail('size-mismatch', `marks.${name}`, `${column.length} rows for ${n} marks`);
  }
  if ((hi !== 0) !== (marks.activeMaskHi !== null)) fail('bad-value', 'marks.activeMaskHi', `expected ${hi !== 0 ? 'a column' : 'none'} for a ${subgroupSize}-lane subgroup`);
  if (marks.activeMaskHi !== null && marks.activeMaskHi.length < n) fail('size-mismatch', 'marks.activeMaskHi', `${marks.activeMaskHi.length} rows for ${n} marks`);
  for (let k = 0; k < n; k++) {
    const row = marks.warp[k] as number;
    const f = (name: string) => `marks.${name}[${k}]`;
    if (row >= warps.count) fail('bad-value', f('warp'), `warp ${row}, but the trace holds ${warps.count}`);
    const seq = marks.sequence[k] as number;
    if (seq >= MAX_MARKS) fail('bad-value', f('sequence'), `${seq}, but an invocation writes at most ${MAX_MARKS} marks`);
    if (k > 0) {
      const prev = marks.warp[k - 1] as number;
      if (row < prev || (row === prev && seq < (marks.sequence[k - 1] as number))) fail('bad-value', f('warp'), 'marks are sorted by warp, then sequence');
    }
    const offset = marks.offsetNs[k] as number;
    if (!(offset >= 0 && offsetTicks(offset) <= offsetTicks(warps.durationNs[row] as number) + 1)) {
      fail('bad-value', f('offsetNs'), `${describeValue(offset)} ns: expected 0 to the duration of warp ${row} (${warps.durationNs[row]} ns)`);
    }
    const maskLo = marks.activeMask[k] as number;
    const maskHi = marks.activeMaskHi === null ? 0 : (marks.activeMaskHi[k] as number);
    if ((maskLo & ~lo) !== 0 || (maskHi & ~hi) !== 0) fail('bad-value', f('activeMask'), `lanes beyond a ${subgroupSize}-lane subgroup`);
    if ((maskLo | maskHi) === 0) fail('bad-value', f('activeMask'), 'a mark has at least one live lane');
  }
}

/** The marks in the JSON import format: the model's columns as plain arrays. */
export function jsonMarks(marks: MarkColumns): object {
  const list = (column: ArrayLike<number>) => Array.from({ length: marks.count }, (_, k) => column[k] as number);
  return {
    count: marks.count,
    orphans: marks.orphans,
    warp: list(marks.warp),
    id: list(marks.id),
    sequence: list(marks.sequence),
    offsetNs: list(marks.offsetNs),
    activeMask: list(marks.activeMask),
    ...(marks.activeMaskHi !== null ? { activeMaskHi: list(marks.activeMaskHi) } : {}),
  };
}

/**
 * A JSON import file's `marks`. Its warp rows are the file's own rows; the
 * trace's are in canonical order, so `rowOf` (file row → trace row, null:
 * the same) maps them, and the marks are sorted again.
 */
export function readJsonMarks(value: unknown, warps: WarpColumns, subgroupSize: number, rowOf: Uint32Array | null): MarkColumns {
  const o = readObject(value, 'marks');
  const orphans = readInteger(o, 'orphans', 'marks', 0, MAX_MARK_COUNT);
  const wide = laneMasks(subgroupSize).hi !== 0;
  const values = (key: string, max: number, optional = false): Float64Array | null => {
    if (optional && (o[key] === undefined || o[key] === null)) return null;
    const list = readArray(o, key, 'marks', MAX_MARK_COUNT);
    const out = new Float64Array(list.length);
    list.forEach((v, k) => {
      if (typeof v !== 'number' || !(v >= 0 && v <= max) || (max !== Infinity && !Number.isInteger(v))) fail('bad-value', `marks.${key}[${k}]`, `expected ${max === Infinity ? 'a number ≥ 0' : `an integer from 0 to ${max}`}, got ${describeValue(v)}`);
      out[k] = v;
    });
    return out;
  };
  const warp = values('warp', MAX_WARPS) as Float64Array;
  const count = readInteger(o, 'count', 'marks', 0, MAX_MARK_COUNT);
  const columns = {
    id: values('id', 0xffffffff) as Float64Array,
    sequence: values('sequence', 255) as Float64Array,
    offsetNs: values('offsetNs', Infinity) as Float64Array,
    activeMask: values('activeMask', 0xffffffff) as Float64Array,
    activeMaskHi: values('activeMaskHi', 0xffffffff, !wide),
  };
  for (const [name, column] of [['warp', warp], ...Object.entries(columns)] as const) {
    if (column !== null && column.length !== count) fail('size-mismatch', `marks.${name}`, `${column.length} rows for ${count} marks`);
  }
  for (let k = 0; k < count; k++) {
    if ((warp[k] as number) >= warps.count) fail('bad-value', `marks.warp[${k}]`, `warp ${warp[k]}, but the trace holds ${warps.count}`);
    if (rowOf !== null) warp[k] = rowOf[warp[k] as number] as number;
  }
  const key = new Float64Array(count);
  for (let k = 0; k < count; k++) key[k] = (warp[k] as number) * 256 + (columns.sequence[k] as number);
  const order = sortedOrder(key);
  const take = <T extends Uint32Array | Uint8Array | Float32Array>(src: Float64Array, out: T): T => {
    for (let k = 0; k < count; k++) out[k] = src[order[k] as number] as number;
    return out;
  };
  const out: MarkColumns = {
    count,
    warp: take(warp, new Uint32Array(count)),
    id: take(columns.id, new Uint32Array(count)),
    sequence: take(columns.sequence, new Uint8Array(count)),
    offsetNs: take(columns.offsetNs, new Float32Array(count)),
    activeMask: take(columns.activeMask, new Uint32Array(count)),
    activeMaskHi: columns.activeMaskHi === null ? null : take(columns.activeMaskHi, new Uint32Array(count)),
    orphans,
  };
  checkMarkColumns(out, warps, subgroupSize);
  return out;
}
