// A known answer for block profiles: `warptrace capture --workload aqt --blocks` on
// this machine's Vulkan device (CI: lavapipe), against a CPU model of the irregular
// draw's tessellation control shader (capture/workloads/shaders/aqt_irregular.tesc).
// Each patch walks burn(tcsWork × depth) with depth = 1 + (hash32(patch) & 3), and
// only invocation 0 of each patch sets the tessellation levels. So, counted per
// invocation (lavapipe: no subgroup operations in TCS) or per warp (one warp a patch):
// the loop body runs Σ tcsWork × depth times per lane, the `id == 0` branch once per
// patch with one lane. WARPTRACE_SKIP_GPU_TESTS=1 skips.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWtrace, type Trace } from '../../shared-schema/index.js';
import { spawnSync } from 'node:child_process';
import { repoPath } from './paths.js';
import { patchIterations } from './aqt-model.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-blocks-aqt-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The 1-based line of `text` in a workload shader source. */
function lineOf(file: string, text: string): number {
  const lines = readFileSync(repoPath('capture/workloads/shaders', file), 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes(text));
  assert.ok(at >= 0, `${file} has "${text}"`);
  return at + 1;
}

const GRID = 8;
const TCS_WORK = 48;
/** The irregular draw's patches: grid × max(2, grid / 4) (workloads.cpp AqtFrame). */
const PATCHES = GRID * Math.max(2, GRID / 4);
const LANES_PER_PATCH = 32;

/** Loop-body runs per lane over the draw: Σ over patches of tcsWork × depth (patchBase 0). */
function loopIterations(): number {
  let sum = 0;
  for (let patch = 0; patch < PATCHES; patch++) sum += patchIterations(patch, TCS_WORK);
  return sum;
}

test('aqt --blocks: the irregular TCS loop body and its id == 0 branch run as the CPU model says', { skip }, () => {
  const out = join(dir, 'aqt.wtrace');
  const args = ['capture', '--workload', 'aqt', '--blocks', '--param', `grid=${GRID}`, '--param', `tcsWork=${TCS_WORK}`, '--param', 'shading=0', '--overhead-frames', '0', '-o', out];
  const run = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8', timeout: 600_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const trace: Trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  const profile = trace.blocks;
  assert.ok(profile);
  const moduleIndex = profile.modules.findIndex((m) => m.name.includes('aqt_irregular.tesc'));
  assert.ok(moduleIndex >= 0, profile.modules.map((m) => m.name).join(', '));
  const module = profile.modules[moduleIndex]!;
  const row = profile.rows.find((r) => r.draw === 0)!;
  const counts = row.modules.find((m) => m.module === moduleIndex)!;
  const perWarp = module.per === 'warp';
  // Per invocation every lane is an execution of one lane; per warp a patch's warp is one execution of its live lanes.
  const lanesPerExecution = perWarp ? LANES_PER_PATCH : 1;
  const executionsPerPatch = perWarp ? 1 : LANES_PER_PATCH;
  const blocksAt = (fn: string, line: number) => module.blocks.flatMap((b, i) => (b.function.startsWith(fn) && b.line === line ? [i] : []));

  // burn (common.glsl, `for (...) x = fract(...)` on one line): its first block once a call, the loop's header and test
  // n + 1 times a call, body and continue n.
  const loopLine = lineOf('common.glsl', 'for (uint i = 0u; i < n; ++i)');
  const loop = blocksAt('burn', loopLine).map((b) => counts.executions[b]!).sort((a, b) => a - b);
  const body = loopIterations() * executionsPerPatch;
  const headers = (loopIterations() + PATCHES) * executionsPerPatch;
  const calls = PATCHES * executionsPerPatch;
  assert.deepEqual(loop, [calls, body, body, headers, headers], `burn's loop blocks: ${loop.join(', ')}`);
  for (const b of blocksAt('burn', loopLine)) assert.equal(counts.lanes[b], counts.executions[b]! * lanesPerExecution, `burn block ${b}: every lane of the patch walks it`);

  // `if (id == 0u)`: its body (the tessellation levels) runs once per patch, one lane live.
  const branchLine = lineOf('aqt_irregular.tesc', 'float level = knobs.tessLevel;');
  const branch = blocksAt('main', branchLine);
  assert.equal(branch.length, 1, `one block starts at line ${branchLine}: ${JSON.stringify(module.blocks.map((b) => [b.function, b.line]))}`);
  assert.equal(counts.executions[branch[0]!], PATCHES);
  assert.equal(counts.lanes[branch[0]!], PATCHES);
  // The entry block runs once per warp (invocation) of the draw; the records say how many the draw had.
  const entry = blocksAt('main', lineOf('aqt_irregular.tesc', 'uint id = uint(gl_InvocationID);'));
  assert.equal(counts.executions[entry[0]!], PATCHES * executionsPerPatch);
  assert.equal(profile.dropped, 0);
});
