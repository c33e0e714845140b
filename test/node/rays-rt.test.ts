// A known answer for ray events: two H200 captures of the ray-tracing workload at 320x180
// (`warptrace capture --workload ray-tracing --ray-events`), the fence in front of the
// spheres (fenceZ 120, the default scene) and behind them (fenceZ 750), against a CPU model
// of the scene (rt-scene-model.ts) that knows nothing of the GPU path: each pixel's counts
// lie within the model's bounds, and where the model leaves the driver no choice, equal them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeWtrace, RAY_EVENTS, type RayEvent, type RayEventRow } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';
import { rtSceneEventBounds, type RtEventBounds } from './rt-scene-model.js';

const WIDTH = 320;
const HEIGHT = 180;
const SPHERES = 24;

function rowOf(file: string): RayEventRow {
  const trace = decodeWtrace(new Uint8Array(readFileSync(repoPath('samples', file))));
  const profile = trace.rayEvents;
  assert.ok(profile, `${file} has ray events`);
  assert.equal(profile.dropped, 0, 'nothing dropped');
  assert.equal(profile.rows.length, 1, 'one trace-rays call');
  const row = profile.rows[0]!;
  assert.equal(row.launches, 1);
  assert.deepEqual([row.launchWidth, row.launchHeight, row.launchDepth], [WIDTH, HEIGHT, 1]);
  assert.ok(row.grid !== null && row.grid.scale === 0, 'a cell per pixel');
  return row;
}

interface Check {
  readonly outside: number;
  readonly exact: number;
  readonly exactPixels: number;
}

/** Pixels whose count lies outside the model's bounds, and those the model pins down. */
function check(row: RayEventRow, bounds: RtEventBounds, event: RayEvent): Check {
  const counts = row.counts[event];
  const lo = bounds.lo[event];
  const hi = bounds.hi[event];
  let outside = 0;
  let exact = 0;
  let exactPixels = 0;
  const examples: string[] = [];
  for (let p = 0; p < counts.length; p++) {
    const n = counts[p]!;
    if (n < lo[p]! || n > hi[p]!) {
      outside++;
      if (examples.length < 5) examples.push(`(${p % WIDTH}, ${Math.floor(p / WIDTH)}): ${n} not in [${lo[p]}, ${hi[p]}]`);
    }
    if (lo[p] === hi[p]) exactPixels++, (exact += n === lo[p] ? 1 : 0);
  }
  assert.equal(outside, 0, `${event}: ${outside} pixels outside the model's bounds, e.g. ${examples.join('; ')}`);
  return { outside, exact, exactPixels };
}

for (const [file, fenceZ] of [
  ['h200-ray-tracing-rays.wtrace', 1.2],
  ['h200-ray-tracing-rays-fence-behind.wtrace', 7.5],
] as const) {
  test(`ray events of ${file} lie within the CPU model of the scene (fence at z ${fenceZ})`, () => {
    const row = rowOf(file);
    const bounds = rtSceneEventBounds({ width: WIDTH, height: HEIGHT, spheres: SPHERES, fenceZ });
    for (const event of RAY_EVENTS) {
      const c = check(row, bounds, event);
      // The model pins most pixels down: a model that allowed anything would pass the bounds trivially.
      if (event !== 'callables' && event !== 'uselessAnyHits') assert.ok(c.exactPixels > (WIDTH * HEIGHT) / 2, `${event}: the model pins ${c.exactPixels} pixels`);
    }
  });
}

test('intersection calls cover exactly the pixels whose rays reach a sphere box', () => {
  const row = rowOf('h200-ray-tracing-rays.wtrace');
  const bounds = rtSceneEventBounds({ width: WIDTH, height: HEIGHT, spheres: SPHERES, fenceZ: 1.2 });
  const counts = row.counts.intersections;
  let must = 0;
  let covered = 0;
  for (let p = 0; p < counts.length; p++) {
    if (bounds.lo.intersections[p]! > 0) must++, (covered += counts[p]! > 0 ? 1 : 0);
    // No box on either ray: no intersection call.
    if (bounds.hi.intersections[p] === 0) assert.equal(counts[p], 0, `pixel ${p}`);
  }
  assert.ok(must > 1000, `${must} pixels must call the intersection shader`);
  assert.equal(covered, must);
});

test("any-hit counts follow the fence's alpha mask", () => {
  const row = rowOf('h200-ray-tracing-rays.wtrace');
  const bounds = rtSceneEventBounds({ width: WIDTH, height: HEIGHT, spheres: SPHERES, fenceZ: 1.2 });
  let holes = 0;
  let solid = 0;
  for (let p = 0; p < row.counts.anyHits.length; p++) {
    // Primary rays through the fence: an any-hit each; ignored exactly where the ray goes through a hole.
    if (bounds.lo.anyHits[p]! > 0 && bounds.lo.anyHits[p] === bounds.hi.anyHits[p]) {
      if (bounds.lo.anyHitsIgnored[p] === bounds.hi.anyHitsIgnored[p]) (bounds.lo.anyHitsIgnored[p]! > 0 ? holes++ : solid++);
    }
  }
  assert.ok(holes > 500 && solid > 500, `${holes} hole and ${solid} solid pixels pinned down`);
  // In the default scene nothing is closer than the fence: no accepted any-hit is ever replaced.
  assert.equal(row.totals.uselessAnyHits, 0);
});

test('behind the spheres, accepted fence any-hits can become useless only where a sphere is closer', () => {
  const row = rowOf('h200-ray-tracing-rays-fence-behind.wtrace');
  const bounds = rtSceneEventBounds({ width: WIDTH, height: HEIGHT, spheres: SPHERES, fenceZ: 7.5 });
  let possible = 0;
  for (let p = 0; p < row.counts.uselessAnyHits.length; p++) possible += bounds.hi.uselessAnyHits[p]! > 0 ? 1 : 0;
  assert.ok(possible > 100, `${possible} pixels where a sphere hides the fence`);
  // Whether a hidden fence's any-hit runs at all is the traversal's order: the H200 (driver 580) opened the nearer
  // sphere first in every pixel, so the fence was culled, never accepted then replaced (0 useless). The counting
  // itself is checked on the CPU (spirv-ray-events-run.test.ts); here, that the fence's any-hits shrink to where it shows.
  assert.ok(row.totals.uselessAnyHits <= possible);
  const front = rowOf('h200-ray-tracing-rays.wtrace');
  assert.ok(row.totals.anyHits * 4 < front.totals.anyHits, `${row.totals.anyHits} any-hits behind, ${front.totals.anyHits} in front`);
});
