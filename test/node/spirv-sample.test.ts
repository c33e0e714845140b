// Warp sampling decided in the prologue (issue 25; InstrumentOptions.sampling,
// passes/sample-code.ts, the contract shared-schema/sample-layout.ts): with
// sampling 'runtime' (the default) every stage's module passes spirv-val in
// every subgroup mode; a CPU run of each stage's wrapper prologue decides
// exactly as warpSampled does for the contract's warp keys, reads no clock for
// a warp it leaves out and branches around the hash when the rate is 0; marks
// and record points test the same decision. `--sample-fs` is gone from the
// instrumenter. On lavapipe: spirv-sample-run.test.ts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pixelKey, SAMPLE_KEY_GOLDEN, warpSampled, workgroupKey, DRAW_ID_WORDS_WITH_SAMPLING, DRAW_SAMPLE_WORD } from '../../shared-schema/sample-layout.js';
import { Stage } from '../../shared-schema/index.js';
import { FlagError, optionsFromFlags } from '../../instrument/cli-options.js';
import { InstrumentError } from '../../instrument/errors.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { parseSpirv } from '../../instrument/model/binary.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { checkOptions, INSTRUMENTED_STAGES, targetOptions, type InstrumentedStage, type InstrumentOptions, type SamplingMode } from '../../instrument/options.js';
import { BuiltIn, Decoration, ExecutionModel, Op } from '../../instrument/model/spec.js';
import { repoPath } from './paths.js';
import { prologueReadsClock, type BuiltinValue } from './sample-eval.js';
import { compileCorpus, legacy, pool, spirvVal, validationEnv, workDir, type CorpusModule } from './spirv-tools.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const nvidia = targetOptions('nvidia');
const lavapipe = targetOptions('lavapipe');

test('sampling runtime passes spirv-val for every stage: both presets, khr-ballot, per-invocation, discard kill, demote, marks and record points', async (t) => {
  assert.deepEqual([...new Set(corpus.map((m) => m.stage))].sort(), [...INSTRUMENTED_STAGES].sort());
  assert.ok(corpus.some((m) => m.source === 'demote.frag'));
  const configs: [string, InstrumentOptions, (m: CorpusModule) => boolean][] = [
    ['nvidia', nvidia, () => true],
    ['lavapipe', lavapipe, () => true],
    ['khr-ballot', { ...nvidia, legacySubgroup: 'khr-ballot' }, legacy],
    ['per-invocation', { ...nvidia, legacySubgroup: 'per-invocation' }, legacy],
    ['discard kill', { ...nvidia, discard: 'kill' }, (m) => m.stage === 'FS'],
    // Marks and the reports' and reorders' records test the decision kept in a private variable.
    ['marks', { ...nvidia, marks: ['trace', 'loops'] }, () => true],
  ];
  const jobs = configs.flatMap(([config, options, applies]) => corpus.filter(applies).map((module) => ({ config, options, module })));
  const bad = (
    await pool(jobs, 2, async ({ config, options, module }) => {
      const result = instrumentSpirv(module.bytes, options);
      assert.ok(result.entryPoints.every((e) => e.sampled), module.id);
      const error = await spirvVal(result.bytes, validationEnv(result.outputVersion));
      return error === null ? null : `${module.id} [${config}] -> SPIR-V ${result.outputVersion}: ${error}`;
    })
  ).filter((b) => b !== null);
  assert.deepEqual(bad, [], bad.join('\n'));
  t.diagnostic(`${jobs.length} modules validated`);
});

// ---- The prologue run on the CPU -------------------------------------------

/** A small deterministic generator (xorshift32): the same inputs every run. */
function generator(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const floatBits = (v: number) => ((f32[0] = v), u32[0]!);

/** One lane's built-ins for `stage`, and its warp key by the contract (the first lane's: this lane is it). */
function laneInputs(stage: InstrumentedStage, subgroup: 'core' | 'khr-ballot' | 'none', nvMesh: boolean, next: () => number): { builtins: Map<number, BuiltinValue>; key: number } {
  const small = (n: number) => next() % n;
  const b = new Map<number, BuiltinValue>();
  const primitive = small(1 << 20);
  const invocation = small(32);
  switch (stage) {
    case 'FS': {
      const [x, y] = [small(4096), small(4096)];
      b.set(BuiltIn.FragCoord, [x + 0.5, y + 0.5, 0.25, 1]);
      return { builtins: b, key: pixelKey(x, y) };
    }
    case 'VS': {
      const [vertex, instance] = [small(1 << 24), small(1 << 12)];
      b.set(BuiltIn.VertexIndex, vertex).set(BuiltIn.InstanceIndex, instance);
      return { builtins: b, key: (vertex ^ Math.imul(instance, SAMPLE_KEY_GOLDEN)) >>> 0 };
    }
    case 'TCS':
      b.set(BuiltIn.PrimitiveId, primitive).set(BuiltIn.InvocationId, invocation);
      return { builtins: b, key: (primitive * 32 + invocation) >>> 0 };
    case 'TES': {
      const [u, v] = [Math.fround(small(1025) / 1024), Math.fround(small(1025) / 1024)];
      b.set(BuiltIn.PrimitiveId, primitive).set(BuiltIn.TessCoord, [u, v, Math.fround(1 - u)]);
      return { builtins: b, key: (primitive ^ Math.imul(floatBits(u), SAMPLE_KEY_GOLDEN) ^ floatBits(v)) >>> 0 };
    }
    case 'GS':
      b.set(BuiltIn.PrimitiveId, primitive).set(BuiltIn.InvocationId, invocation);
      return { builtins: b, key: (primitive ^ (invocation << 24)) >>> 0 };
    case 'CS':
    case 'TASK':
    case 'MESH': {
      const size = [small(64) + 1, small(64) + 1, small(4) + 1];
      const id = size.map((s) => small(s));
      const [subgroupSize, local] = [8 << small(3), small(1024)];
      const subgroupId = small(32);
      b.set(BuiltIn.WorkgroupId, id).set(BuiltIn.NumWorkgroups, size).set(BuiltIn.SubgroupId, subgroupId).set(BuiltIn.LocalInvocationIndex, local).set(BuiltIn.SubgroupSize, subgroupSize);
      const flat = nvMesh ? id[0]! : id[0]! + size[0]! * (id[1]! + size[1]! * id[2]!);
      if (subgroup === 'none') return { builtins: b, key: (Math.imul(flat, 1024) + local) >>> 0 };
      // SPV_KHR_shader_ballot has no SubgroupId: the first lane's local index over the subgroup size.
      return { builtins: b, key: workgroupKey(flat, subgroup === 'core' ? subgroupId : Math.floor(local / subgroupSize)) };
    }
    default: {
      const launch = [small(4096), small(4096), small(4)];
      b.set(BuiltIn.LaunchIdKHR, launch);
      return { builtins: b, key: pixelKey(launch[0]!, launch[1]!, launch[2]!) };
    }
  }
}

test('the prologue decides as warpSampled on the contract keys, every stage and subgroup mode; rate 0 records all, untraced none', () => {
  const next = generator(25);
  const cases: [string, InstrumentOptions, (m: CorpusModule) => boolean, 'core' | 'khr-ballot' | 'none'][] = [
    ['nvidia', nvidia, (m) => !legacy(m), 'core'],
    ['per-invocation', { ...nvidia, subgroupStages: [] }, () => true, 'none'],
    ['khr-ballot', { ...nvidia, legacySubgroup: 'khr-ballot' }, legacy, 'khr-ballot'],
  ];
  const seen = new Set<string>();
  let sampled = 0;
  let rated = 0;
  for (const [config, options, applies, subgroup] of cases) {
    for (const m of corpus.filter(applies)) {
      const { module, entryPoints } = instrumentSpirv(m.bytes, options);
      const editor = new ModuleEditor(module);
      for (const [e, entry] of entryPoints.entries()) {
        const model = editor.entryPoints()[e]!.executionModel;
        const nvMesh = model === ExecutionModel.TaskNV || model === ExecutionModel.MeshNV;
        const code = Stage[entry.stage];
        for (let run = 0; run < 24; run++) {
          const { builtins, key } = laneInputs(entry.stage, subgroup, nvMesh, next);
          const drawId = next() % 5000;
          const log2 = [0, 1, 3, 8, 15][run % 5]!;
          const words = new Array<number>(DRAW_ID_WORDS_WITH_SAMPLING).fill(0);
          words[0] = drawId;
          // This stage's rate, among others' rates in the same words.
          words[DRAW_SAMPLE_WORD] = next();
          words[DRAW_SAMPLE_WORD + 1] = next();
          const word = DRAW_SAMPLE_WORD + (code >> 3);
          words[word] = ((words[word]! & ~(15 << (4 * (code & 7)))) | (log2 << (4 * (code & 7)))) >>> 0;
          const where = `${m.id} [${config}] ${entry.stage} key ${key} draw ${drawId} log2 ${log2}`;
          const expected = warpSampled(key, drawId, code, log2);
          assert.equal(prologueReadsClock(module, entry.name, { drawWords: words, builtins }), expected, where);
          assert.equal(prologueReadsClock(module, entry.name, { drawWords: [0xffffffff, ...words.slice(1)], builtins }), false, `${where}: untraced`);
          if (log2 === 3) {
            rated++;
            if (expected) sampled++;
          }
        }
        seen.add(`${entry.stage} ${subgroup}`);
      }
    }
  }
  for (const stage of INSTRUMENTED_STAGES) assert.ok(seen.has(`${stage} core`) && seen.has(`${stage} none`), stage);
  // Not a test that passes by recording everything: about 1 in 8 at log2 3.
  assert.ok(sampled > rated / 16 && sampled < rated / 4, `${sampled} of ${rated}`);
});

/** The wrapper entry point `e` now names, flattened. */
function wrapperCode(module: ReturnType<typeof instrumentSpirv>['module'], e = 0) {
  const editor = new ModuleEditor(module);
  const entry = editor.entryPoints()[e]!;
  return parseFunctions(editor.section(Section.Function)).functions.find((f) => f.id === entry.functionId)!.blocks.flatMap((b) => [{ opcode: Op.Label, words: Uint32Array.of(0, b.label) }, ...b.body]);
}

const FIRST_MULTIPLIER = 0x7feb352d;

test('the decision: the rate read from word 10 + (code >> 3) before any clock, its hash and key behind a real k != 0 branch, one broadcast where lanes differ', () => {
  const cases = corpus.filter((m) => !legacy(m));
  for (const stage of INSTRUMENTED_STAGES) assert.ok(cases.some((m) => m.stage === stage), stage);
  for (const m of cases) {
    const where = m.id;
    const { module, entryPoints } = instrumentSpirv(m.bytes, nvidia);
    const editor = new ModuleEditor(module);
    const constants = new Map(module.instructions.filter((i) => i.opcode === Op.Constant).map((i) => [i.words[2]!, i.words[3]!]));
    const bindings = editor.decorationValues(Decoration.Binding);
    const code = wrapperCode(module);
    const stage = entryPoints[0]!.stage;
    const c = Stage[stage];
    const firstClock = code.findIndex((i) => i.opcode === Op.ReadClockKHR);
    // The rate's load: the draw-id block's member 10 + (c >> 3), shifted by 4 (c & 7), 4 bits.
    const chain = code.findIndex((i) => i.opcode === Op.AccessChain && bindings.get(i.words[3]!) === 1 && constants.get(i.words[4]!) === DRAW_SAMPLE_WORD + (c >> 3));
    assert.ok(chain > 0 && chain < firstClock, `${where}: the rate is read before the first clock`);
    let value = code[chain + 1]!.words[2]!;
    if ((c & 7) !== 0) {
      const shift = code[chain + 2]!;
      assert.deepEqual([shift.opcode, shift.words[3], constants.get(shift.words[4]!)], [Op.ShiftRightLogical, value, 4 * (c & 7)], where);
      value = shift.words[2]!;
    }
    const mask = code.find((i) => i.opcode === Op.BitwiseAnd && i.words[3] === value)!;
    assert.equal(constants.get(mask.words[4]!), 15, where);
    const rated = code.findIndex((i) => i.opcode === Op.INotEqual && i.words[3] === mask.words[2] && constants.get(i.words[4]!) === 0);
    assert.equal(code[rated + 1]!.opcode, Op.SelectionMerge, `${where}: a structured branch on k != 0`);
    assert.equal(code[rated + 2]!.opcode, Op.BranchConditional, where);
    const merge = code.findIndex((i) => i.opcode === Op.Label && i.words[1] === code[rated + 1]!.words[1]);
    const inside = (k: number) => k > rated + 2 && k < merge;
    const multipliers = code.map((i, k) => (i.opcode === Op.IMul && constants.get(i.words[4]!) === FIRST_MULTIPLIER ? k : -1)).filter((k) => k >= 0);
    assert.equal(multipliers.length, 2, `${where}: the seed's and the key's lowbias32`);
    assert.ok(multipliers.every(inside), `${where}: the hash only when k != 0`);
    const broadcasts = code.map((i, k) => (i.opcode === Op.GroupNonUniformBroadcastFirst ? k : -1)).filter((k) => k >= 0);
    const uniformKey = stage === 'CS' || stage === 'TASK' || stage === 'MESH';
    assert.equal(broadcasts.length, uniformKey ? 0 : 1, `${where}: ${uniformKey ? 'the workgroup and subgroup are uniform' : 'the first lane’s key'}`);
    assert.ok(broadcasts.every(inside), where);
    // Before the start clock: nothing of the record.
    const recordOps = new Set<number>([Op.GroupNonUniformBallot, Op.GroupNonUniformElect, Op.AtomicIAdd, Op.IsHelperInvocationEXT, Op.GroupNonUniformUMin]);
    assert.ok(code.slice(0, firstClock).every((i) => !recordOps.has(i.opcode)), where);
    // The block has the 12 words, the rates named.
    const names = editor.section(Section.DebugName).filter((i) => i.opcode === Op.MemberName).map((i) => [i.words[2], new TextDecoder().decode(new Uint8Array(i.words.buffer, i.words.byteOffset + 12, i.words.byteLength - 12)).replace(/\0+$/, '')]);
    assert.deepEqual(names.filter(([, n]) => String(n).startsWith('sampleLog2')), [[DRAW_SAMPLE_WORD, 'sampleLog2A'], [DRAW_SAMPLE_WORD + 1, 'sampleLog2B']], where);
    const block = module.instructions.find((i) => i.opcode === Op.TypeStruct && names.length > 0 && editor.nameOf(i.words[1]!) === 'WarptraceDraw')!;
    assert.equal(block.words.length - 2, DRAW_ID_WORDS_WITH_SAMPLING, where);
    assert.ok(editor.moduleProcessed().some((t) => t.endsWith(' sampling=runtime')), where);
  }
});

test("sampling 'none': no decision code, a one-word draw-id block, every traced warp reads its clocks", () => {
  for (const m of corpus.filter((c) => !legacy(c))) {
    const { module } = instrumentSpirv(m.bytes, { ...nvidia, sampling: 'none' });
    const editor = new ModuleEditor(module);
    const constants = new Set(module.instructions.filter((i) => i.opcode === Op.Constant).map((i) => i.words[3]!));
    assert.ok(!constants.has(FIRST_MULTIPLIER), m.id);
    const block = module.instructions.find((i) => i.opcode === Op.TypeStruct && editor.nameOf(i.words[1]!) === 'WarptraceDraw')!;
    assert.equal(block.words.length - 2, 1, m.id);
    assert.ok(editor.moduleProcessed().some((t) => t.endsWith(' sampling=none')), m.id);
    assert.ok(!wrapperCode(module).some((i) => i.opcode === Op.GroupNonUniformBroadcastFirst), m.id);
    const entry = editor.entryPoints()[0]!.name;
    const anyInputs = laneInputs(instrumentSpirv(m.bytes, nvidia).entryPoints[0]!.stage, 'core', false, generator(7)).builtins;
    assert.equal(prologueReadsClock(module, entry, { drawWords: [3], builtins: anyInputs }), true, m.id);
    assert.equal(prologueReadsClock(module, entry, { drawWords: [0xffffffff], builtins: anyInputs }), false, m.id);
  }
});

test('marks and the reports’ and reorders’ records test the wrapper’s decision (a private bool it stores before the call), not the draw id', () => {
  const cases = ['reorder.rgen@spirv1.4', 'sphere.rint@spirv1.4', 'scene.rgen@spirv1.4', 'continue.frag@vulkan1.1', 'reduce.comp@vulkan1.3'];
  for (const id of cases) {
    const m = corpus.find((c) => c.id === id);
    assert.ok(m, id);
    const originalIds = new Set(parseFunctions(new ModuleEditor(parseSpirv(m.bytes)).section(Section.Function)).functions.map((f) => f.id));
    for (const sampling of ['runtime', 'none'] as const satisfies readonly SamplingMode[]) {
      const where = `${id} [${sampling}]`;
      const { module } = instrumentSpirv(m.bytes, { ...nvidia, marks: ['trace', 'loops'], sampling });
      const editor = new ModuleEditor(module);
      const flag = editor.globalVariables().find((v) => editor.nameOf(v.id) === 'warptrace_sampled');
      assert.equal(flag !== undefined, sampling === 'runtime', where);
      const untraced = new Set(module.instructions.filter((i) => i.opcode === Op.Constant && i.words[3] === 0xffffffff).map((i) => i.words[2]!));
      const functions = parseFunctions(editor.section(Section.Function)).functions;
      const wrapperId = editor.entryPoints()[0]!.functionId;
      // Ours besides the wrapper that read a clock: the mark function, the report's or the reorder's record and restart.
      const ours = functions.filter((f) => f.id !== wrapperId && !originalIds.has(f.id) && f.blocks.some((b) => b.body.some((i) => i.opcode === Op.ReadClockKHR)));
      assert.ok(ours.length >= 1, `${where}: record points or marks`);
      for (const f of ours) {
        const body = f.blocks.flatMap((b) => b.body);
        const loadsFlag = body.some((i) => i.opcode === Op.Load && i.words[3] === flag?.id);
        const comparesDraw = body.some((i) => i.opcode === Op.INotEqual && untraced.has(i.words[4]!));
        assert.deepEqual([loadsFlag, comparesDraw], sampling === 'runtime' ? [true, false] : [false, true], `${where} %${f.id}`);
      }
      if (flag !== undefined) {
        const code = wrapperCode(module);
        const store = code.findIndex((i) => i.opcode === Op.Store && i.words[1] === flag.id);
        const call = code.findIndex((i) => i.opcode === Op.FunctionCall);
        const firstClock = code.findIndex((i) => i.opcode === Op.ReadClockKHR);
        assert.ok(store > 0 && store < firstClock && store < call, `${where}: stored before the start clock and the call`);
        // The stored value is the decision the start clock's branch tests.
        const clockBranch = code.slice(0, firstClock).filter((i) => i.opcode === Op.BranchConditional).at(-1)!;
        assert.equal(code[store]!.words[2], clockBranch.words[1], where);
      }
    }
  }
});

test('options and flags: sampling runtime (default) or none; --sample-fs says where the rate went', () => {
  assert.equal(nvidia.sampling, 'runtime');
  assert.equal(optionsFromFlags({}).sampling, 'runtime');
  assert.equal(optionsFromFlags({ sampling: 'none' }).sampling, 'none');
  assert.match(checkOptions({ ...nvidia, sampling: 'sometimes' as SamplingMode }) ?? '', /sampling "sometimes" is none of runtime, none/);
  assert.throws(() => instrumentSpirv(corpus[0]!.bytes, { ...nvidia, sampling: 'fs=8' as SamplingMode }), InstrumentError);
  assert.throws(() => optionsFromFlags({ sampling: 'fs=8' }), (e: unknown) => e instanceof FlagError && /--sampling takes runtime or none, not "fs=8"/.test(e.message));
  for (const text of ['8', '1', '0']) {
    assert.throws(() => optionsFromFlags({ sampleFs: text }), (e: unknown) => e instanceof FlagError && /--sample-fs is gone: the rate is set at run time by the host.*warptrace capture --sample fs=8.*wtSetSampling/.test(e.message), text);
  }
});

test('warptrace instrument --sampling none writes that module; the default says how it samples; --sample-fs is a usage error', () => {
  const m = corpus.find((c) => c.id === 'alpha.frag@vulkan1.1')!;
  const input = join(workDir, 'sample-cli.frag.spv');
  const output = join(workDir, 'sample-cli.traced.spv');
  writeFileSync(input, m.bytes);
  const cli = (...args: string[]) => spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'instrument', input, '-o', output, '--force', '--target', 'lavapipe', ...args], { encoding: 'utf8' });
  const none = cli('--sampling', 'none');
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /sampling: none \(every warp of a traced draw records\)/);
  assert.deepEqual(new Uint8Array(readFileSync(output)), instrumentSpirv(m.bytes, { ...lavapipe, sampling: 'none' }).bytes);
  const runtime = cli();
  assert.equal(runtime.status, 0, runtime.stderr);
  assert.match(runtime.stdout, /sampling: each warp decides before its first clock from its stage's rate in the draw-id block \(words 10-11/);
  assert.deepEqual(new Uint8Array(readFileSync(output)), instrumentSpirv(m.bytes, lavapipe).bytes);
  const old = cli('--sample-fs', '8');
  assert.equal(old.status, 2);
  assert.match(old.stderr, /--sample-fs is gone: the rate is set at run time by the host/);
});
