import type { SmGroups, UintColumn, WarpColumns } from './model.js';

/** The narrowest unsigned column that holds values up to maxValue (< 2^32). */
export function allocUintColumn(count: number, maxValue: number): UintColumn {
  if (maxValue <= 0xff) return new Uint8Array(count);
  if (maxValue <= 0xffff) return new Uint16Array(count);
  return new Uint32Array(count);
}

/** Copies values into the narrowest column that holds them. */
export function narrowUintColumn(values: ArrayLike<number>): UintColumn {
  let max = 0;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) > max) max = values[i] as number;
  const out = allocUintColumn(values.length, max);
  if (out instanceof Uint32Array && values instanceof Uint32Array) out.set(values);
  else for (let i = 0; i < values.length; i++) out[i] = values[i] as number;
  return out;
}

/** End time of row i, ns. */
export function warpEndNs(warps: WarpColumns, i: number): number {
  return (warps.startNs[i] as number) + (warps.durationNs[i] as number);
}

/** Number of active lanes in row i (popcount of the mask). */
export function activeLaneCount(warps: WarpColumns, i: number): number {
  let n = popcount32(warps.activeMask[i] as number);
  if (warps.activeMaskHi !== null) n += popcount32(warps.activeMaskHi[i] as number);
  return n;
}

export function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** SM id of every row, materialized (2 bytes per warp): for analyses that want it per row. */
export function smIdPerWarp(warps: WarpColumns): Uint16Array {
  const out = new Uint16Array(warps.count);
  const { sm, offsets } = warps.smGroups;
  for (let g = 0; g < sm.length; g++) out.fill(sm[g] as number, offsets[g], offsets[g + 1]);
  return out;
}

/** Index of the group holding SM `smId`, or -1. */
export function smGroupIndex(groups: SmGroups, smId: number): number {
  for (let g = 0; g < groups.sm.length; g++) if (groups.sm[g] === smId) return g;
  return -1;
}

/** SM id of row i (binary search over the groups). */
export function smOfWarp(groups: SmGroups, row: number): number {
  let lo = 0;
  let hi = groups.sm.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((groups.offsets[mid] as number) <= row) lo = mid;
    else hi = mid - 1;
  }
  return groups.sm[lo] as number;
}

/** Bit masks of the lanes a subgroup of `size` lanes can have: lanes 0..31 and 32..63. */
export function laneMasks(size: number): { lo: number; hi: number } {
  return {
    lo: size >= 32 ? 0xffffffff : 2 ** size - 1,
    hi: size >= 64 ? 0xffffffff : size > 32 ? 2 ** (size - 32) - 1 : 0,
  };
}
