/**
 * Ray events (`instrument --ray-events`, shared-schema README "Ray events"):
 * per profiled trace-rays draw, what its launch pixels cost (trace calls,
 * intersection, any-hit, closest-hit, miss and callable invocations, ignored
 * and useless any-hits), as totals, means per launch pixel and per-cell heat
 * grids. Pure and columnar: the CLI's `warptrace rays` and `export --screen`,
 * and the viewer's screen worker, share it.
 */
import type { RayCellGrid } from '../shared-schema/ray-event-layout.js';
import { RAY_EVENTS, RAY_EVENT_LABELS, type RayEvent, type RayEventProfile, type RayEventRow } from '../shared-schema/ray-event-model.js';

/** The ray metrics of the screen view and `export --screen`, one per event. */
export const RAY_SCREEN_METRICS = ['rays', 'intersections', 'any-hits', 'ignored-any-hits', 'useless-any-hits', 'closest-hits', 'misses', 'callables'] as const;
export type RayScreenMetric = (typeof RAY_SCREEN_METRICS)[number];

export const RAY_METRIC_EVENT: Readonly<Record<RayScreenMetric, RayEvent>> = {
  rays: 'traceCalls',
  intersections: 'intersections',
  'any-hits': 'anyHits',
  'ignored-any-hits': 'anyHitsIgnored',
  'useless-any-hits': 'uselessAnyHits',
  'closest-hits': 'closestHits',
  misses: 'misses',
  callables: 'callables',
};

export const RAY_METRIC_LABELS: Readonly<Record<RayScreenMetric, string>> = {
  rays: 'rays (trace calls) per pixel',
  intersections: 'intersection calls per pixel',
  'any-hits': 'any-hit calls per pixel',
  'ignored-any-hits': 'ignored any-hits per pixel',
  'useless-any-hits': 'useless any-hits per pixel',
  'closest-hits': 'closest hits per pixel',
  misses: 'misses per pixel',
  callables: 'callable calls per pixel',
};

export function isRayScreenMetric(value: string): value is RayScreenMetric {
  return (RAY_SCREEN_METRICS as readonly string[]).includes(value);
}

/** One event of a row. */
export interface RayEventStat {
  readonly event: RayEvent;
  readonly label: string;
  /** Over every launch of the row (exact, mixed sizes included). */
  readonly total: number;
  /** total / (launches × launch pixels): the mean per launch pixel and launch; null with mixed sizes (their pixels are unknown) or no launch. */
  readonly perPixel: number | null;
  /**
   * The largest cell mean per pixel and launch (a cell's count / (launches × its pixels)): the
   * largest pixel's value at scale 0, where a cell is a pixel; null without a grid.
   */
  readonly maxPerPixel: number | null;
  /** Share of launch pixels in cells with any of the event: exact at scale 0, an upper bound when cells bin several pixels; null without a grid. */
  readonly pixelShare: number | null;
}

/** A profiled trace-rays draw. */
export interface RayRowSummary {
  readonly draw: number;
  readonly launches: number;
  readonly launchWidth: number;
  readonly launchHeight: number;
  readonly launchDepth: number;
  /** launchWidth × launchHeight × launchDepth (the largest launch's with mixed sizes). */
  readonly launchPixels: number;
  readonly mixedSizes: boolean;
  /** Cells bin 2^scale × 2^scale pixels; null without a grid (mixed sizes, no launch). */
  readonly scale: number | null;
  /** In RAY_EVENTS order. */
  readonly events: readonly RayEventStat[];
  /** Any-hits that accepted their hit: any-hits − ignored. */
  readonly acceptedAnyHits: number;
  /** Useless any-hits / accepted any-hits (null without accepted any-hits); a lower bound where the profile says so. */
  readonly uselessShare: number | null;
}

export interface RayProfileSummary {
  readonly rows: readonly RayRowSummary[];
  readonly cellsPerRow: number;
  readonly dropped: number;
  readonly uncountedTraversals: number;
  readonly unprofiledLaunches: number;
  /** Some traversals' useless any-hits were not counted: useless counts are lower bounds. */
  readonly uselessLowerBound: boolean;
}

/** What the heat maps and event statistics read of a row: the launch and how it was binned (a RayEventRow satisfies it). */
export interface RayGridSource {
  readonly launches: number;
  readonly launchWidth: number;
  readonly launchHeight: number;
  readonly launchDepth: number;
  readonly mixedSizes: boolean;
  readonly grid: RayCellGrid | null;
}

/** Launch pixels per cell column and per cell row (edge cells cover fewer). */
export function cellSpans(source: RayGridSource): { columns: Uint32Array; rows: Uint32Array } | null {
  const grid = source.grid;
  if (grid === null) return null;
  const side = 2 ** grid.scale;
  const span = (cells: number, pixels: number) => {
    const out = new Uint32Array(cells);
    for (let c = 0; c < cells; c++) out[c] = Math.max(0, Math.min(pixels, (c + 1) * side) - c * side);
    return out;
  };
  return { columns: span(grid.width, source.launchWidth), rows: span(grid.height, source.launchHeight) };
}

/**
 * One event of a row: `counts` its per-cell counts (every layer; empty without
 * a grid), `total` the row's exact total.
 */
export function rayEventStat(source: RayGridSource, event: RayEvent, counts: Uint32Array, total: number): RayEventStat {
  const launchPixels = source.launchWidth * source.launchHeight * source.launchDepth;
  const pixelsCounted = source.mixedSizes ? 0 : source.launches * launchPixels;
  const spans = cellSpans(source);
  const cells = spans === null || source.launches < 1 ? null : cellStats(source, counts, spans);
  return {
    event,
    label: RAY_EVENT_LABELS[event],
    total,
    perPixel: pixelsCounted > 0 ? total / pixelsCounted : null,
    maxPerPixel: cells?.maxPerPixel ?? null,
    pixelShare: cells === null || launchPixels === 0 ? null : cells.pixelsWithAny / launchPixels,
  };
}

/** The summary of one row. */
export function rayRowSummary(row: RayEventRow): RayRowSummary {
  const events = RAY_EVENTS.map((event) => rayEventStat(row, event, row.counts[event], row.totals[event]));
  const acceptedAnyHits = row.totals.anyHits - row.totals.anyHitsIgnored;
  return {
    draw: row.draw,
    launches: row.launches,
    launchWidth: row.launchWidth,
    launchHeight: row.launchHeight,
    launchDepth: row.launchDepth,
    launchPixels: row.launchWidth * row.launchHeight * row.launchDepth,
    mixedSizes: row.mixedSizes,
    scale: row.grid?.scale ?? null,
    events,
    acceptedAnyHits,
    uselessShare: acceptedAnyHits > 0 ? row.totals.uselessAnyHits / acceptedAnyHits : null,
  };
}

/** Over a row's cells (every layer): the largest mean per pixel and launch, and the launch pixels in cells with any. */
function cellStats(source: RayGridSource, counts: Uint32Array, spans: { columns: Uint32Array; rows: Uint32Array }): { maxPerPixel: number | null; pixelsWithAny: number } {
  const grid = source.grid!;
  let max = -Infinity;
  let pixelsWithAny = 0;
  for (let z = 0, c = 0; z < grid.depth; z++) {
    for (let cy = 0; cy < grid.height; cy++) {
      const rowPixels = spans.rows[cy]!;
      for (let cx = 0; cx < grid.width; cx++, c++) {
        const pixels = rowPixels * spans.columns[cx]!;
        const count = counts[c] ?? 0;
        if (pixels === 0) continue;
        if (count > 0) pixelsWithAny += pixels;
        const mean = count / (source.launches * pixels);
        if (mean > max) max = mean;
      }
    }
  }
  return { maxPerPixel: max === -Infinity ? null : max, pixelsWithAny };
}

export interface RayQuery {
  /** The draws to summarize (null: every row). */
  readonly draws?: ReadonlySet<number> | null;
}

/** Every row's summary (or those of the query's draws), in draw order. */
export function rayProfileSummary(profile: RayEventProfile, query: RayQuery = {}): RayProfileSummary {
  const draws = query.draws ?? null;
  return {
    rows: profile.rows.filter((r) => draws === null || draws.has(r.draw)).map(rayRowSummary),
    cellsPerRow: profile.cellsPerRow,
    dropped: profile.dropped,
    uncountedTraversals: profile.uncountedTraversals,
    unprofiledLaunches: profile.unprofiledLaunches,
    uselessLowerBound: profile.uncountedTraversals > 0,
  };
}

/** The row of `draw`, or null. */
export function rayRowOf(profile: RayEventProfile | null | undefined, draw: number): RayEventRow | null {
  if (profile === null || profile === undefined) return null;
  return profile.rows.find((r) => r.draw === draw) ?? null;
}

/** One layer of a row's cells as events per launch pixel and launch. */
export interface RayHeatGrid {
  /** Cells across and down (grid.width × grid.height); values is row-major. */
  readonly width: number;
  readonly height: number;
  readonly scale: number;
  readonly layer: number;
  readonly launchWidth: number;
  readonly launchHeight: number;
  readonly launches: number;
  /** Per cell: its count / (launches × the launch pixels it covers). */
  readonly values: Float32Array;
  /** Smallest and largest value (computed in double precision). */
  readonly min: number;
  readonly max: number;
}

/**
 * The heat grid of `counts` (one event of a row, every layer) on layer `layer`:
 * each cell's count divided by the launches and by the launch pixels that cell
 * covers (edge cells cover fewer). Null without a grid or a launch, or for a
 * layer past the launch's depth.
 */
export function rayHeatGrid(source: RayGridSource, counts: Uint32Array, layer = 0): RayHeatGrid | null {
  const grid = source.grid;
  const spans = cellSpans(source);
  if (grid === null || spans === null || source.launches < 1 || !(layer >= 0 && layer < grid.depth)) return null;
  const perLayer = grid.width * grid.height;
  if (counts.length < perLayer * (layer + 1)) throw new RangeError(`ray heat grid: ${counts.length} counts for ${grid.depth} layers of ${perLayer} cells`);
  const values = new Float32Array(perLayer);
  let min = Infinity;
  let max = -Infinity;
  for (let cy = 0, c = 0, from = layer * perLayer; cy < grid.height; cy++) {
    const rowPixels = spans.rows[cy]!;
    for (let cx = 0; cx < grid.width; cx++, c++) {
      const pixels = rowPixels * spans.columns[cx]!;
      // A cell covers at least one pixel of a grid rayCellGrid made; a row that says otherwise counts as 0.
      const v = pixels > 0 ? counts[from + c]! / (source.launches * pixels) : 0;
      values[c] = v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return { width: grid.width, height: grid.height, scale: grid.scale, layer, launchWidth: source.launchWidth, launchHeight: source.launchHeight, launches: source.launches, values, min, max };
}
