// The screen view on the H100 captures with positions (samples/): the ray-generation image of
// the ray-tracing workload covers every pixel of its launch (one ray per pixel) and no
// footprint reaches outside it; in the meshlets frame only fragment warps have positions,
// all inside the target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { screenColumns } from '../../analysis/screen-columns.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { NO_ENTRY, rasterizeOrder } from '../../analysis/screen-raster.js';
import { decodeTrace, Stage, unpackPosition, type Trace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const load = (name: string): Trace => decodeTrace(new Uint8Array(readFileSync(repoPath('samples', `${name}.wtrace`))));

function footprintsInside(trace: Trace, stage: number): number {
  const cols = screenColumns(trace.warps)!;
  let n = 0;
  for (let row = 0; row < cols.count; row++) {
    const f = unpackPosition(cols.position[row]!);
    if (f === null) continue;
    n++;
    assert.equal(trace.warps.stage[row], stage, `row ${row}: only ${stage} warps have positions`);
    const target = trace.draws[trace.warps.draw[row]!]!.target!;
    assert.ok(f.x + f.width <= target.width && f.y + f.height <= target.height, `row ${row}: footprint ${JSON.stringify(f)} outside ${JSON.stringify(target)}`);
  }
  return n;
}

test('ray tracing: ray-generation warps cover every pixel of the 1280 x 720 launch, none reach outside', () => {
  const trace = load('h100-ray-tracing');
  const target = trace.draws[0]!.target!;
  assert.deepEqual(target, { width: 1280, height: 720 });
  const positioned = footprintsInside(trace, Stage.RAYGEN);
  // One lane per pixel, 32 lanes per warp: at least 1280 * 720 / 32 warps.
  assert.ok(positioned >= (1280 * 720) / 32, `${positioned} positioned warps`);
  const cols = screenColumns(trace.warps)!;
  const { pixels, shown } = rasterizeOrder(cols, screenOrder(cols, null), target);
  assert.equal(shown, positioned);
  assert.equal(pixels.indexOf(NO_ENTRY), -1, 'every pixel of the launch has a warp');
});

test('meshlets: only fragment warps have positions, inside the target; the background stays grey', () => {
  const trace = load('h100-meshlets');
  const positioned = footprintsInside(trace, Stage.FS);
  const fs = trace.warps.stage.filter((s) => s === Stage.FS).length;
  assert.equal(positioned, fs, 'every FS warp has a position');
  const cols = screenColumns(trace.warps)!;
  const { pixels } = rasterizeOrder(cols, screenOrder(cols, null), trace.draws[0]!.target!);
  const grey = pixels.filter((k) => k === NO_ENTRY).length;
  assert.ok(grey > 0 && grey < pixels.length, `${grey} background pixels of ${pixels.length}`);
});
