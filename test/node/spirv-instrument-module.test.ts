// What the instrumenter writes into a module of the corpus (see
// spirv-instrument.test.ts): the record exactly as shared-schema lays it out,
// the module's own built-ins kept, one wrapper per entry point, the entry
// point interface; what it refuses; deterministic output, the input untouched,
// either byte order.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpirv, type SpirvModule } from '../../instrument/model/binary.js';
import { InstrumentError } from '../../instrument/errors.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { targetOptions } from '../../instrument/options.js';
import { BuiltIn, Decoration, Op } from '../../instrument/model/spec.js';
import { RecordFlag, RecordWord, RAW_UNKNOWN_SLOT, RAW_UNKNOWN_SM, packIds, Stage } from '../../shared-schema/index.js';
import { compileCorpus, compileGlsl, spirvAs, spirvLink, spirvVal, type CorpusModule } from './spirv-tools.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const nvidia = targetOptions('nvidia');
const lavapipe = targetOptions('lavapipe');

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
