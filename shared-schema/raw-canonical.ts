/**
 * Calibrated SM-major records → the trace's canonical warp columns (by SM,
 * then start): per SM, times are quantized to ticks, the SM's rows sorted by
 * start and every column written at the SM's offset. SMs are independent, so
 * workers can each write their own SMs' rows of shared columns.
 */
import { allocUintColumn, laneMasks } from './columns.js';
import { describeValue, fail } from './errors.js';
import { TICKS_PER_NS, type UintColumn, type WarpColumns } from './model.js';
import { PackedIds, RECORD_WORDS, RecordWord } from './raw-layout.js';
import type { SmMajorRecords } from './raw-records.js';
import { sortedOrder } from './sort.js';

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

/** Writes group g's rows of `out` in canonical order; times move by `shiftNs` (the origin's move). */
export function writeCanonicalGroup(records: SmMajorRecords, times: CalibratedRows, shiftNs: number, g: number, out: WarpColumns): void {
  const begin = records.groups.offsets[g] as number;
  const end = records.groups.offsets[g + 1] as number;
  const m = end - begin;
  const startTicks = new Float64Array(m);
  const durationTicks = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const s = (times.startNs[begin + k] as number) + shiftNs;
    const e = (times.endNs[begin + k] as number) + shiftNs;
    if (!(s >= 0 && s <= MAX_TIME_NS)) fail('bad-value', `warps.startNs[${begin + k}]`, `expected ns in [0, ${MAX_TIME_NS}], got ${describeValue(s)}`);
    if (!(e >= s && e <= MAX_TIME_NS)) fail('bad-value', `warps.endNs[${begin + k}]`, `expected ns ≥ startNs (${s}), got ${describeValue(e)}`);
    const st = Math.round(s * TICKS_PER_NS);
    startTicks[k] = st;
    durationTicks[k] = Math.round(e * TICKS_PER_NS) - st;
  }
  const order = sortedOrder(startTicks);
  const { startNs, durationNs, warpSlot, stage, draw, customId, activeMask, activeMaskHi, smCycleStart, smCycleDuration } = out;
  const words = records.words;
  for (let k = 0; k < m; k++) {
    const local = order[k] as number;
    const row = begin + k;
    // One cache line per record: every field of it at once.
    const w = (begin + local) * RECORD_WORDS;
    const ids = words[w + RecordWord.PACKED_IDS] as number;
    startNs[row] = (startTicks[local] as number) / TICKS_PER_NS;
    durationNs[row] = (durationTicks[local] as number) / TICKS_PER_NS;
    warpSlot[row] = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
    stage[row] = (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
    draw[row] = words[w + RecordWord.DRAW_ID] as number;
    customId[row] = words[w + RecordWord.CUSTOM_ID] as number;
    activeMask[row] = words[w + RecordWord.ACTIVE_MASK_LO] as number;
    if (activeMaskHi !== null) activeMaskHi[row] = words[w + RecordWord.ACTIVE_MASK_HI] as number;
  }
  if (smCycleStart !== null && smCycleDuration !== null && times.cycleStart !== null && times.cycleDuration !== null) {
    // Each SM's cycles count from its first warp, so the column stays small and exact.
    let base = Infinity;
    for (let i = begin; i < end; i++) base = Math.min(base, times.cycleStart[i] as number);
    for (let k = 0; k < m; k++) {
      const i = begin + (order[k] as number);
      smCycleStart[begin + k] = (times.cycleStart[i] as number) - base;
      smCycleDuration[begin + k] = times.cycleDuration[i] as number;
    }
  }
}

/** How far the origin must move back so no warp starts before it (calibration noise, early warps). */
export function minStartNs(times: CalibratedRows): number {
  let min = Infinity;
  for (let i = 0; i < times.startNs.length; i++) if ((times.startNs[i] as number) < min) min = times.startNs[i] as number;
  return min;
}
