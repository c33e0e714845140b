// `warptrace export --screen`: the PNG (decoded with fast-png, the library that wrote it)
// holds the analysis' image pixel for pixel; the legend is printed; bad requests are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from 'fast-png';
import { busiestTargetDraw, drawSet, positionedWarpsPerDraw, screenColumns } from '../../analysis/screen-columns.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { screenImage } from '../../analysis/screen-raster.js';
import type { ScreenMetric } from '../../analysis/screen-metric.js';
import { encodeWtrace, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-screen-'));
const trace = synthesizeTrace({ warps: 30000, seed: 3, warpsPerDraw: 2500, positions: true });
const frame = join(dir, 'frame.wtrace');
writeFileSync(frame, encodeWtrace(trace));
const plain = join(dir, 'plain.wtrace');
writeFileSync(plain, encodeWtrace(synthesizeTrace({ warps: 2000, seed: 3 })));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The image the analysis makes for the same request. */
function analysisImage(t: Trace, metric: ScreenMetric, draw: number | null, untilNs = Infinity) {
  const cols = screenColumns(t.warps)!;
  const mask = draw === null ? drawSet(t.draws, busiestTargetDraw(t.draws, positionedWarpsPerDraw(cols, t.draws.length)), true) : drawSet(t.draws, draw, false);
  const target = t.draws.find((d, i) => mask[i] === 1)!.target!;
  return screenImage(cols, screenOrder(cols, mask), { metric, size: target, subgroupSize: t.device.subgroupSize, untilNs });
}

function assertPngEquals(path: string, want: ReturnType<typeof analysisImage>): void {
  const png = decode(readFileSync(path));
  assert.equal(png.width, want.width);
  assert.equal(png.height, want.height);
  assert.equal(png.channels, 3);
  for (let p = 0; p < want.width * want.height; p++) {
    for (let c = 0; c < 3; c++) if (png.data[p * 3 + c] !== want.rgba[p * 4 + c]) assert.fail(`pixel ${p % want.width},${Math.floor(p / want.width)} channel ${c}: PNG ${png.data[p * 3 + c]}, analysis ${want.rgba[p * 4 + c]}`);
  }
}

test('--screen writes the analysis image of the busiest target as a PNG, and prints the legend', () => {
  const out = join(dir, 'start.png');
  const r = run('export', frame, '--screen', 'start', '-o', out);
  assert.equal(r.code, 0, r.err);
  const want = analysisImage(trace, 'start', null);
  assert.ok(want.shown > 0);
  assert.match(r.out, new RegExp(`wrote .*start\\.png \\([\\d.]+ [KM]?i?B, PNG ${want.width} x ${want.height}\\): ${want.shown.toLocaleString('en-US')} warps of draws `));
  assert.ok(r.out.split('\n').includes(`legend: ${want.legend.text}`), r.out);
  assertPngEquals(out, want);
});

test('--draw and --until pick a draw and a time cutoff; each metric gives its image', () => {
  const cols = screenColumns(trace.warps)!;
  const counts = positionedWarpsPerDraw(cols, trace.draws.length);
  const draw = counts.findIndex((c) => c > 0);
  const order = screenOrder(cols, drawSet(trace.draws, draw, false));
  const until = order.startNs[Math.floor(order.rows.length / 2)]!;
  for (const metric of ['lanes', 'sm', 'duration', 'draw'] as const) {
    const out = join(dir, `${metric}.png`);
    const r = run('export', frame, '--screen', metric, '--draw', String(draw), '--until', String(until), '-o', out);
    assert.equal(r.code, 0, r.err);
    const want = analysisImage(trace, metric, draw, until);
    assert.ok(want.shown > 0 && want.shown < order.rows.length, `the cutoff shows part of the draw (${want.shown})`);
    assertPngEquals(out, want);
  }
});

test('a trace without positions, a draw without them and bad options are refused', () => {
  const out = join(dir, 'none.png');
  const none = run('export', plain, '--screen', 'start', '-o', out);
  assert.equal(none.code, 1);
  assert.match(none.err, /records no screen positions/);
  const cols = screenColumns(trace.warps)!;
  const unpositioned = positionedWarpsPerDraw(cols, trace.draws.length).findIndex((c) => c === 0);
  if (unpositioned >= 0) assert.match(run('export', frame, '--screen', 'start', '--draw', String(unpositioned), '-o', out).err, /no warp of that draw has a screen position/);
  assert.equal(run('export', frame, '--screen', 'start', '--draw', '99999', '-o', out).code, 1);
  assert.equal(run('export', frame, '--screen', 'colour', '-o', out).code, 2);
  assert.equal(run('export', frame, '--screen', 'start').code, 2);
  assert.equal(run('export', frame, '--screen', 'start', '--until', 'soon', '-o', out).code, 2);
  assert.equal(run('export', frame, '--until', '5', '--json', join(dir, 's.json')).code, 2);
});
