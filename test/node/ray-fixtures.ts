/**
 * Ray-event profiles laid out from a described scene, for the ray tests (node
 * and browser): each launch pixel's events of one launch come from a function
 * of (x, y, z), and the row holds them binned the way the GPU bins them
 * (rayCellGrid), summed over the launches. Pure: no Node imports.
 */
import { rayCellGrid } from '../../shared-schema/ray-event-layout.js';
import { RAY_EVENTS, type RayEvent, type RayEventProfile, type RayEventRow } from '../../shared-schema/ray-event-model.js';

export type PixelEvents = Partial<Record<RayEvent, number>>;

export interface RaySceneSpec {
  readonly draw: number;
  readonly width: number;
  readonly height: number;
  readonly depth?: number;
  readonly launches: number;
  readonly cellsPerRow: number;
  /** One launch's events at a launch pixel. */
  readonly pixel: (x: number, y: number, z: number) => PixelEvents;
}

function zeroTotals(): Record<RayEvent, number> {
  return Object.fromEntries(RAY_EVENTS.map((e) => [e, 0])) as Record<RayEvent, number>;
}

/** The row the GPU would have written for `launches` identical launches of the scene. */
export function sceneRow(spec: RaySceneSpec): RayEventRow {
  const depth = spec.depth ?? 1;
  const grid = rayCellGrid(spec.width, spec.height, depth, spec.cellsPerRow);
  const cells = grid?.cells ?? 0;
  const counts = Object.fromEntries(RAY_EVENTS.map((e) => [e, new Uint32Array(cells)])) as Record<RayEvent, Uint32Array>;
  const totals = zeroTotals();
  for (let z = 0; z < depth; z++) {
    for (let y = 0; y < spec.height; y++) {
      for (let x = 0; x < spec.width; x++) {
        const events = spec.pixel(x, y, z);
        const cell = grid === null ? -1 : (z * grid.height + (y >> grid.scale)) * grid.width + (x >> grid.scale);
        // A launch too large for a row counts nothing into it (its events go to the profile's dropped).
        if (cell < 0) continue;
        for (const e of RAY_EVENTS) {
          const v = (events[e] ?? 0) * spec.launches;
          totals[e] += v;
          counts[e][cell]! += v;
        }
      }
    }
  }
  return { draw: spec.draw, launches: spec.launches, launchWidth: spec.width, launchHeight: spec.height, launchDepth: depth, mixedSizes: false, grid, counts, totals };
}

/** A row whose launches had different sizes: the totals, no grid, no cells. */
export function mixedSizeRow(draw: number, largest: { width: number; height: number }, launches: number, totals: PixelEvents): RayEventRow {
  const all = zeroTotals();
  for (const e of RAY_EVENTS) all[e] = totals[e] ?? 0;
  const counts = Object.fromEntries(RAY_EVENTS.map((e) => [e, new Uint32Array(0)])) as Record<RayEvent, Uint32Array>;
  return { draw, launches, launchWidth: largest.width, launchHeight: largest.height, launchDepth: 1, mixedSizes: true, grid: null, counts, totals: all };
}

/** A profile of `rows`, which must have been laid out for `cellsPerRow` (the table's: every row has as many cells). */
export function rayProfile(rows: readonly RayEventRow[], cellsPerRow: number, extra: Partial<Omit<RayEventProfile, 'rows' | 'cellsPerRow'>> = {}): RayEventProfile {
  return { cellsPerRow, dropped: extra.dropped ?? 0, uncountedTraversals: extra.uncountedTraversals ?? 0, unprofiledLaunches: extra.unprofiledLaunches ?? 0, rows };
}

/**
 * The test scene: every pixel traces one ray; pixels inside a disc (centre
 * cx, cy, radius r) call 2 intersection shaders and hit (a closest hit), the
 * others miss; in a band of rows [bandY0, bandY1) every pixel runs 3 any-hits,
 * 2 of which ignore their hit, and inside the disc the one accepted is useless
 * (a closer hit replaced it).
 */
export interface DiscScene {
  readonly cx: number;
  readonly cy: number;
  readonly r: number;
  readonly bandY0: number;
  readonly bandY1: number;
}

export function inDisc(s: DiscScene, x: number, y: number): boolean {
  return (x + 0.5 - s.cx) ** 2 + (y + 0.5 - s.cy) ** 2 <= s.r * s.r;
}

export function discPixel(s: DiscScene): (x: number, y: number) => PixelEvents {
  return (x, y) => {
    const disc = inDisc(s, x, y);
    const band = y >= s.bandY0 && y < s.bandY1;
    return {
      traceCalls: 1,
      intersections: disc ? 2 : 0,
      closestHits: disc ? 1 : 0,
      misses: disc ? 0 : 1,
      anyHits: band ? 3 : 0,
      anyHitsIgnored: band ? 2 : 0,
      uselessAnyHits: band && disc ? 1 : 0,
    };
  };
}
