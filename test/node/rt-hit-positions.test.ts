// A known answer for screen positions in the ray-tracing stages: an H200 capture of the
// ray-tracing workload at 1280x720 (`warptrace capture --workload ray-tracing --instrument auto`,
// positions in every ray-tracing stage by default) against the CPU model of its scene
// (rt-scene-model.ts), which knows which pixels can run a closest hit, a miss, an intersection
// or an any-hit and how many. Each hit-stage warp's footprint must hold a pixel where the model
// allows its stage; every pixel where the model insists on a closest hit or a miss must lie in
// a footprint of that stage; and the live lanes of a stage's warps, summed, are its invocations,
// which must lie within the model's bounds summed over the frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeWtrace, Stage, type RayEvent, type Trace } from '../../shared-schema/index.js';
import { hasPosition, positionHeight, positionWidth, positionX, positionY } from '../../shared-schema/position.js';
import { repoPath } from './paths.js';
import { rtSceneEventBounds, type RtEventBounds } from './rt-scene-model.js';

const FILE = 'h200-ray-tracing-hit-positions.wtrace';
const WIDTH = 1280;
const HEIGHT = 720;

const STAGE_EVENTS: readonly [number, RayEvent][] = [
  [Stage.CLOSEST_HIT, 'closestHits'],
  [Stage.MISS, 'misses'],
  [Stage.INTERSECTION, 'intersections'],
  [Stage.ANY_HIT, 'anyHits'],
];

let cached: { trace: Trace; bounds: RtEventBounds } | null = null;
function load(): { trace: Trace; bounds: RtEventBounds } {
  if (cached !== null) return cached;
  const trace = decodeWtrace(new Uint8Array(readFileSync(repoPath('samples', FILE))));
  const p = trace.capture.parameters;
  assert.deepEqual([p.width, p.height, p.spheres, p.fenceZ], [WIDTH, HEIGHT, 24, 120], 'the default scene at 1280x720');
  cached = { trace, bounds: rtSceneEventBounds({ width: WIDTH, height: HEIGHT, spheres: 24, fenceZ: 1.2 }) };
  return cached;
}

function popcount(v: number): number {
  let n = 0;
  for (let x = v >>> 0; x !== 0; x &= x - 1) n++;
  return n;
}

/** Calls `visit` for each pixel of a warp's footprint inside the launch; stops when it returns true. */
function someFootprintPixel(word: number, visit: (p: number) => boolean): boolean {
  const x0 = positionX(word);
  const y0 = positionY(word);
  const x1 = Math.min(WIDTH, x0 + positionWidth(word));
  const y1 = Math.min(HEIGHT, y0 + positionHeight(word));
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (visit(y * WIDTH + x)) return true;
  return false;
}

test('every ray-tracing stage records a position for each of its warps, inside the launch', () => {
  const { trace } = load();
  const w = trace.warps;
  const position = w.position;
  assert.ok(position !== null, 'a position column');
  for (const [stage] of [[Stage.RAYGEN], ...STAGE_EVENTS]) {
    let warps = 0;
    for (let i = 0; i < w.count; i++) {
      if (w.stage[i] !== stage) continue;
      warps++;
      const word = position[i]!;
      assert.ok(hasPosition(word), `warp ${i} (stage ${stage}) has a position`);
      assert.ok(positionX(word) < WIDTH && positionY(word) < HEIGHT, `warp ${i}: its box starts inside the launch`);
    }
    assert.ok(warps > 1000, `stage ${stage}: ${warps} warps`);
  }
});

test('each hit-stage warp covers a pixel where the scene model lets its stage run there', () => {
  const { trace, bounds } = load();
  const w = trace.warps;
  for (const [stage, event] of STAGE_EVENTS) {
    const hi = bounds.hi[event];
    const bad: number[] = [];
    for (let i = 0; i < w.count; i++) {
      if (w.stage[i] !== stage) continue;
      if (!someFootprintPixel(w.position![i]!, (p) => hi[p]! > 0)) bad.push(i);
    }
    assert.deepEqual(bad.slice(0, 5), [], `${event}: ${bad.length} warps whose footprint holds no pixel the model allows`);
  }
});

test('every pixel where the model insists on a closest hit or a miss lies in a footprint of that stage', () => {
  const { trace, bounds } = load();
  const w = trace.warps;
  for (const [stage, event] of STAGE_EVENTS.slice(0, 2)) {
    const covered = new Uint8Array(WIDTH * HEIGHT);
    for (let i = 0; i < w.count; i++) {
      if (w.stage[i] === stage) someFootprintPixel(w.position![i]!, (p) => ((covered[p] = 1), false));
    }
    const lo = bounds.lo[event];
    let must = 0;
    let missing = 0;
    for (let p = 0; p < lo.length; p++) {
      if (lo[p]! === 0) continue;
      must++;
      if (covered[p] === 0) missing++;
    }
    assert.ok(must > 100_000, `${event}: ${must} pixels the model pins down`);
    assert.equal(missing, 0, `${event}: ${missing} of ${must} such pixels in no footprint of the stage`);
  }
});

test('a stage\'s live lanes, summed over its warps, are its invocations: within the model\'s bounds for the frame', () => {
  const { trace, bounds } = load();
  const w = trace.warps;
  for (const [stage, event] of STAGE_EVENTS.slice(0, 2)) {
    let lanes = 0;
    for (let i = 0; i < w.count; i++) if (w.stage[i] === stage) lanes += popcount(w.activeMask[i]!);
    let lo = 0;
    let hi = 0;
    for (let p = 0; p < WIDTH * HEIGHT; p++) (lo += bounds.lo[event][p]!), (hi += bounds.hi[event][p]!);
    assert.ok(lanes >= lo && lanes <= hi, `${event}: ${lanes} lanes, the model ${lo}..${hi}`);
  }
});
