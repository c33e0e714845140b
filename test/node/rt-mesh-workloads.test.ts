// The ray-tracing and meshlet reference workloads. Their shaders compile traced (for an
// NVIDIA-like device: subgroups and SM builtins in every stage; and for a lavapipe-like one:
// subgroups only in FS/CS, so these stages record per invocation) and plain, and pass
// spirv-val with the execution model their file extension names. On a device without
// ray-tracing pipelines or mesh shaders (lavapipe, CI) a capture fails with one line,
// "unsupported: <feature> (...)", exit 1; on one with them it records every stage.
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip the capture part on a machine without Vulkan.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, decodeWtrace, popcount32, type StageName } from '../../shared-schema/index.js';
import { buildNative } from '../../capture/capture-run/native.js';
import { probeDevice } from '../../capture/capture-run/harness.js';
import { NVIDIA_PROFILE, PLAIN, TRACED, compileShaderSet, stageOfShaderFile, type DeviceProfile } from '../../capture/capture-run/shaders.js';
import { repoPath } from './paths.js';

const skipGpu = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-rt-mesh-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** SPIR-V execution models (OpEntryPoint's first operand) of the new stages. */
const EXECUTION_MODEL: Readonly<Partial<Record<StageName, number>>> = {
  RAYGEN: 5313,
  INTERSECTION: 5314,
  ANY_HIT: 5315,
  CLOSEST_HIT: 5316,
  MISS: 5317,
  CALLABLE: 5318,
  TASK: 5364,
  MESH: 5365,
};
const OP_ENTRY_POINT = 15;
const OP_ATOMIC_IADD = 234;
const OP_GROUP_NON_UNIFORM_BALLOT = 339;
const OP_READ_CLOCK_KHR = 5056;
const OP_DECORATE = 71;
const DECORATION_BUILTIN = 11;
const DECORATION_DESCRIPTOR_SET = 34;
const TRACE_SET = 7;
const BUILTIN_SM_ID_NV = 5377;

interface Module {
  readonly models: number[];
  readonly opcodes: Set<number>;
  readonly builtins: Set<number>;
  readonly descriptorSets: Set<number>;
}

function parseSpirv(bytes: Uint8Array): Module {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  assert.equal(words[0], 0x07230203, 'SPIR-V magic');
  const models: number[] = [];
  const opcodes = new Set<number>();
  const builtins = new Set<number>();
  const descriptorSets = new Set<number>();
  for (let at = 5; at < words.length; ) {
    const count = words[at]! >>> 16;
    const opcode = words[at]! & 0xffff;
    assert.ok(count > 0 && at + count <= words.length, `instruction at word ${at}`);
    opcodes.add(opcode);
    if (opcode === OP_ENTRY_POINT) models.push(words[at + 1]!);
    if (opcode === OP_DECORATE && words[at + 2] === DECORATION_BUILTIN) builtins.add(words[at + 3]!);
    if (opcode === OP_DECORATE && words[at + 2] === DECORATION_DESCRIPTOR_SET) descriptorSets.add(words[at + 3]!);
    at += count;
  }
  return { models, opcodes, builtins, descriptorSets };
}

const LAVAPIPE_LIKE: DeviceProfile = { subgroupClock: true, deviceClock: true, smBuiltins: false, subgroupStages: ['FS', 'CS'] };

function newStageFiles(spvDir: string): { file: string; stage: StageName }[] {
  return readdirSync(spvDir)
    .map((file) => ({ file, stage: stageOfShaderFile(file) }))
    .filter((f): f is { file: string; stage: StageName } => f.stage !== undefined && EXECUTION_MODEL[f.stage] !== undefined);
}

test('ray-tracing, task and mesh shaders compile traced and plain, with their execution models, and pass spirv-val', async () => {
  const plain = await compileShaderSet(NVIDIA_PROFILE, PLAIN, join(dir, 'plain'));
  const files = newStageFiles(plain);
  const stages = new Set(files.map((f) => f.stage));
  for (const s of ['RAYGEN', 'MISS', 'CLOSEST_HIT', 'ANY_HIT', 'INTERSECTION', 'TASK', 'MESH'] as const) assert.ok(stages.has(s), `a ${s} shader`);
  for (const [name, profile] of [['nvidia', NVIDIA_PROFILE], ['lavapipe', LAVAPIPE_LIKE]] as const) {
    const traced = await compileShaderSet(profile, TRACED, join(dir, `traced-${name}`));
    for (const { file, stage } of files) {
      for (const [variant, path] of [['plain', join(plain, file)], ['traced', join(traced, file)]] as const) {
        const val = spawnSync('spirv-val', ['--target-env', 'vulkan1.2', path], { encoding: 'utf8' });
        assert.equal(val.status, 0, `${variant} ${file} (${name}): ${val.stdout}${val.stderr}`);
      }
      const p = parseSpirv(new Uint8Array(readFileSync(join(plain, file))));
      const t = parseSpirv(new Uint8Array(readFileSync(join(traced, file))));
      assert.deepEqual(t.models, [EXECUTION_MODEL[stage]], `${file}: one ${stage} entry point`);
      assert.deepEqual(p.models, t.models, `${file}: the plain twin has the same entry point`);
      assert.ok(!p.opcodes.has(OP_READ_CLOCK_KHR) && !p.descriptorSets.has(TRACE_SET), `${file}: the plain twin reads no clock and has no trace set`);
      assert.ok(t.opcodes.has(OP_READ_CLOCK_KHR) && t.descriptorSets.has(TRACE_SET) && t.opcodes.has(OP_ATOMIC_IADD), `${file} (${name}): reads the clock and appends to the trace set`);
      // Subgroups where the device has them in this stage, else one record per invocation.
      assert.equal(t.opcodes.has(OP_GROUP_NON_UNIFORM_BALLOT), profile.subgroupStages.includes(stage), `${file} (${name}): ballot`);
      assert.equal(t.builtins.has(BUILTIN_SM_ID_NV), profile.smBuiltins, `${file} (${name}): SM id`);
    }
  }
});

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function run(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const WORKLOADS = [
  { workload: 'ray-tracing', feature: 'ray-tracing pipelines', kind: 'trace-rays', stages: ['RAYGEN', 'MISS', 'CLOSEST_HIT', 'ANY_HIT', 'INTERSECTION'] },
  // Shader execution reordering: ray generation records up to the reorder (RAYGEN) and after it (RAYGEN_REORDERED).
  { workload: 'ray-tracing-reorder', feature: 'ray-tracing pipelines', kind: 'trace-rays', stages: ['RAYGEN', 'RAYGEN_REORDERED', 'MISS', 'CLOSEST_HIT', 'ANY_HIT', 'INTERSECTION'] },
  { workload: 'meshlets', feature: 'mesh shaders', kind: 'draw', stages: ['TASK', 'MESH', 'FS'] },
] as const;

test('without the feature a capture fails with "unsupported: <feature>"; with it every stage records', { skip: skipGpu }, async () => {
  const binary = await buildNative();
  const device = await probeDevice(binary);
  const lavapipe = /llvmpipe/.test(device.name);
  const plain = await compileShaderSet(NVIDIA_PROFILE, PLAIN, join(dir, 'plain'));
  for (const w of WORKLOADS) {
    const out = join(dir, `${w.workload}.wtrace`);
    const r = await run(process.execPath, [repoPath('bin/warptrace.js'), 'capture', '--workload', w.workload, '-o', out,
      '--param', 'width=64', '--param', 'height=32', '--overhead-frames', '2']);
    if (lavapipe || r.code !== 0) {
      // Lavapipe (Mesa 22.3) has neither ray-tracing pipelines nor mesh shaders.
      assert.equal(r.code, 1, `${w.workload}: exit status\n${r.err}`);
      assert.match(r.err, new RegExp(`^warptrace capture: unsupported: ${w.feature} \\(.+ lacks .+\\)\\n$`), w.workload);
      // The untraced app mode (for the capture layer) says the same.
      const app = await run(binary, ['--app', '--workload', w.workload, '--plain-shaders', plain]);
      assert.equal(app.code, 1, `${w.workload} --app\n${app.err}`);
      assert.match(app.err, new RegExp(`^wt-capture-vk: unsupported: ${w.feature} \\(`), `${w.workload} --app`);
      continue;
    }
    const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
    assert.equal(trace.draws.length, 1);
    assert.equal(trace.draws[0]!.kind, w.kind);
    const seen = new Set<string>();
    let raygenLanes = 0;
    let reorderedLanes = 0;
    for (let i = 0; i < trace.warps.count; i++) {
      const stage = STAGES[trace.warps.stage[i]!]!.name;
      seen.add(stage);
      if (stage === 'RAYGEN') raygenLanes += popcount32(trace.warps.activeMask[i]!);
      if (stage === 'RAYGEN_REORDERED') reorderedLanes += popcount32(trace.warps.activeMask[i]!);
    }
    assert.deepEqual([...seen].sort(), [...w.stages].sort(), `${w.workload}: stages`);
    if (w.workload !== 'meshlets') assert.equal(raygenLanes, 64 * 32, 'one ray-generation invocation per pixel');
    // Every invocation passes the one reorder: it is in one record before it and one after it.
    if (w.workload === 'ray-tracing-reorder') assert.equal(reorderedLanes, 64 * 32, 'one reordered invocation per pixel');
  }
});
