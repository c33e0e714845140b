/**
 * The screen image: every shown warp's footprint painted in execution order
 * onto a pixel grid the size of the render target (so a pixel holds the warp
 * that started there last), then coloured by a metric through the colormap.
 * Cost: one pass over the shown warps plus their footprints' pixels.
 */
import { PositionBits } from '../shared-schema/position.js';
import { COLORMAP_RGB, COLORMAP_SIZE, NO_WARP_RGB } from './screen-colormap.js';
import type { ScreenColumns, TargetSize } from './screen-columns.js';
import { metricDomain, metricValues, screenLegend, type MetricDomain, type ScreenLegend, type ScreenMetric } from './screen-metric.js';
import { endsFor, filterBounds, type ScreenFilter, type ScreenOrder } from './screen-order.js';

/** Pixel value of a pixel no shown warp covered. */
export const NO_ENTRY = -1;

/** A rasterized image of one order: its pixels, and how far into the order it got. */
export interface Raster {
  /** Entry of the order per pixel (row-major), NO_ENTRY where none. */
  readonly pixels: Int32Array;
  readonly width: number;
  readonly height: number;
  /** Entries shown (painted, inside the target). */
  readonly shown: number;
  /** Entries [0, painted) of the order were considered. */
  readonly painted: number;
  /** The window's start the image was made with (-Infinity: none). */
  readonly windowStartNs: number;
}

/**
 * Per pixel (row-major, width × height), the entry of `order` shown there
 * (the shown warp that started last among those covering it), or NO_ENTRY.
 * Footprints are clipped to the target. With `resume`, a raster of the same
 * order, size and window start that considered no more entries than the
 * filter admits, only the entries after it are painted over it (its pixels
 * are reused): a later cutoff costs only the warps started in between.
 */
export function rasterizeOrder(cols: ScreenColumns, order: ScreenOrder, size: TargetSize, filter: ScreenFilter = {}, resume: Raster | null = null): Raster {
  const { width, height } = size;
  const { end, windowStartNs } = filterBounds(order, filter);
  const reuse = resume !== null && resume.width === width && resume.height === height && resume.windowStartNs === windowStartNs && resume.painted <= end;
  const pixels = reuse ? resume.pixels : new Int32Array(width * height).fill(NO_ENTRY);
  const rows = order.rows;
  const ends = endsFor(order, windowStartNs);
  const position = cols.position;
  let shown = reuse ? resume.shown : 0;
  for (let k = reuse ? resume.painted : 0; k < end; k++) {
    if (ends !== null && ends[k]! < windowStartNs) continue;
    const word = position[rows[k]!]!;
    const x0 = (word >>> PositionBits.X_SHIFT) & PositionBits.X_MASK;
    const y0 = (word >>> PositionBits.Y_SHIFT) & PositionBits.Y_MASK;
    if (x0 >= width || y0 >= height) continue;
    const x1 = Math.min(width, x0 + (1 << ((word >>> PositionBits.LOG2_WIDTH_SHIFT) & PositionBits.LOG2_MASK)));
    const y1 = Math.min(height, y0 + (1 << ((word >>> PositionBits.LOG2_HEIGHT_SHIFT) & PositionBits.LOG2_MASK)));
    shown++;
    for (let y = y0; y < y1; y++) {
      const base = y * width;
      for (let i = base + x0, e = base + x1; i < e; i++) pixels[i] = k;
    }
  }
  return { pixels, width, height, shown, painted: end, windowStartNs };
}

/** RGBA (opaque) of every pixel: its entry's value through the colormap over `domain`; grey for NO_ENTRY and NaN values. */
export function colorizePixels(pixels: Int32Array, values: Float64Array, domain: MetricDomain | null, out?: Uint8ClampedArray): Uint8ClampedArray {
  const rgba = out ?? new Uint8ClampedArray(pixels.length * 4);
  const min = domain?.min ?? 0;
  const span = domain === null ? 0 : domain.max - domain.min;
  // One entry past the table's last holds the grey, so the pixel loop has no branch on it.
  const grey = COLORMAP_SIZE;
  const table = new Uint8Array((COLORMAP_SIZE + 1) * 3);
  table.set(COLORMAP_RGB);
  table.set(NO_WARP_RGB, grey * 3);
  const scale = span > 0 ? (COLORMAP_SIZE - 1) / span : 0;
  // With one value in the domain every warp takes the middle colour.
  const flat = span > 0 ? 0 : (COLORMAP_SIZE - 1) >>> 1;
  for (let p = 0, o = 0; p < pixels.length; p++, o += 4) {
    const k = pixels[p]!;
    let c = grey;
    if (k !== NO_ENTRY) {
      const v = values[k]!;
      if (v === v) {
        const t = Math.round((v - min) * scale) + flat;
        c = t < 0 ? 0 : t > COLORMAP_SIZE - 1 ? COLORMAP_SIZE - 1 : t;
      }
    }
    rgba[o] = table[c * 3]!;
    rgba[o + 1] = table[c * 3 + 1]!;
    rgba[o + 2] = table[c * 3 + 2]!;
    rgba[o + 3] = 255;
  }
  return rgba;
}

export interface ScreenImage {
  readonly width: number;
  readonly height: number;
  /** Entry of the order per pixel, NO_ENTRY where none. */
  readonly pixels: Int32Array;
  readonly rgba: Uint8ClampedArray;
  readonly legend: ScreenLegend;
  /** Warps painted (shown by the filter and inside the target). */
  readonly shown: number;
  /** The raster behind the image, to resume from (ScreenImageOptions.resume). */
  readonly raster: Raster;
}

export interface ScreenImageOptions extends ScreenFilter {
  readonly metric: ScreenMetric;
  readonly size: TargetSize;
  /** Lanes per subgroup (Trace.device.subgroupSize), for active lanes. */
  readonly subgroupSize: number;
  /** Metric values of the order when already computed (metricValues), so a scrub does not recompute them. */
  readonly values?: Float64Array;
  /** An earlier image's raster of the same order to paint on (see rasterizeOrder); its pixels are reused. */
  readonly resume?: Raster | null;
}

/** The image of `order`'s warps under the options, coloured by the metric, with its legend. */
export function screenImage(cols: ScreenColumns, order: ScreenOrder, options: ScreenImageOptions): ScreenImage {
  const values = options.values ?? metricValues(cols, order, options.metric, options.subgroupSize);
  const domain = metricDomain(order, values, options.metric, options);
  const raster = rasterizeOrder(cols, order, options.size, options, options.resume ?? null);
  const rgba = colorizePixels(raster.pixels, values, domain);
  return { width: raster.width, height: raster.height, pixels: raster.pixels, rgba, legend: screenLegend(options.metric, domain, options.subgroupSize), shown: raster.shown, raster };
}
