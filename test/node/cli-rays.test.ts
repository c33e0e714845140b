// `warptrace rays` and `warptrace export --screen` with ray metrics and --stage, on traces carrying
// ray events laid out from described scenes (test/node/ray-fixtures.ts): in process (raysReport,
// renderScreenExport) for the numbers, and through the command line on the same trace written as
// .wtrace (the encoder carries the profile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from 'fast-png';
import { raysReport } from '../../cli/commands/rays.js';
import { renderScreenExport, screenExportSpec } from '../../cli/commands/export-screen.js';
import { drawSet, positionedWarpsPerDraw, screenColumns, stageSet } from '../../analysis/screen-columns.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { screenImage } from '../../analysis/screen-raster.js';
import { COLORMAP_RGB, COLORMAP_SIZE } from '../../analysis/screen-colormap.js';
import { NO_POSITION } from '../../shared-schema/position.js';
import { Stage, encodeWtrace, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import { RAY_EVENTS } from '../../shared-schema/ray-event-model.js';
import { discPixel, inDisc, mixedSizeRow, rayProfile, sceneRow, type DiscScene } from './ray-fixtures.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-rays-'));
const W = 48;
const H = 30;
const scene: DiscScene = { cx: 20, cy: 14, r: 9, bandY0: 12, bandY1: 16 };
const base = synthesizeTrace({ warps: 3000, seed: 5, warpsPerDraw: 500 });
// One table of W × H cells per row: draw 1's launch a cell per pixel, draw 3's (twice as wide and high) 2 × 2 px.
const cellsPerRow = W * H;
const rows = [
  sceneRow({ draw: 1, width: W, height: H, launches: 2, cellsPerRow, pixel: discPixel(scene) }),
  sceneRow({ draw: 3, width: 2 * W, height: 2 * H, launches: 1, cellsPerRow, pixel: () => ({ traceCalls: 4, misses: 4 }) }),
  mixedSizeRow(4, { width: 64, height: 64 }, 3, { traceCalls: 9000 }),
];
const trace: Trace = {
  ...base,
  draws: base.draws.map((d, i) => (i === 1 ? { ...d, kind: 'trace-rays', label: 'path, traced' } : i === 3 || i === 4 ? { ...d, kind: 'trace-rays' } : d)),
  rayEvents: rayProfile(rows, cellsPerRow, { uncountedTraversals: 12 }),
};
const plainFile = join(dir, 'plain.wtrace');
writeFileSync(plainFile, encodeWtrace(base));
const raysFile = join(dir, 'rays.wtrace');
writeFileSync(raysFile, encodeWtrace(trace));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let discPixels = 0;
for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (inDisc(scene, x, y)) discPixels++;

test('rays: the text report per draw, with the lower bound and mixed sizes said', () => {
  const text = raysReport(trace, 'frame', null, 'text');
  const lines = text.split('\n');
  assert.equal(lines[0], '3 trace-rays draws with ray events: 1, 3, 4');
  assert.match(text, /12 traversals were not counted for useless any-hits .*lower bound/);
  assert.ok(lines.includes(`draw 1 "path, traced": 2 launches of ${W} × ${H} (a cell per pixel)`), text);
  assert.ok(lines.includes(`draw 3 "${trace.draws[3]!.label}": 1 launch of ${2 * W} × ${2 * H} (cells of 2 × 2 px)`), text);
  assert.ok(lines.includes(`draw 4 "${trace.draws[4]!.label}": 3 launches of different sizes (up to 64 × 64): totals only`), text);
  const intersections = lines.find((l) => l.startsWith('intersection invocations'))!.split(/\s{2,}/);
  assert.deepEqual(intersections, ['intersection invocations', (2 * 2 * discPixels).toLocaleString('en-US'), String(Number(((2 * discPixels) / (W * H)).toPrecision(3))), '2', `${((100 * discPixels) / (W * H)).toFixed(1)}%`]);
  // Band pixels accept one any-hit in three; inside the disc it is useless.
  assert.match(text, /useless any-hits: [\d.]+% of the accepted any-hits \(\d+ of 384\), at least/);
});

test('rays: JSON, CSV and Markdown carry the same numbers; --draw picks rows', () => {
  const json = JSON.parse(raysReport(trace, 'frame', [1, 3], 'json'));
  assert.deepEqual(json.rows.map((r: { draw: number }) => r.draw), [1, 3]);
  assert.equal(json.rows[0].label, 'path, traced');
  assert.equal(json.rows[0].events[1].event, 'intersections');
  assert.equal(json.rows[0].events[1].total, 4 * discPixels);
  assert.equal(json.rows[1].events[0].perPixel, 4);
  assert.equal(json.uselessLowerBound, true);
  const csv = raysReport(trace, 'frame', null, 'csv').split('\n');
  assert.equal(csv.length, 1 + 3 * RAY_EVENTS.length);
  assert.ok(csv[0]!.startsWith('draw,label,launches,width,height,depth,mixed_sizes,scale,event,total,per_pixel'));
  assert.ok(csv[1]!.startsWith(`1,"path, traced",2,${W},${H},1,false,0,traceCalls,${2 * W * H},1,1,1,`), csv[1]);
  assert.ok(csv.at(-1)!.startsWith('4,'), 'mixed-size rows are listed too');
  assert.match(csv.find((l) => l.startsWith('4,') && l.includes(',traceCalls,'))!, /,true,,traceCalls,9000,,,,/);
  const md = raysReport(trace, 'frame', [3, 3], 'md');
  assert.match(md, /^### draw 3 /m);
  assert.match(md, /^\| event \| total \| per pixel \| largest cell \| pixels with any \|$/m);
  assert.doesNotMatch(md, /### draw 1 /);
});

test('the command line reads the profile from the file: the same reports and image', () => {
  for (const [flag, format] of [[[], 'text'], [['--json'], 'json'], [['--csv'], 'csv'], [['--md'], 'md']] as const) {
    const r = run('rays', raysFile, ...flag);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `${raysReport(trace, raysFile, null, format)}\n`, format);
  }
  assert.equal(run('rays', raysFile, '--draw', '3..4').out, `${raysReport(trace, raysFile, [3, 4], 'text')}\n`);
  const out = join(dir, 'useless.png');
  const r = run('export', raysFile, '--screen', 'useless-any-hits', '--draw', '1', '-o', out);
  assert.equal(r.code, 0, r.err);
  const want = renderScreenExport(trace, screenExportSpec({ screen: 'useless-any-hits', draw: '1', output: out })!, raysFile);
  assert.match(r.out, new RegExp(`^wrote .*useless\\.png \\([\\d.]+ [KM]?i?B, PNG ${W} x ${H}\\): draw 1's launch \\(one cell per pixel, mean of 2 launches\\)$`, 'm'));
  assert.ok(r.out.split('\n').includes(`legend: ${want.legend.text}`), r.out);
  assert.match(r.err, /^warning: useless any-hits are a lower bound: 12 traversals/m);
  assert.deepEqual(decode(readFileSync(out)).data, decode(want.png).data);
});

test('rays: a trace without ray events, no such draw and bad options are refused', () => {
  const none = run('rays', plainFile);
  assert.equal(none.code, 1);
  assert.match(none.err, /no ray events \(capture with --ray-events\)/);
  assert.throws(() => raysReport(trace, 'frame', [999, 999], 'text'), /no draw 999/);
  assert.equal(run('rays', plainFile, '--json', '--csv').code, 2);
  assert.equal(run('rays').code, 2);
  assert.equal(run('rays', plainFile, '--draw', 'x').code, 2);
  assert.match(run('--help').out, /\brays\b/);
});

test('export --screen with a ray metric: a PNG at the launch size, the disc bright, warnings for lower bounds', () => {
  const spec = screenExportSpec({ screen: 'intersections', output: 'x.png' })!;
  // Default draw: the row with the most rays (draw 3 traces 4 per pixel).
  assert.match(renderScreenExport(trace, spec, 'frame').what, /^draw 3's launch/);
  const exp = renderScreenExport(trace, { ...spec, draw: 1 }, 'frame');
  assert.equal(exp.what, "draw 1's launch (one cell per pixel, mean of 2 launches)");
  const png = decode(exp.png);
  assert.equal(png.width, W);
  assert.equal(png.height, H);
  const rgb = (x: number, y: number) => [...png.data.subarray((y * W + x) * 3, (y * W + x) * 3 + 3)].join(',');
  const entry = (i: number) => [...COLORMAP_RGB.subarray(i * 3, i * 3 + 3)].join(',');
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) assert.equal(rgb(x, y), entry(inDisc(scene, x, y) ? COLORMAP_SIZE - 1 : 0), `pixel ${x},${y}`);
  assert.equal(exp.legend.maxText, '2 per pixel');
  assert.deepEqual(exp.warnings, []);
  const useless = renderScreenExport(trace, { ...spec, metric: 'useless-any-hits', draw: 1 }, 'frame');
  assert.match(useless.warnings.join('\n'), /useless any-hits are a lower bound: 12 traversals/);
  assert.throws(() => renderScreenExport(trace, { ...spec, draw: 4 }, 'frame'), /launches of different sizes shared its row/);
  assert.throws(() => renderScreenExport(trace, { ...spec, draw: 2 }, 'frame'), /no ray events for that draw \(draws with ray events: 1, 3, 4\)/);
});

test('export --screen: ray metrics refused without ray events, and with --until or --stage', () => {
  const out = join(dir, 'rays.png');
  const none = run('export', plainFile, '--screen', 'rays', '-o', out);
  assert.equal(none.code, 1);
  assert.match(none.err, /has no ray events/);
  assert.equal(run('export', plainFile, '--screen', 'misses', '--until', '5', '-o', out).code, 2);
  assert.equal(run('export', plainFile, '--screen', 'misses', '--stage', 'RAYGEN', '-o', out).code, 2);
  assert.equal(run('export', plainFile, '--stage', 'FS', '--json', join(dir, 's.json')).code, 2);
  assert.equal(run('export', plainFile, '--screen', 'lanes', '--stage', 'nope', '-o', out).code, 2);
});

test('export --screen lanes --stage RAYGEN: only that stage\'s warps, the analysis image', () => {
  // Positions on fragment warps; every third positioned warp made a ray-generation warp.
  const positioned = synthesizeTrace({ warps: 20000, seed: 9, warpsPerDraw: 2500, positions: true });
  const stage = positioned.warps.stage.slice();
  let k = 0;
  for (let i = 0; i < stage.length; i++) if (positioned.warps.position![i] !== NO_POSITION && k++ % 3 === 0) stage[i] = Stage.RAYGEN;
  const t: Trace = { ...positioned, warps: { ...positioned.warps, stage } };
  const file = join(dir, 'stages.wtrace');
  writeFileSync(file, encodeWtrace(t));
  const cols = screenColumns(t.warps)!;
  const draw = positionedWarpsPerDraw(cols, t.draws.length).findIndex((c) => c > 0);
  const out = join(dir, 'raygen-lanes.png');
  const r = run('export', file, '--screen', 'lanes', '--draw', String(draw), '--stage', 'raygen', '-o', out);
  assert.equal(r.code, 0, r.err);
  const mask = drawSet(t.draws, draw, false);
  const want = screenImage(cols, screenOrder(cols, mask, stageSet([Stage.RAYGEN])), { metric: 'lanes', size: t.draws[draw]!.target!, subgroupSize: t.device.subgroupSize });
  const all = screenOrder(cols, mask);
  let raygen = 0;
  for (const row of all.rows) if (stage[row] === Stage.RAYGEN) raygen++;
  assert.equal(want.shown, raygen);
  assert.ok(raygen > 0 && raygen < all.rows.length);
  assert.match(r.out, new RegExp(`: ${raygen.toLocaleString('en-US')} warps of draws ${draw} \\(RAYGEN only\\)`));
  const png = decode(readFileSync(out));
  for (let p = 0; p < want.width * want.height; p++) {
    for (let c = 0; c < 3; c++) if (png.data[p * 3 + c] !== want.rgba[p * 4 + c]) assert.fail(`pixel ${p} channel ${c}`);
  }
});
