// A capture with ray events for the tests (README "Ray events"): described launches over described
// scenes, each kind of row once, and what the scenes add up to, computed from the scenes themselves.
import { H100_CLOCKS, RAY_EVENTS, rawCaptureOf, synthesizeTrace, type RawCapture, type RayEvent } from '../../shared-schema/index.js';
import { foliageScene, withRayEvents, type RayLaunchSize, type RayScene, type SyntheticRayCapture } from '../../shared-schema/synthetic-rays.js';

export const truth = synthesizeTrace({ warps: 2000, seed: 5, warpsPerDraw: 250 });
export const base = rawCaptureOf(truth, H100_CLOCKS).raw;
export const drawCount = truth.draws.length;

/** Deeper layers trace more rays and hit more often. */
export const layeredScene: RayScene = (x, _y, z) => ({ traceCalls: 1 + z, closestHits: z, misses: 1, intersections: x % 2 });

export const CELLS_PER_ROW = 256;
/** The draws each row's launches ran in, by what the row is. */
export const Draw = { FRAMES: 5, MIXED: 1, LAYERED: 3, TOO_DEEP: 6, IDLE: 7 } as const;

/**
 * Listed out of draw order (the decoder sorts): two frames of one 40 × 24 launch (binned 2 × 2: 960
 * pixels are more than 256 cells, 20 × 12 = 240 are not), launches of two sizes, an 8 × 4 × 3 launch
 * (96 cells, unbinned), a 1 × 1 × 257 launch no row holds at any scale, and a row never launched.
 */
export const CAPTURE: SyntheticRayCapture = {
  cellsPerRow: CELLS_PER_ROW,
  uncountedTraversals: 9,
  unprofiledLaunches: 1,
  rows: [
    { draw: Draw.FRAMES, launches: [size(40, 24), size(40, 24)], scene: foliageScene(40, 24) },
    { draw: Draw.MIXED, launches: [size(16, 16), size(8, 32)], scene: foliageScene(16, 32) },
    { draw: Draw.LAYERED, launches: [size(8, 4, 3)], scene: layeredScene },
    { draw: Draw.TOO_DEEP, launches: [size(1, 1, 257)], scene: foliageScene(1, 1) },
    { draw: Draw.IDLE, launches: [], scene: () => ({}) },
  ],
};

export function size(width: number, height: number, depth = 1): RayLaunchSize {
  return { width, height, depth };
}

export function withRays(capture: SyntheticRayCapture = CAPTURE, raw: RawCapture = base): RawCapture {
  return withRayEvents(raw, capture);
}

/** Each event summed over the pixels of `launches` with `scene`, restricted to pixels `where` says. */
export function sceneSums(scene: RayScene, launches: readonly RayLaunchSize[], where: (x: number, y: number, z: number) => boolean = () => true): Record<RayEvent, number> {
  const sums = Object.fromEntries(RAY_EVENTS.map((e) => [e, 0])) as Record<RayEvent, number>;
  launches.forEach((l, launch) => {
    for (let z = 0; z < l.depth; z++) {
      for (let y = 0; y < l.height; y++) {
        for (let x = 0; x < l.width; x++) {
          if (!where(x, y, z)) continue;
          const events = scene(x, y, z, launch);
          for (const e of RAY_EVENTS) sums[e] += events[e] ?? 0;
        }
      }
    }
  });
  return sums;
}

export function rowOf(capture: SyntheticRayCapture, draw: number) {
  const row = capture.rows.find((r) => r.draw === draw);
  if (row === undefined) throw new Error(`no row for draw ${draw}`);
  return row;
}
