/**
 * Calibrated SM-major records → the trace's canonical rows (by SM, then
 * start): each SM's rows sorted by start (a busy SM in slices, merged by
 * parts: row-sort.ts), then written at their rows, either as warp columns
 * (a Trace) or encoded straight into .wtrace chunks (warp-encoder.ts), so
 * workers can each handle their rows.
 */
import { allocUintColumn, laneMasks } from './columns.js';
import { fail } from './errors.js';
import { storedDurationTicks } from './limits.js';
import { TICKS_PER_NS, type UintColumn, type WarpColumns } from './model.js';
import { PackedIds, RECORD_WORDS, RecordWord } from './raw-layout.js';
import { positionOfRecord, type SmMajorRecords } from './raw-records.js';
import { mergePart, sortSlice } from './row-sort.js';
import type { RowSlice } from './row-tasks.js';
import { ChunkEncoder, type ChunkShape, type RowWindow, type WarpChunk } from './warp-encoder.js';

/** Calibrated times (before the origin moves) stay within ± this many ticks, so moved ones stay within 2^53 (exact in float64). */
export const MAX_PLACED_TICKS = 2 ** 52;

/**
 * Calibrated rows, SM-major: times quantized to ticks, relative to the
 * origin before its move (shiftTicks); cycles from each SM's earliest warp.
 */
export interface PlacedRows {
  readonly startTicks: Float64Array;
  readonly durationTicks: Float64Array;
  /** SM cycles at start (null without an SM clock); a row's cycle duration is its record's end − start. */
  readonly cycleStart: Float64Array | null;
}

/**
 * Quantizes one row's times into `placed`; false when they are out of range
 * (or not numbers). The duration is the one the model holds (a float32 of
 * ns, limits.ts): a raw dump written straight to .wtrace then carries the
 * bytes a Trace of it writes, and reading the file back and writing it
 * again changes nothing. SM cycles keep the exact duration.
 */
export function placeRow(placed: PlacedRows, i: number, startNs: number, endNs: number): boolean {
  const st = Math.round(startNs * TICKS_PER_NS);
  const dt = storedDurationTicks(Math.round(endNs * TICKS_PER_NS) - st);
  placed.startTicks[i] = st;
  placed.durationTicks[i] = dt;
  return st >= -MAX_PLACED_TICKS && st + dt <= MAX_PLACED_TICKS && dt >= 0;
}

/** Rejects row i's times (the first row placeRow refused). */
export function rejectPlacedRow(i: number, startNs: number, endNs: number): never {
  if (!(Math.abs(startNs) * TICKS_PER_NS <= MAX_PLACED_TICKS)) fail('bad-value', `warps.startNs[${i}]`, `calibrated to ${startNs} ns, beyond ±${MAX_PLACED_TICKS / TICKS_PER_NS} ns of the origin`);
  return fail('bad-value', `warps.endNs[${i}]`, `calibrated to ${endNs} ns, expected ≥ startNs (${startNs}) and within ${MAX_PLACED_TICKS / TICKS_PER_NS} ns of the origin`);
}

/** Rejects placed row i (the first placeRow refused), from its ticks. */
export function rejectPlacedTicks(placed: PlacedRows, i: number): never {
  const start = placed.startTicks[i] as number;
  return rejectPlacedRow(i, start / TICKS_PER_NS, (start + (placed.durationTicks[i] as number)) / TICKS_PER_NS);
}

/** The canonical warp columns, sized for the records (the narrowest integer widths). */
export function allocWarpColumns(records: SmMajorRecords, drawCount: number, subgroupSize: number, withCycles: boolean, allocate: ColumnAllocator = plainColumns): WarpColumns {
  const n = records.count;
  return {
    count: n,
    startNs: allocate.f64(n),
    durationNs: allocate.f32(n),
    smGroups: records.groups,
    warpSlot: allocate.uint(n, 0xff),
    stage: allocate.uint(n, 0xff),
    draw: allocate.uint(n, Math.max(0, drawCount - 1)),
    customId: allocate.uint(n, records.maxCustomId),
    activeMask: allocate.uint(n, laneMasks(subgroupSize).lo),
    activeMaskHi: !records.wide ? null : (allocate.uint(n, 0xffffffff) as Uint32Array),
    smCycleStart: withCycles ? allocate.f64(n) : null,
    smCycleDuration: withCycles ? (allocate.uint(n, 0xffffffff) as Uint32Array) : null,
    position: records.withPosition ? (allocate.uint(n, 0xffffffff) as Uint32Array) : null,
  } as WarpColumns;
}

export interface ColumnAllocator {
  f64(n: number): Float64Array;
  f32(n: number): Float32Array;
  uint(n: number, max: number): UintColumn;
  /** The column where every worker can read it: itself, or a copy in shared memory. */
  share<T extends Float64Array | Uint32Array>(column: T): T;
}

export const plainColumns: ColumnAllocator = {
  f64: (n) => new Float64Array(n),
  f32: (n) => new Float32Array(n),
  uint: (n, max) => allocUintColumn(n, max),
  share: (column) => column,
};

/**
 * Scratch rows of the canonical sort (SM-major; the calibration's buffers
 * are reused once it is done): slices sorted on their own, and the final
 * order (output row → source row) with its keys.
 */
export interface OrderRows {
  readonly sliceRows: Uint32Array;
  readonly sliceKeys: Float64Array;
  readonly order: Uint32Array;
  readonly orderKeys: Float64Array;
}

export function allocOrderRows(n: number, allocate: ColumnAllocator): OrderRows {
  const rows = () => allocate.uint(n, 0xffffffff) as Uint32Array;
  return { sliceRows: rows(), sliceKeys: allocate.f64(n), order: rows(), orderKeys: allocate.f64(n) };
}

/**
 * Sorts a slice by start. A slice that is its whole group goes straight to
 * the final order (null); others return samples for the merge (mergeByStart).
 */
export function sortByStart(placed: PlacedRows, scratch: OrderRows, slice: RowSlice, whole: boolean): Float64Array | null {
  if (!whole) return sortSlice(placed.startTicks, slice.begin, slice.end, scratch.sliceRows, scratch.sliceKeys);
  sortSlice(placed.startTicks, slice.begin, slice.end, scratch.order, scratch.orderKeys);
  return null;
}

/** Merges the part [lo, hi) of a group's start range from its sorted slices into the final order; returns its rows. */
export function mergeByStart(scratch: OrderRows, slices: readonly (readonly [number, number])[], lo: number, hi: number): [number, number] {
  return mergePart(slices, scratch.sliceRows, scratch.sliceKeys, lo, hi, scratch.order, scratch.orderKeys);
}

/** Writes canonical rows [from, to) from their source rows (order[row]) as warp columns. */
export function writeRows(records: SmMajorRecords, placed: PlacedRows, order: Uint32Array, shiftTicks: number, from: number, to: number, out: WarpColumns): void {
  const { startNs, durationNs, warpSlot, stage, draw, customId, activeMask, activeMaskHi, smCycleStart, smCycleDuration, position } = out;
  const { startTicks, durationTicks } = placed;
  const words = records.words;
  for (let row = from; row < to; row++) {
    const src = order[row] as number;
    // One cache line per record: every field of it at once.
    const w = src * RECORD_WORDS;
    const ids = words[w + RecordWord.PACKED_IDS] as number;
    startNs[row] = ((startTicks[src] as number) + shiftTicks) / TICKS_PER_NS;
    durationNs[row] = (durationTicks[src] as number) / TICKS_PER_NS;
    warpSlot[row] = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
    stage[row] = (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
    draw[row] = words[w + RecordWord.DRAW_ID] as number;
    customId[row] = words[w + RecordWord.CUSTOM_ID] as number;
    activeMask[row] = words[w + RecordWord.ACTIVE_MASK_LO] as number;
    if (activeMaskHi !== null) activeMaskHi[row] = words[w + RecordWord.ACTIVE_MASK_HI] as number;
    if (position !== null) position[row] = positionOfRecord(words, w);
  }
  if (smCycleStart !== null && smCycleDuration !== null && placed.cycleStart !== null) {
    for (let row = from; row < to; row++) {
      const src = order[row] as number;
      smCycleStart[row] = placed.cycleStart[src] as number;
      smCycleDuration[row] = cycleDurationOfRecord(words, src);
    }
  }
}

/** Warp duration in cycles of record i (end − start, wrapping). */
export function cycleDurationOfRecord(words: Uint32Array, i: number): number {
  const w = i * RECORD_WORDS;
  return ((words[w + RecordWord.CLOCK_END] as number) - (words[w + RecordWord.CLOCK_START] as number)) >>> 0;
}

/**
 * Encodes canonical rows [from, to) (one SM group's; the first starts the
 * group when `startsGroup`) into a .wtrace chunk, its first row's deltas
 * left open (chunkHeads). `win` is the caller's reusable window.
 */
export function encodeRows(
  records: SmMajorRecords,
  placed: PlacedRows,
  order: Uint32Array,
  shiftTicks: number,
  from: number,
  to: number,
  startsGroup: boolean,
  shape: ChunkShape,
  win: RowWindow,
): WarpChunk {
  const encoder = new ChunkEncoder(to - from, shape, null);
  const { startTicks, durationTicks, cycleStart } = placed;
  const words = records.words;
  const windowRows = win.startTicks.length;
  for (let at = from; at < to; at += windowRows) {
    const count = Math.min(windowRows, to - at);
    for (let k = 0; k < count; k++) {
      const src = order[at + k] as number;
      const w = src * RECORD_WORDS;
      const ids = words[w + RecordWord.PACKED_IDS] as number;
      win.startTicks[k] = (startTicks[src] as number) + shiftTicks;
      win.durationTicks[k] = durationTicks[src] as number;
      win.slot[k] = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
      win.stage[k] = (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
      win.draw[k] = words[w + RecordWord.DRAW_ID] as number;
      win.customId[k] = words[w + RecordWord.CUSTOM_ID] as number;
      win.maskLo[k] = words[w + RecordWord.ACTIVE_MASK_LO] as number;
      win.maskHi[k] = words[w + RecordWord.ACTIVE_MASK_HI] as number;
      if (shape.withPosition) win.position[k] = positionOfRecord(words, w);
      if (cycleStart !== null) {
        win.cycleStart[k] = cycleStart[src] as number;
        win.cycleDuration[k] = cycleDurationOfRecord(words, src);
      }
    }
    encoder.add(win, count, startsGroup && at === from);
  }
  return encoder.finish();
}
