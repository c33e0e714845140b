// The instrumenter on a varied GLSL/HLSL corpus (every stage, loops, early
// returns, discard, demote, barriers, several functions, SPIR-V 1.0-1.6):
// every output must pass Debian's spirv-val, whatever the target, clock
// choice, custom id, legacy mode, discard mode or debug info.
// spirv-instrument-module.test.ts checks what the output holds (the module's
// own built-ins kept, the record exactly as shared-schema lays it out) and
// what is refused.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpirv, type SpirvModule } from '../../instrument/model/binary.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { instrumentSpirv, type InstrumentResult } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { CUSTOM_ID_SOURCES, customIdsFor, INSTRUMENTED_STAGES, targetOptions, type CustomIdSource, type InstrumentOptions } from '../../instrument/options.js';
import { Op, StorageClass } from '../../instrument/model/spec.js';
import { RecordFlag } from '../../shared-schema/index.js';
import { compileCorpus, legacy, compileCorpusFile, pool, spirvAs, spirvVal, validationEnv, type CorpusModule } from './spirv-tools.js';

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
