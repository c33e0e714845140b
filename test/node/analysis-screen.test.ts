/** The screen view's analysis (analysis/screen-*.ts) against brute-force references on generated columns. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { COLORMAP_RGB, COLORMAP_SIZE, NO_WARP_RGB } from '../../analysis/screen-colormap.js';
import { busiestDraws, busiestTargetDraw, drawSet, footprintExtent, imageSize, positionedWarpsPerDraw, screenColumns, type ScreenColumns } from '../../analysis/screen-columns.js';
import { metricDomain, metricValues, screenLegend } from '../../analysis/screen-metric.js';
import { orderSpan, screenOrder, startedBy, type ScreenOrder } from '../../analysis/screen-order.js';
import { rowAtPixel, rowsInRect } from '../../analysis/screen-query.js';
import { colorizePixels, NO_ENTRY, rasterizeOrder, screenImage } from '../../analysis/screen-raster.js';
import { NO_POSITION, packPosition, unpackPosition } from '../../shared-schema/position.js';
import { randomScreenColumns, tiledFrameColumns } from './screen-fixtures.js';

const W = 64;
const H = 48;
const cols = randomScreenColumns({ warps: 3000, sms: 6, draws: 4, width: W, height: H, seed: 7, unpositioned: 0.1, startStepNs: 5 });

/** The row a pixel shows, by definition: the covering, shown warp that started last (ties: the higher row); -1 for none. */
function bruteForcePixel(c: ScreenColumns, x: number, y: number, shown: (row: number) => boolean): number {
  let best = -1;
  for (let row = 0; row < c.count; row++) {
    const f = unpackPosition(c.position[row]!);
    if (f === null || !shown(row)) continue;
    if (x < f.x || x >= f.x + f.width || y < f.y || y >= f.y + f.height) continue;
    if (best < 0 || c.startNs[row]! > c.startNs[best]! || (c.startNs[row] === c.startNs[best] && row > best)) best = row;
  }
  return best;
}

function smOfRow(row: number): number {
  let g = 0;
  while (cols.smGroups.offsets[g + 1]! <= row) g++;
  return cols.smGroups.sm[g]!;
}

function rowsOfPixels(order: ScreenOrder, pixels: Int32Array): Int32Array {
  return pixels.map((k) => (k === NO_ENTRY ? -1 : order.rows[k]!));
}

test('the order holds every positioned warp of the selected draws, by start time', () => {
  const mask = drawSet([{}, {}, {}, {}], 2, false);
  const order = screenOrder(cols, mask);
  let expected = 0;
  for (let r = 0; r < cols.count; r++) if (cols.position[r] !== NO_POSITION && cols.draw[r] === 2) expected++;
  assert.equal(order.rows.length, expected);
  let lastEnd = -Infinity;
  for (let k = 0; k < order.rows.length; k++) {
    assert.equal(cols.draw[order.rows[k]!], 2);
    assert.equal(order.startNs[k], cols.startNs[order.rows[k]!]);
    assert.equal(order.endNs[k], cols.startNs[order.rows[k]!]! + cols.durationNs[order.rows[k]!]!);
    lastEnd = Math.max(lastEnd, order.endNs[k]!);
    if (k > 0) assert.ok(order.startNs[k - 1]! <= order.startNs[k]!);
  }
  assert.deepEqual(orderSpan(order), { startNs: order.startNs[0], endNs: lastEnd });
});

test('each pixel shows the covering warp that started last, up to the time cutoff', () => {
  const order = screenOrder(cols, null);
  const untilNs = 2500;
  const { pixels, shown } = rasterizeOrder(cols, order, { width: W, height: H }, { untilNs });
  const got = rowsOfPixels(order, pixels);
  let covered = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const want = bruteForcePixel(cols, x, y, (row) => cols.startNs[row]! <= untilNs);
      assert.equal(got[y * W + x], want, `pixel ${x},${y}`);
      if (want >= 0) covered++;
    }
  }
  assert.ok(covered > 0 && covered < W * H, `the cutoff leaves some pixels grey and paints others (${covered})`);
  for (let y = 0; y < H; y += 5) for (let x = 0; x < W; x += 5) assert.equal(rowAtPixel(cols, order, x, y, { untilNs }), got[y * W + x], `rowAtPixel ${x},${y}`);
  assert.equal(shown, startedBy(order, untilNs));
});

test('a time window shows only the warps in flight in it', () => {
  const order = screenOrder(cols, null);
  const window = { startNs: 2000, endNs: 3000 };
  const { pixels } = rasterizeOrder(cols, order, { width: W, height: H }, { window });
  const got = rowsOfPixels(order, pixels);
  const inWindow = (row: number) => cols.startNs[row]! <= window.endNs && cols.startNs[row]! + cols.durationNs[row]! >= window.startNs;
  for (let y = 0; y < H; y += 3) for (let x = 0; x < W; x += 3) assert.equal(got[y * W + x], bruteForcePixel(cols, x, y, inWindow), `pixel ${x},${y}`);
});

test('footprints are clipped to the target; a footprint outside it paints nothing', () => {
  const c: ScreenColumns = {
    ...cols,
    count: 2,
    startNs: new Float64Array([0, 1]),
    durationNs: new Float32Array([1, 1]),
    smGroups: { sm: new Uint16Array([0]), offsets: new Uint32Array([0, 2]) },
    draw: new Uint8Array(2),
    activeMask: new Uint32Array([1, 1]),
    position: new Uint32Array([packPosition(6, 2, 13, 5), packPosition(20, 0, 21, 1)]),
  };
  const order = screenOrder(c, null);
  const { pixels, shown } = rasterizeOrder(c, order, { width: 8, height: 4 });
  assert.equal(shown, 1);
  const painted = [...pixels.keys()].filter((p) => pixels[p] !== NO_ENTRY).map((p) => [p % 8, Math.floor(p / 8)].join(','));
  assert.deepEqual(painted, ['6,2', '7,2', '6,3', '7,3']);
  assert.deepEqual(footprintExtent(c, order.rows), { width: 22, height: 6 });
});

test('active lanes colour full warps yellow, half warps mid-map, uncovered pixels grey', () => {
  const c: ScreenColumns = {
    ...cols,
    count: 2,
    startNs: new Float64Array([0, 1]),
    durationNs: new Float32Array([1, 1]),
    smGroups: { sm: new Uint16Array([0]), offsets: new Uint32Array([0, 2]) },
    draw: new Uint8Array(2),
    activeMask: new Uint32Array([0xffffffff, 0x0000ffff]),
    position: new Uint32Array([packPosition(0, 0, 1, 1), packPosition(2, 0, 3, 1)]),
  };
  const order = screenOrder(c, null);
  const image = screenImage(c, order, { metric: 'lanes', size: { width: 6, height: 2 }, subgroupSize: 32 });
  const px = (x: number) => [...image.rgba.subarray(x * 4, x * 4 + 3)];
  const entry = (i: number) => [...COLORMAP_RGB.subarray(i * 3, i * 3 + 3)];
  assert.deepEqual(px(0), entry(COLORMAP_SIZE - 1));
  assert.deepEqual(px(2), entry(Math.round(0.5 * (COLORMAP_SIZE - 1))));
  assert.deepEqual(px(5), [...NO_WARP_RGB]);
  assert.equal(image.legend.min, 0);
  assert.equal(image.legend.max, 1);
});

test('the colormap is sequential: lightness rises along the table', () => {
  const luma = (i: number) => 0.2126 * COLORMAP_RGB[i * 3]! + 0.7152 * COLORMAP_RGB[i * 3 + 1]! + 0.0722 * COLORMAP_RGB[i * 3 + 2]!;
  for (let i = 8; i < COLORMAP_SIZE; i += 8) assert.ok(luma(i) > luma(i - 8), `entry ${i}`);
  const grey = NO_WARP_RGB;
  for (let i = 0; i < COLORMAP_SIZE; i++) assert.ok(Math.abs(COLORMAP_RGB[i * 3]! - grey[0]) + Math.abs(COLORMAP_RGB[i * 3 + 1]! - grey[1]) + Math.abs(COLORMAP_RGB[i * 3 + 2]! - grey[2]) > 30);
});

test('metric values, domain and legend: start, duration, SM, draw', () => {
  const order = screenOrder(cols, null);
  for (const metric of ['start', 'duration', 'sm', 'draw'] as const) {
    const values = metricValues(cols, order, metric, 32);
    const domain = metricDomain(order, values, metric)!;
    let min = Infinity;
    let max = -Infinity;
    for (const row of order.rows) {
      const v = metric === 'start' ? cols.startNs[row]! : metric === 'duration' ? cols.durationNs[row]! : metric === 'draw' ? cols.draw[row]! : smOfRow(row);
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    assert.deepEqual(domain, { min, max }, metric);
    const legend = screenLegend(metric, domain, 32);
    assert.ok(legend.text.includes(legend.minText) && legend.text.includes(legend.maxText) && legend.text.includes('viridis'), legend.text);
  }
  const image = screenImage(cols, order, { metric: 'start', size: { width: W, height: H }, subgroupSize: 32 });
  // The last-started warp's pixels take the table's last colour, the first-started one's the first.
  const lastK = order.rows.length - 1;
  const p = image.pixels.indexOf(lastK);
  if (p >= 0) assert.deepEqual([...image.rgba.subarray(p * 4, p * 4 + 3)], [...COLORMAP_RGB.subarray((COLORMAP_SIZE - 1) * 3, COLORMAP_SIZE * 3)]);
  assert.equal(colorizePixels(new Int32Array([NO_ENTRY]), new Float64Array(0), null)[0], NO_WARP_RGB[0]);
});

test('rows under a rectangle: every shown warp whose footprint intersects it', () => {
  const order = screenOrder(cols, null);
  const rect = { x: 10, y: 12, width: 7, height: 5 };
  const filter = { untilNs: 3000 };
  const got = [...rowsInRect(cols, order, rect, filter)];
  const want: number[] = [];
  for (let row = 0; row < cols.count; row++) {
    const f = unpackPosition(cols.position[row]!);
    if (f === null || cols.startNs[row]! > filter.untilNs) continue;
    if (f.x < rect.x + rect.width && f.x + f.width > rect.x && f.y < rect.y + rect.height && f.y + f.height > rect.y) want.push(row);
  }
  assert.ok(want.length > 0);
  assert.deepEqual(got, want);
  assert.equal(rowsInRect(cols, order, { x: 0, y: 0, width: 0, height: 5 }).length, 0);
});

test('draw sets by target size, the busiest target, and the image size', () => {
  const draws = [{ target: { width: 512, height: 512 } }, { target: { width: 64, height: 48 } }, { target: null }, { target: { width: 64, height: 48 } }];
  assert.deepEqual([...drawSet(draws, 1, true)], [0, 1, 0, 1]);
  assert.deepEqual([...drawSet(draws, 2, true)], [0, 0, 1, 0]);
  assert.deepEqual([...drawSet(draws, 0, false)], [1, 0, 0, 0]);
  const counts = positionedWarpsPerDraw(cols, draws.length);
  const total = counts.reduce((a, b) => a + b, 0);
  assert.equal(total, [...cols.position].filter((p) => p !== NO_POSITION).length);
  assert.equal(busiestTargetDraw(draws, new Uint32Array([50, 30, 10, 30])), 1);
  assert.equal(busiestTargetDraw(draws, new Uint32Array([70, 30, 10, 30])), 0);
  assert.equal(busiestTargetDraw(draws, new Uint32Array(4)), -1);
  const order = screenOrder(cols, drawSet(draws, 1, true));
  assert.deepEqual(imageSize(draws, cols, order.rows), { width: 64, height: 48 });
  assert.deepEqual(imageSize(draws, cols, screenOrder(cols, null).rows), footprintExtent(cols, screenOrder(cols, null).rows));
});

test('the draw selector lists the draws with the most positioned warps, in draw order, none without positions', () => {
  const counts = new Uint32Array([5, 0, 9, 9, 1, 7, 0, 3]);
  assert.deepEqual(busiestDraws(counts, 3), [2, 3, 5], 'the three busiest, ascending');
  assert.deepEqual(busiestDraws(counts, 4), [0, 2, 3, 5]);
  assert.deepEqual(busiestDraws(new Uint32Array([4, 4, 4]), 2), [0, 1], 'ties: the earlier draws');
  assert.deepEqual(busiestDraws(counts, 100), [0, 2, 3, 4, 5, 7], 'a large limit: every draw with positions, none without');
  assert.deepEqual(busiestDraws(counts, 0), []);
});

test('columns without positions are not screen columns', () => {
  const { position: _, ...rest } = cols;
  assert.equal(screenColumns(rest), null);
  assert.equal(screenColumns({ ...rest, position: new Uint32Array(cols.count).fill(NO_POSITION) }), null);
  assert.ok(screenColumns(cols) !== null);
});

test('a tiled frame covers its whole target, and the last draw shows on top', () => {
  const frame = tiledFrameColumns(100, 60, 3, 4);
  const order = screenOrder(frame, null);
  const image = screenImage(frame, order, { metric: 'draw', size: { width: 100, height: 60 }, subgroupSize: 32 });
  for (let p = 0; p < image.pixels.length; p++) assert.equal(frame.draw[order.rows[image.pixels[p]!]!], 2, `pixel ${p}`);
  const half = screenImage(frame, order, { metric: 'draw', size: { width: 100, height: 60 }, subgroupSize: 32, untilNs: order.startNs[Math.floor(order.rows.length / 6)]! });
  assert.ok(half.pixels.includes(NO_ENTRY), 'a sixth of the frame leaves the target half grey');
});

test('frames longer than 2^32 ticks (268 ms) and off-tick starts sort too, ties in row order', () => {
  for (const starts of [[3e8, 0, 1.5e8, 0, 3e8], [0.01, 0, 0.005, 0, 0.01]]) {
    const n = starts.length;
    const c: ScreenColumns = {
      ...cols,
      count: n,
      startNs: Float64Array.from(starts),
      durationNs: new Float32Array(n).fill(1),
      smGroups: { sm: new Uint16Array([0]), offsets: new Uint32Array([0, n]) },
      draw: new Uint8Array(n),
      activeMask: new Uint32Array(n),
      position: new Uint32Array(n).fill(packPosition(0, 0, 0, 0)),
    };
    assert.deepEqual([...screenOrder(c, null).rows], [1, 3, 2, 0, 4]);
  }
});

test('warps without an SM id are grey in the SM image, and the legend says so', () => {
  const c: ScreenColumns = { ...cols, smGroups: { sm: new Uint16Array([0xffff]), offsets: new Uint32Array([0, cols.count]) } };
  const order = screenOrder(c, null);
  const image = screenImage(c, order, { metric: 'sm', size: { width: W, height: H }, subgroupSize: 32 });
  assert.equal(image.legend.min, null);
  assert.match(image.legend.text, /no shown warp has an SM id \(grey: no warp or no SM id\)/);
  for (let p = 0; p < image.pixels.length; p++) assert.deepEqual([...image.rgba.subarray(p * 4, p * 4 + 3)], [...NO_WARP_RGB]);
  assert.ok(image.shown > 0);
});

test('resuming a raster at a later cutoff gives the image made from scratch; an earlier cutoff starts over', () => {
  const order = screenOrder(cols, null);
  const size = { width: W, height: H };
  const window = { startNs: 500, endNs: 4000 };
  let raster = rasterizeOrder(cols, order, size, { untilNs: 800, window });
  for (const untilNs of [1500, 1500, 2600, 1200, 3900, Infinity]) {
    const resumed = rasterizeOrder(cols, order, size, { untilNs, window }, raster);
    const fresh = rasterizeOrder(cols, order, size, { untilNs, window });
    assert.deepEqual(resumed.pixels, fresh.pixels, `until ${untilNs}`);
    assert.equal(resumed.shown, fresh.shown, `shown until ${untilNs}`);
    raster = resumed;
  }
  // A different window start cannot resume: it starts over.
  const other = rasterizeOrder(cols, order, size, { window: { startNs: 3000, endNs: 4000 } }, raster);
  assert.deepEqual(other.pixels, rasterizeOrder(cols, order, size, { window: { startNs: 3000, endNs: 4000 } }).pixels);
});
