// Draws the host marks "not traced": the capture layer writes draw id
// 0xFFFFFFFF (UNTRACED_DRAW) into the draw-id table slot of a draw outside
// `--draws A..B`, and the instrumented wrapper then writes no record for it.
// In the module: one compare of the draw id (loaded once, first, and stored
// as the record's DRAW_ID word) guards every clock read and all record code,
// around the entry point's one call, for every stage and both record paths. On lavapipe: the harness's
// `--skip-draw N` writes 0xFFFFFFFF into draw N's table entry; that draw then
// has no warps, and every other draw keeps exactly the warps it had. With
// sampling runtime (the default) the same holds for a warp its draw's
// sampling rate leaves out: the decision sits inside the traced test and
// before the start clock (spirv-sample.test.ts checks the decision itself).
import { before, test } from 'node:test';
import { plainHarness, type PlainHarness } from './plain-harness.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeWtraw, RecordFlag, RecordWord, Stage, type Trace } from '../../shared-schema/index.js';
import { MAX_DRAWS } from '../../shared-schema/errors.js';
import { autoInstrumentOptions, autoInstrumentSet } from '../../capture/capture-run/auto-instrument.js';
import { runCapture } from '../../capture/capture-run/harness.js';
import type { Instruction } from '../../instrument/model/binary.js';
import { UNTRACED_DRAW } from '../../instrument/index.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor } from '../../instrument/model/module.js';
import { INSTRUMENTED_STAGES, targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { BuiltIn, Decoration, Op } from '../../instrument/model/spec.js';
import { compileCorpus, legacy, workDir, type CorpusModule } from './spirv-tools.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const nvidia = targetOptions('nvidia');
const lavapipe = targetOptions('lavapipe');

/** Opcodes of the record code that an untraced draw must skip. */
const RECORD_CODE = new Set<number>([
  Op.GroupNonUniformBallot,
  Op.GroupNonUniformElect,
  Op.SubgroupBallotKHR,
  Op.SubgroupFirstInvocationKHR,
  Op.GroupNonUniformBroadcastFirst,
  Op.IsHelperInvocationEXT,
  Op.AtomicIAdd,
  Op.ArrayLength,
  Op.Store,
]);

test('UNTRACED_DRAW is never a real draw id', () => {
  assert.equal(UNTRACED_DRAW, 0xffffffff);
  assert.ok(MAX_DRAWS < UNTRACED_DRAW);
});

test('every stage, both record paths, sampling runtime or none: the draw-id compare comes first; an untraced draw, or a warp the sampling decision leaves out, runs the entry point (called once) with no clock or record code', () => {
  const configs: [string, InstrumentOptions, (m: CorpusModule) => boolean][] = [
    ['nvidia', nvidia, () => true],
    ['lavapipe', lavapipe, () => true],
    ['per-invocation', { ...nvidia, legacySubgroup: 'per-invocation' }, legacy],
    ['khr-ballot', { ...nvidia, legacySubgroup: 'khr-ballot' }, legacy],
    ['sampling none', { ...nvidia, sampling: 'none' }, () => true],
    ['sampling none, lavapipe', { ...lavapipe, sampling: 'none' }, () => true],
    ['sampling none, per-invocation', { ...nvidia, sampling: 'none', legacySubgroup: 'per-invocation' }, legacy],
  ];
  const seen = new Set<string>();
  for (const [config, options, applies] of configs) {
    for (const m of corpus.filter(applies)) {
      const result = instrumentSpirv(m.bytes, options);
      const editor = new ModuleEditor(result.module);
      const constants = new Map(result.module.instructions.filter((i) => i.opcode === Op.Constant).map((i) => [i.words[2]!, i.words[3]!]));
      const bindings = editor.decorationValues(Decoration.Binding);
      const builtIns = editor.decorationValues(Decoration.BuiltIn);
      const all = result.module.instructions;
      const entryPoints = all.filter((i) => i.opcode === Op.EntryPoint);
      assert.equal(entryPoints.length, result.entryPoints.length, m.id);
      for (const [e, entry] of result.entryPoints.entries()) {
        const where = `${m.id} [${config}] ${entry.stage}`;
        // The entry point now names the wrapper: its instructions, OpFunction to OpFunctionEnd.
        const first = all.findIndex((i) => i.opcode === Op.Function && i.words[2] === entryPoints[e]!.words[2]);
        const code = all.slice(first, all.findIndex((i, k) => k > first && i.opcode === Op.FunctionEnd));
        assert.ok(first >= 0 && code.some((i) => i.opcode === Op.FunctionCall), `${where}: the wrapper`);
        const at = (pred: (i: Instruction) => boolean) => code.findIndex(pred);
        const compares = code.filter((i) => i.opcode === Op.INotEqual && constants.get(i.words[4]!) === UNTRACED_DRAW);
        assert.equal(compares.length, 1, `${where}: one compare with 0xFFFFFFFF`);
        const compare = compares[0]!;
        const c = code.indexOf(compare);
        // Its operand is the draw-id load from binding + 1, which is also the record's DRAW_ID word.
        const load = code.find((i) => i.opcode === Op.Load && i.words[2] === compare.words[3])!;
        const chain = code.find((i) => i.opcode === Op.AccessChain && i.words[2] === load.words[3])!;
        assert.equal(bindings.get(chain.words[3]!), options.binding + 1, where);
        const vectors = code.filter((i) => i.opcode === Op.CompositeConstruct && i.words.length === 7);
        assert.equal(vectors.length, 2, where);
        assert.equal([...vectors[0]!.words.subarray(3), ...vectors[1]!.words.subarray(3)][RecordWord.DRAW_ID], load.words[2], `${where}: DRAW_ID is the loaded id`);
        assert.equal(code.filter((i) => i.opcode === Op.Load && i.words[3] === chain.words[2]).length, 1, `${where}: loaded once`);
        // The compare directly feeds a structured if; nothing but the compare lies between load and branch.
        assert.equal(code.indexOf(load) + 1, c, where);
        const block = (k: number) => {
          const merge = code[k - 1]!.words[1]!;
          assert.equal(code[k - 1]!.opcode, Op.SelectionMerge, where);
          return [k, at((i) => i.opcode === Op.Label && i.words[1] === merge)] as const;
        };
        // Sampling 'runtime': the first if on the compare is the sampling decision (spirv-sample.test.ts), an OpPhi
        // of it or false after; the warp records on that value. 'none': on the compare itself.
        const runtime = options.sampling === 'runtime';
        let recording = compare.words[2]!;
        let decision: readonly [number, number] | null = null;
        if (runtime) {
          assert.equal(code[c + 2]!.opcode, Op.BranchConditional, where);
          assert.equal(code[c + 2]!.words[1], compare.words[2], where);
          decision = block(c + 2);
          const phi = code[decision[1] + 1]!;
          assert.equal(phi.opcode, Op.Phi, `${where}: the decision is a value after its if`);
          recording = phi.words[2]!;
        }
        const inDecision = (k: number) => decision !== null && k > decision[0] && k < decision[1];
        // Two ifs on it: the start clock (an OpPhi of it or 0 after), then the entry point's one call, then the
        // end clock and every piece of record code (helper test, ballot, election, atomic, stores).
        // (An intersection shader that reports records its reporting lanes at the report: its second if also tests that flag.)
        const guards = new Set([recording, ...code.filter((i) => i.opcode === Op.LogicalAnd && i.words[3] === recording).map((i) => i.words[2]!)]);
        const branches = code.map((i, k) => (i.opcode === Op.BranchConditional && guards.has(i.words[1]!) ? k : -1)).filter((k) => k >= 0);
        assert.equal(branches.length, 2, `${where}: two ifs on the ${runtime ? 'decision' : 'compare'}`);
        assert.equal(code.findIndex((i, k) => k > (decision?.[1] ?? c) && i.opcode === Op.BranchConditional), branches[0], `${where}: the first branch after it`);
        if (!runtime) assert.equal(branches[0], c + 2, where);
        const [startIf, startMerge] = block(branches[0]!);
        const [tracedIf, tracedMerge] = block(branches[1]!);
        const inStart = (k: number) => k > startIf && k < startMerge;
        const inTraced = (k: number) => k > tracedIf && k < tracedMerge;
        const clocks = code.map((i, k) => (i.opcode === Op.ReadClockKHR ? k : -1)).filter((k) => k >= 0);
        assert.ok(clocks.length >= 2 && inStart(clocks[0]!) && clocks.slice(1).every(inTraced), `${where}: no clock outside the two ifs`);
        assert.equal(clocks.filter(inStart).length, 1, `${where}: the start clock alone in the first if`);
        assert.equal(code[startMerge + 1]!.opcode, Op.Phi, `${where}: start is the clock or 0`);
        const calls = code.map((i, k) => (i.opcode === Op.FunctionCall ? k : -1)).filter((k) => k >= 0);
        assert.equal(calls.length, 1, `${where}: the entry point called once (compiled as the app's)`);
        assert.ok(calls[0]! > startMerge && calls[0]! < tracedIf, `${where}: between the two ifs`);
        // Not record code: an intersection shader that reports keeps the start clock for its report-site record.
        const phi = code[startMerge + 1]!.words[2];
        // Nor is the decision's store for marks and record points, or the first lane's key inside the decision.
        const record = code
          .map((i, k) => (RECORD_CODE.has(i.opcode) && !(i.opcode === Op.Store && (i.words[2] === phi || i.words[2] === recording)) && !inDecision(k) ? k : -1))
          .filter((k) => k >= 0);
        assert.ok(record.length >= 3, where);
        assert.ok(record.every(inTraced), `${where}: record code only in the traced if`);
        const helperLoad = code.findIndex((i) => i.opcode === Op.Load && builtIns.get(i.words[3]!) === BuiltIn.HelperInvocation);
        if (helperLoad >= 0) assert.ok(inTraced(helperLoad), `${where}: helper test in the traced if`);
        const mergeAt = tracedMerge;
        // A deferred ending (discard, any-hit ignore/terminate, task emit) stays after the branch (lanes of untraced draws still end).
        const endings: number[] = [Op.Kill, Op.TerminateInvocation, Op.IgnoreIntersectionKHR, Op.TerminateRayKHR, Op.IgnoreIntersectionNV, Op.TerminateRayNV, Op.EmitMeshTasksEXT];
        const kill = at((i) => endings.includes(i.opcode));
        if (kill >= 0) assert.ok(kill > mergeAt, where);
        seen.add(`${entry.stage} ${entry.flags & RecordFlag.PER_INVOCATION ? 'per-invocation' : 'per-warp'}${runtime ? ' sampled' : ''}`);
      }
    }
  }
  for (const stage of INSTRUMENTED_STAGES) {
    for (const path of ['per-warp', 'per-invocation']) assert.ok(seen.has(`${stage} ${path}`) && seen.has(`${stage} ${path} sampled`), `${stage}: both record paths checked, sampling runtime and none`);
  }
});

// ---- End to end on lavapipe ----------------------------------------------

const SMALL = [['width', 320], ['height', 180]] as const;
let harness: PlainHarness | null = null;
let unavailable = '';
before(async () => {
  ({ harness, unavailable } = await plainHarness());
});

async function capture(workload: string, name: string, options: InstrumentOptions, skipDraw?: number): Promise<Trace> {
  const h = harness!;
  const shaders = autoInstrumentSet(h.plain, options, join(workDir, `untraced-${workload}-${name}`));
  const out = join(workDir, `untraced-${workload}-${name}-${skipDraw ?? 'none'}.wtraw`);
  const report = await runCapture(h.binary, { workload, tracedShaders: shaders, plainShaders: null, out, params: SMALL, overheadFrames: 0, ...(skipDraw === undefined ? {} : { skipDraw }) });
  assert.equal(report.counter, report.records, `${name}: nothing dropped`);
  return decodeWtraw(new Uint8Array(readFileSync(out)));
}

/** Warps per (draw, stage, custom id, mask), and the stages each draw has. */
function warps(trace: Trace): { keys: [string, number][]; stages: Map<number, Set<number>> } {
  const w = trace.warps;
  const m = new Map<string, number>();
  const stages = new Map<number, Set<number>>();
  for (let i = 0; i < w.count; i++) {
    const key = `draw ${w.draw[i]} stage ${w.stage[i]} id ${w.customId[i]} mask ${w.activeMask[i]}/${w.activeMaskHi?.[i] ?? 0}`;
    m.set(key, (m.get(key) ?? 0) + 1);
    if (!stages.has(w.draw[i]!)) stages.set(w.draw[i]!, new Set());
    stages.get(w.draw[i]!)!.add(w.stage[i]!);
  }
  return { keys: [...m].sort(([a], [b]) => (a < b ? -1 : 1)), stages };
}

// aqt draw 1: VS TCS TES FS; compute-graphics draw 1: VS GS FS, draw 0: CS. On lavapipe VS-GS record per invocation, FS and CS per warp.
const CASES = [
  ['aqt', [1]],
  ['compute-graphics', [0, 1]],
] as const;

for (const [workload, skips] of CASES) {
  test(`${workload} on lavapipe: a draw whose draw id reads 0xFFFFFFFF (--skip-draw ${skips.join(', ')}) writes no record, the others the same warps`, async (t) => {
    if (harness === null) return t.skip(`no Vulkan device: ${unavailable}`);
    const options = autoInstrumentOptions(harness.device);
    const all = await capture(workload, 'auto', options);
    const before = warps(all);
    for (const skip of skips) {
      const stages = before.stages.get(skip);
      assert.ok(stages !== undefined && stages.size > 0, `draw ${skip} has warps when traced`);
      const skipped = await capture(workload, 'auto', options, skip);
      assert.equal(skipped.draws.length, all.draws.length, 'the draw is still listed');
      const after = warps(skipped);
      assert.equal(after.stages.has(skip), false, `draw ${skip}: no warps`);
      assert.deepEqual(after.keys, before.keys.filter(([k]) => !k.startsWith(`draw ${skip} `)), 'other draws: the same warps');
      t.diagnostic(`draw ${skip} (${[...stages].map((s) => Object.keys(Stage).find((k) => Stage[k as keyof typeof Stage] === s)).join(' ')}): ${all.warps.count - skipped.warps.count} of ${all.warps.count} warps gone`);
    }
  });
}

test('compute-graphics on lavapipe, sampling none: the untraced draw writes nothing, the dispatches keep theirs', async (t) => {
  if (harness === null) return t.skip(`no Vulkan device: ${unavailable}`);
  const none = { ...autoInstrumentOptions(harness.device), sampling: 'none' as const };
  const skipped = warps(await capture('compute-graphics', 'none', none, 1));
  assert.equal(skipped.stages.has(1), false, 'draw 1: no warps');
  assert.deepEqual([...skipped.stages.keys()].sort(), [0, 2], 'the dispatches keep theirs');
});
