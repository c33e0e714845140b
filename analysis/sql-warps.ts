/**
 * The `warps` SQL table read straight from the trace's columns, a slice of
 * rows at a time (a DuckDB vector is 2,048 rows): each column writes its
 * slice into a typed array of its SQL type and clears the validity bit of
 * the rows that are NULL. Nothing per warp is kept besides the trace itself
 * and the SM id column (2 bytes a warp).
 */
import { popcount32, smIdPerWarp } from '../shared-schema/columns.js';
import { UNKNOWN_SLOT, UNKNOWN_SM, type WarpColumns } from '../shared-schema/model.js';
import { NO_POSITION, PositionBits } from '../shared-schema/position.js';
import { STAGE_COUNT } from '../shared-schema/stages.js';
import { WARPS_TABLE, type NumericSqlType } from './sql-schema.js';

/** A typed array of a numeric SQL type's width (Float64Array for DOUBLE, Uint8Array for STAGE...). */
export type NumericArray = Float64Array | Float32Array | Uint8Array | Uint16Array | Uint32Array | Int32Array;

/**
 * Writes rows [from, from + out.length) into `out`; for each NULL row clears
 * its bit in `valid` (bit r & 7 of byte r >> 3, r counted from `from`; the
 * caller sets every bit first) and returns true when it cleared any.
 */
export type ColumnReader = (from: number, out: NumericArray, valid: Uint8Array) => boolean;

export interface NumericColumnSource {
  readonly name: string;
  readonly type: NumericSqlType;
  readonly read: ColumnReader;
}

/** The typed array holding `count` values of a numeric SQL type. */
export function numericArray(type: NumericSqlType, count: number): NumericArray {
  switch (type) {
    case 'DOUBLE':
      return new Float64Array(count);
    case 'FLOAT':
      return new Float32Array(count);
    case 'UTINYINT':
    case 'STAGE':
      return new Uint8Array(count);
    case 'USMALLINT':
      return new Uint16Array(count);
    case 'UINTEGER':
      return new Uint32Array(count);
    case 'INTEGER':
      return new Int32Array(count);
  }
}

function clearBit(valid: Uint8Array, r: number): void {
  valid[r >> 3]! &= ~(1 << (r & 7));
}

/** Every row NULL (a column the trace did not record). */
const allNull: ColumnReader = (_from, out, valid) => {
  for (let r = 0; r < out.length; r++) clearBit(valid, r);
  return out.length > 0;
};

/** A copy of the column's rows; those equal to `missing` (when given) are NULL. */
function copied(column: ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> }, missing: number | null = null): ColumnReader {
  return (from, out, valid) => {
    out.set(column.subarray(from, from + out.length));
    if (missing === null) return false;
    let any = false;
    for (let r = 0; r < out.length; r++) {
      if (out[r] === missing) {
        clearBit(valid, r);
        any = true;
      }
    }
    return any;
  };
}

/** One part of the position word (x, y, or a footprint side), NULL where the warp has no position. */
function positionPart(words: Uint32Array | null, part: (word: number) => number): ColumnReader {
  if (words === null) return allNull;
  return (from, out, valid) => {
    let any = false;
    for (let r = 0; r < out.length; r++) {
      const word = words[from + r]!;
      if (word === NO_POSITION) {
        out[r] = 0;
        clearBit(valid, r);
        any = true;
      } else out[r] = part(word);
    }
    return any;
  };
}

/** The readers of every `warps` column, in WARPS_TABLE's order. Checks the stage codes once (they index the STAGE enum). */
/**
 * `sampledEveryByStage[code]`: one warp in N of that stage was recorded (a sampled trace, capture.sampling); absent or
 * 1: all. The warps table's `sampled_every` column carries it per row, so `sum(sampled_every)` estimates a count.
 */
export function warpColumnSources(warps: WarpColumns, sampledEveryByStage: ArrayLike<number> = []): NumericColumnSource[] {
  for (let i = 0; i < warps.count; i++) {
    if (warps.stage[i]! >= STAGE_COUNT) throw new RangeError(`warps.stage[${i}]: stage code ${warps.stage[i]} is not one of the ${STAGE_COUNT} stages`);
  }
  const sm = smIdPerWarp(warps);
  const hi = warps.activeMaskHi;
  const { X_SHIFT, X_MASK, Y_SHIFT, Y_MASK, LOG2_WIDTH_SHIFT, LOG2_HEIGHT_SHIFT, LOG2_MASK } = PositionBits;
  const readers: Record<string, ColumnReader> = {
    row: (from, out) => {
      for (let r = 0; r < out.length; r++) out[r] = from + r;
      return false;
    },
    start_ns: copied(warps.startNs),
    duration_ns: copied(warps.durationNs),
    end_ns: (from, out) => {
      for (let r = 0; r < out.length; r++) out[r] = warps.startNs[from + r]! + warps.durationNs[from + r]!;
      return false;
    },
    sm: copied(sm, UNKNOWN_SM),
    slot: copied(warps.warpSlot, UNKNOWN_SLOT),
    stage: copied(warps.stage),
    sampled_every: (from, out) => {
      for (let r = 0; r < out.length; r++) out[r] = sampledEveryByStage[warps.stage[from + r]!] ?? 1;
      return false;
    },
    draw: copied(warps.draw),
    custom_id: copied(warps.customId),
    live_lanes: (from, out) => {
      for (let r = 0; r < out.length; r++) out[r] = popcount32(warps.activeMask[from + r]!) + (hi === null ? 0 : popcount32(hi[from + r]!));
      return false;
    },
    active_mask: copied(warps.activeMask),
    active_mask_hi: hi === null ? allNull : copied(hi),
    x_px: positionPart(warps.position, (w) => (w >>> X_SHIFT) & X_MASK),
    y_px: positionPart(warps.position, (w) => (w >>> Y_SHIFT) & Y_MASK),
    width_px: positionPart(warps.position, (w) => 1 << ((w >>> LOG2_WIDTH_SHIFT) & LOG2_MASK)),
    height_px: positionPart(warps.position, (w) => 1 << ((w >>> LOG2_HEIGHT_SHIFT) & LOG2_MASK)),
    start_cycles: warps.smCycleStart === null ? allNull : copied(warps.smCycleStart),
    duration_cycles: warps.smCycleDuration === null ? allNull : copied(warps.smCycleDuration),
  };
  return WARPS_TABLE.columns.map((c) => {
    const read = readers[c.name];
    if (read === undefined) throw new Error(`no reader for warps.${c.name}`);
    return { name: c.name, type: c.type as NumericSqlType, read };
  });
}
