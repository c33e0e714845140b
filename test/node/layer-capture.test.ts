// The capture layer end to end on real, unmodified Vulkan apps (CI: lavapipe,
// software Vulkan, under a virtual X server): `warptrace capture -- vkcube`
// and `-- vkd3d-gears` build the layer, load it through the loader's
// environment, instrument the apps' shaders and write a .wtrace. The frame
// the traced vkcube presents is compared byte for byte with the same frame of
// an untraced run: tracing must not change what the app draws; and the fragment
// warps' screen positions are checked against that frame's drawn pixels.
// Last, vkcube is traced beside the Khronos validation layer, in both orders.
// Needs xvfb-run, vkcube (vulkan-tools), vkd3d-gears (vkd3d-demos) and the
// validation layer (vulkan-validationlayers): see
// scripts/install-system-deps.sh. Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a
// machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, decodeWtrace, unpackPosition, type Trace } from '../../shared-schema/index.js';
import { LAYER_NAME, buildLayer } from '../../capture/capture-run/layer-build.js';
import { repoPath } from './paths.js';
import { readPpm } from './ppm.js';
import { ProcessGroups, type GroupRun } from './process-group.js';
import { VALIDATION_LAYER, validationAsImplicitLayer, validationMessages, validationSettings } from './validation-layer.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-'));
/** Hard limit on every spawned run: a hang fails the test instead of blocking CI. */
const RUN_LIMIT_MS = 180_000;
const FRAME = 10;

type Run = GroupRun;

const groups = new ProcessGroups(RUN_LIMIT_MS);
/** `xvfb-run -a COMMAND...`, killed with its X server and app past RUN_LIMIT_MS. */
const underX = (command: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> => groups.run(command, env, { x: true });

/** `warptrace ARGS` under X, with a private SPIR-V cache so every run instruments afresh. */
function warptrace(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const env = { ...process.env, WARPTRACE_SPIRV_CACHE: join(dir, 'spirv-cache'), ...extraEnv };
  return underX([process.execPath, bin, ...args], env);
}

function describe(r: Run): string {
  return `exit ${r.code}${r.signal === null ? '' : ` (${r.signal})`} after ${(r.ms / 1000).toFixed(1)} s\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-8000)}`;
}

function stageCounts(trace: Trace): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < trace.warps.count; i++) {
    const name = STAGES[trace.warps.stage[i] as number]?.name ?? `?${trace.warps.stage[i]}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

function skippedList(trace: Trace): string {
  return (trace.capture.layer?.skipped ?? []).map((s) => `${s.what}: ${s.why}`).join('\n') || '(none)';
}

let layerDir = '';
const cubeImage = join(dir, 'traced.ppm');
let cubeRun: Promise<{ run: Run; trace: Trace }> | null = null;

/** The traced vkcube run, once, for the tests that look at it (the gears test does not wait for it). */
function tracedCube(): Promise<{ run: Run; trace: Trace }> {
  cubeRun ??= (async () => {
    const out = join(dir, 'cube.wtrace');
    const args = ['capture', '-o', out, '--frame', String(FRAME), '--exit-after', '--raw', join(dir, 'cube.wtraw'), '--', 'vkcube', '--c', '100'];
    const run = await warptrace(args, { WARPTRACE_IMAGE: cubeImage });
    assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);
    return { run, trace: decodeWtrace(new Uint8Array(readFileSync(out))) };
  })();
  return cubeRun;
}

// Built here once, so that the runs below (whose CLI builds incrementally) only check it.
before(async () => {
  if (!skip) layerDir = await buildLayer();
});

after(() => {
  groups.killAll();
  rmSync(dir, { recursive: true, force: true });
});

test('vkcube: one vkCmdDraw in a render pass, VS and FS warps, nothing dropped or skipped', { skip }, async () => {
  const { run, trace } = await tracedCube();
  assert.match(run.out, /wrote .*cube\.wtrace/, describe(run));
  assert.equal(trace.draws.length, 1, `draws: ${JSON.stringify(trace.draws)}`);
  const draw = trace.draws[0]!;
  assert.ok(draw.label.length > 0, 'the draw has a label');
  assert.equal(draw.call, 'vkCmdDraw');
  const counts = stageCounts(trace);
  assert.ok((counts.get('VS') ?? 0) > 0, `VS warps: ${JSON.stringify([...counts])}`);
  // Without subgroup ops in VS (lavapipe) each vertex records once: vkcube's 36 vertices, one instance.
  assert.equal(draw.params?.vertexCount, 36, `params: ${JSON.stringify(draw.params)}`);
  if (!trace.device.subgroupStages.includes('VS')) assert.equal(counts.get('VS'), 36 * (draw.params?.instanceCount ?? 1), 'one VS record per vertex');
  assert.ok((counts.get('FS') ?? 0) > 0, `FS warps: ${JSON.stringify([...counts])}`);
  for (let i = 0; i < trace.warps.count; i++) assert.equal(trace.warps.draw[i], 0, `warp ${i} belongs to draw 0`);
  const c = trace.capture;
  assert.ok(c.recordsKept > 0);
  assert.equal(c.recordsWritten, c.recordsKept, 'no record dropped');
  assert.equal(c.calibration.method, 'per-sm-fit');
  assert.ok(c.layer !== null, 'the trace carries the layer record');
  assert.equal(c.layer.frame, FRAME);
  assert.deepEqual(c.layer.skipped, [], `skipped:\n${skippedList(trace)}`);
  // The draw lies in a render-pass region (itself or one of its ancestors).
  assert.ok(draw.region !== null, `the draw lies in a region; regions: ${JSON.stringify(trace.regions)}`);
  const chain: string[] = [];
  let inPass = false;
  for (let r: number | null = draw.region; r !== null; r = trace.regions[r]!.parent) {
    const region = trace.regions[r]!;
    chain.push(`${region.label} (${region.source})`);
    if (region.source === 'render-pass') inPass = true;
  }
  assert.ok(inPass, `a render-pass region holds the draw: ${chain.join(' < ')}`);
});

test('vkcube: the traced frame is pixel for pixel the frame an untraced run presents', { skip }, async () => {
  const cube = await tracedCube();
  assert.ok(existsSync(cubeImage), `the traced run wrote no WARPTRACE_IMAGE ${cubeImage}: ${describe(cube.run)}`);
  const plainImage = join(dir, 'plain.ppm');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    VK_ADD_LAYER_PATH: layerDir,
    VK_INSTANCE_LAYERS: LAYER_NAME,
    WARPTRACE_FRAME: String(FRAME),
    WARPTRACE_IMAGE: plainImage,
  };
  // No socket: the layer traces nothing and only writes the image.
  for (const name of ['WARPTRACE_SOCKET', 'WARPTRACE_OUTPUT', 'WARPTRACE_SUBMITS', 'WARPTRACE_TRIGGER', 'WARPTRACE_DRAWS', 'WARPTRACE_STAGES']) delete env[name];
  const run = await underX(['vkcube', '--c', '12'], env);
  assert.equal(run.code, 0, `vkcube --c 12 with the layer, untraced: ${describe(run)}`);
  assert.ok(existsSync(plainImage), `the untraced run wrote no WARPTRACE_IMAGE ${plainImage}: ${describe(run)}`);
  const traced = readPpm(cubeImage);
  const plain = readPpm(plainImage);
  assert.deepEqual([traced.width, traced.height, traced.maxValue], [plain.width, plain.height, plain.maxValue], 'same PPM header');
  let differ = 0;
  for (let i = 0; i < plain.pixels.length; i++) if (traced.pixels[i] !== plain.pixels[i]) differ++;
  assert.equal(differ, 0, `${differ} of ${plain.pixels.length} bytes differ between the traced and the untraced frame ${FRAME}`);
  let lit = 0;
  for (let i = 0; i < plain.pixels.length; i++) if (plain.pixels[i] !== plain.pixels[0]) lit++;
  assert.ok(lit > 0, 'the frame shows something (not one flat colour)');
});

test('vkcube: fragment warp footprints against the traced frame: every drawn pixel covered, each footprint bounded by drawn pixels', { skip }, async (t) => {
  // What the positions promise, checked exactly: a pixel that differs from the clear colour was written by a
  // fragment lane, so (1) it lies in its warp's footprint. The footprint's corner (x0, y0) is the lanes' min x
  // and min y, and its size the smallest power of two >= the lanes' span, so (2) its left column and its top
  // row each hold a lane's pixel, and (3) when it is wider (taller) than 1, its right (bottom) half holds one.
  // A lane's pixel is drawn (not the clear colour): the cube covers it, whichever fragment won the depth test;
  // this relies on vkcube's textured, lit faces never coming out in the exact clear colour (true in this frame).
  // Footprints may reach a little past their lanes (rounding to powers of two), so they cover a few background
  // pixels too: the diagnostic prints how many.
  const { trace } = await tracedCube();
  assert.ok(existsSync(cubeImage), 'the traced run wrote its image');
  const image = readPpm(cubeImage);
  const { width, height, pixels } = image;
  const background = [pixels[0], pixels[1], pixels[2]];
  const drawn = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && (pixels[3 * (y * width + x)] !== background[0] || pixels[3 * (y * width + x) + 1] !== background[1] || pixels[3 * (y * width + x) + 2] !== background[2]);
  const draw = trace.draws[0]!;
  assert.deepEqual(draw.target, { width, height }, 'the draw\'s target is the frame');
  const w = trace.warps;
  assert.ok(w.position !== null, 'the trace has positions');
  const fs = STAGES.findIndex((s) => s.name === 'FS');
  const covered = new Uint8Array(width * height);
  let footprints = 0;
  const bad: string[] = [];
  for (let i = 0; i < w.count; i++) {
    if (w.stage[i] !== fs) continue;
    const f = unpackPosition(w.position[i]!);
    assert.ok(f !== null, `FS warp ${i} has a position`);
    footprints++;
    assert.ok(f.x < width && f.y < height, `warp ${i}: footprint ${JSON.stringify(f)} starts inside the ${width} x ${height} target`);
    for (let y = f.y; y < Math.min(f.y + f.height, height); y++) for (let x = f.x; x < Math.min(f.x + f.width, width); x++) covered[y * width + x] = 1;
    const any = (x0: number, x1: number, y0: number, y1: number) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (drawn(x, y)) return true;
      return false;
    };
    const [x1, y1] = [f.x + f.width, f.y + f.height];
    const checks: [string, boolean][] = [
      ['left column', any(f.x, f.x + 1, f.y, y1)],
      ['top row', any(f.x, x1, f.y, f.y + 1)],
      ['right half', f.width === 1 || any(f.x + f.width / 2, x1, f.y, y1)],
      ['bottom half', f.height === 1 || any(f.x, x1, f.y + f.height / 2, y1)],
    ];
    for (const [what, ok] of checks) if (!ok) bad.push(`warp ${i} ${JSON.stringify(f)}: no drawn pixel in its ${what}`);
  }
  let drawnPixels = 0;
  let uncovered = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!drawn(x, y)) continue;
      drawnPixels++;
      if (covered[y * width + x] === 0) uncovered++;
    }
  }
  let coveredPixels = 0;
  for (const c of covered) coveredPixels += c;
  t.diagnostic(`${footprints} FS footprints; ${drawnPixels} drawn pixels, ${uncovered} of them uncovered; footprints cover ${coveredPixels} pixels (${coveredPixels - drawnPixels} more than drawn)`);
  assert.ok(footprints > 0 && drawnPixels > 0);
  assert.equal(uncovered, 0, 'every drawn pixel lies in a fragment warp footprint');
  assert.deepEqual(bad.slice(0, 20), [], `${bad.length} footprints not bounded by drawn pixels`);
});

test('vkd3d-gears (D3D12 on Vulkan, never exits by itself): draws with VS and FS warps, nothing dropped', { skip }, async () => {
  const out = join(dir, 'gears.wtrace');
  const args = ['capture', '-o', out, '--frame', String(FRAME), '--exit-after', '--timeout', '120', '--', 'vkd3d-gears'];
  const run = await warptrace(args);
  assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  const context = `skipped:\n${skippedList(trace)}\n${describe(run)}`;
  assert.ok(trace.draws.length > 0, `draws: ${context}`);
  assert.ok(trace.warps.count > 0, `warps: ${context}`);
  const counts = stageCounts(trace);
  assert.ok((counts.get('VS') ?? 0) > 0 && (counts.get('FS') ?? 0) > 0, `VS and FS warps: ${JSON.stringify([...counts])}\n${context}`);
  assert.equal(trace.capture.recordsWritten, trace.capture.recordsKept, 'no record dropped');
  assert.ok(trace.capture.layer !== null && trace.capture.layer.frame === FRAME, 'the trace carries the layer record');
});

test('vkd3d-gears with --draws 2..3, --sample-fs 4 and --positions none: two draws keep their frame numbers, the rest write nothing, fragment warps sampled, no positions', { skip }, async () => {
  const out = join(dir, 'gears-range.wtrace');
  const args = ['capture', '-o', out, '--frame', String(FRAME), '--draws', '2..3', '--sample-fs', '4', '--positions', 'none', '--exit-after', '--timeout', '120', '--', 'vkd3d-gears'];
  const run = await warptrace(args);
  assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  // The frame has 6 draws (see the test above); the trace holds the frame's draws 2 and 3 only.
  assert.deepEqual(
    trace.draws.map((d) => d.label.split(' ')[0]),
    ['#2', '#3'],
    trace.draws.map((d) => d.label).join(', '),
  );
  for (let i = 0; i < trace.warps.count; i++) assert.ok((trace.warps.draw[i] as number) < 2);
  const counts = stageCounts(trace);
  assert.ok((counts.get('VS') ?? 0) > 0 && (counts.get('FS') ?? 0) > 0, JSON.stringify([...counts]));
  assert.equal(trace.capture.recordsWritten, trace.capture.recordsKept, 'no record dropped');
  // --sample-fs 4 is --sample fs=4: the layer wrote FS's rate into the draw-id block and says so in the trace.
  assert.deepEqual(trace.capture.sampling, { every: { FS: 4 }, chosenBy: 'flag', budget: null });
  assert.equal(trace.capture.parameters['positions'], 'none');
  assert.equal(trace.warps.position, null, 'no warp records a position with --positions none');
  assert.match(skippedList(trace), /4 draws outside --draws 2\.\.3/);
});

// Beside the Khronos validation layer (vulkan-validationlayers), in both orders: below ours it also checks every call
// the layer makes (twins, shadow command buffers, the trace set, queries), above ours it checks the app's calls through
// the layer. The layer must add no validation message to those of the same app run untraced with validation alone.
// Before: the app died of SIGSEGV (the layer asked the next layer for vkEnumerateInstanceVersion with a null instance),
// and the layer's extended device queries broke the rules of the app's Vulkan 1.0 instance. The loader (1.3.239)
// orders layers named in VK_INSTANCE_LAYERS by where it found them, not as listed: the capture layer (VK_ADD_LAYER_PATH)
// always lands above an installed validation layer. Implicit layers sit above all of them, so validation goes above
// ours as an implicit layer: a copy of its manifest with a disable variable, in a private XDG_DATA_HOME.
let plainValidation: Promise<string[]> | null = null;

/** vkcube with the validation layer alone, untraced: the messages the app causes by itself. */
function untracedValidationMessages(): Promise<string[]> {
  plainValidation ??= (async () => {
    const { env, log } = validationSettings(dir, 'alone');
    const run = await underX(['vkcube', '--c', String(FRAME + 2)], { ...process.env, ...env, VK_INSTANCE_LAYERS: VALIDATION_LAYER });
    assert.equal(run.code, 0, `vkcube with the validation layer alone: ${describe(run)}`);
    return validationMessages(log);
  })();
  return plainValidation;
}

function assertNoNewMessages(log: string, plain: readonly string[]): void {
  const added = validationMessages(log).filter((m) => !plain.includes(m));
  assert.deepEqual(added.slice(0, 20), [], `${added.length} validation messages the app alone did not cause (log: ${log})`);
}

for (const [order, environment] of [
  ['below', (): Record<string, string> => ({ VK_INSTANCE_LAYERS: VALIDATION_LAYER })],
  ['above', validationAsImplicitLayer],
] as const) {
  test(`vkcube with the validation layer ${order} the capture layer: captured, no validation message the app alone does not cause`, { skip }, async () => {
    const plain = await untracedValidationMessages();
    const { env, log } = validationSettings(dir, order);
    const out = join(dir, `cube-validation-${order}.wtrace`);
    const args = ['capture', '-o', out, '--frame', String(FRAME), '--exit-after', '--', 'vkcube', '--c', '100'];
    const run = await warptrace(args, { ...env, ...environment(dir) });
    assert.equal(run.code, 0, `warptrace ${args.join(' ')} (validation ${order}): ${describe(run)}`);
    const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
    assert.equal(trace.draws.length, 1, `draws: ${JSON.stringify(trace.draws)}`);
    const counts = stageCounts(trace);
    assert.ok((counts.get('VS') ?? 0) > 0 && (counts.get('FS') ?? 0) > 0, `VS and FS warps: ${JSON.stringify([...counts])}`);
    assertNoNewMessages(log, plain);
  });
}

test('vkcube with the capture layer loaded but not tracing (no socket) above the validation layer: no validation message the app alone does not cause', { skip }, async () => {
  // Untraced, the layer leaves the app's Vulkan 1.0 instance as it is: its own device queries must keep to 1.0 and the extension.
  const plain = await untracedValidationMessages();
  const { env, log } = validationSettings(dir, 'untraced-layer');
  const run = await underX(['vkcube', '--c', String(FRAME + 2)], {
    ...process.env,
    ...env,
    VK_ADD_LAYER_PATH: layerDir,
    VK_INSTANCE_LAYERS: `${LAYER_NAME}:${VALIDATION_LAYER}`,
  });
  assert.equal(run.code, 0, `vkcube with the layer untraced and validation: ${describe(run)}`);
  assertNoNewMessages(log, plain);
});
