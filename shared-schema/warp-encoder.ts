/**
 * The .wtrace warp columns, encoded in chunks of rows: encoding rows
 * [0, a), [a, b), ... and joining the chunks gives the same bytes as one
 * chunk of all rows, so workers can each encode a range (wtrace-writer.ts
 * places the chunks in the file; the README has the column layout).
 */
import { laneMasks } from './columns.js';
import { TICKS_PER_NS, type UintColumn, type WarpColumns } from './model.js';

const TWO_POW_32 = 4294967296;

/** One range of rows, each column's varint bytes. */
export interface WarpChunk {
  readonly start: Uint8Array;
  readonly cycleStart: Uint8Array | null;
  readonly duration: Uint8Array;
  readonly draw: Uint8Array;
  readonly customId: Uint8Array;
  readonly cycleDuration: Uint8Array | null;
  readonly inactiveMask: Uint8Array;
  readonly inactiveMaskHi: Uint8Array | null;
}

/** Unsigned varint of v in [0, 2^32) at b[p]; returns the next position. */
function putU32(b: Uint8Array, p: number, v: number): number {
  while (v >= 0x80) {
    b[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  b[p++] = v;
  return p;
}

/** Unsigned varint of v in [0, 2^53). */
function putUint(b: Uint8Array, p: number, v: number): number {
  if (v < TWO_POW_32) return putU32(b, p, v);
  while (v >= 0x80) {
    b[p++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  b[p++] = v;
  return p;
}

/** Zigzag varint of v in (-2^52, 2^52). */
function putInt(b: Uint8Array, p: number, v: number): number {
  return putUint(b, p, v >= 0 ? v * 2 : -v * 2 - 1);
}

/** Zigzag varint of the 32-bit wrapping difference to − from. */
function putDelta32(b: Uint8Array, p: number, from: number, to: number): number {
  const d = (to - from) | 0;
  return putU32(b, p, ((d << 1) ^ (d >> 31)) >>> 0);
}

/** The SM group holding row `row`. */
function groupOf(offsets: Uint32Array, row: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((offsets[mid] as number) <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Encodes rows [begin, end) (the columns must be complete: deltas start from row begin − 1). */
export function encodeWarpChunk(w: WarpColumns, begin: number, end: number, subgroupSize: number, cyclesPerNs: number): WarpChunk {
  const m = end - begin;
  const offsets = w.smGroups.offsets;
  const { lo: laneLo, hi: laneHi } = laneMasks(subgroupSize);
  // Cycles are stored as the residual from what the SM clock rate predicts from the ns columns.
  const cyclesPerTick = cyclesPerNs / TICKS_PER_NS;
  const { startNs, durationNs, draw, customId, activeMask } = w;
  const start = new Uint8Array(m * 8 + 8);
  const duration = new Uint8Array(m * 8 + 8);
  const drawBytes = new Uint8Array(m * 5 + 5);
  const customBytes = new Uint8Array(m * 5 + 5);
  const inactive = new Uint8Array(m * 5 + 5);
  let ps = 0;
  let pd = 0;
  let pw = 0;
  let pc = 0;
  let pi = 0;
  const cycleStartCol = w.smCycleStart;
  const cycleDurationCol = w.smCycleDuration;
  const cycleStart = cycleStartCol === null ? null : new Uint8Array(m * 8 + 8);
  const cycleDuration = cycleDurationCol === null ? null : new Uint8Array(m * 8 + 8);
  let pcs = 0;
  let pcd = 0;
  let g = m > 0 ? groupOf(offsets, begin) : 0;
  let groupBegin = offsets[g] as number;
  let groupEnd = offsets[g + 1] as number;
  let prevTicks = begin > groupBegin ? Math.round((startNs[begin - 1] as number) * TICKS_PER_NS) : 0;
  let prevCycles = begin > groupBegin && cycleStartCol !== null ? (cycleStartCol[begin - 1] as number) : 0;
  let prevDraw = begin > 0 ? (draw[begin - 1] as number) : 0;
  let prevCustom = begin > 0 ? (customId[begin - 1] as number) : 0;
  // Every column of a row in one pass.
  for (let i = begin; i < end; i++) {
    if (i === groupEnd) {
      g++;
      groupBegin = groupEnd;
      groupEnd = offsets[g + 1] as number;
    }
    const ticks = Math.round((startNs[i] as number) * TICKS_PER_NS);
    const first = i === groupBegin;
    ps = first ? putInt(start, ps, ticks) : putUint(start, ps, ticks - prevTicks);
    const durationTicks = Math.round((durationNs[i] as number) * TICKS_PER_NS);
    pd = putUint(duration, pd, durationTicks);
    if (cycleStart !== null && cycleStartCol !== null && cycleDuration !== null && cycleDurationCol !== null) {
      const c = cycleStartCol[i] as number;
      pcs = putInt(cycleStart, pcs, first ? c : c - prevCycles - Math.round((ticks - prevTicks) * cyclesPerTick));
      prevCycles = c;
      pcd = putInt(cycleDuration, pcd, (cycleDurationCol[i] as number) - Math.round(durationTicks * cyclesPerTick));
    }
    prevTicks = ticks;
    const d = draw[i] as number;
    pw = putDelta32(drawBytes, pw, prevDraw, d);
    prevDraw = d;
    const c = customId[i] as number;
    pc = putDelta32(customBytes, pc, prevCustom, c);
    prevCustom = c;
    pi = putU32(inactive, pi, (~(activeMask[i] as number) & laneLo) >>> 0);
  }
  return {
    start: start.subarray(0, ps),
    cycleStart: cycleStart === null ? null : cycleStart.subarray(0, pcs),
    duration: duration.subarray(0, pd),
    cycleDuration: cycleDuration === null ? null : cycleDuration.subarray(0, pcd),
    draw: drawBytes.subarray(0, pw),
    customId: customBytes.subarray(0, pc),
    inactiveMask: inactive.subarray(0, pi),
    inactiveMaskHi: w.activeMaskHi === null ? null : inactiveChunk(w.activeMaskHi, begin, end, laneHi),
  };
}

/** Varints of the inactive lanes (full warps cost one byte). */
function inactiveChunk(values: UintColumn, begin: number, end: number, laneMask: number): Uint8Array {
  const out = new Uint8Array((end - begin) * 5 + 5);
  let p = 0;
  for (let i = begin; i < end; i++) p = putU32(out, p, (~(values[i] as number) & laneMask) >>> 0);
  return out.subarray(0, p);
}

/** Bytes per row of a raw mask column for `lanes` lanes. */
export const maskBytes = (lanes: number) => Math.max(1, Math.ceil(lanes / 8));

/** Rows [begin, end) of a mask column as raw little-endian bytes, `width` per row, at out[at]. */
export function writeRawMasks(values: UintColumn, begin: number, end: number, width: number, out: Uint8Array, at: number): void {
  for (let i = begin, p = at; i < end; i++) {
    const v = values[i] as number;
    for (let b = 0; b < width; b++) out[p++] = (v >>> (8 * b)) & 0xff;
  }
}
