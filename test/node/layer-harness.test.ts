// The capture layer against the GLSL library, on our own harness (CI: lavapipe).
// Each workload is captured twice: (a) as `warptrace capture --workload` does,
// hand-instrumented shaders (warptrace.glsl) and the host library's hooks; and
// (b) the harness as an ordinary app (`wt-capture-vk --app`: plain shaders, no
// trace set in its layouts, no warptrace call) through `warptrace capture
// --submits K..K -- APP`, the layer instrumenting its shaders and numbering its
// draws. Both must record the same warps: the same draws (count and kind) and
// the same multiset of (draw, stage, custom id, active mask, screen position):
// fragment warps carry positions both ways (the library's default, the layer's
// instrument requests' default), so the positions are compared warp for warp.
// Last, the harness as a Vulkan 1.0 app (`--app --vulkan-1.0`: apiVersion 1.0, no
// VK_KHR_get_physical_device_properties2, render passes, SPIR-V 1.0), against the
// same library capture.
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_POSITION, STAGES, decodeWtraw, type Trace } from '../../shared-schema/index.js';
import { probeDevice, runCapture } from '../../capture/capture-run/harness.js';
import { buildLayer } from '../../capture/capture-run/layer-build.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { PLAIN, TRACED, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { repoPath } from './paths.js';
import { signatureDifferences, sortedEntries as sorted, warpSignature as signature } from './warp-signature.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-harness-'));
/** Hard limit on one `warptrace capture -- APP` run: a hang fails the test. */
const RUN_LIMIT_MS = 120_000;
const FRAMES = 3;
/** `--app` submits: 0 sets up the attachments, 1 + i is frame i (capture/workloads/src/app.cpp). The second frame: pipelines warm. */
const SUBMIT = 2;

const WORKLOADS: readonly { workload: string; params: readonly (readonly [string, number])[] }[] = [
  { workload: 'syncs', params: [['width', 320], ['height', 180]] },
  { workload: 'compute-graphics', params: [['width', 320], ['height', 180], ['groups', 256]] },
  { workload: 'aqt', params: [['width', 320], ['height', 180], ['grid', 8], ['tess', 4]] },
  { workload: 'tess-stall', params: [['width', 320], ['height', 180], ['grid', 16], ['spikeCost', 16]] },
  { workload: 'busy-loop', params: [] },
];

let setup: { binary: string; hand: string; plain: string; plain10: string; layerDir: string } | null = null;
before(async () => {
  if (skip) return;
  const binary = await buildNative();
  const device = await probeDevice(binary);
  const hand = await compileShaderSet(device, TRACED);
  const plain = await compileShaderSet(device, PLAIN);
  const plain10 = await compileShaderSet(device, { ...PLAIN, targetEnv: 'vulkan1.0' });
  // Built once here; the captures below load this build (WARPTRACE_LAYER_DIR) instead of rebuilding.
  setup = { binary, hand, plain, plain10, layerDir: await buildLayer() };
});

after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function warptrace(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, WARPTRACE_SPIRV_CACHE: join(dir, 'spirv-cache'), WARPTRACE_LAYER_DIR: setup?.layerDir ?? '' };
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: RUN_LIMIT_MS, killSignal: 'SIGKILL' });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

for (const { workload, params } of WORKLOADS) {
  test(`${workload}: the layer on the plain harness (--app) records the GLSL library's warps`, { skip }, async (t) => {
    assert.ok(setup !== null);
    const started = Date.now();
    const libraryRaw = join(dir, `${workload}-library.wtraw`);
    const report = await runCapture(setup.binary, { workload, tracedShaders: setup.hand, plainShaders: null, out: libraryRaw, params, overheadFrames: 0 });
    assert.equal(report.counter, report.records, 'library: nothing dropped');
    const library = decodeWtraw(new Uint8Array(readFileSync(libraryRaw)));
    const libraryMs = Date.now() - started;

    const out = join(dir, `${workload}-layer.wtrace`);
    const layerRaw = join(dir, `${workload}-layer.wtraw`);
    const app = [setup.binary, '--app', '--workload', workload, '--plain-shaders', setup.plain, '--frames', String(FRAMES), ...params.flatMap(([k, v]) => ['--param', `${k}=${v}`])];
    // --fs-id primitive-id: the library's fragment shaders pass gl_PrimitiveID as their custom id.
    const args = ['capture', '--fs-id', 'primitive-id', '--submits', `${SUBMIT}..${SUBMIT}`, '-o', out, '--raw', layerRaw, '--timeout', '100', '--', ...app];
    const r = await warptrace(args);
    const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
    assert.equal(r.code, 0, context);
    // The app ran all its frames and says which submit is which.
    assert.match(r.out + r.err, new RegExp(`"frames": ${FRAMES}, "submits": ${FRAMES + 1}, "firstFrameSubmit": 1`), context);
    assert.ok(existsSync(out), context);
    const layer = decodeWtraw(new Uint8Array(readFileSync(layerRaw)));
    const layerMs = Date.now() - started - libraryMs;

    const c = layer.capture;
    assert.equal(c.recordsWritten, c.recordsKept, 'layer: nothing dropped');
    assert.ok(c.layer !== null, 'the trace carries the layer record');
    assert.deepEqual(c.layer.skipped, [], `layer skipped: ${JSON.stringify(c.layer.skipped)}`);
    // The same submit, untraced, in the three runs --overhead-runs makes by default before the traced one.
    assert.ok(c.overhead !== null && c.overhead.frames === 3, `overhead: ${JSON.stringify(c.overhead)}`);
    assert.ok(c.overhead.plainFrameNs > 0 && c.overhead.tracedFrameNs > 0, JSON.stringify(c.overhead));
    assert.ok(library.warps.count > 0);

    assert.deepEqual(
      layer.draws.map((d) => d.kind),
      library.draws.map((d) => d.kind),
      `draws: layer ${JSON.stringify(layer.draws.map((d) => [d.kind, d.call]))}, library ${JSON.stringify(library.draws.map((d) => [d.kind, d.label]))}`,
    );
    // Graphics draws' targets: the layer's render area is the size the library's harness gave (dispatches: the library's alone).
    assert.ok(library.draws.every((d) => d.kind !== 'draw' || d.target !== null), 'library: every draw has a target');
    assert.deepEqual(
      layer.draws.map((d) => (d.kind === 'draw' ? d.target : null)),
      library.draws.map((d) => (d.kind === 'draw' ? d.target : null)),
      'the layer records each draw\'s render area',
    );
    const a = signature(library);
    const b = signature(layer);
    assert.deepEqual(sorted(b.perDrawStage), sorted(a.perDrawStage), `warps per draw and stage: ${signatureDifferences(a.perDrawStage, b.perDrawStage, ['library', 'layer'])}`);
    // Not a vacuous comparison: every fragment warp has a position in both traces.
    for (const [name, trace] of [['library', library], ['layer', layer]] as const) {
      const fragment = Array.from({ length: trace.warps.count }, (_, i) => i).filter((i) => STAGES[trace.warps.stage[i] as number]?.name === 'FS');
      if (fragment.length > 0) assert.ok(trace.warps.position !== null && fragment.every((i) => trace.warps.position![i] !== NO_POSITION), `${name}: every FS warp has a position`);
    }
    assert.deepEqual(sorted(b.warps), sorted(a.warps), `(draw, stage, custom id, mask, position): ${signatureDifferences(a.warps, b.warps, ['library', 'layer'])}`);
    assert.equal(layer.warps.count, library.warps.count);
    t.diagnostic(
      `${library.draws.length} draws, ${library.warps.count} warps (${sorted(a.perDrawStage).map(([k, n]) => `${k}: ${n}`).join(', ')}); ` +
        `library ${(libraryMs / 1000).toFixed(1)} s, layer ${(layerMs / 1000).toFixed(1)} s`,
    );
  });
}

/** Every FS warp of the trace has a valid position (valid: the converter accepted it, so here: present). */
function fragmentPositions(trace: Trace): { fragment: number; positioned: number } {
  const fs = STAGES.findIndex((st) => st.name === 'FS');
  let fragment = 0;
  let positioned = 0;
  for (let i = 0; i < trace.warps.count; i++) {
    if (trace.warps.stage[i] !== fs) continue;
    fragment++;
    if (trace.warps.position !== null && trace.warps.position[i] !== NO_POSITION) positioned++;
  }
  return { fragment, positioned };
}

test('a Vulkan 1.0 app without VK_KHR_get_physical_device_properties2 (--app --vulkan-1.0): traced with the device\'s real subgroup size, positions valid, the library\'s warps', { skip }, async () => {
  // Before: the loader hid the extended properties from the layer, which assumed 64-lane subgroups on lavapipe (8 lanes),
  // and the converter refused the whole dump ("flag POSITION in a 64-lane subgroup").
  assert.ok(setup !== null);
  const workload = 'syncs';
  const params = [['width', 320], ['height', 180]] as const;
  const libraryRaw = join(dir, 'vulkan10-library.wtraw');
  await runCapture(setup.binary, { workload, tracedShaders: setup.hand, plainShaders: null, out: libraryRaw, params, overheadFrames: 0 });
  const library = decodeWtraw(new Uint8Array(readFileSync(libraryRaw)));

  const out = join(dir, 'vulkan10.wtrace');
  const layerRaw = join(dir, 'vulkan10.wtraw');
  const app = [setup.binary, '--app', '--vulkan-1.0', '--workload', workload, '--plain-shaders', setup.plain10, '--frames', String(FRAMES), ...params.flatMap(([k, v]) => ['--param', `${k}=${v}`])];
  // --fs-id primitive-id: the library's fragment shaders pass gl_PrimitiveID as their custom id.
  const args = ['capture', '--fs-id', 'primitive-id', '--submits', `${SUBMIT}..${SUBMIT}`, '--overhead-runs', '0', '-o', out, '--raw', layerRaw, '--timeout', '100', '--', ...app];
  const r = await warptrace(args);
  const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 0, context);
  assert.ok(existsSync(out), context);
  const layer = decodeWtraw(new Uint8Array(readFileSync(layerRaw)));
  const c = layer.capture;
  assert.ok(c.layer !== null, 'the trace carries the layer record');
  assert.deepEqual(c.layer.skipped, [], `nothing skipped: ${JSON.stringify(c.layer.skipped)}`);
  // What the layer changed below the app is a note, not skipped work, in the CLI's summary and in the trace.
  assert.deepEqual(c.layer.notes.map((n) => n.what), ['instance'], JSON.stringify(c.layer.notes));
  assert.match(c.layer.notes[0]!.why, /asked for Vulkan 1\.0.*1\.1/);
  assert.doesNotMatch(r.out, /not traced/, context);
  assert.match(r.out, /note: instance: /, context);
  assert.equal(layer.device.subgroupSize, library.device.subgroupSize, 'the device\'s real subgroup size, not a guess');
  assert.deepEqual(layer.device.subgroupStages, library.device.subgroupStages, 'the device\'s real subgroup stages');
  assert.equal(c.recordsWritten, c.recordsKept, 'nothing dropped');
  assert.deepEqual(layer.draws.map((d) => d.kind), library.draws.map((d) => d.kind), 'the same draws');
  const positions = fragmentPositions(layer);
  assert.ok(positions.fragment > 0 && positions.positioned === positions.fragment, `every FS warp has a position: ${JSON.stringify(positions)}`);
  const a = signature(library);
  const b = signature(layer);
  assert.deepEqual(sorted(b.warps), sorted(a.warps), `(draw, stage, custom id, mask, position): ${signatureDifferences(a.warps, b.warps, ['library', 'layer'])}`);
});

test('a --capacity past the device\'s storage-buffer range is the most the device holds, said in a note; the frame is traced', { skip }, async () => {
  // Before: a 2 GiB buffer behind a descriptor of lavapipe's 128 MiB maxStorageBufferRange; the app crashed (SIGSEGV).
  assert.ok(setup !== null);
  const out = join(dir, 'capacity.wtrace');
  const layerRaw = join(dir, 'capacity.wtraw');
  const app = [setup.binary, '--app', '--workload', 'syncs', '--plain-shaders', setup.plain, '--frames', String(FRAMES), '--param', 'width=320', '--param', 'height=180'];
  // --fs-id primitive-id: the library's fragment shaders pass gl_PrimitiveID as their custom id.
  const args = ['capture', '--fs-id', 'primitive-id', '--capacity', '67108864', '--submits', `${SUBMIT}..${SUBMIT}`, '--overhead-runs', '0', '-o', out, '--raw', layerRaw, '--timeout', '100', '--', ...app];
  const r = await warptrace(args);
  const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 0, context);
  const layer = decodeWtraw(new Uint8Array(readFileSync(layerRaw)));
  const c = layer.capture;
  assert.ok(c.layer !== null);
  const note = c.layer.notes.find((n) => n.what === 'capacity');
  assert.ok(note !== undefined, `a capacity note: ${JSON.stringify(c.layer.notes)}`);
  const most = Number(/the layer uses (\d+)/.exec(note.why)?.[1]);
  assert.ok(most > 0 && most < 67108864, note.why);
  assert.equal(c.bufferCapacity, most, 'the buffer holds what the note says');
  assert.deepEqual(c.layer.skipped, [], 'nothing skipped');
  assert.ok(c.recordsKept > 0 && c.recordsKept === c.recordsWritten, 'traced, nothing dropped');
});
