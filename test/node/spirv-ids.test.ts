// Ids at or past the header's bound are refused before the instrumenter
// allocates its own ids from that bound (a dangling reference would come to
// mean one of them); refusal messages read right for every stage.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpirv, type SpirvModule } from '../../instrument/model/binary.js';
import { SpirvIdError, checkIds } from '../../instrument/model/ids.js';
import { InstrumentError } from '../../instrument/errors.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { Decoration, HEADER_WORDS, Op } from '../../instrument/model/spec.js';
import { compileCorpus, spirvAs, spirvVal, type CorpusModule } from './spirv-tools.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

/** Module word offset of each instruction. */
function offsets(module: SpirvModule): number[] {
  const out: number[] = [];
  let at = HEADER_WORDS;
  for (const inst of module.instructions) {
    out.push(at);
    at += inst.words.length;
  }
  return out;
}

/** A copy of `bytes` with module word `word` set to `value` (little-endian modules). */
function withWord(bytes: Uint8Array, word: number, value: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(word * 4, value, true);
  return out;
}

/** instrumentSpirv refuses `bytes` with a SpirvIdError for `id` in `instruction`, at the word that holds it; the input stays as it was. */
function refused(bytes: Uint8Array, instruction: string, id: number, what: string): SpirvIdError {
  const before = bytes.slice();
  let caught: unknown = null;
  try {
    instrumentSpirv(bytes);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof SpirvIdError, `${what}: expected a SpirvIdError, got ${caught instanceof Error ? caught.message : 'success'}`);
  assert.equal(caught.instruction, instruction, what);
  assert.equal(caught.id, id, what);
  assert.equal(new DataView(bytes.buffer).getUint32(caught.word * 4, true), id, `${what}: the word named holds the id`);
  assert.match(caught.message, new RegExp(`^${instruction}: (result )?id %${id} .*\\(at word ${caught.word}\\)$`), what);
  assert.deepEqual(bytes, before, `${what}: input unchanged`);
  return caught;
}

test('every corpus module passes the id check (no literal is taken for an id)', () => {
  assert.ok(corpus.length >= 90);
  for (const m of corpus) checkIds(parseSpirv(m.bytes));
});

test('a decoration on an id at the bound is refused, not moved onto the instrumenter\'s first new id', () => {
  let checked = 0;
  for (const m of corpus.filter((c) => c.stage === 'FS' || c.stage === 'VS')) {
    const module = parseSpirv(m.bytes);
    const k = module.instructions.findIndex((i) => i.opcode === Op.Decorate && i.words[2] === Decoration.Location);
    if (k < 0) continue;
    const bound = module.header.bound;
    const word = offsets(module)[k]! + 1;
    const error = refused(withWord(m.bytes, word, bound), 'OpDecorate', bound, m.id);
    assert.equal(error.word, word, m.id);
    assert.match(error.message, /is at or past the header's id bound/);
    checked++;
  }
  assert.ok(checked >= 10, `${checked} modules`);
});

test('a result id at the bound, an id 0, and an id in a GLSL.std.450 operand are refused', () => {
  for (const m of corpus.filter((c) => c.id.startsWith('functions.vert') || c.id.startsWith('reduce.comp'))) {
    const module = parseSpirv(m.bytes);
    const at = offsets(module);
    // The bound one lower: the module's largest id is now past it, wherever it first appears.
    const lower = withWord(m.bytes, 3, module.header.bound - 1);
    assert.throws(() => instrumentSpirv(lower), (e: unknown) => e instanceof SpirvIdError && e.id === module.header.bound - 1, m.id);
    // A result id set past the bound.
    const fn = module.instructions.findIndex((i) => i.opcode === Op.Function);
    refused(withWord(m.bytes, at[fn]! + 2, module.header.bound + 5), 'OpFunction', module.header.bound + 5, `${m.id} OpFunction result`);
    // An OpLoad's pointer operand 0.
    const load = module.instructions.findIndex((i) => i.opcode === Op.Load);
    const zero = withWord(m.bytes, at[load]! + 3, 0);
    assert.throws(() => instrumentSpirv(zero), (e: unknown) => e instanceof SpirvIdError && e.instruction === 'OpLoad' && e.id === 0 && /is 0, which is never an id/.test(e.message));
  }
  // An operand of a GLSL.std.450 instruction (the set's operands are all ids).
  let extChecked = 0;
  for (const m of corpus) {
    const module = parseSpirv(m.bytes);
    const ext = module.instructions.findIndex((i) => i.opcode === Op.ExtInst && i.words.length > 5);
    if (ext < 0) continue;
    refused(withWord(m.bytes, offsets(module)[ext]! + 5, module.header.bound), 'OpExtInst', module.header.bound, `${m.id} OpExtInst operand`);
    extChecked++;
  }
  assert.ok(extChecked >= 5, `${extChecked} modules with GLSL.std.450 instructions`);
});

const SWITCH_64 = `
               OpCapability Shader
               OpCapability Int64
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %ulong = OpTypeInt 64 0
      %value = OpConstant %ulong 5000000000
       %uint = OpTypeInt 32 0
      %v3 = OpTypeVector %uint 3
      %index = OpConstant %uint 4000000000
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpSelectionMerge %merge None
               OpSwitch %value %merge 5000000000 %case 4294967296 %case
       %case = OpLabel
               OpBranch %merge
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
`;

test('literals are told from ids: 64-bit OpSwitch cases, strings, OpConstant values', async () => {
  const bytes = await spirvAs(SWITCH_64, 'vulkan1.0');
  assert.equal(await spirvVal(bytes, 'vulkan1.0'), null);
  // 5000000000 is 0x2A05F200 in its low word: read as an id, it would be far past the bound.
  checkIds(parseSpirv(bytes));
  const result = instrumentSpirv(bytes);
  assert.equal(await spirvVal(result.bytes, 'vulkan1.1'), null);
  // The case label itself is an id and is checked.
  const module = parseSpirv(bytes);
  const k = module.instructions.findIndex((i) => i.opcode === Op.Switch);
  refused(withWord(bytes, offsets(module)[k]! + 5, module.header.bound + 1), 'OpSwitch', module.header.bound + 1, 'OpSwitch case label');
});

const COMPUTE_AND_ANY_HIT = `
               OpCapability Shader
               OpCapability RayTracingKHR
               OpExtension "SPV_KHR_ray_tracing"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "cs"
               OpEntryPoint AnyHitKHR %main2 "hit"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
          %a = OpLabel
               OpReturn
               OpFunctionEnd
      %main2 = OpFunction %void None %fn
          %b = OpLabel
               OpReturn
               OpFunctionEnd
`;

test('stage refusals: "a Kernel"; --entry suggested only when it would select something; ray tracing is instrumented', async () => {
  const { DEFAULT_OPTIONS } = await import('../../instrument/options.js');
  const mixed = await spirvAs(COMPUTE_AND_ANY_HIT, 'spv1.4');
  // Compute and any-hit in one module: both are wrapped.
  assert.deepEqual(instrumentSpirv(mixed).entryPoints.map((e) => e.stage), ['CS', 'ANY_HIT']);
  // An execution model the instrumenter does not know (here Kernel, without its capability) is refused by name.
  const words = new Uint32Array(mixed.slice().buffer);
  const at = words.findIndex((w, i) => (w & 0xffff) === 15 && words[i + 1] === 5315);
  assert.ok(at > 0);
  words[at + 1] = 6;
  const kernel = new Uint8Array(words.buffer);
  assert.throws(
    () => instrumentSpirv(kernel, { ...DEFAULT_OPTIONS, entryPoints: ['hit'] }),
    (e: unknown) => e instanceof InstrumentError && /"hit" is a Kernel shader; warptrace instruments vertex, tessellation, geometry, fragment, compute, task, mesh and ray-tracing shaders$/.test(e.message),
  );
  assert.throws(() => instrumentSpirv(kernel), (e: unknown) => e instanceof InstrumentError && /"hit" is a Kernel shader; .* \(instrument the others with --entry "cs"\)$/.test(e.message));
  assert.equal(instrumentSpirv(kernel, { ...DEFAULT_OPTIONS, entryPoints: ['cs'] }).entryPoints.length, 1);
});
