/**
 * Screen-view benchmark (issue 15): the analysis behind the screen panel and
 * `warptrace export --screen` on generated fragment-like frames (1920 × 1080,
 * one 8 × 4-pixel warp per tile, draw after draw over the whole target), in
 * Node. Times are the best of 3 runs after a warm-up.
 * Goal: a full 1080p image of 10 M warps well under a second; the scrub
 * (re-rasterizing at another cutoff with order and values kept), a play step
 * (resuming the last raster at a later cutoff) and the brush query a fraction
 * of that.
 *   npm run bench:screen               (1 M, 4 M and 10 M warps)
 *   npm run bench:screen -- 2000000    (sizes of your choice)
 */
import { cpus } from 'node:os';
import { metricValues } from '../analysis/screen-metric.js';
import { screenOrder } from '../analysis/screen-order.js';
import { rowsInRect } from '../analysis/screen-query.js';
import { colorizePixels, rasterizeOrder, screenImage } from '../analysis/screen-raster.js';
import { tiledFrameColumns } from '../test/node/screen-fixtures.js';

const WIDTH = 1920;
const HEIGHT = 1080;
const TILES_PER_DRAW = (WIDTH / 8) * Math.ceil(HEIGHT / 4);
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);

function best<T>(run: () => T): { ms: number; value: T } {
  run();
  let ms = Infinity;
  let value = run();
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    value = run();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, value };
}

const table: string[][] = [];
for (const n of sizes.length > 0 ? sizes : [1_000_000, 4_000_000, 10_000_000]) {
  const draws = Math.max(1, Math.round(n / TILES_PER_DRAW));
  const cols = tiledFrameColumns(WIDTH, HEIGHT, draws, 132);
  const size = { width: WIDTH, height: HEIGHT };
  const order = best(() => screenOrder(cols, null));
  const o = order.value;
  const values = best(() => metricValues(cols, o, 'lanes', 32));
  const raster = best(() => rasterizeOrder(cols, o, size));
  const half = o.startNs[o.rows.length >>> 1]!;
  const scrub = best(() => rasterizeOrder(cols, o, size, { untilNs: half }));
  // A play step: the raster at half resumed 1% of the warps later (painting them again is idempotent).
  const next = o.startNs[Math.min(o.rows.length - 1, (o.rows.length >>> 1) + Math.floor(o.rows.length / 100))]!;
  const step = best(() => rasterizeOrder(cols, o, size, { untilNs: next }, scrub.value));
  const colour = best(() => colorizePixels(raster.value.pixels, values.value, { min: 0, max: 1 }));
  const full = best(() => screenImage(cols, screenOrder(cols, null), { metric: 'start', size, subgroupSize: 32 }));
  const brush = best(() => rowsInRect(cols, o, { x: 900, y: 500, width: 64, height: 64 }));
  table.push([
    cols.count.toLocaleString('en-US'),
    `${draws}`,
    order.ms.toFixed(0),
    values.ms.toFixed(0),
    raster.ms.toFixed(0),
    scrub.ms.toFixed(0),
    step.ms.toFixed(1),
    colour.ms.toFixed(0),
    full.ms.toFixed(0),
    brush.ms.toFixed(0),
    `${brush.value.length}`,
    `${((cols.count * 1e3) / full.ms / 1e6).toFixed(1)}`,
  ]);
}

const head = ['warps', 'draws', 'order ms', 'values ms', 'raster ms', 'scrub ½ ms', 'step ms', 'colour ms', 'image ms', 'brush ms', 'brushed', 'M warps/s'];
const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
console.log(`Screen view, ${WIDTH} x ${HEIGHT}, 8 x 4 px warps; node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores)`);
console.log(line(head));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of table) console.log(line(r));
console.log('order: positioned warps sorted by start; raster: every warp painted; scrub: the first half; step: resume from half to 1% later; image: order + values + raster + colour (start metric); brush: rows under 64 x 64 px.');
