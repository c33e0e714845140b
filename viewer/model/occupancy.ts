/**
 * Reading the occupancy pyramid at any column width: the average warps in
 * flight of one stage over each column, from the coarsest level whose bins
 * are not wider than a column (bins cut by a column edge count pro rata).
 */
import type { OccupancyPyramid } from './lane-index.js';

/**
 * Adds (average warps in flight of pyramid stage k) over columns
 * [originNs + c·colNs, originNs + (c+1)·colNs) to out[c], c < columns.
 */
export function addPyramidColumns(
  pyr: OccupancyPyramid,
  k: number,
  originNs: number,
  colNs: number,
  columns: number,
  out: Float32Array,
): void {
  const levels = pyr.levels[k]!;
  const level = Math.max(0, Math.min(levels.length - 1, Math.floor(Math.log2(colNs / pyr.binNs))));
  const values = levels[level]!;
  const binW = pyr.binNs * 2 ** level;
  const perCol = colNs / binW;
  const scale = pyr.unit / perCol;
  const u0 = (originNs - pyr.originNs) / binW;
  const n = values.length;
  // Skip columns entirely before bin 0 or after the last bin.
  const cFirst = Math.max(0, Math.floor(-u0 / perCol));
  const cLast = Math.min(columns, Math.ceil((n - u0) / perCol));
  for (let c = cFirst; c < cLast; c++) {
    const ua = u0 + c * perCol;
    const ub = ua + perCol;
    let j = Math.max(0, Math.floor(ua));
    const jEnd = Math.min(n, Math.ceil(ub));
    let sum = 0;
    for (; j < jEnd; j++) {
      const v = values[j]!;
      if (v !== 0) sum += v * (Math.min(ub, j + 1) - Math.max(ua, j));
    }
    if (sum !== 0) out[c]! += sum * scale;
  }
}

/** Occupancy scale: a round number of warps at or above the busiest lane's peak (what fills a collapsed lane). */
export function occupancyScaleFor(peak: number, warpsPerSm: number | null): number {
  const nice = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024];
  let scale = nice.find((n) => n >= peak * 1.15) ?? Math.ceil(peak);
  if (warpsPerSm !== null && warpsPerSm > 0) scale = Math.min(scale, warpsPerSm);
  return Math.max(1, scale);
}
