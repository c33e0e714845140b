/**
 * Exact area of intervals over a grid of equal cells, in O(1) per interval:
 * the partial cells at both ends are added directly, the full cells between
 * go through a difference array that `resolveCoverage` integrates once.
 * Used for occupancy (average warps in flight per cell) at any resolution.
 */

/**
 * Adds the interval [u0, u1) (in cell units) to `area` / `diff`.
 * Cells outside [0, area.length) are clipped. `diff` has area.length + 1 entries.
 */
export function addCoverage(area: Float32Array | Float64Array, diff: Float32Array | Float64Array, u0: number, u1: number): void {
  const cells = area.length;
  if (u1 <= 0 || u0 >= cells || u1 <= u0) return;
  if (u0 < 0) u0 = 0;
  if (u1 > cells) u1 = cells;
  const c0 = Math.floor(u0);
  const c1 = Math.min(cells - 1, Math.floor(u1));
  if (c0 === c1) {
    area[c0]! += u1 - u0;
    return;
  }
  area[c0]! += c0 + 1 - u0;
  if (c1 < cells) area[c1]! += u1 - c1;
  if (c1 > c0 + 1) {
    diff[c0 + 1]! += 1;
    diff[c1]! -= 1;
  }
}

/** Folds the difference array into `area` (full cells covered) and clears it. */
export function resolveCoverage(area: Float32Array | Float64Array, diff: Float32Array | Float64Array): void {
  let run = 0;
  for (let c = 0; c < area.length; c++) {
    run += diff[c]!;
    diff[c] = 0;
    if (run !== 0) area[c]! += run;
  }
  diff[area.length] = 0;
}
