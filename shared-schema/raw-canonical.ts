/**
 * Calibrated SM-major records → the trace's canonical warp columns (by SM,
 * then start): times are quantized to ticks, each SM's rows sorted by start
 * (a busy SM in slices, merged by parts: row-sort.ts) and every column
 * written at its row, so workers can each write their rows of shared columns.
 */
import { allocUintColumn, laneMasks } from './columns.js';
import { describeValue, fail } from './errors.js';
import { TICKS_PER_NS, type UintColumn, type WarpColumns } from './model.js';
import { PackedIds, RECORD_WORDS, RecordWord } from './raw-layout.js';
import type { SmMajorRecords } from './raw-records.js';
import { mergePart, sortSlice } from './row-sort.js';
import type { RowSlice } from './row-tasks.js';

/** Largest time accepted: 2^53 ticks, so every tick stays exact in float64 (about 6.5 days). */
export const MAX_TIME_NS = Number.MAX_SAFE_INTEGER / TICKS_PER_NS;

export interface CalibratedRows {
  /** ns since the origin before the shift, SM-major. */
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  readonly cycleStart: Float64Array | null;
  readonly cycleDuration: Uint32Array | null;
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
 * are reused once it is done): times in ticks, slices sorted on their own,
 * and the final order (output row → source row) with its keys.
 */
export interface OrderRows {
  readonly startTicks: Float64Array;
  readonly durationTicks: Float64Array;
  readonly sliceRows: Uint32Array;
  readonly sliceKeys: Float64Array;
  readonly order: Uint32Array;
  readonly orderKeys: Float64Array;
}

export function allocOrderRows(n: number, allocate: ColumnAllocator): OrderRows {
  const rows = () => allocate.uint(n, 0xffffffff) as Uint32Array;
  return { startTicks: allocate.f64(n), durationTicks: allocate.f64(n), sliceRows: rows(), sliceKeys: allocate.f64(n), order: rows(), orderKeys: allocate.f64(n) };
}

/**
 * Quantizes a slice's times to ticks after the origin's move by `shiftNs`
 * (checking them) and sorts the slice by start. A slice that is its whole
 * group is written out at once (samples: null); others return samples for
 * the merge (emitPart). Also the slice's smallest start cycle.
 */
export function orderSlice(
  records: SmMajorRecords,
  times: CalibratedRows,
  shiftNs: number,
  scratch: OrderRows,
  slice: RowSlice,
  whole: boolean,
  out: WarpColumns,
): { samples: Float64Array | null; minCycle: number } {
  const { startTicks, durationTicks } = scratch;
  for (let i = slice.begin; i < slice.end; i++) {
    const s = (times.startNs[i] as number) + shiftNs;
    const e = (times.endNs[i] as number) + shiftNs;
    if (!(s >= 0 && s <= MAX_TIME_NS)) fail('bad-value', `warps.startNs[${i}]`, `expected ns in [0, ${MAX_TIME_NS}], got ${describeValue(s)}`);
    if (!(e >= s && e <= MAX_TIME_NS)) fail('bad-value', `warps.endNs[${i}]`, `expected ns ≥ startNs (${s}), got ${describeValue(e)}`);
    const st = Math.round(s * TICKS_PER_NS);
    startTicks[i] = st;
    durationTicks[i] = Math.round(e * TICKS_PER_NS) - st;
  }
  let minCycle = Infinity;
  if (times.cycleStart !== null) for (let i = slice.begin; i < slice.end; i++) minCycle = Math.min(minCycle, times.cycleStart[i] as number);
  if (!whole) return { samples: sortSlice(startTicks, slice.begin, slice.end, scratch.sliceRows, scratch.sliceKeys), minCycle };
  sortSlice(startTicks, slice.begin, slice.end, scratch.order, scratch.orderKeys);
  writeRows(records, times, scratch, minCycle, slice.begin, slice.end, out);
  return { samples: null, minCycle };
}

/** Merges the part [lo, hi) of a group's start range from its sorted slices and writes those rows; cycles count from cycleBase. */
export function emitPart(
  records: SmMajorRecords,
  times: CalibratedRows,
  scratch: OrderRows,
  slices: readonly (readonly [number, number])[],
  lo: number,
  hi: number,
  cycleBase: number,
  out: WarpColumns,
): void {
  const [from, to] = mergePart(slices, scratch.sliceRows, scratch.sliceKeys, lo, hi, scratch.order, scratch.orderKeys);
  writeRows(records, times, scratch, cycleBase, from, to, out);
}

/** Writes canonical rows [from, to) from their source rows (scratch.order). */
function writeRows(records: SmMajorRecords, times: CalibratedRows, scratch: OrderRows, cycleBase: number, from: number, to: number, out: WarpColumns): void {
  const { startNs, durationNs, warpSlot, stage, draw, customId, activeMask, activeMaskHi, smCycleStart, smCycleDuration } = out;
  const { order, startTicks, durationTicks } = scratch;
  const words = records.words;
  for (let row = from; row < to; row++) {
    const src = order[row] as number;
    // One cache line per record: every field of it at once.
    const w = src * RECORD_WORDS;
    const ids = words[w + RecordWord.PACKED_IDS] as number;
    startNs[row] = (startTicks[src] as number) / TICKS_PER_NS;
    durationNs[row] = (durationTicks[src] as number) / TICKS_PER_NS;
    warpSlot[row] = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
    stage[row] = (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
    draw[row] = words[w + RecordWord.DRAW_ID] as number;
    customId[row] = words[w + RecordWord.CUSTOM_ID] as number;
    activeMask[row] = words[w + RecordWord.ACTIVE_MASK_LO] as number;
    if (activeMaskHi !== null) activeMaskHi[row] = words[w + RecordWord.ACTIVE_MASK_HI] as number;
  }
  if (smCycleStart !== null && smCycleDuration !== null && times.cycleStart !== null && times.cycleDuration !== null) {
    // Each SM's cycles count from its first warp, so the column stays small and exact.
    for (let row = from; row < to; row++) {
      const src = order[row] as number;
      smCycleStart[row] = (times.cycleStart[src] as number) - cycleBase;
      smCycleDuration[row] = times.cycleDuration[src] as number;
    }
  }
}

/** How far the origin must move back so no warp starts before it (calibration noise, early warps). */
export function minStartNs(times: CalibratedRows): number {
  let min = Infinity;
  for (let i = 0; i < times.startNs.length; i++) if ((times.startNs[i] as number) < min) min = times.startNs[i] as number;
  return min;
}
