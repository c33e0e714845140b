// The instrumenter on a varied GLSL/HLSL corpus (every stage, loops, early
// returns, discard, demote, barriers, several functions, SPIR-V 1.0-1.6):
// every output must pass Debian's spirv-val, keep the module's own built-ins,
// and carry the record exactly as shared-schema lays it out.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpirv, type SpirvModule } from '../../instrument/model/binary.js';
import { InstrumentError } from '../../instrument/errors.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { instrumentSpirv, type InstrumentResult } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { CUSTOM_ID_SOURCES, customIdsFor, INSTRUMENTED_STAGES, targetOptions, type CustomIdSource, type InstrumentOptions } from '../../instrument/options.js';
import { BuiltIn, Decoration, Op, StorageClass } from '../../instrument/model/spec.js';
import { RecordFlag, RecordWord, RAW_UNKNOWN_SLOT, RAW_UNKNOWN_SM, packIds, Stage } from '../../shared-schema/index.js';
import { compileCorpus, legacy, compileCorpusFile, compileGlsl, pool, spirvAs, spirvLink, spirvVal, validationEnv, type CorpusModule } from './spirv-tools.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const nvidia = targetOptions('nvidia');
const lavapipe = targetOptions('lavapipe');

interface Outcome {
  module: CorpusModule;
  config: string;
  result: InstrumentResult;
  error: string | null;
}

async function instrumentAndValidate(modules: readonly CorpusModule[], config: string, options: InstrumentOptions): Promise<Outcome[]> {
  return pool(modules, 2, async (module) => {
    const input = module.bytes.slice();
    const result = instrumentSpirv(module.bytes, options);
    assert.deepEqual(module.bytes, input, `${module.id}: input untouched`);
    const error = await spirvVal(result.bytes, validationEnv(result.outputVersion));
    return { module, config, result, error };
  });
}

function assertAllValid(outcomes: readonly Outcome[]): void {
  const bad = outcomes.filter((o) => o.error !== null).map((o) => `${o.module.id} [${o.config}] -> SPIR-V ${o.result.outputVersion}: ${o.error}`);
  assert.deepEqual(bad, [], `spirv-val rejected ${bad.length} of ${outcomes.length} modules:\n${bad.join('\n')}`);
}

test('corpus inputs are valid SPIR-V to begin with', async () => {
  const errors = (await pool(corpus, 2, async (m) => [m.id, await spirvVal(m.bytes, validationEnv(m.spirv))] as const)).filter(([, e]) => e !== null);
  assert.deepEqual(errors, []);
  const stages = new Set(corpus.map((m) => m.stage));
  assert.deepEqual([...stages].sort(), [...INSTRUMENTED_STAGES].sort());
  assert.deepEqual([...new Set(corpus.map((m) => m.spirv))].sort(), ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6']);
});

test('every module, every target preset: spirv-val passes (coverage table in the diagnostics)', async (t) => {
  const outcomes = [
    ...(await instrumentAndValidate(corpus, 'nvidia', nvidia)),
    ...(await instrumentAndValidate(corpus, 'lavapipe', lavapipe)),
    ...(await instrumentAndValidate(corpus, 'portable', targetOptions('portable'))),
  ];
  assertAllValid(outcomes);
  // stage x SPIR-V version: modules validated (all configs).
  const versions = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6'];
  const rows = INSTRUMENTED_STAGES.map((stage) => {
    const cells = versions.map((v) => {
      const n = outcomes.filter((o) => o.module.stage === stage && o.module.spirv === v);
      return `${n.filter((o) => o.error === null).length}/${n.length}`.padStart(6);
    });
    return `${stage.padEnd(13)}${cells.join('')}`;
  });
  t.diagnostic(`spirv-val pass/total by stage x input SPIR-V version (nvidia, lavapipe, portable)\n${' '.repeat(13)}${versions.map((v) => v.padStart(6)).join('')}\n${rows.join('\n')}`);
});

test('SPIR-V 1.0-1.2 modules: upgraded to 1.3, or kept with SPV_KHR_shader_ballot or per-invocation records', async () => {
  const old = corpus.filter(legacy);
  assert.ok(old.length >= 30);
  const upgraded = await instrumentAndValidate(old, 'upgrade', nvidia);
  assertAllValid(upgraded);
  for (const o of upgraded) assert.equal(o.result.outputVersion, '1.3', o.module.id);

  const ballot = await instrumentAndValidate(old, 'khr-ballot', { ...nvidia, legacySubgroup: 'khr-ballot' });
  assertAllValid(ballot);
  for (const o of ballot) {
    assert.equal(o.result.outputVersion, o.module.spirv, `${o.module.id} keeps its version`);
    for (const e of o.result.entryPoints) {
      assert.equal(e.subgroup, 'khr-ballot');
      assert.equal(e.smBuiltins, false, 'SM built-ins need 1.3');
    }
    const editor = new ModuleEditor(o.result.module);
    assert.ok(editor.extensions().includes('SPV_KHR_shader_ballot'));
  }

  const perInvocation = await instrumentAndValidate(old, 'per-invocation', { ...nvidia, legacySubgroup: 'per-invocation' });
  assertAllValid(perInvocation);
  for (const o of perInvocation) {
    assert.equal(o.result.outputVersion, o.module.spirv);
    for (const e of o.result.entryPoints) assert.ok((e.flags & RecordFlag.PER_INVOCATION) !== 0);
  }
});

test('clock choices: device clock only, SM clock only', async () => {
  const sample = corpus.filter((m) => m.spirv === '1.0' || m.spirv === '1.6');
  const deviceOnly = await instrumentAndValidate(sample, 'device clock', { ...lavapipe, subgroupClock: false });
  const smOnly = await instrumentAndValidate(sample, 'SM clock', { ...nvidia, deviceClock: false });
  assertAllValid([...deviceOnly, ...smOnly]);
  for (const o of deviceOnly) for (const e of o.result.entryPoints) assert.equal(e.flags & (RecordFlag.SM_CLOCK | RecordFlag.DEVICE_CLOCK), RecordFlag.DEVICE_CLOCK);
  for (const o of smOnly) for (const e of o.result.entryPoints) assert.equal(e.flags & (RecordFlag.SM_CLOCK | RecordFlag.DEVICE_CLOCK), RecordFlag.SM_CLOCK);
});

test('every custom-id source in every stage that has it', async () => {
  const outcomes: Outcome[] = [];
  for (const stage of INSTRUMENTED_STAGES) {
    // Every stage has a 1.6 module; the NV any-hit shader stands in for 1.0 where the stage has none.
    const modules = corpus.filter((m) => m.stage === stage && (m.spirv === '1.0' || m.spirv === '1.6' || m.id === 'nv.rahit@vulkan1.1'));
    for (const source of customIdsFor(stage)) {
      const options = { ...nvidia, customIds: { ...nvidia.customIds, [stage]: source } };
      outcomes.push(...(await instrumentAndValidate(modules, `${stage}=${source}`, options)));
    }
  }
  assertAllValid(outcomes);
  assert.ok(outcomes.length >= 100);
  const text = Object.keys(CUSTOM_ID_SOURCES) as CustomIdSource[];
  for (const source of text) assert.ok(outcomes.some((o) => o.config.endsWith(`=${source}`)), source);
});

test('fragment discard: deferred by default, as written with --discard kill; both validate', async () => {
  const fragments = corpus.filter((m) => m.stage === 'FS');
  const kill = await instrumentAndValidate(fragments, 'discard kill', { ...nvidia, discard: 'kill' });
  const defer = await instrumentAndValidate(fragments, 'discard defer', nvidia);
  assertAllValid([...kill, ...defer]);

  const count = (m: SpirvModule, op: number) => m.instructions.filter((i) => i.opcode === op).length;
  for (const id of ['alpha.frag@vulkan1.0', 'alpha.frag@vulkan1.3', 'phi.frag@vulkan1.2', 'hlsl.frag.hlsl@vulkan1.0']) {
    const k = kill.find((o) => o.module.id === id)!;
    const d = defer.find((o) => o.module.id === id)!;
    const original = parseSpirv(k.module.bytes);
    const kills = count(original, Op.Kill) + count(original, Op.TerminateInvocation);
    assert.ok(kills > 0, id);
    // kill: the shader's discards stay as they were.
    assert.equal(count(k.result.module, Op.Kill) + count(k.result.module, Op.TerminateInvocation), kills, id);
    // defer: one discard left, in the wrapper, after the record.
    const functions = parseFunctions(new ModuleEditor(d.result.module).section(Section.Function)).functions;
    const wrapper = functions.at(-1)!;
    const killsIn = (f: (typeof functions)[number]) => f.blocks.flatMap((b) => b.body).filter((i) => i.opcode === Op.Kill || i.opcode === Op.TerminateInvocation).length;
    assert.equal(killsIn(wrapper), 1, id);
    assert.equal(functions.slice(0, -1).reduce((n, f) => n + killsIn(f), 0), 0, id);
  }
  // A discarding call in a loop's continue construct cannot return early: those lanes are killed there.
  const cont = defer.find((o) => o.module.id === 'continue.frag@vulkan1.3')!;
  assert.ok(new ModuleEditor(cont.result.module).section(Section.DebugName).some((i) => new TextDecoder().decode(new Uint8Array(i.words.buffer, i.words.byteOffset + 8, i.words.byteLength - 8)).startsWith('warptrace_kill_if_discarded')));
  // Modules without discard are not touched by the deferral.
  const early = defer.find((o) => o.module.id === 'early.frag@vulkan1.3')!;
  assert.equal(early.result.module.instructions.some((i) => i.opcode === Op.Variable && i.words[3] === StorageClass.Private), false);
});

test('modules with debug info (-g: OpLine between and inside functions; -gV: NonSemantic.Shader.DebugInfo.100)', async () => {
  const sources = ['alpha.frag', 'continue.frag', 'phi.frag', 'barrier.tesc', 'explode.geom', 'functions.vert', 'tiles.comp'];
  let checked = 0;
  for (const env of ['vulkan1.0', 'vulkan1.3']) {
    for (const debug of ['-g', '-gV']) {
      for (const source of sources) {
        const bytes = await compileCorpusFile(source, env, [debug]);
        for (const options of [nvidia, { ...lavapipe, discard: 'kill' as const }]) {
          const result = instrumentSpirv(bytes, options);
          assert.equal(await spirvVal(result.bytes, validationEnv(result.outputVersion)), null, `${source} ${env} ${debug}`);
          checked++;
        }
      }
    }
  }
  assert.equal(checked, 56);
});

test('the record: two uvec4 stores in shared-schema word order, PACKED_IDS as the GLSL library packs it', () => {
  for (const [config, options] of [['nvidia', nvidia], ['lavapipe', lavapipe]] as const) {
    for (const id of ['basic.vert@vulkan1.3', 'barrier.tesc@vulkan1.3', 'early.frag@vulkan1.3', 'tiles.comp@vulkan1.3']) {
      const m = corpus.find((c) => c.id === id)!;
      const result = instrumentSpirv(m.bytes, options);
      const entry = result.entryPoints[0]!;
      const { module } = result;
      const constants = new Map(module.instructions.filter((i) => i.opcode === Op.Constant).map((i) => [i.words[2]!, i.words[3]!]));
      const wrapper = parseFunctions(new ModuleEditor(module).section(Section.Function)).functions.at(-1)!;
      const body = wrapper.blocks.flatMap((b) => b.body);
      const vectors = body.filter((i) => i.opcode === Op.CompositeConstruct);
      assert.equal(vectors.length, 2, `${id} ${config}: two uvec4`);
      assert.equal(body.filter((i) => i.opcode === Op.Store).length, 2);
      assert.equal(body.filter((i) => i.opcode === Op.AtomicIAdd).length, 1);
      const words = vectors.flatMap((v) => Array.from(v.words.subarray(3)));
      assert.equal(words.length, 8);
      if (entry.position) {
        // FS records a position (spirv-position.test.ts): word 3 selects it or the mask's high half, the ids gain a selected flag.
        const select = body.find((i) => i.opcode === Op.Select && i.words[2] === words[RecordWord.POSITION])!;
        const or = body.find((i) => i.opcode === Op.BitwiseOr && i.words[2] === words[RecordWord.PACKED_IDS])!;
        assert.equal(body.find((i) => i.opcode === Op.Select && i.words[2] === or.words[4])!.words[4], constantId(constants, (RecordFlag.POSITION << 28) >>> 0), `${id} ${config}`);
        words[RecordWord.ACTIVE_MASK_HI] = select.words[5]!;
        words[RecordWord.PACKED_IDS] = or.words[3]!;
      }
      const stage = Stage[entry.stage];
      const perInvocation = (entry.flags & RecordFlag.PER_INVOCATION) !== 0;
      assert.equal(perInvocation, !options.subgroupStages.includes(entry.stage), `${id} ${config}`);
      if (!options.smBuiltins) {
        assert.equal(constants.get(words[RecordWord.PACKED_IDS]!), packIds(RAW_UNKNOWN_SM, RAW_UNKNOWN_SLOT, stage, entry.flags), `${id} ${config}: packed ids`);
      } else {
        // SM id | slot << 16 | constant stage/flags bits.
        const or = body.find((i) => i.opcode === Op.BitwiseOr && i.words[2] === words[RecordWord.PACKED_IDS]);
        assert.ok(or);
        assert.equal(constants.get(or.words[4]!), packIds(0, 0, stage, entry.flags));
      }
      if (perInvocation) {
        assert.equal(constants.get(words[RecordWord.ACTIVE_MASK_LO]!), 1);
        assert.equal(constants.get(words[RecordWord.ACTIVE_MASK_HI]!), 0);
      } else {
        const extract = (w: number) => body.find((i) => i.opcode === Op.CompositeExtract && i.words[2] === w)!;
        assert.equal(extract(words[RecordWord.ACTIVE_MASK_LO]!).words[4], 0, 'ballot.x');
        assert.equal(extract(words[RecordWord.ACTIVE_MASK_HI]!).words[4], 1, 'ballot.y');
      }
      // The draw id comes from the uniform block at binding + 1.
      const drawLoad = body.find((i) => i.opcode === Op.Load && i.words[2] === words[RecordWord.DRAW_ID])!;
      const drawChain = body.find((i) => i.opcode === Op.AccessChain && i.words[2] === drawLoad.words[3])!;
      const editor = new ModuleEditor(module);
      assert.equal(editor.decorationValues(Decoration.Binding).get(drawChain.words[3]!), options.binding + 1);
    }
  }
});

function constantId(constants: ReadonlyMap<number, number>, value: number): number | undefined {
  return [...constants].find(([, v]) => v === value)?.[0];
}

test('the module\'s own built-ins are reused, never declared twice', () => {
  const cases: [string, number][] = [
    ['functions.vert@vulkan1.3', BuiltIn.VertexIndex],
    ['functions.vert@vulkan1.0', BuiltIn.VertexIndex],
    ['early.frag@vulkan1.3', BuiltIn.PrimitiveId],
    ['explode.geom@spirv1.4', BuiltIn.PrimitiveId],
    ['reduce.comp@vulkan1.3', BuiltIn.WorkgroupId],
    ['reduce.comp@vulkan1.3', BuiltIn.NumWorkgroups],
    ['hlsl.comp.hlsl@vulkan1.0', BuiltIn.WorkgroupId],
    ['hlsl.vert.hlsl@vulkan1.3', BuiltIn.VertexIndex],
  ];
  for (const [id, builtIn] of cases) {
    const m = corpus.find((c) => c.id === id);
    assert.ok(m, id);
    const count = (module: SpirvModule) => [...new ModuleEditor(module).decorationValues(Decoration.BuiltIn).values()].filter((b) => b === builtIn).length;
    assert.equal(count(parseSpirv(m.bytes)), 1, `${id} declares it`);
    assert.equal(count(instrumentSpirv(m.bytes, nvidia).module), 1, `${id} after instrumenting`);
  }
  // No capability or extension twice, even where the shader already reads clocks and ballots.
  for (const m of corpus.filter((c) => c.source === 'clocked.comp')) {
    const editor = new ModuleEditor(instrumentSpirv(m.bytes, nvidia).module);
    const caps = editor.section(Section.Capability).map((i) => i.words[1]);
    assert.equal(new Set(caps).size, caps.length, m.id);
    assert.equal(new Set(editor.extensions()).size, editor.extensions().length, m.id);
  }
});

test('Vulkan memory model modules: the slot atomic uses QueueFamily scope', () => {
  for (const m of corpus.filter((c) => c.source === 'memorymodel.comp')) {
    const { module } = instrumentSpirv(m.bytes, nvidia);
    const constants = new Map(module.instructions.filter((i) => i.opcode === Op.Constant).map((i) => [i.words[2]!, i.words[3]!]));
    const atomics = parseFunctions(new ModuleEditor(module).section(Section.Function)).functions.at(-1)!.blocks.flatMap((b) => b.body).filter((i) => i.opcode === Op.AtomicIAdd);
    assert.equal(atomics.length, 1);
    assert.equal(constants.get(atomics[0]!.words[4]!), 5, `${m.id}: QueueFamily`);
  }
});

test('several entry points in one module (spirv-link of VS, FS, CS): one wrapper each', async () => {
  for (const env of ['vulkan1.1', 'vulkan1.3']) {
    const parts = ['basic.vert', 'early.frag', 'tiles.comp'].map((s) => corpus.find((c) => c.id === `${s}@${env}`)!.bytes);
    const linked = await spirvLink(parts, env);
    for (const options of [nvidia, lavapipe]) {
      const result = instrumentSpirv(linked, options);
      assert.deepEqual(result.entryPoints.map((e) => e.stage), ['VS', 'FS', 'CS']);
      assert.equal(await spirvVal(result.bytes, env), null);
      const editor = new ModuleEditor(result.module);
      const before = new ModuleEditor(parseSpirv(linked)).entryPoints();
      const after = editor.entryPoints();
      for (const [i, e] of after.entries()) assert.notEqual(e.functionId, before[i]!.functionId);
      // LocalSizeId / OriginUpperLeft moved with their entry points.
      const modeTargets = editor.section(Section.ExecutionMode).map((m) => m.words[1]);
      for (const target of modeTargets) assert.ok(after.some((e) => e.functionId === target));
    }
  }
});

const SHARED_ENTRY = `
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "a" %color
               OpEntryPoint Fragment %main "b" %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
        %ptr = OpTypePointer Output %v4float
      %color = OpVariable %ptr Output
        %one = OpConstant %float 1
        %vec = OpConstantComposite %v4float %one %one %one %one
       %main = OpFunction %void None %fn
      %label = OpLabel
               OpStore %color %vec
               OpReturn
               OpFunctionEnd
`;

test('entry points that share a function: both get wrappers and their execution modes; one alone is refused', async () => {
  const bytes = await spirvAs(SHARED_ENTRY, 'vulkan1.0');
  const both = instrumentSpirv(bytes, nvidia);
  assert.equal(await spirvVal(both.bytes, 'vulkan1.1'), null);
  const editor = new ModuleEditor(both.module);
  const [a, b] = editor.entryPoints();
  assert.notEqual(a!.functionId, b!.functionId);
  assert.deepEqual(editor.section(Section.ExecutionMode).map((m) => m.words[1]).sort(), [a!.functionId, b!.functionId].sort());
  assert.throws(() => instrumentSpirv(bytes, { ...nvidia, entryPoints: ['a'] }), /"a" and "b" share one function: instrument both or neither/);
  assert.throws(() => instrumentSpirv(bytes, { ...nvidia, entryPoints: ['c'] }), /no entry point named "c" \(the module has "a", "b"\)/);
});

const LOOP_HEADER_CALL = `
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %color %uv
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %color Location 0
               OpDecorate %uv Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
      %float = OpTypeFloat 32
     %fnbool = OpTypeFunction %bool
    %v4float = OpTypeVector %float 4
       %optr = OpTypePointer Output %v4float
       %iptr = OpTypePointer Input %float
      %color = OpVariable %optr Output
         %uv = OpVariable %iptr Input
       %zero = OpConstant %float 0
        %one = OpConstant %float 1
        %vec = OpConstantComposite %v4float %one %one %one %one
      %check = OpFunction %bool None %fnbool
         %c0 = OpLabel
          %x = OpLoad %float %uv
        %neg = OpFOrdLessThan %bool %x %zero
               OpSelectionMerge %c2 None
               OpBranchConditional %neg %c1 %c2
         %c1 = OpLabel
               OpKill
         %c2 = OpLabel
       %more = OpFOrdLessThan %bool %x %one
               OpReturnValue %more
               OpFunctionEnd
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %header
     %header = OpLabel
       %again = OpFunctionCall %bool %check
               OpLoopMerge %merge %continue None
               OpBranchConditional %again %body %merge
       %body = OpLabel
               OpBranch %continue
   %continue = OpLabel
               OpBranch %header
      %merge = OpLabel
        %phi = OpPhi %bool %again %header
               OpStore %color %vec
               OpReturn
               OpFunctionEnd
`;

test('deferred discard restructures a loop header that calls a discarding function (OpPhi retargeted)', async () => {
  const bytes = await spirvAs(LOOP_HEADER_CALL, 'vulkan1.0');
  assert.equal(await spirvVal(bytes, 'vulkan1.0'), null);
  for (const env of ['vulkan1.0', 'vulkan1.3']) {
    const input = env === 'vulkan1.0' ? bytes : await spirvAs(LOOP_HEADER_CALL, env);
    const result = instrumentSpirv(input, nvidia);
    assert.equal(await spirvVal(result.bytes, validationEnv(result.outputVersion)), null, env);
  }
});

test('a module that uses the chosen set/binding is refused with a clear message and left unchanged', async () => {
  for (const binding of [0, 1]) {
    const bytes = await compileGlsl(
      `#version 450\nlayout(set = 7, binding = ${binding}, std430) buffer Mine { uint data[]; } mine;\nlayout(local_size_x = 1) in;\nvoid main() { mine.data[0] = 1u; }\n`,
      'comp',
      'vulkan1.3',
    );
    const copy = bytes.slice();
    const what = binding === 0 ? 'the trace buffer' : 'the draw-id block';
    assert.throws(
      () => instrumentSpirv(bytes, nvidia),
      (e: unknown) => e instanceof InstrumentError && e.message.includes(`descriptor set 7, binding ${binding} (wanted for ${what}) is already used by "mine"`) && e.message.includes('--set N --binding M'),
    );
    assert.deepEqual(bytes, copy);
    // Elsewhere it is fine.
    const moved = instrumentSpirv(bytes, { ...nvidia, set: 6, binding: 4 });
    assert.equal(await spirvVal(moved.bytes, 'vulkan1.3'), null);
    const editor = new ModuleEditor(moved.module);
    const sets = editor.decorationValues(Decoration.DescriptorSet);
    const bindings = editor.decorationValues(Decoration.Binding);
    const ours = [...sets].filter(([, s]) => s === 6).map(([id]) => bindings.get(id)).sort();
    assert.deepEqual(ours, [4, 5]);
  }
});

test('refusals: already instrumented, unsupported version, bad options', async () => {
  const m = corpus.find((c) => c.id === 'basic.vert@vulkan1.0')!;
  const once = instrumentSpirv(m.bytes, nvidia);
  assert.throws(() => instrumentSpirv(once.bytes, nvidia), /already instrumented by warptrace/);
  assert.throws(() => instrumentSpirv(once.bytes, { ...nvidia, set: 3 }), /already instrumented by warptrace/);
  // SPIR-V 1.0 has no OpModuleProcessed: the buffer's name marks it.
  const perInvocation = instrumentSpirv(m.bytes, { ...nvidia, legacySubgroup: 'per-invocation' });
  assert.equal(perInvocation.outputVersion, '1.0');
  assert.throws(() => instrumentSpirv(perInvocation.bytes, { ...nvidia, set: 3 }), /already instrumented/);


  const future = m.bytes.slice();
  new DataView(future.buffer).setUint32(4, 0x00010700, true);
  assert.throws(() => instrumentSpirv(future, nvidia), /SPIR-V version 1\.7 is not supported/);

  assert.throws(() => instrumentSpirv(m.bytes, { ...nvidia, subgroupClock: false, deviceClock: false }), /at least one clock/);
  assert.throws(() => instrumentSpirv(m.bytes, { ...nvidia, customIds: { ...nvidia.customIds, VS: 'workgroup-id' } }), /custom id "workgroup-id" is not available in VS/);
  assert.throws(() => instrumentSpirv(new Uint8Array(16), nvidia), /not a SPIR-V module/);
});

test('output is deterministic and the input is never modified', () => {
  for (const m of corpus.filter((c) => c.spirv === '1.6' || c.spirv === '1.0')) {
    const copy = m.bytes.slice();
    const a = instrumentSpirv(m.bytes, nvidia).bytes;
    const b = instrumentSpirv(m.bytes, nvidia).bytes;
    assert.deepEqual(a, b, m.id);
    assert.deepEqual(m.bytes, copy, m.id);
  }
});

test('SPIR-V 1.4+: every global the wrapper uses is in the entry point interface; before 1.4 only inputs', () => {
  for (const m of corpus.filter((c) => c.spirv === '1.4' || c.spirv === '1.3')) {
    const { module } = instrumentSpirv(m.bytes, nvidia);
    const editor = new ModuleEditor(module);
    const trace = editor.globalVariables().find((v) => editor.nameOf(v.id) === 'warptrace_buffer')!;
    const draw = editor.globalVariables().find((v) => editor.nameOf(v.id) === 'warptrace_draw')!;
    for (const e of editor.entryPoints()) {
      assert.equal(e.interfaceIds.includes(trace.id), m.spirv === '1.4', m.id);
      assert.equal(e.interfaceIds.includes(draw.id), m.spirv === '1.4', m.id);
      assert.equal(new Set(e.interfaceIds).size, e.interfaceIds.length, `${m.id}: no duplicates`);
    }
  }
});

test('big-endian input gives the byte-swapped output of the little-endian input', () => {
  const m = corpus.find((c) => c.id === 'alpha.frag@vulkan1.2')!;
  const swap = (bytes: Uint8Array) => {
    const out = new Uint8Array(bytes.length);
    for (let i = 0; i < bytes.length; i += 4) for (let b = 0; b < 4; b++) out[i + b] = bytes[i + 3 - b]!;
    return out;
  };
  assert.deepEqual(instrumentSpirv(swap(m.bytes), nvidia).bytes, swap(instrumentSpirv(m.bytes, nvidia).bytes));
});
