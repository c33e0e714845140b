// Ray events from the model to numbers and pixels (analysis/ray-events.ts, ray-screen.ts), on
// rows laid out from described scenes: a disc of pixels that hit, a band of ignored any-hits.
// Expected values come from the scene's description (counted pixel by pixel here), never
// from the implementation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RAY_METRIC_EVENT, RAY_SCREEN_METRICS, cellSpans, rayHeatGrid, rayProfileSummary, rayRowSummary } from '../../analysis/ray-events.js';
import { formatPerPixel, rayHeatImage } from '../../analysis/ray-screen.js';
import { COLORMAP_RGB, COLORMAP_SIZE } from '../../analysis/screen-colormap.js';
import { RAY_EVENTS } from '../../shared-schema/ray-event-model.js';
import { checkRayEventProfile } from '../../shared-schema/ray-event-check.js';
import { discPixel, inDisc, mixedSizeRow, rayProfile, sceneRow, type DiscScene } from './ray-fixtures.js';

const W = 37;
const H = 23;
const scene: DiscScene = { cx: 15, cy: 11, r: 7, bandY0: 9, bandY1: 13 };
const pixel = discPixel(scene);

/** Launch pixels of the scene matching `keep`, counted one by one. */
function countPixels(keep: (x: number, y: number) => boolean): number {
  let n = 0;
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (keep(x, y)) n++;
  return n;
}

const discPixels = countPixels((x, y) => inDisc(scene, x, y));
const bandPixels = countPixels((_, y) => y >= scene.bandY0 && y < scene.bandY1);
const bandDiscPixels = countPixels((x, y) => inDisc(scene, x, y) && y >= scene.bandY0 && y < scene.bandY1);

test('the scene is what it says: some pixels in the disc, some in the band, not all', () => {
  assert.ok(discPixels > 50 && discPixels < W * H / 2, `${discPixels}`);
  assert.equal(bandPixels, 4 * W);
  assert.ok(bandDiscPixels > 0 && bandDiscPixels < bandPixels);
});

test('the rows laid out from scenes pass the model\'s checks (a capture could have written them)', () => {
  const rows = [
    sceneRow({ draw: 0, width: W, height: H, launches: 3, cellsPerRow: 100, pixel }),
    mixedSizeRow(1, { width: 64, height: 64 }, 2, { traceCalls: 10, anyHits: 4, anyHitsIgnored: 1, uselessAnyHits: 2 }),
    sceneRow({ draw: 2, width: 4, height: 3, depth: 2, launches: 1, cellsPerRow: 100, pixel: () => ({ misses: 1 }) }),
    sceneRow({ draw: 3, width: 20000, height: 1, launches: 1, cellsPerRow: 100, pixel: () => ({ traceCalls: 1 }) }),
  ];
  const draws = rows.map(() => ({ kind: 'trace-rays' as const }));
  checkRayEventProfile(rayProfile(rows, 100, { dropped: 20000 }), draws);
  assert.equal(rows[3]!.grid, null);
  assert.equal(rows[3]!.totals.traceCalls, 0, 'a launch too large for a row counts nothing into it');
});

test('a row with a cell per pixel: totals, means per launch pixel, largest pixel, shares, useless share', () => {
  const launches = 3;
  const row = sceneRow({ draw: 4, width: W, height: H, launches, cellsPerRow: W * H, pixel });
  assert.equal(row.grid!.scale, 0);
  const s = rayRowSummary(row);
  const stat = (e: (typeof RAY_EVENTS)[number]) => s.events.find((x) => x.event === e)!;
  assert.deepEqual(s.events.map((e) => e.event), [...RAY_EVENTS]);
  assert.equal(s.launchPixels, W * H);
  assert.equal(s.scale, 0);
  assert.equal(stat('traceCalls').total, launches * W * H);
  assert.equal(stat('traceCalls').perPixel, 1);
  assert.equal(stat('traceCalls').pixelShare, 1);
  assert.equal(stat('intersections').total, launches * 2 * discPixels);
  assert.equal(stat('intersections').perPixel, (2 * discPixels) / (W * H));
  assert.equal(stat('intersections').maxPerPixel, 2);
  assert.equal(stat('intersections').pixelShare, discPixels / (W * H));
  assert.equal(stat('misses').pixelShare, (W * H - discPixels) / (W * H));
  assert.equal(stat('anyHits').pixelShare, bandPixels / (W * H));
  assert.equal(stat('anyHits').maxPerPixel, 3);
  assert.equal(stat('callables').total, 0);
  assert.equal(stat('callables').pixelShare, 0);
  assert.equal(stat('callables').maxPerPixel, 0);
  // Each band pixel accepts one any-hit of three; it is useless inside the disc.
  assert.equal(s.acceptedAnyHits, launches * bandPixels);
  assert.equal(s.uselessShare, bandDiscPixels / bandPixels);
});

test('binned cells: edge cells divide by the pixels they cover, so a uniform scene reads 1 everywhere', () => {
  // 37 × 23 at scale 2: the last column of cells covers 1 pixel, the last row 3.
  const row = sceneRow({ draw: 0, width: W, height: H, launches: 5, cellsPerRow: 60, pixel: () => ({ traceCalls: 1 }) });
  assert.deepEqual(row.grid, { scale: 2, width: 10, height: 6, depth: 1, cells: 60 });
  const spans = cellSpans(row)!;
  assert.equal(spans.columns[9], 1);
  assert.equal(spans.rows[5], 3);
  const heat = rayHeatGrid(row, row.counts.traceCalls)!;
  assert.equal(heat.width, 10);
  assert.equal(heat.height, 6);
  assert.ok(heat.values.every((v) => v === 1), [...heat.values].join(','));
  assert.equal(heat.min, 1);
  assert.equal(heat.max, 1);
  const s = rayRowSummary(row);
  assert.equal(s.events[0]!.perPixel, 1);
  assert.equal(s.events[0]!.maxPerPixel, 1);
});

test('a binned heat grid holds the mean of its pixels per launch; pixel shares become those of the cells', () => {
  const row = sceneRow({ draw: 0, width: W, height: H, launches: 2, cellsPerRow: 100, pixel });
  const scale = row.grid!.scale;
  assert.equal(scale, 2);
  const heat = rayHeatGrid(row, row.counts.intersections)!;
  for (let cy = 0; cy < heat.height; cy++) {
    for (let cx = 0; cx < heat.width; cx++) {
      let sum = 0;
      let n = 0;
      for (let y = cy << scale; y < Math.min(H, (cy + 1) << scale); y++) {
        for (let x = cx << scale; x < Math.min(W, (cx + 1) << scale); x++, n++) sum += pixel(x, y).intersections ?? 0;
      }
      assert.ok(Math.abs(heat.values[cy * heat.width + cx]! - sum / n) < 1e-6, `cell ${cx},${cy}: ${heat.values[cy * heat.width + cx]} vs ${sum / n}`);
    }
  }
  assert.equal(heat.max, 2);
  assert.equal(heat.min, 0);
  // Cells meeting the disc count all their pixels: at least the disc's share, less than all.
  const share = rayRowSummary(row).events.find((e) => e.event === 'intersections')!.pixelShare!;
  assert.ok(share >= discPixels / (W * H) && share < 1, `${share}`);
});

test('the heat image is the launch size, each cell filling its pixels; the ends are the colormap ends', () => {
  const row = sceneRow({ draw: 0, width: W, height: H, launches: 1, cellsPerRow: 100, pixel });
  const heat = rayHeatGrid(row, row.counts.intersections)!;
  const image = rayHeatImage('intersections', heat);
  assert.equal(image.width, W);
  assert.equal(image.height, H);
  assert.equal(image.rgba.length, W * H * 4);
  const rgb = (x: number, y: number) => [...image.rgba.subarray((y * W + x) * 4, (y * W + x) * 4 + 3)].join(',');
  const entry = (i: number) => [...COLORMAP_RGB.subarray(i * 3, i * 3 + 3)].join(',');
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      assert.equal(image.rgba[(y * W + x) * 4 + 3], 255);
      // Every pixel of a cell has the colour of the cell's first pixel.
      assert.equal(rgb(x, y), rgb(x & ~3, y & ~3), `pixel ${x},${y}`);
    }
  }
  // The disc's centre cell is all disc (2 per pixel: the max): yellow; the corner none: dark purple.
  assert.equal(rgb(scene.cx, scene.cy), entry(COLORMAP_SIZE - 1));
  assert.equal(rgb(0, 0), entry(0));
  assert.equal(rgb(W - 1, H - 1), entry(0));
  assert.equal(image.legend.unit, 'per pixel');
  assert.equal(image.legend.minText, '0 per pixel');
  assert.equal(image.legend.maxText, '2 per pixel');
  assert.match(image.legend.text, /^intersection calls per pixel: 0 per pixel \(dark purple\) → 2 per pixel \(yellow\), viridis; cells of 4 × 4 px, mean of 1 launch$/);
});

test('one value everywhere takes the middle colour, as the warp metrics do', () => {
  const row = sceneRow({ draw: 0, width: 8, height: 8, launches: 2, cellsPerRow: 64, pixel: () => ({ traceCalls: 2 }) });
  const image = rayHeatImage('rays', rayHeatGrid(row, row.counts.traceCalls)!);
  const mid = (COLORMAP_SIZE - 1) >>> 1;
  for (let p = 0; p < 64; p++) assert.deepEqual([...image.rgba.subarray(p * 4, p * 4 + 3)], [...COLORMAP_RGB.subarray(mid * 3, mid * 3 + 3)]);
  assert.equal(image.legend.minText, '2 per pixel');
});

test('layers: the heat grid of layer 1 is the second layer', () => {
  const row = sceneRow({ draw: 0, width: 4, height: 3, depth: 2, launches: 1, cellsPerRow: 24, pixel: (x, y, z) => ({ misses: z === 1 ? x + 10 * y : 0 }) });
  const heat = rayHeatGrid(row, row.counts.misses, 1)!;
  assert.deepEqual([...heat.values], [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]);
  assert.ok(rayHeatGrid(row, row.counts.misses, 0)!.values.every((v) => v === 0));
  assert.equal(rayHeatGrid(row, row.counts.misses, 2), null);
});

test('mixed sizes and a launch too large for a row keep their totals and make no picture', () => {
  const mixed = mixedSizeRow(2, { width: 640, height: 480 }, 3, { traceCalls: 1000, anyHits: 30, anyHitsIgnored: 10, uselessAnyHits: 5 });
  const s = rayRowSummary(mixed);
  assert.equal(s.events[0]!.total, 1000);
  assert.ok(s.events.every((e) => e.perPixel === null && e.maxPerPixel === null && e.pixelShare === null));
  assert.equal(s.scale, null);
  assert.equal(s.uselessShare, 5 / 20);
  assert.equal(rayHeatGrid(mixed, mixed.counts.traceCalls), null);
  // 2000 × 1 needs 16 cells even at 128 × 128 px per cell, the row has 8: no grid, the events dropped.
  const huge = sceneRow({ draw: 1, width: 2000, height: 1, launches: 1, cellsPerRow: 8, pixel: () => ({}) });
  assert.equal(huge.grid, null);
  const h = rayRowSummary(huge);
  assert.equal(h.events[0]!.perPixel, 0);
  assert.equal(h.events[0]!.pixelShare, null);
});

test('the profile summary: rows of the draws asked for, lower bound when traversals went uncounted', () => {
  const rows = [0, 3, 5].map((draw) => sceneRow({ draw, width: 8, height: 8, launches: 1, cellsPerRow: 64, pixel: () => ({ traceCalls: draw }) }));
  const all = rayProfileSummary(rayProfile(rows, 64));
  assert.deepEqual(all.rows.map((r) => r.draw), [0, 3, 5]);
  assert.equal(all.uselessLowerBound, false);
  const some = rayProfileSummary(rayProfile(rows, 64, { uncountedTraversals: 7, dropped: 2 }), { draws: new Set([3, 4]) });
  assert.deepEqual(some.rows.map((r) => r.draw), [3]);
  assert.equal(some.rows[0]!.events[0]!.perPixel, 3);
  assert.equal(some.uselessLowerBound, true);
  assert.equal(some.dropped, 2);
});

test('every ray metric names an event, each event once', () => {
  assert.deepEqual([...new Set(RAY_SCREEN_METRICS.map((m) => RAY_METRIC_EVENT[m]))].sort(), [...RAY_EVENTS].sort());
  assert.equal(formatPerPixel(0), '0');
  assert.equal(formatPerPixel(1 / 3), '0.333');
  assert.equal(formatPerPixel(12.345), '12.3');
  assert.equal(formatPerPixel(123456), '123,456');
});
