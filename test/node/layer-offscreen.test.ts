// Presenting without a display (`warptrace capture --offscreen`, capture/layer/src/offscreen_*.cpp),
// end to end on lavapipe: vkcube's window surface and our own windowless app's
// VK_EXT_headless_surface (which Debian 12's lavapipe lacks: the layer provides it) get the
// layer's own swapchain images; the captured frame is traced and its image is byte for byte
// what the app presents normally. vkcube still needs an X connection to make its window
// (xvfb-run); the layer never presents to it. Needs xvfb-run, vkcube, cmake and
// glslangValidator; WARPTRACE_SKIP_GPU_TESTS=1 skips the GPU tests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, decodeWtrace, type Trace } from '../../shared-schema/index.js';
import { LAYER_MANIFEST, LAYER_NAME, buildLayer } from '../../capture/capture-run/layer-build.js';
import { addOffscreenEnvironment } from '../../capture/capture-run/offscreen-manifest.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { repoPath } from './paths.js';
import { assertSameImage } from './ppm.js';
import { ProcessGroups, type GroupRun } from './process-group.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-offscreen-'));
/** Hard limit on every spawned run: a hang fails the test instead of blocking CI. */
const RUN_LIMIT_MS = 240_000;
const FRAME = 10;

type Run = GroupRun;

const groups = new ProcessGroups(RUN_LIMIT_MS);
/** COMMAND in a process group of its own (under `xvfb-run -a` when `x`), killed with its children past RUN_LIMIT_MS. */
const runGroup = (command: readonly string[], env: NodeJS.ProcessEnv, x: boolean): Promise<Run> => groups.run(command, env, { x });

function describe(r: Run): string {
  return `exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
}

/** The layer loaded without the CLI (no socket: nothing traced), writing frame FRAME's image. */
function untracedEnv(image: string, frame: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, VK_ADD_LAYER_PATH: layerDir, VK_INSTANCE_LAYERS: LAYER_NAME, WARPTRACE_FRAME: String(frame), WARPTRACE_IMAGE: image };
  for (const name of ['WARPTRACE_SOCKET', 'WARPTRACE_OUTPUT', 'WARPTRACE_SUBMITS', 'WARPTRACE_TRIGGER', 'WARPTRACE_OFFSCREEN']) delete env[name];
  return env;
}

function stageCount(trace: Trace, name: string): number {
  const stage = STAGES.findIndex((s) => s.name === name);
  let n = 0;
  for (let i = 0; i < trace.warps.count; i++) if (trace.warps.stage[i] === stage) n++;
  return n;
}

let layerDir = '';
let presentBin = '';

before(async () => {
  if (skip) return;
  layerDir = await buildLayer();
  presentBin = join(await buildNative(), '..', 'wt-headless-present');
});

after(() => {
  groups.killAll();
  rmSync(dir, { recursive: true, force: true });
});

test('addOffscreenEnvironment: an implicit manifest of the same layer, enabled by WARPTRACE_OFFSCREEN=1, found through XDG_DATA_DIRS after the system folders', () => {
  const folder = join(dir, 'unit');
  const env: NodeJS.ProcessEnv = { HOME: '/h' };
  const manifestDir = repoPath('capture', 'layer');
  // The source folder holds only the template; a built folder's manifest is what the CLI reads.
  assert.throws(() => addOffscreenEnvironment(env, manifestDir, folder), /cannot read the layer manifest/);
  const built = join(dir, 'built');
  rmSync(built, { recursive: true, force: true });
  const template = readFileSync(join(manifestDir, 'VkLayer_warptrace.json.in'), 'utf8');
  mkdirSync(built, { recursive: true });
  writeFileSync(join(built, LAYER_MANIFEST), template);
  addOffscreenEnvironment(env, built, folder);
  assert.equal(env['WARPTRACE_OFFSCREEN'], '1');
  assert.equal(env['XDG_DATA_DIRS'], `/usr/local/share/:/usr/share/:${folder}`, 'the XDG default stays searched, first');
  const implicit = JSON.parse(readFileSync(join(folder, 'vulkan', 'implicit_layer.d', LAYER_MANIFEST), 'utf8')) as { layer: Record<string, unknown> };
  assert.equal(implicit.layer['name'], LAYER_NAME);
  assert.equal(implicit.layer['library_path'], join(built, 'libVkLayer_warptrace.so'), 'the library path resolved against the built folder');
  assert.deepEqual(implicit.layer['enable_environment'], { WARPTRACE_OFFSCREEN: '1' });
  assert.deepEqual(implicit.layer['instance_extensions'], [{ name: 'VK_EXT_headless_surface', spec_version: '1' }]);
  const again: NodeJS.ProcessEnv = { XDG_DATA_DIRS: '/opt/share' };
  addOffscreenEnvironment(again, built, folder);
  assert.equal(again['XDG_DATA_DIRS'], `/opt/share:${folder}`);
});

test('vkcube --offscreen: traced through the layer\'s own swapchain; its frame is byte for byte the frame an untraced, X-presented run shows', { skip }, async () => {
  const out = join(dir, 'cube.wtrace');
  const traced = join(dir, 'cube-offscreen.ppm');
  const args = ['capture', '--offscreen', '-o', out, '--frame', String(FRAME), '--exit-after', '--', 'vkcube', '--c', '100'];
  const run = await runGroup([process.execPath, bin, ...args], { ...process.env, WARPTRACE_SPIRV_CACHE: join(dir, 'cache'), WARPTRACE_IMAGE: traced }, true);
  assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);
  assert.match(run.err, /window surface presented offscreen/, 'the layer, not the X server, took the presents');
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  assert.equal(trace.draws.length, 1, JSON.stringify(trace.draws));
  assert.equal(trace.draws[0]!.call, 'vkCmdDraw');
  assert.ok(stageCount(trace, 'VS') > 0 && stageCount(trace, 'FS') > 0, 'VS and FS warps');
  assert.equal(trace.capture.layer?.frame, FRAME);
  assert.deepEqual(trace.capture.layer?.skipped, [], 'nothing skipped');
  assert.equal(trace.capture.recordsWritten, trace.capture.recordsKept, 'no record dropped');
  // The same frame, untraced and presented to the X server as usual.
  const plain = join(dir, 'cube-plain.ppm');
  const plainRun = await runGroup(['vkcube', '--c', '12'], untracedEnv(plain, FRAME), true);
  assert.equal(plainRun.code, 0, `vkcube untraced: ${describe(plainRun)}`);
  assert.doesNotMatch(plainRun.err, /presented offscreen/, 'a device that can present to the window keeps the window\'s swapchain');
  assert.ok(existsSync(traced) && existsSync(plain), 'both runs wrote their image');
  assertSameImage(traced, plain, `frame ${FRAME}, traced offscreen vs untraced on X`);
});

test('VK_EXT_headless_surface from the layer (the driver lacks it): a windowless app finds it before vkCreateInstance, presents, and is traced; same frame untraced is the same image', { skip }, async () => {
  assert.ok(existsSync(presentBin), `${presentBin} was not built (glslangValidator missing?)`);
  // Without the layer the extension is missing (Debian 12's lavapipe, NVIDIA): the app says so and stops.
  const bare = await runGroup([presentBin, '4'], { ...process.env, WARPTRACE_LAYER_DISABLE: '1' }, false);
  if (bare.code === 0) assert.fail(`the driver offers VK_EXT_headless_surface itself: this test checks the layer's emulation\n${describe(bare)}`);
  assert.match(bare.err, /offers no VK_EXT_headless_surface/);

  const out = join(dir, 'headless.wtrace');
  const traced = join(dir, 'headless-traced.ppm');
  const args = ['capture', '--offscreen', '-o', out, '--frame', '5', '--', presentBin, '8'];
  const run = await runGroup([process.execPath, bin, ...args], { ...process.env, WARPTRACE_SPIRV_CACHE: join(dir, 'cache'), WARPTRACE_IMAGE: traced }, false);
  assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);
  assert.match(run.err, /headless surface: the layer's own/);
  assert.match(run.err, /"presented": 8/, 'the app ran all its frames');
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  assert.equal(trace.draws.length, 1, JSON.stringify(trace.draws));
  assert.equal(trace.draws[0]!.params?.vertexCount, 3);
  assert.deepEqual(trace.draws[0]!.target, { width: 160, height: 120 }, 'the extent the app chose for the undefined current extent');
  assert.ok(stageCount(trace, 'VS') > 0 && stageCount(trace, 'FS') > 0, 'VS and FS warps');
  assert.deepEqual(trace.capture.layer?.skipped, [], 'nothing skipped');

  const plain = join(dir, 'headless-plain.ppm');
  const env = untracedEnv(plain, 5);
  addOffscreenEnvironment(env, layerDir, join(dir, 'plain-offscreen'));
  const plainRun = await runGroup([presentBin, '8'], env, false);
  assert.equal(plainRun.code, 0, `untraced: ${describe(plainRun)}`);
  assertSameImage(traced, plain, 'frame 5 of wt-headless-present, traced vs untraced');
});

test('--trigger through offscreen presents: a trigger file present from the start captures frame 4 (the first present sees it) and is deleted', { skip }, async () => {
  assert.ok(existsSync(presentBin), `${presentBin} was not built (glslangValidator missing?)`);
  const trigger = join(dir, 'trigger');
  writeFileSync(trigger, '');
  const out = join(dir, 'trigger.wtrace');
  const args = ['capture', '--offscreen', '-o', out, '--trigger', trigger, '--', presentBin, '12'];
  const run = await runGroup([process.execPath, bin, ...args], { ...process.env, WARPTRACE_SPIRV_CACHE: join(dir, 'cache') }, false);
  assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);
  assert.ok(!existsSync(trigger), 'the layer deleted the trigger file');
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  // Seen at the first present's frame boundary: one frame to record shadows, the warm-up, then the captured frame.
  assert.equal(trace.capture.layer?.frame, 4);
  assert.equal(trace.draws.length, 1);
});
