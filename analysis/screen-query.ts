/**
 * The reverse of the screen image: which warps lie under a screen rectangle
 * (a brush on the image), for highlighting them on the timeline.
 */
import { PositionBits } from '../shared-schema/position.js';
import type { ScreenColumns } from './screen-columns.js';
import { endsFor, filterBounds, type ScreenFilter, type ScreenOrder } from './screen-order.js';

/** A rectangle of pixels: [x, x + width) × [y, y + height). */
export interface PixelRect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * Rows (ascending) of the order's warps the filter shows whose footprint
 * intersects `rect`: every warp there, also those painted over by later ones.
 */
export function rowsInRect(cols: ScreenColumns, order: ScreenOrder, rect: PixelRect, filter: ScreenFilter = {}): Uint32Array {
  const rx0 = rect.x;
  const ry0 = rect.y;
  const rx1 = rect.x + rect.width;
  const ry1 = rect.y + rect.height;
  if (!(rect.width > 0 && rect.height > 0)) return new Uint32Array(0);
  const { end, windowStartNs } = filterBounds(order, filter);
  const rows = order.rows;
  const ends = endsFor(order, windowStartNs);
  const position = cols.position;
  const hits = new Uint32Array(end);
  let n = 0;
  for (let k = 0; k < end; k++) {
    if (ends !== null && ends[k]! < windowStartNs) continue;
    const row = rows[k]!;
    const word = position[row]!;
    const x0 = (word >>> PositionBits.X_SHIFT) & PositionBits.X_MASK;
    const y0 = (word >>> PositionBits.Y_SHIFT) & PositionBits.Y_MASK;
    if (x0 >= rx1 || y0 >= ry1) continue;
    if (x0 + (1 << ((word >>> PositionBits.LOG2_WIDTH_SHIFT) & PositionBits.LOG2_MASK)) <= rx0) continue;
    if (y0 + (1 << ((word >>> PositionBits.LOG2_HEIGHT_SHIFT) & PositionBits.LOG2_MASK)) <= ry0) continue;
    hits[n++] = row;
  }
  return hits.subarray(0, n).sort();
}

/**
 * The row a pixel of the image shows: the last-started shown warp whose
 * footprint covers (x, y); -1 when none. Scans back from the cutoff, so it
 * stops at the first hit.
 */
export function rowAtPixel(cols: ScreenColumns, order: ScreenOrder, x: number, y: number, filter: ScreenFilter = {}): number {
  const { end, windowStartNs } = filterBounds(order, filter);
  const rows = order.rows;
  const ends = endsFor(order, windowStartNs);
  const position = cols.position;
  for (let k = end - 1; k >= 0; k--) {
    if (ends !== null && ends[k]! < windowStartNs) continue;
    const word = position[rows[k]!]!;
    const x0 = (word >>> PositionBits.X_SHIFT) & PositionBits.X_MASK;
    const y0 = (word >>> PositionBits.Y_SHIFT) & PositionBits.Y_MASK;
    if (x < x0 || y < y0) continue;
    if (x >= x0 + (1 << ((word >>> PositionBits.LOG2_WIDTH_SHIFT) & PositionBits.LOG2_MASK))) continue;
    if (y >= y0 + (1 << ((word >>> PositionBits.LOG2_HEIGHT_SHIFT) & PositionBits.LOG2_MASK))) continue;
    return rows[k]!;
  }
  return -1;
}
