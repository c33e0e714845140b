// Ray-tracing, task and mesh entry points (test/spirv-corpus: *.rgen, *.rahit,
// *.rchit, *.rmiss, *.rint, *.rcall, *.task, *.mesh; KHR/EXT at SPIR-V 1.4-1.6,
// NV mesh and any-hit at 1.0-1.5): every option combination passes spirv-val,
// records carry the stage's code, and the instructions that end an invocation
// early (any-hit ignore/terminate, the task shader's OpEmitMeshTasksEXT) come
// after the record, in the wrapper only.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpirv, type SpirvModule } from '../../instrument/model/binary.js';
import { InstrumentError } from '../../instrument/errors.js';
import { parseFunctions, type FunctionCode } from '../../instrument/model/functions.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { customIdsFor, MESH_STAGES, RAY_TRACING_STAGES, targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { Op } from '../../instrument/model/spec.js';
import { PackedIds, RecordFlag, RecordWord, Stage } from '../../shared-schema/index.js';
import { compileCorpus, pool, spirvAs, spirvLink, spirvVal, validationEnv, workDir, type CorpusModule } from './spirv-tools.js';
import { repoPath } from './paths.js';

const STAGES = [...RAY_TRACING_STAGES, ...MESH_STAGES];
let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus(STAGES);
});

const nvidia = targetOptions('nvidia');
const lavapipe = targetOptions('lavapipe');
const ENDINGS: readonly number[] = [Op.IgnoreIntersectionKHR, Op.TerminateRayKHR, Op.IgnoreIntersectionNV, Op.TerminateRayNV, Op.EmitMeshTasksEXT];

/** The functions of a module, and the wrapper each entry point now names. */
function wrappers(module: SpirvModule): { functions: FunctionCode[]; wrapperOf: Map<string, FunctionCode> } {
  const editor = new ModuleEditor(module);
  const functions = parseFunctions(editor.section(Section.Function)).functions;
  const wrapperOf = new Map(editor.entryPoints().map((e) => [e.name, functions.find((f) => f.id === e.functionId)!]));
  return { functions, wrapperOf };
}

const bodyOf = (f: FunctionCode) => f.blocks.flatMap((b) => b.body);

test('the corpus has every ray-tracing, task and mesh stage, valid to begin with', async () => {
  assert.deepEqual([...new Set(corpus.map((m) => m.stage))].sort(), [...STAGES].sort());
  const errors = (await pool(corpus, 2, async (m) => [m.id, await spirvVal(m.bytes, validationEnv(m.spirv))] as const)).filter(([, e]) => e !== null);
  assert.deepEqual(errors, []);
});

test('every option combination passes spirv-val: presets, clocks, subgroup stages, custom ids, legacy modes, discard, sampling', async () => {
  const configs: [string, InstrumentOptions][] = [
    ['nvidia', nvidia],
    ['lavapipe', lavapipe],
    ['portable', targetOptions('portable')],
    ['device clock', { ...lavapipe, subgroupClock: false }],
    ['SM clock', { ...nvidia, deviceClock: false }],
    ['no subgroup stages, SM ids', { ...nvidia, subgroupStages: [] }],
    ['khr-ballot', { ...nvidia, legacySubgroup: 'khr-ballot' }],
    ['per-invocation', { ...nvidia, legacySubgroup: 'per-invocation' }],
    ['discard kill', { ...nvidia, discard: 'kill' }],
    ['sampling none', { ...nvidia, sampling: 'none' }],
    ['set 3 binding 5', { ...nvidia, set: 3, binding: 5 }],
  ];
  for (const stage of STAGES) {
    for (const source of customIdsFor(stage)) configs.push([`${stage}=${source}`, { ...nvidia, customIds: { ...nvidia.customIds, [stage]: source } }]);
  }
  const jobs = configs.flatMap(([config, options]) => corpus.map((module) => ({ config, options, module })));
  const bad = (
    await pool(jobs, 2, async ({ config, options, module }) => {
      const result = instrumentSpirv(module.bytes, options);
      const error = await spirvVal(result.bytes, validationEnv(result.outputVersion));
      return error === null ? null : `${module.id} [${config}]: ${error}`;
    })
  ).filter((e) => e !== null);
  assert.deepEqual(bad, [], bad.join('\n'));
  assert.ok(jobs.length >= 500, `${jobs.length} modules validated`);
});

test('records carry the stage code of the execution model; per warp where subgroups are, per invocation elsewhere', () => {
  for (const m of corpus) {
    for (const [config, options] of [['nvidia', nvidia], ['lavapipe', lavapipe]] as const) {
      const result = instrumentSpirv(m.bytes, options);
      const [entry] = result.entryPoints;
      assert.equal(entry!.stage, m.stage, m.id);
      assert.equal((entry!.flags & RecordFlag.PER_INVOCATION) !== 0, config === 'lavapipe', `${m.id} ${config}`);
      const { wrapperOf } = wrappers(result.module);
      const body = bodyOf(wrapperOf.get('main')!);
      const constants = new Map(result.module.instructions.filter((i) => i.opcode === Op.Constant).map((i) => [i.words[2]!, i.words[3]!]));
      const second = body.filter((i) => i.opcode === Op.CompositeConstruct)[1]!;
      let ids = second.words[3 + RecordWord.PACKED_IDS - 4]!;
      // Every ray-tracing stage records its position: the ids gain a selected POSITION flag (spirv-position.test.ts).
      if (entry!.position) ids = body.find((i) => i.opcode === Op.BitwiseOr && i.words[2] === ids)!.words[3]!;
      // Ray generation that reorders: they gain the selected RAYGEN_REORDERED bits too (the reorder-points test below).
      const reordered = body.find((i) => i.opcode === Op.BitwiseOr && i.words[2] === ids && body.some((s) => s.opcode === Op.Select && s.words[2] === i.words[4]));
      if (reordered !== undefined) ids = reordered.words[3]!;
      // nvidia: SM | slot | constant stage/flags bits; lavapipe: one constant.
      const bits = constants.get(ids) ?? constants.get(body.find((i) => i.opcode === Op.BitwiseOr && i.words[2] === ids)!.words[4]!)!;
      assert.equal((bits >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK, Stage[m.stage as keyof typeof Stage], m.id);
      assert.equal((bits >>> PackedIds.FLAGS_SHIFT) & PackedIds.FLAGS_MASK, entry!.flags, m.id);
    }
  }
});

test('any-hit ignore/terminate and the task emit: only in the wrapper, after the record, each once', () => {
  const cases = [
    ['cutout.rahit@vulkan1.2', [Op.IgnoreIntersectionKHR, Op.TerminateRayKHR]],
    ['cutout.rahit@spirv1.4', [Op.IgnoreIntersectionKHR, Op.TerminateRayKHR]],
    ['nv.rahit@vulkan1.1', [Op.IgnoreIntersectionNV, Op.TerminateRayNV]],
    ['meshlet.task@vulkan1.3', [Op.EmitMeshTasksEXT]],
  ] as const;
  for (const [id, expected] of cases) {
    const m = corpus.find((c) => c.id === id)!;
    const original = originalFunctions(m);
    assert.ok(original.flatMap(bodyOf).some((i) => ENDINGS.includes(i.opcode)), `${id}: the shader ends invocations early`);
    for (const options of [nvidia, lavapipe]) {
      const { module } = instrumentSpirv(m.bytes, options);
      const { functions, wrapperOf } = wrappers(module);
      const wrapper = wrapperOf.get('main')!;
      const body = bodyOf(wrapper);
      for (const f of functions) if (f !== wrapper) assert.equal(bodyOf(f).filter((i) => ENDINGS.includes(i.opcode)).length, 0, `${id}: none left in %${f.id}`);
      const lastStore = body.map((i) => i.opcode).lastIndexOf(Op.Store);
      const endings = body.map((i, k) => [i.opcode, k] as const).filter(([op]) => ENDINGS.includes(op));
      assert.deepEqual(endings.map(([op]) => op), [...expected], id);
      for (const [, k] of endings) assert.ok(k > lastStore, `${id}: after the record's stores`);
      if (expected.length > 1) {
        // Which ending it was is kept in a private uint; each ending runs only for its own value.
        const names = new ModuleEditor(module).section(Section.DebugName).map((i) => new TextDecoder().decode(new Uint8Array(i.words.buffer, i.words.byteOffset + 8, i.words.byteLength - 8)).replace(/\0+$/, ''));
        assert.ok(names.includes('warptrace_hit_ended') && names.includes('warptrace_hit_ended_by'), id);
      }
    }
  }
  // The emit keeps its payload variable and takes the counts the shader computed (saved in private variables).
  const task = corpus.find((c) => c.id === 'meshlet.task@vulkan1.3')!;
  const before = originalFunctions(task).flatMap(bodyOf).find((i) => i.opcode === Op.EmitMeshTasksEXT)!;
  const { module } = instrumentSpirv(task.bytes, nvidia);
  const { functions, wrapperOf } = wrappers(module);
  const wrapper = wrapperOf.get('main')!;
  const emit = bodyOf(wrapper).find((i) => i.opcode === Op.EmitMeshTasksEXT)!;
  assert.equal(emit.words.length, before.words.length);
  assert.equal(emit.words[4], before.words[4], 'the same payload variable');
  // Where the shader emitted, it stores the group counts it computed (their ids are unchanged) and returns.
  const stored = functions.filter((f) => f !== wrapper).flatMap(bodyOf).filter((i) => i.opcode === Op.Store).map((i) => i.words[2]);
  for (const k of [1, 2, 3]) assert.ok(stored.includes(before.words[k]), `group count ${k} is saved`);
  // The wrapper emits what it loads from the variables those stores write.
  const savedVariables = new Set(functions.filter((f) => f !== wrapper).flatMap(bodyOf).filter((i) => i.opcode === Op.Store && before.words.subarray(1, 4).includes(i.words[2]!)).map((i) => i.words[1]));
  const loads = new Map(bodyOf(wrapper).filter((i) => i.opcode === Op.Load).map((i) => [i.words[2]!, i.words[3]!]));
  for (const k of [1, 2, 3]) assert.ok(savedVariables.has(loads.get(emit.words[k]!) ?? -1), `the emit's count ${k} is loaded from a saved variable`);
});

function originalFunctions(m: CorpusModule): FunctionCode[] {
  return parseFunctions(new ModuleEditor(parseSpirv(m.bytes)).section(Section.Function)).functions;
}

const NV_HIT_THEN_MORE = `
               OpCapability RayTracingNV
               OpExtension "SPV_NV_ray_tracing"
               OpMemoryModel Logical GLSL450
               OpEntryPoint AnyHitNV %main "main"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
          %a = OpConstant %uint 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpIgnoreIntersectionNV
          %b = OpIAdd %uint %a %a
               OpReturn
               OpFunctionEnd
`;

test('intersection reports: each is preceded by a call that records its lanes once; the wrapper records only lanes that never reported', () => {
  // A report that accepts the hit of a terminate-on-first-hit ray (or whose any-hit terminates it) ends the invocation
  // inside the call: before, those lanes had no record (5,022 of 103,721 intersection lanes of our workload on the H200).
  for (const m of corpus.filter((c) => c.stage === 'INTERSECTION')) {
    for (const options of [nvidia, lavapipe]) {
      const { module } = instrumentSpirv(m.bytes, options);
      const { functions, wrapperOf } = wrappers(module);
      const wrapper = wrapperOf.get('main')!;
      const reportSites = functions.flatMap((f) => f.blocks.flatMap((b) => b.body.map((i, k) => [b.body, k] as const).filter(([body, k]) => body[k]!.opcode === Op.ReportIntersectionKHR)));
      assert.ok(reportSites.length >= 1, `${m.id}: the shader reports`);
      const callees = new Set(reportSites.map(([body, k]) => {
        const before = body[k - 1]!;
        assert.equal(before.opcode, Op.FunctionCall, `${m.id}: a call right before the report`);
        return before.words[3]!;
      }));
      assert.equal(callees.size, 1, `${m.id}: one record function`);
      const recordAtReport = functions.find((f) => f.id === [...callees][0])!;
      const code = bodyOf(recordAtReport);
      // if (!reported) { reported = true; if (drawId != UNTRACED) { clocks, ballot, atomic, stores } }
      const flagLoad = code.find((i) => i.opcode === Op.Load)!;
      const setFlag = code.find((i) => i.opcode === Op.Store && i.words[1] === flagLoad.words[3])!;
      assert.ok(setFlag !== undefined, `${m.id}: the flag is set`);
      assert.ok(code.indexOf(setFlag) < code.findIndex((i) => i.opcode === Op.AtomicIAdd), `${m.id}: before the record`);
      assert.ok(code.some((i) => i.opcode === Op.ReadClockKHR), m.id);
      assert.equal(code.filter((i) => i.opcode === Op.AtomicIAdd).length, 1, `${m.id}: one record`);
      // The wrapper's own record is guarded by the same flag.
      const w = bodyOf(wrapper);
      assert.ok(w.some((i) => i.opcode === Op.Load && i.words[3] === flagLoad.words[3]), `${m.id}: the wrapper reads the flag`);
      assert.equal(w.filter((i) => i.opcode === Op.AtomicIAdd).length, 1, m.id);
    }
  }
});

const REORDERS: readonly number[] = [Op.ReorderThreadWithHitObjectNV, Op.ReorderThreadWithHintNV];

test('reorder points: each is bracketed by a record of the lanes reaching it and a restart; records after one say RAYGEN_REORDERED', () => {
  // Shader execution reordering re-forms the launch's warps: one record from start to end would mix two warps.
  const reordering = corpus.filter((c) => c.source === 'reorder.rgen');
  assert.ok(reordering.length >= 2, 'reorder.rgen compiles for SPIR-V 1.4 and later');
  const REORDERED_BITS = (Stage.RAYGEN_REORDERED & ~Stage.RAYGEN) << PackedIds.STAGE_SHIFT;
  assert.equal(Stage.RAYGEN | (REORDERED_BITS >>> PackedIds.STAGE_SHIFT), Stage.RAYGEN_REORDERED, 'RAYGEN becomes RAYGEN_REORDERED by OR');
  for (const m of reordering) {
    for (const options of [nvidia, lavapipe]) {
      const { module, notes } = instrumentSpirv(m.bytes, options);
      const { functions, wrapperOf } = wrappers(module);
      const sites = functions.flatMap((f) => f.blocks.flatMap((b) => b.body.map((i, k) => [b.body, k] as const).filter(([body, k]) => REORDERS.includes(body[k]!.opcode))));
      assert.equal(sites.length, 2, `${m.id}: both reorders, the one in a helper function too`);
      const before = new Set(sites.map(([body, k]) => (assert.equal(body[k - 1]!.opcode, Op.FunctionCall, `${m.id}: a call right before`), body[k - 1]!.words[3]!)));
      const after = new Set(sites.map(([body, k]) => (assert.equal(body[k + 1]!.opcode, Op.FunctionCall, `${m.id}: a call right after`), body[k + 1]!.words[3]!)));
      assert.equal(before.size, 1, m.id);
      assert.equal(after.size, 1, m.id);
      const recordAt = bodyOf(functions.find((f) => f.id === [...before][0])!);
      const restart = bodyOf(functions.find((f) => f.id === [...after][0])!);
      // Before: the clocks and one record. After: the reordered flag set and the start clock read again; no record.
      assert.equal(recordAt.filter((i) => i.opcode === Op.AtomicIAdd).length, 1, `${m.id}: one record at the reorder`);
      assert.ok(recordAt.some((i) => i.opcode === Op.ReadClockKHR), m.id);
      assert.equal(restart.filter((i) => i.opcode === Op.AtomicIAdd).length, 0, `${m.id}: no record after it`);
      assert.ok(restart.some((i) => i.opcode === Op.ReadClockKHR), `${m.id}: the start clock read again`);
      const flag = restart.find((i) => i.opcode === Op.Store)!.words[1]!;
      // Both the record at the reorder and the wrapper's record after the entry point pick the stage from that flag.
      const bits = new ModuleEditor(module).section(Section.Global).find((i) => i.opcode === Op.Constant && i.words[3] === REORDERED_BITS)?.words[2];
      assert.ok(bits !== undefined, `${m.id}: the RAYGEN_REORDERED stage bits`);
      for (const code of [recordAt, bodyOf(wrapperOf.get('main')!)]) {
        const select = code.find((i) => i.opcode === Op.Select && i.words[4] === bits);
        assert.ok(select !== undefined, `${m.id}: the stage is chosen by the flag`);
        assert.ok(code.some((i) => i.opcode === Op.Load && i.words[2] === select.words[3] && i.words[3] === flag), `${m.id}: from the reordered flag`);
      }
      assert.ok(notes.some((n) => /main: 2 reorder points/.test(n)), `${m.id}: ${notes.join('; ')}`);
    }
  }
  // Ray generation without a reorder point is wrapped as before: one record, no reorder calls.
  for (const m of corpus.filter((c) => c.source === 'scene.rgen')) {
    const { notes } = instrumentSpirv(m.bytes, nvidia);
    assert.ok(!notes.some((n) => /reorder/.test(n)), m.id);
  }
});

test('an NV ending followed by more than a branch is refused, naming the block; the module is left alone', async () => {
  const bytes = await spirvAs(NV_HIT_THEN_MORE, 'vulkan1.1');
  const copy = bytes.slice();
  assert.throws(() => instrumentSpirv(bytes, nvidia), (e: unknown) => e instanceof InstrumentError && /block %\d+ continues after OpIgnoreIntersectionNV; only a branch may follow it/.test(e.message));
  assert.deepEqual(bytes, copy);
});

test('a ray-tracing pipeline linked into one module (raygen, miss, closest hit, any hit): one wrapper each, valid', async () => {
  const parts = ['scene.rgen', 'sky.rmiss', 'shade.rchit', 'cutout.rahit'].map((s) => corpus.find((c) => c.id === `${s}@vulkan1.2`)!.bytes);
  const linked = await spirvLink(parts, 'vulkan1.2');
  for (const options of [nvidia, lavapipe]) {
    const result = instrumentSpirv(linked, options);
    assert.deepEqual(result.entryPoints.map((e) => e.stage), ['RAYGEN', 'MISS', 'CLOSEST_HIT', 'ANY_HIT']);
    assert.equal(await spirvVal(result.bytes, 'vulkan1.2'), null);
  }
});

test('warptrace instrument on ray-tracing and mesh shaders: one line per entry point, stage names on the command line', () => {
  const inputs = ['scene.rgen@vulkan1.2', 'cutout.rahit@vulkan1.2', 'meshlet.task@vulkan1.3'].map((id) => {
    const path = join(workDir, `cli-${id}.spv`);
    writeFileSync(path, corpus.find((c) => c.id === id)!.bytes);
    return path;
  });
  const outDir = join(workDir, 'rt-cli-out');
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'instrument', ...inputs, '-o', outDir, '--force', '--subgroup-stages', 'rgen,task', '--stage-id', 'rahit=instance-custom-index'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /RAYGEN "main": one record per warp, SM clock \+ device clock, SM id and warp slot, custom id launch-id/);
  assert.match(r.stdout, /ANY_HIT "main": one record per invocation, SM clock \+ device clock, SM id and warp slot, custom id instance-custom-index/);
  assert.match(r.stdout, /TASK "main": one record per warp, .* custom id workgroup-id/);
});
