/**
 * A CPU model of the ray-tracing reference workload's frame
 * (capture/workloads/src/raytrace*.cpp, shaders/rt*.r*), independent of the
 * GPU path: for each launch pixel, the bounds every ray event of README "Ray
 * events" must lie in. A traversal's order is the driver's (which box it
 * opens first, whether a box farther than a committed hit is still tested),
 * so where that order decides, the model gives a range; where geometry is
 * within a hair of an edge (a pixel jittered by 1/20 px, a sphere's box grown
 * or shrunk by BOX_MARGIN, classifies differently), the union of the
 * variants' ranges.
 */
import { RAY_EVENTS, type RayEvent } from '../../shared-schema/index.js';

export interface RtSceneParams {
  readonly width: number;
  readonly height: number;
  readonly spheres: number;
  /** The fence's plane z (the workload's fenceZ / 100). */
  readonly fenceZ: number;
}

/** Per event, per pixel (row-major): the least and the most the GPU may count. */
export interface RtEventBounds {
  readonly lo: Readonly<Record<RayEvent, Uint8Array>>;
  readonly hi: Readonly<Record<RayEvent, Uint8Array>>;
}

type Vec = readonly [number, number, number];
type Counts = Record<RayEvent, [number, number]>;

/** How far a driver's box may differ from the AABB the app gave (conservative box tests and quantised leaf boxes). */
export const BOX_MARGIN = 0.05;
const T_MIN = 0.001;
const T_MAX = 100;
const LIGHT = normalize([-0.45, 1.0, -0.35]);
const JITTERS: readonly (readonly [number, number])[] = [
  [0, 0],
  [0.05, 0],
  [-0.05, 0],
  [0, 0.05],
  [0, -0.05],
];

function normalize(v: Vec): Vec {
  const l = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / l, v[1] / l, v[2] / l];
}

interface Sphere {
  readonly c: Vec;
  readonly r: number;
}

/** raytrace_scene.cpp buildRtScene: the spheres' centres and radii. */
function spheresOf(count: number): Sphere[] {
  const out: Sphere[] = [];
  for (let i = 0; i < count; i++) {
    const r = 0.3 + (0.25 * ((i * 7) % 5)) / 4;
    out.push({ c: [-3.75 + 1.5 * (i % 6), r, 2.4 + 1.5 * Math.floor(i / 6)], r });
  }
  return out;
}

/** Slab test of the sphere's box grown by `margin`: [entry, exit] within [T_MIN, T_MAX], or null. */
function boxSpan(o: Vec, d: Vec, s: Sphere, margin: number): [number, number] | null {
  const lo = [s.c[0] - s.r - margin, -margin, s.c[2] - s.r - margin];
  const hi = [s.c[0] + s.r + margin, 2 * s.r + margin, s.c[2] + s.r + margin];
  let t0 = T_MIN;
  let t1 = T_MAX;
  for (let k = 0; k < 3; k++) {
    if (Math.abs(d[k]!) < 1e-12) {
      if (o[k]! < lo[k]! || o[k]! > hi[k]!) return null;
      continue;
    }
    const a = (lo[k]! - o[k]!) / d[k]!;
    const b = (hi[k]! - o[k]!) / d[k]!;
    t0 = Math.max(t0, Math.min(a, b));
    t1 = Math.min(t1, Math.max(a, b));
  }
  return t0 <= t1 ? [t0, t1] : null;
}

/** rt.rint: the t the intersection shader reports (the near root, else the far one), or null. */
function sphereHit(o: Vec, d: Vec, s: Sphere): number | null {
  const oc: Vec = [o[0] - s.c[0], o[1] - s.c[1], o[2] - s.c[2]];
  const a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  const b = oc[0] * d[0] + oc[1] * d[1] + oc[2] * d[2];
  const c = oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2] - s.r * s.r;
  const disc = b * b - a * c;
  if (disc < 0) return null;
  let t = (-b - Math.sqrt(disc)) / a;
  if (t < T_MIN) t = (-b + Math.sqrt(disc)) / a;
  return t >= T_MIN && t <= T_MAX ? t : null;
}

/** rt_common.glsl fenceHole. */
function fenceHole(x: number, y: number): boolean {
  const fx = x / 0.3 - Math.floor(x / 0.3) - 0.5;
  const fy = y / 0.3 - Math.floor(y / 0.3) - 0.5;
  return fx * fx + fy * fy < 0.12;
}

interface FenceCross {
  readonly t: number;
  readonly hole: boolean;
}

function fenceCross(o: Vec, d: Vec, fenceZ: number): FenceCross | null {
  if (Math.abs(d[2]) < 1e-12) return null;
  const t = (fenceZ - o[2]) / d[2];
  if (t < T_MIN || t > T_MAX) return null;
  const x = o[0] + t * d[0];
  const y = o[1] + t * d[1];
  if (x < -3 || x > 3 || y < 0 || y > 1.8) return null;
  return { t, hole: fenceHole(x, y) };
}

function groundHit(o: Vec, d: Vec): number | null {
  if (Math.abs(d[1]) < 1e-12) return null;
  const t = -o[1] / d[1];
  if (t < T_MIN || t > T_MAX) return null;
  const x = o[0] + t * d[0];
  const z = o[2] + t * d[2];
  return x >= -8 && x <= 8 && z >= -3 && z <= 16 ? t : null;
}

function emptyCounts(): Counts {
  const c = {} as Counts;
  for (const e of RAY_EVENTS) c[e] = [0, 0];
  return c;
}

function add(c: Counts, e: RayEvent, lo: number, hi: number): void {
  c[e][0] += lo;
  c[e][1] += hi;
}

/** One ray configuration (a jitter, a box margin): every event's range for the pixel's two rays. */
function pixelCounts(o: Vec, d: Vec, spheres: readonly Sphere[], fenceZ: number, margin: number): Counts {
  const c = emptyCounts();
  add(c, 'traceCalls', 1, 1);
  const ground = groundHit(o, d);
  const fence = fenceCross(o, d, fenceZ);
  const boxes = spheres.map((s) => boxSpan(o, d, s, margin));
  const hits = spheres.map((s) => sphereHit(o, d, s));
  let other = ground ?? Infinity;
  let nearest = -1;
  hits.forEach((t, i) => {
    if (t !== null && t < other) (other = t), (nearest = i);
  });
  const final = fence !== null && !fence.hole && fence.t < other ? fence.t : other;
  // A box entered before the final hit is tested whatever the order: the ray's tmax never falls below it.
  add(c, 'intersections', boxes.filter((b) => b !== null && b[0] < final).length, boxes.filter((b) => b !== null).length);
  if (fence !== null) {
    const must = fence.t < other ? 1 : 0;
    add(c, 'anyHits', must, 1);
    if (fence.hole) add(c, 'anyHitsIgnored', must, 1);
    // Accepted, then replaced by a closer sphere: useless when the driver ran it before finding that sphere.
    else if (other < fence.t) add(c, 'uselessAnyHits', 0, 1);
  }
  if (final === Infinity) {
    add(c, 'misses', 1, 1);
    return c;
  }
  add(c, 'closestHits', 1, 1);
  add(c, 'traceCalls', 1, 1);
  // rt.rchit / rt_sphere.rchit: the normal the shadow ray starts off.
  let n: Vec;
  if (final === fence?.t) n = d[2] > 0 ? [0, 0, -1] : [0, 0, 1];
  else if (nearest >= 0 && final === hits[nearest]) {
    const s = spheres[nearest]!;
    n = normalize([o[0] + final * d[0] - s.c[0], o[1] + final * d[1] - s.c[1], o[2] + final * d[2] - s.c[2]]);
  } else n = d[1] < 0 ? [0, 1, 0] : [0, -1, 0];
  const p: Vec = [o[0] + d[0] * final + n[0] * 0.002, o[1] + d[1] * final + n[1] * 0.002, o[2] + d[2] * final + n[2] * 0.002];
  shadowCounts(c, p, spheres, fenceZ, margin);
  return c;
}

/** The shadow ray: terminate on first hit, no closest-hit shader, miss shader 1. */
function shadowCounts(c: Counts, p: Vec, spheres: readonly Sphere[], fenceZ: number, margin: number): void {
  const fence = fenceCross(p, LIGHT, fenceZ);
  const boxes = spheres.map((s) => boxSpan(p, LIGHT, s, margin));
  const hits = spheres.map((s) => sphereHit(p, LIGHT, s));
  const sphereHits = hits.filter((t) => t !== null).length;
  const boxCount = boxes.filter((b) => b !== null).length;
  const acceptable = sphereHits + (fence !== null && !fence.hole ? 1 : 0) + (groundHit(p, LIGHT) !== null ? 1 : 0);
  if (acceptable === 0) {
    // Nothing ends the traversal: every candidate is tested.
    add(c, 'intersections', boxes.filter((b) => b !== null && b[0] > T_MIN).length, boxCount);
    if (fence !== null) add(c, 'anyHits', 1, 1), add(c, 'anyHitsIgnored', 1, 1);
    add(c, 'misses', 1, 1);
    return;
  }
  // The first accepted hit ends it, in the driver's order; a sole acceptable hit must be found.
  const onlySphere = acceptable === 1 && sphereHits === 1;
  const onlyFence = acceptable === 1 && fence !== null && !fence.hole;
  add(c, 'intersections', onlySphere ? 1 : 0, boxCount);
  if (fence !== null) {
    add(c, 'anyHits', onlyFence ? 1 : 0, 1);
    if (fence.hole) add(c, 'anyHitsIgnored', 0, 1);
  }
}

/** Per pixel, the union of the variants' ranges. */
export function rtSceneEventBounds(params: RtSceneParams): RtEventBounds {
  const { width, height } = params;
  const pixels = width * height;
  const lo = {} as Record<RayEvent, Uint8Array>;
  const hi = {} as Record<RayEvent, Uint8Array>;
  for (const e of RAY_EVENTS) (lo[e] = new Uint8Array(pixels).fill(255)), (hi[e] = new Uint8Array(pixels));
  const spheres = spheresOf(params.spheres);
  const origin: Vec = [0, 1.3, -4.5];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      for (const [jx, jy] of JITTERS) {
        const nx = ((x + 0.5 + jx) / width) * 2 - 1;
        const ny = ((y + 0.5 + jy) / height) * 2 - 1;
        const d = normalize([nx * 0.65 * (width / height), -ny * 0.65 - 0.12, 1]);
        for (const margin of [-BOX_MARGIN, BOX_MARGIN]) {
          const c = pixelCounts(origin, d, spheres, params.fenceZ, margin);
          for (const e of RAY_EVENTS) {
            lo[e][p] = Math.min(lo[e][p]!, c[e][0]);
            hi[e][p] = Math.max(hi[e][p]!, c[e][1]);
          }
        }
      }
    }
  }
  return { lo, hi };
}
