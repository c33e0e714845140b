/**
 * The screen view's colormap: viridis (perceptually uniform, sequential,
 * readable in greyscale and by most colour-blind readers) as a 256-entry RGB
 * table, sampled from d3-scale-chromatic's published viridis ramp rather
 * than tuned by hand, so the CLI's PNG and the viewer's canvas agree byte for
 * byte. Grey marks pixels no warp covered.
 */
import { interpolateViridis } from 'd3-scale-chromatic';

export const COLORMAP_NAME = 'viridis';
export const COLORMAP_SIZE = 256;

/** RGB of a pixel that no shown warp covered: a neutral grey that viridis never produces. */
export const NO_WARP_RGB: readonly [number, number, number] = [96, 96, 96];

/** COLORMAP_SIZE × [r, g, b]: entry i is viridis at i / (COLORMAP_SIZE − 1). */
export const COLORMAP_RGB: Uint8Array = buildTable();

function buildTable(): Uint8Array {
  const table = new Uint8Array(COLORMAP_SIZE * 3);
  for (let i = 0; i < COLORMAP_SIZE; i++) {
    const hex = interpolateViridis(i / (COLORMAP_SIZE - 1));
    const m = /^#([0-9a-f]{6})$/i.exec(hex);
    if (m === null) throw new Error(`viridis gave ${hex} at ${i}: expected #rrggbb`);
    const v = parseInt(m[1]!, 16);
    table[i * 3] = v >>> 16;
    table[i * 3 + 1] = (v >>> 8) & 0xff;
    table[i * 3 + 2] = v & 0xff;
  }
  return table;
}

/** Table index of t in [0, 1] (clamped; NaN reads as 0). */
export function colormapIndex(t: number): number {
  if (!(t > 0)) return 0;
  if (t >= 1) return COLORMAP_SIZE - 1;
  return Math.round(t * (COLORMAP_SIZE - 1));
}
