// Screen positions through the GLSL library on the machine's Vulkan device
// (CI: lavapipe, whose fragment subgroups have 8 lanes): scenes whose
// fragment coverage is known exactly (the syncs workload draws axis-aligned
// rectangles with edges on pixel boundaries, busy-loop one full-screen
// rectangle). Per draw: every covered pixel lies in some fragment warp's
// footprint, every footprint's corner lies in the coverage, the warps' live
// lanes are the covered pixels, and the draw's target is the render size.
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_POSITION, Stage, decodeWtrace, popcount32, unpackPosition, type Trace } from '../../shared-schema/index.js';
import { NVIDIA_PROFILE, traceDefines } from '../../capture/capture-run/shaders.js';
import { repoPath } from './paths.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-capture-screen-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function capture(name: string, params: readonly string[]): Promise<Trace> {
  const out = join(dir, `${name}.wtrace`);
  const args = ['capture', '--workload', name, '-o', out, ...params.flatMap((p) => ['--param', p])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => (code === 0 ? resolve(decodeWtrace(new Uint8Array(readFileSync(out)))) : reject(new Error(`warptrace ${args.join(' ')}: exit ${code}\n${err}`))));
  });
}

test('the GLSL library\'s switches: positions in fragment and every ray-tracing shader by default, compute when asked, none with WT_POSITION=0', () => {
  const spirv = (shader: string, defines: readonly string[]) => {
    const spv = join(dir, `${shader.replace(/\W/g, '-')}-${defines.join('')}.spv`);
    const c = spawnSync('glslangValidator', ['-V', '--target-env', 'vulkan1.2', `-I${repoPath('capture/shaders')}`, '-DWT_ENABLE', ...defines, repoPath(`capture/workloads/shaders/${shader}`), '-o', spv], { encoding: 'utf8' });
    assert.equal(c.status, 0, c.stdout + c.stderr);
    const v = spawnSync('spirv-val', ['--target-env', 'vulkan1.2', spv], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stdout + v.stderr);
    return spawnSync('spirv-dis', [spv], { encoding: 'utf8' }).stdout;
  };
  // The min and max of the lanes' pixels, and the record's flag.
  const minMax = /OpGroupNonUniformUMin[\s\S]*OpGroupNonUniformUMax|OpGroupNonUniformUMax[\s\S]*OpGroupNonUniformUMin/;
  // (shade.frag and particles.comp read gl_FragCoord and gl_GlobalInvocationID themselves.)
  assert.match(spirv('shade.frag', []), minMax);
  assert.doesNotMatch(spirv('shade.frag', ['-DWT_POSITION=0']), /OpGroupNonUniformUMin|OpGroupNonUniformUMax/);
  // Per invocation: the lane's own pixel, no subgroup operation.
  assert.doesNotMatch(spirv('shade.frag', ['-DWT_SUBGROUP=0']), /OpGroupNonUniform/);
  assert.doesNotMatch(spirv('particles.comp', []), /OpGroupNonUniformUMin|OpGroupNonUniformUMax/);
  assert.match(spirv('particles.comp', ['-DWT_POSITION_COMPUTE=1']), minMax);
  // Every ray-tracing stage: the box of the lanes' launch ids (the miss shaders and rt.rgen read gl_LaunchIDEXT themselves, the others do not).
  for (const shader of ['rt.rgen', 'rt_reorder.rgen', 'rt.rahit', 'rt.rchit', 'rt_sphere.rchit', 'rt.rmiss', 'rt_shadow.rmiss', 'rt.rint']) {
    const code = spirv(shader, []);
    assert.match(code, minMax, shader);
    assert.match(code, /BuiltIn LaunchId/, shader);
    assert.doesNotMatch(spirv(shader, ['-DWT_POSITION=0']), /OpGroupNonUniformUMin|OpGroupNonUniformUMax/, shader);
    assert.doesNotMatch(spirv(shader, ['-DWT_SUBGROUP=0']), /OpGroupNonUniform/, `${shader}: per invocation`);
  }
  // The closest hit reads the launch id for its position and for the sampling test's warp key (WT_SAMPLING, on by default).
  assert.doesNotMatch(spirv('rt.rchit', ['-DWT_POSITION=0', '-DWT_SAMPLING=0']), /BuiltIn LaunchId/, 'without either, no launch id');
  assert.match(spirv('rt.rchit', ['-DWT_POSITION=0']), /BuiltIn LaunchId/, 'the warp key');
});

test('the capture tool turns positions off where the record has no word for them or the subgroup no min/max', () => {
  const off = (profile: Parameters<typeof traceDefines>[0], stage: Parameters<typeof traceDefines>[1]) => traceDefines(profile, stage).includes('-DWT_POSITION=0');
  assert.equal(off(NVIDIA_PROFILE, 'FS'), false);
  assert.equal(off({ ...NVIDIA_PROFILE, subgroupSize: 32 }, 'RAYGEN'), false);
  assert.equal(off({ ...NVIDIA_PROFILE, subgroupSize: 64 }, 'FS'), true, 'word 3 holds lanes 32..63');
  assert.equal(off({ ...NVIDIA_PROFILE, subgroupArithmetic: false }, 'FS'), true, 'no subgroup min/max');
  assert.equal(off({ ...NVIDIA_PROFILE, subgroupArithmetic: false, subgroupStages: ['CS'] }, 'FS'), false, 'per invocation: no reduction needed');
});

/** Pixels [x0, x1) x [y0, y1). */
type Rect = readonly [number, number, number, number];

const W = 96;
const H = 64;
const N = 3;
let syncs: Trace | null = null;
let busy: Trace | null = null;
before(async () => {
  if (skip) return;
  syncs = await capture('syncs', [`width=${W}`, `height=${H}`, `draws=${N}`, 'shading=2']);
  busy = await capture('busy-loop', ['work=4', 'groups=3']);
});

/** syncs draw d: rectangle i = d mod N of the top row (first N draws), then of the bottom row. */
function syncsRect(d: number): Rect {
  const i = d % N;
  const bottom = d >= N;
  return [(W * i) / N, bottom ? H / 2 : 0, (W * (i + 1)) / N, bottom ? H : H / 2];
}

/** Checks draw d's fragment warps against its coverage; returns the footprint sizes seen ("4x2"). */
function checkCoverage(trace: Trace, d: number, rect: Rect): Set<string> {
  const [x0, y0, x1, y1] = rect;
  const w = trace.warps;
  assert.ok(w.position !== null, 'the trace has positions');
  const covered = new Uint8Array(trace.draws[d]!.target!.width * trace.draws[d]!.target!.height);
  const stride = trace.draws[d]!.target!.width;
  const sizes = new Set<string>();
  let lanes = 0;
  let fragments = 0;
  for (let i = 0; i < w.count; i++) {
    if (w.draw[i] !== d) continue;
    const word: number = w.position[i]!;
    if (w.stage[i] !== Stage.FS) {
      assert.equal(word, NO_POSITION, `draw ${d} row ${i}: only fragment warps have a position (stage ${w.stage[i]})`);
      continue;
    }
    fragments++;
    const f = unpackPosition(word);
    assert.ok(f !== null, `draw ${d} row ${i}: a fragment warp has a position`);
    assert.ok(f.x >= x0 && f.x < x1 && f.y >= y0 && f.y < y1, `draw ${d} row ${i}: corner (${f.x}, ${f.y}) outside the rectangle [${rect.join(', ')})`);
    sizes.add(`${f.width}x${f.height}`);
    lanes += popcount32(w.activeMask[i]!);
    for (let y = f.y; y < Math.min(f.y + f.height, y1); y++) for (let x = f.x; x < Math.min(f.x + f.width, x1); x++) covered[y * stride + x] = 1;
  }
  assert.ok(fragments > 0, `draw ${d} has fragment warps`);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) assert.equal(covered[y * stride + x], 1, `draw ${d}: pixel (${x}, ${y}) lies in no fragment warp's footprint`);
  // One live lane per covered pixel: helper lanes are neither in the mask nor in the footprint.
  assert.equal(lanes, (x1 - x0) * (y1 - y0), `draw ${d}: live fragment lanes`);
  return sizes;
}

test('syncs: each rectangle\'s pixels are covered by its fragment warps\' footprints, whose corners lie inside it', { skip }, (t) => {
  const trace = syncs!;
  assert.equal(trace.draws.length, 2 * N);
  const sizes = new Set<string>();
  for (const draw of trace.draws) {
    assert.deepEqual(draw.target, { width: W, height: H }, `draw ${draw.index}: the render size`);
    for (const s of checkCoverage(trace, draw.index, syncsRect(draw.index))) sizes.add(s);
  }
  t.diagnostic(`subgroup ${trace.device.subgroupSize}: footprints ${[...sizes].sort().join(', ')}`);
});

test('busy-loop: the full-screen draw is covered; the dispatch\'s target is its grid and compute warps have no position by default', { skip }, () => {
  const trace = busy!;
  const [dispatch, draw] = trace.draws;
  assert.equal(dispatch!.kind, 'dispatch');
  assert.deepEqual(dispatch!.target, { width: 3 * 64, height: 1 });
  const { width, height } = draw!.target!;
  assert.ok(width > 0 && height > 0);
  checkCoverage(trace, 1, [0, 0, width, height]);
  for (let i = 0; i < trace.warps.count; i++) if (trace.warps.stage[i] === Stage.CS) assert.equal(trace.warps.position![i], NO_POSITION);
});
