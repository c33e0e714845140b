// Block profiles through the host library and the harness (--blocks), on whatever Vulkan
// device the machine has (CI: lavapipe), with hand-written stand-ins for the instrumenter's
// pass (test/native/block-fakes): the rows, modules and cells the host lays out and writes
// must match what the CPU knows of the divergence workload (its dispatch, its target, the
// subgroup size). Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK_BASE_SPEC_ID, BLOCK_MARK_PREFIX, NO_BLOCK_ROW } from '../../shared-schema/block-layout.js';
import { WtrawHeaderWord } from '../../shared-schema/index.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { probeDevice, runCapture, type HarnessCapture, type ProbedDevice } from '../../capture/capture-run/harness.js';
import { PLAIN, TRACED, compileShaderSet } from '../../capture/capture-run/shaders.js';
import { autoInstrumentOptions, autoInstrumentSet } from '../../capture/capture-run/auto-instrument.js';
import { readRawBlocks, type RawBlocks } from './raw-blocks.js';
import { repoPath } from './paths.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-blocks-'));
const fakes = join(dir, 'fakes');
const FAKE_FILES = ['divergence.comp', 'quad.vert', 'divergence.frag'];
/** The SpecId the stand-ins are compiled with (glslang refuses BLOCK_BASE_SPEC_ID). */
const PLACEHOLDER_SPEC_ID = 77;
let binary = '';
let device: ProbedDevice;
let traced = '';

/** Moves the stand-in's base constant to SpecId BLOCK_BASE_SPEC_ID (OpDecorate %c SpecId 77). */
function patchSpecId(bytes: Uint8Array): Uint8Array {
  const words = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  let patched = 0;
  for (let i = 5; i < words.length; i += words[i]! >>> 16) {
    if ((words[i]! & 0xffff) === 71 && words[i + 2] === 1 && words[i + 3] === PLACEHOLDER_SPEC_ID) (words[i + 3] = BLOCK_BASE_SPEC_ID), patched++;
  }
  assert.equal(patched, 1);
  return new Uint8Array(words.buffer);
}

before(async () => {
  if (skip) return;
  binary = await buildNative();
  device = await probeDevice(binary);
  traced = await compileShaderSet(device, TRACED);
  // The hand-instrumented set, with the divergence workload's shaders replaced by marked stand-ins.
  cpSync(traced, fakes, { recursive: true });
  for (const file of FAKE_FILES) {
    const out = join(fakes, `${file}.spv`);
    const args = ['-V', '--target-env', 'vulkan1.2', `-I${repoPath('capture/workloads/shaders')}`, repoPath('test/native/block-fakes', file), '-o', out];
    const r = spawnSync('glslangValidator', args, { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    writeFileSync(out, patchSpecId(new Uint8Array(readFileSync(out))));
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

const SIZE = { width: 32, height: 16 };
const GROUPS = 3;

async function captureBlocks(name: string, job: Partial<HarnessCapture> & { workload: string; params: readonly (readonly [string, number])[] }): Promise<RawBlocks> {
  const out = join(dir, `${name}.wtraw`);
  await runCapture(binary, { tracedShaders: fakes, plainShaders: null, out, overheadFrames: 0, blocks: true, ...job });
  return readRawBlocks(new Uint8Array(readFileSync(out)));
}

const divergenceParams = [['width', SIZE.width], ['height', SIZE.height], ['groups', GROUPS], ['work', 4]] as const;

test('divergence: each draw a row of its modules one after another, the cells as the CPU counts them', { skip }, async () => {
  const { blocks, cells, moduleBytes } = await captureBlocks('divergence', { workload: 'divergence', params: divergenceParams });
  assert.ok(blocks);
  const lanesPerWarp = blocks.subgroupSize;
  assert.equal(lanesPerWarp, device.subgroupSize);
  assert.deepEqual(blocks.modules.map((m) => m.name), FAKE_FILES);
  FAKE_FILES.forEach((file, i) => assert.deepEqual(moduleBytes[i], new Uint8Array(readFileSync(join(fakes, `${file}.spv`))), `${file}: the SPIR-V as built`));
  // The dispatch: one module (2 blocks); the draw: quad.vert (1 block) then divergence.frag (2 blocks) at offset 1.
  assert.deepEqual(blocks.rows, [
    { draw: 0, cell: 0, modules: [{ module: 0, offset: 0 }] },
    { draw: 1, cell: 2, modules: [{ module: 1, offset: 0 }, { module: 2, offset: 1 }] },
  ]);
  assert.equal(blocks.cells, 5);
  assert.equal(blocks.dropped, 0);
  assert.equal(blocks.unprofiledDraws, 0);

  const invocations = GROUPS * 64;
  const warps = invocations / lanesPerWarp;
  assert.deepEqual(cells[0], { executions: warps, lanes: invocations, ticks: 0 }, 'compute entry: every warp, every lane');
  assert.deepEqual(cells[1], { executions: warps, lanes: invocations / 2, ticks: 0 }, 'compute branch: every warp, half its lanes');
  assert.deepEqual(cells[2], { executions: 6, lanes: 6, ticks: 0 }, 'vertex: per invocation, six vertices');
  const pixels = SIZE.width * SIZE.height;
  assert.equal(cells[3]!.lanes, pixels, 'fragment entry: every pixel once');
  assert.equal(cells[4]!.lanes, pixels / 2, 'fragment branch: the odd columns');
  assert.ok(cells[3]!.executions >= pixels / lanesPerWarp && cells[4]!.executions <= cells[3]!.executions);
});

test('a draw whose row does not fit the table is not profiled, and says so', { skip }, async () => {
  const { blocks, cells } = await captureBlocks('full', { workload: 'divergence', params: divergenceParams, blockCells: 4 });
  assert.ok(blocks);
  assert.deepEqual(blocks.rows, [{ draw: 0, cell: 0, modules: [{ module: 0, offset: 0 }] }]);
  assert.deepEqual(blocks.modules.map((m) => m.name), ['divergence.comp'], 'only modules of a row are written');
  assert.equal(blocks.cells, 2);
  assert.equal(blocks.unprofiledDraws, 1);
  assert.equal(blocks.dropped, 0, `the unprofiled draw read row ${NO_BLOCK_ROW} and counted nothing`);
  assert.equal(cells[1]!.lanes, (GROUPS * 64) / 2);
});

test('--block-rows pipeline: the draws of one pipeline share its row', { skip }, async () => {
  // syncs: 2 x draws draws of one pipeline (the marked quad.vert, an unmarked shade.frag).
  const params = [['width', 16], ['height', 16], ['draws', 2], ['shading', 0]] as const;
  const perDraw = await captureBlocks('syncs-draw', { workload: 'syncs', params });
  assert.equal(perDraw.blocks!.rows.length, 4);
  assert.deepEqual(perDraw.blocks!.rows.map((r) => r.cell), [0, 1, 2, 3]);
  assert.deepEqual(perDraw.cells, Array(4).fill({ executions: 6, lanes: 6, ticks: 0 }));
  const shared = await captureBlocks('syncs-pipeline', { workload: 'syncs', params, blockRows: 'pipeline' });
  assert.deepEqual(shared.blocks!.rows.map((r) => [r.draw, r.cell]), [[0, 0], [1, 0], [2, 0], [3, 0]]);
  assert.deepEqual(shared.cells, [{ executions: 24, lanes: 24, ticks: 0 }]);
});

test('without --blocks the file has no block section and no "blocks" key', { skip }, async () => {
  const out = join(dir, 'plain.wtraw');
  await runCapture(binary, { workload: 'divergence', tracedShaders: traced, plainShaders: null, out, params: divergenceParams, overheadFrames: 0 });
  const raw = new Uint8Array(readFileSync(out));
  const { blocks, blockBytes } = readRawBlocks(raw);
  assert.equal(blocks, undefined);
  assert.equal(blockBytes, 0);
  assert.equal(new DataView(raw.buffer, raw.byteOffset).getUint32(WtrawHeaderWord.BLOCK_BYTES * 4, true), 0);
});

/** N of a module's `OpString "warptrace-blocks=N ..."` (the instrumenter's mark), read here apart from the host's C parser. */
function markedBlocks(spirv: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(spirv);
  const at = text.indexOf(BLOCK_MARK_PREFIX);
  assert.ok(at >= 0, 'the module carries the block mark');
  return Number(/^\d+/.exec(text.slice(at + BLOCK_MARK_PREFIX.length))![0]);
}

test('divergence through the instrumenter (--blocks): the branch counts every warp and half its lanes', { skip }, async () => {
  const work = 5;
  const plain = await compileShaderSet(device, PLAIN);
  const shaders = autoInstrumentSet(plain, { ...autoInstrumentOptions(device), blocks: true }, join(dir, 'instrumented'));
  const params = [['width', SIZE.width], ['height', SIZE.height], ['groups', GROUPS], ['work', work]] as const;
  const { blocks, cells, moduleBytes } = await captureBlocks('instrumented', { workload: 'divergence', params, tracedShaders: shaders });
  assert.ok(blocks);
  assert.deepEqual(blocks.modules.map((m) => m.name), FAKE_FILES);
  const [compute, vertex, fragment] = moduleBytes.map(markedBlocks) as [number, number, number];
  assert.deepEqual(blocks.rows, [
    { draw: 0, cell: 0, modules: [{ module: 0, offset: 0 }] },
    { draw: 1, cell: compute, modules: [{ module: 1, offset: 0 }, { module: 2, offset: vertex }] },
  ]);
  assert.equal(blocks.cells, compute + vertex + fragment);
  assert.equal(blocks.dropped, 0);
  const S = blocks.subgroupSize;
  for (const [i, c] of cells.entries()) assert.ok(c.lanes <= c.executions * S, `cell ${i}: no more live lanes than its warps hold`);

  // Which block is which is the decoder's business: here, the counts the CPU expects must be there.
  const has = (from: number, to: number, executions: number | null, lanes: number) =>
    cells.slice(from, to).some((c) => c.lanes === lanes && (executions === null || c.executions === executions));
  const invocations = GROUPS * 64;
  const warps = invocations / S;
  assert.ok(has(0, compute, warps, invocations), 'compute: a block every lane of every warp runs');
  assert.ok(has(0, compute, warps, invocations / 2), 'compute: the branch, every warp with half its lanes');
  assert.ok(has(0, compute, warps * work, (invocations / 2) * work), 'compute: the loop body, work times the branch');
  assert.ok(has(compute, compute + vertex, null, 6), 'vertex: six vertices');
  const pixels = SIZE.width * SIZE.height;
  const fs = compute + vertex;
  assert.ok(has(fs, fs + fragment, null, pixels), 'fragment: a block every pixel runs');
  assert.ok(has(fs, fs + fragment, null, pixels / 2), 'fragment: the branch of the odd columns');
  assert.ok(has(fs, fs + fragment, null, (pixels / 2) * work), 'fragment: the loop body, work times the branch');
});

test('warptrace capture: --block-cells and --block-rows need --blocks', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'capture', '--workload', 'divergence', '-o', join(dir, 'u.wtrace'), ...args], { encoding: 'utf8' });
  for (const args of [['--block-cells', '8'], ['--block-rows', 'pipeline'], ['--blocks', '--block-rows', 'warp'], ['--blocks', '--block-cells', '0']]) {
    const r = cli(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /--block-/);
  }
});
