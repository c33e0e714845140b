/**
 * Marks inside warp bars (Trace.marks, shared-schema/mark-model.ts) on an
 * expanded lane: the level of detail (lane-lod.ts) lists the warps whose bar
 * is at least MARK_MIN_COLUMNS columns wide (MarkedBars, typed columns, no
 * object per warp), then pushMarkTicks appends, into the same instance
 * buffer as the bars (one mesh, one draw call), a thin light tick at each
 * mark and a translucent dark band over every other phase (mark k to mark
 * k+1), so the phases read as alternating shades. Marks closer than
 * MARK_MIN_GAP_COLUMNS to the previous tick fold into it (a loop's
 * head marks do not fill the bar with ticks). Narrow bars get nothing.
 */
import type { MarkColumns } from '../../shared-schema/mark-model.js';
import { packRgba } from './colors.js';
import type { InstanceWriter } from './instances.js';

/** A warp's bar gets its marks from this many columns (about pixels) wide. */
export const MARK_MIN_COLUMNS = 16;
/** A mark this close (columns) to the previous tick folds into it. */
export const MARK_MIN_GAP_COLUMNS = 3;
export const MARK_TICK_RGBA = packRgba(0xf4f6fa, 210);
export const MARK_PHASE_RGBA = packRgba(0x000000, 80);

/** Wide warp bars of the current build: row, x range (ns from the geometry's origin), y range (px). */
export class MarkedBars {
  rows = new Uint32Array(64);
  x0 = new Float64Array(64);
  x1 = new Float64Array(64);
  y0 = new Float32Array(64);
  y1 = new Float32Array(64);
  count = 0;

  reset(): void {
    this.count = 0;
  }

  push(row: number, x0: number, x1: number, y0: number, y1: number): void {
    if (this.count === this.rows.length) this.grow();
    const k = this.count++;
    this.rows[k] = row;
    this.x0[k] = x0;
    this.x1[k] = x1;
    this.y0[k] = y0;
    this.y1[k] = y1;
  }

  private grow(): void {
    const n = this.rows.length * 2;
    const widen = <T extends Uint32Array | Float64Array | Float32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.rows = widen(this.rows, (k) => new Uint32Array(k));
    this.x0 = widen(this.x0, (k) => new Float64Array(k));
    this.x1 = widen(this.x1, (k) => new Float64Array(k));
    this.y0 = widen(this.y0, (k) => new Float32Array(k));
    this.y1 = widen(this.y1, (k) => new Float32Array(k));
  }
}

/** The first mark of warp `row` (marks sorted by warp row), or where it would be. */
export function firstMarkOf(marks: MarkColumns, row: number): number {
  let lo = 0;
  let hi = marks.count;
  const warp = marks.warp;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (warp[mid]! < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Marks of warp `row`: [begin, end) in the mark columns. */
export function marksOfWarp(marks: MarkColumns, row: number): [number, number] {
  const begin = firstMarkOf(marks, row);
  let end = begin;
  while (end < marks.count && marks.warp[end] === row) end++;
  return [begin, end];
}

/**
 * Appends the ticks and phase bands of every listed bar's marks; returns the ticks drawn.
 * Cost: a binary search per bar plus its marks (bars follow pixels, marks are few per warp).
 */
export function pushMarkTicks(marks: MarkColumns, bars: MarkedBars, colNs: number, out: InstanceWriter): number {
  const { offsetNs } = marks;
  const gap = colNs * MARK_MIN_GAP_COLUMNS;
  const half = colNs / 2;
  let ticks = 0;
  for (let k = 0; k < bars.count; k++) {
    const [begin, end] = marksOfWarp(marks, bars.rows[k]!);
    if (begin === end) continue;
    const x0 = bars.x0[k]!;
    const x1 = bars.x1[k]!;
    const y0 = bars.y0[k]!;
    const y1 = bars.y1[k]!;
    let last = -Infinity;
    let shaded = false;
    for (let j = begin; j < end; j++) {
      const x = Math.min(x1, x0 + offsetNs[j]!);
      if (x - last < gap || x - x0 < gap / 2) continue;
      if (shaded && x - half > last + half) out.push(last + half, x - half, y0, y1, MARK_PHASE_RGBA);
      out.push(Math.max(x0, x - half), Math.min(x1, x + half), y0, y1, MARK_TICK_RGBA);
      ticks++;
      last = x;
      shaded = !shaded;
    }
    if (shaded && x1 > last + half) out.push(last + half, x1, y0, y1, MARK_PHASE_RGBA);
  }
  return ticks;
}
