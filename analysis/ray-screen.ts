/**
 * The screen image of a ray metric: a row's heat grid (ray-events.ts) drawn at
 * the launch's size, each cell filling its 2^scale × 2^scale launch pixels,
 * coloured through the screen view's colormap, with its legend. The CLI's PNG
 * and the viewer's canvas are these bytes.
 */
import { COLORMAP_NAME, COLORMAP_RGB, COLORMAP_SIZE } from './screen-colormap.js';
import type { ScreenLegend } from './screen-metric.js';
import { RAY_METRIC_LABELS, type RayHeatGrid, type RayScreenMetric } from './ray-events.js';

export interface RayImage {
  /** The launch's size: the heat grid's cells upscaled by 2^scale and clipped to it. */
  readonly width: number;
  readonly height: number;
  readonly rgba: Uint8ClampedArray<ArrayBuffer>;
  readonly legend: ScreenLegend;
}

/** "0", "0.25", "1.33", "12.5", "1,024" events per pixel. */
export function formatPerPixel(value: number): string {
  if (value === 0) return '0';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return String(Number(value.toPrecision(3)));
}

/** What the heat grid's cells are: "1 px cells", "cells of 4 × 4 px"; and how many launches were summed. */
export function rayGridCaption(heat: Pick<RayHeatGrid, 'scale' | 'launches'>): string {
  const side = 2 ** heat.scale;
  const cells = side === 1 ? 'one cell per pixel' : `cells of ${side} × ${side} px`;
  return `${cells}, mean of ${heat.launches.toLocaleString('en-US')} launch${heat.launches === 1 ? '' : 'es'}`;
}

export function rayLegend(metric: RayScreenMetric, heat: RayHeatGrid): ScreenLegend {
  const label = RAY_METRIC_LABELS[metric];
  const minText = `${formatPerPixel(heat.min)} per pixel`;
  const maxText = `${formatPerPixel(heat.max)} per pixel`;
  const text = `${label}: ${minText} (dark purple) → ${maxText} (yellow), ${COLORMAP_NAME}; ${rayGridCaption(heat)}`;
  return { metric, label, colormap: COLORMAP_NAME, min: heat.min, max: heat.max, unit: 'per pixel', minText, maxText, text };
}

/**
 * RGBA (opaque) at the launch's size: every pixel the colour of its cell's
 * value over [heat.min, heat.max] (one value: the middle colour, as the warp
 * metrics do). One colour lookup per cell, one 32-bit store per pixel of a
 * cell row's first line, then copies of that line.
 */
export function rayHeatImage(metric: RayScreenMetric, heat: RayHeatGrid): RayImage {
  const { width, height, scale, values } = heat;
  const outWidth = heat.launchWidth;
  const outHeight = heat.launchHeight;
  const rgba = new Uint8ClampedArray(outWidth * outHeight * 4);
  // The palette as 32-bit words in this machine's byte order, so a store writes r, g, b, a in order.
  const palette = new Uint8ClampedArray(COLORMAP_SIZE * 4);
  for (let i = 0; i < COLORMAP_SIZE; i++) {
    palette.set(COLORMAP_RGB.subarray(i * 3, i * 3 + 3), i * 4);
    palette[i * 4 + 3] = 255;
  }
  const words = new Uint32Array(palette.buffer);
  const out = new Uint32Array(rgba.buffer);
  const span = heat.max - heat.min;
  const toIndex = span > 0 ? (COLORMAP_SIZE - 1) / span : 0;
  const flat = span > 0 ? 0 : (COLORMAP_SIZE - 1) >>> 1;
  const colour = new Uint32Array(width);
  const side = 2 ** scale;
  for (let cy = 0; cy < height; cy++) {
    const y0 = cy * side;
    const y1 = Math.min(outHeight, y0 + side);
    if (y0 >= y1) break;
    for (let cx = 0; cx < width; cx++) {
      const t = Math.round((values[cy * width + cx]! - heat.min) * toIndex) + flat;
      colour[cx] = words[t < 0 ? 0 : t > COLORMAP_SIZE - 1 ? COLORMAP_SIZE - 1 : t]!;
    }
    const line = y0 * outWidth;
    for (let x = 0; x < outWidth; x++) out[line + x] = colour[x >>> scale]!;
    for (let y = y0 + 1; y < y1; y++) out.copyWithin(y * outWidth, line, line + outWidth);
  }
  return { width: outWidth, height: outHeight, rgba, legend: rayLegend(metric, heat) };
}
