// Block profiles through the capture layer on graphics pipelines linked from
// VK_EXT_graphics_pipeline_library parts (`warptrace capture --blocks -- wt-capture-vk
// --app --libraries`, CI: lavapipe). A library's modules are instrumented before the
// layer knows the pipelines that link them: they keep the base constant at 0, and each
// draw gives its stages their offsets in the row through the draw-id block's stage
// words. The counts are checked against numbers other code makes: the fragment entry
// block runs once per fragment warp with that warp's live lanes (the records), the
// divergence workload's branch takes half the pixels, the aqt workload's irregular TCS
// loop runs as a CPU model of it says (aqt-model.ts); the same frame made of complete
// pipelines (the base constant, stage words 0) counts the same, block for block; and
// the traced frame's image is the untraced run's. WARPTRACE_SKIP_GPU_TESTS=1 skips.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stage, decodeWtrace, type Trace } from '../../shared-schema/index.js';
import type { BlockCounts, BlockModule, BlockProfile } from '../../shared-schema/block-model.js';
import { probeDevice } from '../../capture/capture-run/harness.js';
import { PLAIN, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { prepareHarnessApp, runWithLayer, type HarnessApp, type Run } from './harness-app.js';
import { patchIterations } from './aqt-model.js';
import { repoPath } from './paths.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-gpl-blocks-'));
const RUN_LIMIT_MS = 300_000;
/** `--app` submits: 0 sets up, 1 + i is frame i; the last frame is traced and its image written. */
const FRAMES = 2;
const SUBMIT = 2;

let setup: HarnessApp | null = null;
/** The workload shaders compiled plain with -g: blocks map to source lines. */
let shaders = '';
before(async () => {
  if (skip) return;
  setup = await prepareHarnessApp();
  shaders = await compileShaderSet(await probeDevice(setup.binary), { ...PLAIN, debugInfo: true });
});
after(() => rmSync(dir, { recursive: true, force: true }));

type Params = readonly (readonly [string, number])[];
const describe = (what: string, r: Run) => `${what}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
const run = (command: string, args: readonly string[]) => runWithLayer(command, args, { dir, layerDir: setup?.layerDir ?? '', limitMs: RUN_LIMIT_MS });

function appArgs(workload: string, params: Params, flags: readonly string[], image: string): string[] {
  assert.ok(setup !== null);
  return ['--app', '--workload', workload, '--plain-shaders', shaders, '--frames', String(FRAMES), ...params.flatMap(([k, v]) => ['--param', `${k}=${v}`]), ...flags, '--image', image];
}

/** The app through `warptrace capture --blocks --submits`: its trace and the traced frame's image. */
async function traced(label: string, workload: string, params: Params, flags: readonly string[]): Promise<{ trace: Trace; image: Buffer }> {
  assert.ok(setup !== null);
  const image = join(dir, `${label}-traced.ppm`);
  const out = join(dir, `${label}.wtrace`);
  const args = [bin, 'capture', '--blocks', '--submits', `${SUBMIT}..${SUBMIT}`, '--overhead-runs', '0', '-o', out, '--timeout', '250', '--', setup.binary, ...appArgs(workload, params, flags, image)];
  const r = await run(process.execPath, args);
  assert.equal(r.code, 0, describe(`warptrace ${args.slice(1).join(' ')}`, r));
  assert.ok(existsSync(out) && existsSync(image), describe('the capture wrote no trace or image', r));
  return { trace: decodeWtrace(new Uint8Array(readFileSync(out))), image: readFileSync(image) };
}

/** The profile, with every traced draw profiled, nothing skipped, dropped or left without a row. */
function profileOf(trace: Trace): BlockProfile {
  assert.deepEqual(trace.capture.layer?.skipped, [], `layer skipped: ${JSON.stringify(trace.capture.layer?.skipped)}`);
  const profile = trace.blocks;
  assert.ok(profile, 'the trace has a block profile');
  assert.equal(profile.dropped, 0, 'no block counted past the table');
  assert.equal(profile.unprofiledDraws, 0);
  const traced = trace.draws.flatMap((d, i) => (d.untraced === null ? [i] : []));
  assert.ok(traced.length > 0);
  assert.deepEqual(profile.rows.map((r) => r.draw), traced, 'every traced draw has a row');
  // Linked pipelines are profiled: none is marked traced without a profile, and the layer notes none.
  assert.deepEqual(trace.draws.filter((d) => d.unprofiled !== null).map((d) => `${d.index}: ${d.unprofiled}`), []);
  assert.deepEqual(trace.capture.layer?.notes.filter((n) => n.what === 'blocks'), []);
  return profile;
}

/** The counts of the draw's module of `stage`, and the module. */
function stageCounts(profile: BlockProfile, draw: number, stage: 'VS' | 'TCS' | 'TES' | 'FS' | 'CS'): { counts: BlockCounts; module: BlockModule } {
  const row = profile.rows.find((r) => r.draw === draw);
  const counts = row?.modules.find((m) => profile.modules[m.module]!.stages.includes(stage));
  assert.ok(counts, `draw ${draw} has a profiled ${stage} module`);
  return { counts, module: profile.modules[counts.module]! };
}

/** The draw's warps of one stage and their live lanes, from the records. */
function recordsOf(trace: Trace, draw: number, stage: number): { warps: number; lanes: number } {
  const w = trace.warps;
  let warps = 0;
  let lanes = 0;
  for (let i = 0; i < w.count; i++) {
    if (w.draw[i] !== draw || w.stage[i] !== stage) continue;
    warps++;
    lanes += popcount(w.activeMask[i]!) + (w.activeMaskHi === null ? 0 : popcount(w.activeMaskHi[i]!));
  }
  return { warps, lanes };
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v !== 0; v &= v - 1) n++;
  return n;
}

/** The module's blocks that begin in function `fn` at `line` of their source. */
const blocksAt = (module: BlockModule, fn: string, line: number) => module.blocks.flatMap((b, i) => (b.function.startsWith(fn) && b.line === line ? [i] : []));
/** The entry point's first block: it runs once per warp (invocation) that runs the shader. */
const entryBlock = (module: BlockModule) => module.blocks.findIndex((b) => b.function === 'main');

/** The 1-based line of `text` in a workload shader. */
function lineOf(file: string, text: string): number {
  const at = readFileSync(repoPath('capture/workloads/shaders', file), 'utf8').split('\n').findIndex((l) => l.includes(text));
  assert.ok(at >= 0, `${file} has "${text}"`);
  return at + 1;
}

/** The fragment entry block of the draw against its FS records: one execution per warp, their live lanes. */
function assertFragmentEntry(trace: Trace, profile: BlockProfile, draw: number): void {
  const fs = stageCounts(profile, draw, 'FS');
  assert.equal(fs.module.per, 'warp', 'lavapipe runs fragment shaders with subgroup operations');
  const records = recordsOf(trace, draw, Stage.FS);
  assert.ok(records.warps > 10, `${records.warps} fragment warps in draw ${draw}`);
  const entry = entryBlock(fs.module);
  assert.equal(fs.counts.executions[entry], records.warps, `draw ${draw}: FS entry block executions = FS records`);
  assert.equal(fs.counts.lanes[entry], records.lanes, `draw ${draw}: FS entry block lanes = the records' live lanes`);
}

/** The same app run alone (no layer) renders the traced frame's image, byte for byte. */
async function assertUntracedImage(workload: string, params: Params, flags: readonly string[], tracedImage: Buffer): Promise<void> {
  const path = join(dir, `${workload}-untraced.ppm`);
  const plain = await run(setup!.binary, appArgs(workload, params, flags, path));
  assert.equal(plain.code, 0, describe('the untraced app', plain));
  const untraced = readFileSync(path);
  assert.ok(untraced.length > 100 && tracedImage.equals(untraced), `the traced frame of ${workload} is byte-identical to the untraced run's`);
}

const DIVERGENCE = { width: 64, height: 32, groups: 3, work: 5 };
const divergenceParams: Params = Object.entries(DIVERGENCE);

test('divergence --libraries --blocks: rows for its draws, the branch takes half the pixels, the complete pipelines count the same, the untraced image', { skip }, async (t) => {
  const linked = await traced('divergence-libraries', 'divergence', divergenceParams, ['--libraries']);
  const profile = profileOf(linked.trace);
  // A dispatch (a compute pipeline, its row laid out by the base constant) and the full-screen draw (linked from libraries).
  const draw = linked.trace.draws.findIndex((d) => d.kind === 'draw');
  assert.ok(draw >= 0);
  const row = profile.rows.find((r) => r.draw === draw)!;
  assert.equal(row.modules.length, 2, 'its vertex and fragment libraries\' modules');
  assertFragmentEntry(linked.trace, profile, draw);
  const vs = stageCounts(profile, draw, 'VS');
  assert.equal(vs.counts.executions[entryBlock(vs.module)], recordsOf(linked.trace, draw, Stage.VS).warps, 'VS entry block executions = VS records');

  // divergence.frag: odd pixel columns take the branch and loop `work` times (helper lanes are not counted).
  const fs = stageCounts(profile, draw, 'FS');
  const pixels = DIVERGENCE.width * DIVERGENCE.height;
  const lanes = [...fs.counts.lanes];
  assert.equal(lanes[entryBlock(fs.module)], pixels, 'the entry: every pixel');
  assert.ok(lanes.includes(pixels / 2), `the branch: the odd columns (${pixels / 2} lanes): ${lanes.join(', ')}`);
  assert.ok(lanes.includes((pixels / 2) * DIVERGENCE.work), `the loop body: work times the odd columns: ${lanes.join(', ')}`);

  // The same frame of complete pipelines: its modules take their offsets through the base constant instead.
  const complete = await traced('divergence-complete', 'divergence', divergenceParams, []);
  const reference = profileOf(complete.trace);
  const dispatch = linked.trace.draws.findIndex((d) => d.kind === 'dispatch');
  assert.deepEqual(complete.trace.draws.map((d) => d.kind), linked.trace.draws.map((d) => d.kind), 'the same draws');
  for (const stage of ['CS', 'VS', 'FS'] as const) {
    const d = stage === 'CS' ? dispatch : draw;
    const a = stageCounts(reference, d, stage);
    const b = stageCounts(profile, d, stage);
    assert.equal(b.module.blocks.length, a.module.blocks.length, `${stage}: the same instrumented module`);
    assert.deepEqual([...b.counts.executions], [...a.counts.executions], `${stage}: executions per block, linked vs complete`);
    assert.deepEqual([...b.counts.lanes], [...a.counts.lanes], `${stage}: live lanes per block, linked vs complete`);
  }

  await assertUntracedImage('divergence', divergenceParams, ['--libraries'], linked.image);
  t.diagnostic(`FS lanes per block: ${lanes.join(', ')}`);
});

const AQT = { grid: 8, tcsWork: 48 };
const aqtParams: Params = [['width', 320], ['height', 180], ['grid', AQT.grid], ['tess', 4], ['tcsWork', AQT.tcsWork], ['shading', 0]];

test('aqt --libraries (link-time optimized, inline shaders) --blocks: the irregular TCS loop runs as the CPU model says, the untraced image', { skip }, async () => {
  const flags = ['--libraries', '--link-time-optimization', '--inline-shaders'];
  const { trace, image } = await traced('aqt-libraries', 'aqt', aqtParams, flags);
  const profile = profileOf(trace);
  // Draw 0: the irregular patches, from a pre-rasterization library of VS, TCS and TES and a fragment library.
  assert.equal(profile.rows.find((r) => r.draw === 0)!.modules.length, 4, 'VS, TCS, TES and FS modules');
  assertFragmentEntry(trace, profile, 0);
  const { counts, module } = stageCounts(profile, 0, 'TCS');
  // Per invocation (lavapipe: no subgroup operations in TCS) or per warp (one 32-lane warp a patch).
  const patches = AQT.grid * Math.max(2, AQT.grid / 4);
  const perPatch = module.per === 'warp' ? 1 : 32;
  let iterations = 0;
  for (let patch = 0; patch < patches; patch++) iterations += patchIterations(patch, AQT.tcsWork);
  const loop = blocksAt(module, 'burn', lineOf('common.glsl', 'for (uint i = 0u; i < n; ++i)')).map((b) => counts.executions[b]!);
  const body = iterations * perPatch;
  const headers = (iterations + patches) * perPatch;
  assert.deepEqual(loop.sort((a, b) => a - b), [patches * perPatch, body, body, headers, headers], `burn's loop blocks: ${loop.join(', ')}`);
  const branch = blocksAt(module, 'main', lineOf('aqt_irregular.tesc', 'float level = knobs.tessLevel;'));
  assert.equal(branch.length, 1);
  assert.equal(counts.executions[branch[0]!], patches, '`id == 0`: once per patch');
  assert.equal(counts.lanes[branch[0]!], patches, 'with one lane');
  const tcsRecords = recordsOf(trace, 0, Stage.TCS);
  assert.equal(counts.executions[entryBlock(module)], tcsRecords.warps, 'TCS entry block executions = TCS records');
  await assertUntracedImage('aqt', aqtParams, flags, image);
});
