// Block profiles through the capture layer (`warptrace capture --blocks -- vkcube`,
// lavapipe under a virtual X server): the unmodified app's pipeline gets rows, its
// modules come with the trace, and the counts agree with the warps' own records,
// a second GPU path written by other code: the fragment shader's entry block runs
// once per fragment warp with that warp's live lanes; the vertex shader (no
// subgroup operations on lavapipe) counts once per invocation, as its records do.
// The traced frame is the frame an untraced run presents.
// Needs xvfb-run and vkcube (scripts/install-system-deps.sh); WARPTRACE_SKIP_GPU_TESTS=1 skips.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stage, decodeWtrace, type Trace } from '../../shared-schema/index.js';
import { LAYER_NAME, buildLayer } from '../../capture/capture-run/layer-build.js';
import { blockTable } from '../../analysis/blocks.js';
import { repoPath } from './paths.js';
import { readPpm } from './ppm.js';
import { ProcessGroups, type GroupRun } from './process-group.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-blocks-'));
const FRAME = 10;
const groups = new ProcessGroups(180_000);
let layerDir = '';

before(async () => {
  if (!skip) layerDir = await buildLayer();
});
after(() => {
  groups.killAll();
  rmSync(dir, { recursive: true, force: true });
});

function describe(r: GroupRun): string {
  return `exit ${r.code} after ${(r.ms / 1000).toFixed(1)} s\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-8000)}`;
}

let traced: Promise<Trace> | null = null;
function tracedCube(): Promise<Trace> {
  traced ??= (async () => {
    const out = join(dir, 'cube.wtrace');
    const args = ['capture', '--blocks', '-o', out, '--frame', String(FRAME), '--exit-after', '--', 'vkcube', '--c', '100'];
    const env = { ...process.env, WARPTRACE_SPIRV_CACHE: join(dir, 'spirv-cache'), WARPTRACE_IMAGE: join(dir, 'traced.ppm') };
    const run = await groups.run([process.execPath, bin, ...args], env, { x: true });
    assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);
    return decodeWtrace(new Uint8Array(readFileSync(out)));
  })();
  return traced;
}

/** The draw's warps of one stage: how many, and their live lanes summed. */
function warpsOf(trace: Trace, draw: number, stage: number): { warps: number; lanes: number } {
  const w = trace.warps;
  let warps = 0;
  let lanes = 0;
  for (let i = 0; i < w.count; i++) {
    if (w.draw[i] !== draw || w.stage[i] !== stage) continue;
    warps++;
    lanes += popcount(w.activeMask[i]! >>> 0) + (w.activeMaskHi === null ? 0 : popcount(w.activeMaskHi[i]! >>> 0));
  }
  return { warps, lanes };
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v !== 0; v &= v - 1) n++;
  return n;
}

test('vkcube --blocks: its draw has a row; the fragment entry block counts its warps and lanes, the vertex one its invocations', { skip }, async () => {
  const trace = await tracedCube();
  const profile = trace.blocks;
  assert.ok(profile, 'the trace has a block profile');
  assert.equal(profile.dropped, 0);
  assert.equal(profile.unprofiledDraws, 0);
  // An ordinary pipeline: no draw is marked traced without a profile, and the layer notes none.
  assert.deepEqual(trace.draws.filter((d) => d.unprofiled !== null).map((d) => `${d.index}: ${d.unprofiled}`), []);
  assert.deepEqual(trace.capture.layer?.notes.filter((n) => n.what === 'blocks'), []);
  const row = profile.rows.find((r) => r.modules.length === 2);
  assert.ok(row, `a draw with both stages profiled: ${JSON.stringify(profile.rows.map((r) => r.modules.length))}`);
  const byStage = (stage: 'VS' | 'FS') => {
    const counts = row.modules.find((m) => profile.modules[m.module]!.stages.includes(stage));
    assert.ok(counts, `the ${stage} module of draw ${row.draw}`);
    return { counts, module: profile.modules[counts.module]! };
  };
  const fs = byStage('FS');
  const vs = byStage('VS');
  assert.equal(fs.module.per, 'warp');
  assert.equal(vs.module.per, 'invocation');
  // The entry function's first block runs once per warp (per invocation) that runs the shader at all.
  const entryBlock = (m: typeof fs.module) => m.blocks.findIndex((b) => b.function === 'main');
  const fsWarps = warpsOf(trace, row.draw, Stage.FS);
  const fsEntry = entryBlock(fs.module);
  assert.ok(fsWarps.warps > 100, `${fsWarps.warps} fragment warps`);
  assert.equal(fs.counts.executions[fsEntry], fsWarps.warps, 'FS entry block executions = FS records');
  assert.equal(fs.counts.lanes[fsEntry], fsWarps.lanes, 'FS entry block lanes = the records\' live lanes');
  const vsRecords = warpsOf(trace, row.draw, Stage.VS);
  assert.equal(vs.counts.executions[entryBlock(vs.module)], vsRecords.warps, 'VS entry block executions = VS per-invocation records (36 vertices)');
  assert.equal(vsRecords.warps, 36);
  // Every entry's time lands in some block, and the table the CLI prints reads it.
  assert.ok(fs.counts.ticks.reduce((a, b) => a + b, 0) > 0);
  const table = blockTable(profile, trace.device.clocks, { draws: new Set([row.draw]), by: 'line' });
  assert.equal(table.missingDraws.length, 0);
  assert.ok(table.stats.length >= 2);
});

test('vkcube --blocks: the traced frame is pixel for pixel the frame an untraced run presents', { skip }, async () => {
  await tracedCube();
  const plainImage = join(dir, 'plain.ppm');
  const env: NodeJS.ProcessEnv = { ...process.env, VK_ADD_LAYER_PATH: layerDir, VK_INSTANCE_LAYERS: LAYER_NAME, WARPTRACE_FRAME: String(FRAME), WARPTRACE_IMAGE: plainImage };
  for (const name of ['WARPTRACE_SOCKET', 'WARPTRACE_OUTPUT', 'WARPTRACE_SUBMITS', 'WARPTRACE_TRIGGER', 'WARPTRACE_DRAWS', 'WARPTRACE_STAGES', 'WARPTRACE_BLOCKS']) delete env[name];
  const run = await groups.run(['vkcube', '--c', '12'], env, { x: true });
  assert.equal(run.code, 0, describe(run));
  assert.ok(existsSync(plainImage));
  const a = readPpm(join(dir, 'traced.ppm'));
  const b = readPpm(plainImage);
  assert.deepEqual([a.width, a.height], [b.width, b.height]);
  let differ = 0;
  for (let i = 0; i < b.pixels.length; i++) if (a.pixels[i] !== b.pixels[i]) differ++;
  assert.equal(differ, 0, `${differ} bytes differ`);
});
