// Ray events (`--ray-events`, instrument/passes/ray-events.ts) on every ray-tracing module the tests have
// (the corpus's, the reference workloads', closest-hit and miss shaders that trace, a linked pipeline):
// every output passes spirv-val alone and with --blocks and --marks; off, or in a module without a
// ray-tracing entry point, nothing changes; and the calls sit where the contract puts them: each
// entry's prologue, around each trace, before any-hit endings and at any-hit returns. What the calls
// count is run in spirv-ray-events-run.test.ts.
import { DRAW_ID_WORDS_WITH_SAMPLING } from '../../shared-schema/sample-layout.js';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeString, encodeString, instruction, parseSpirv, writeSpirv } from '../../instrument/model/binary.js';
import { InstrumentError } from '../../instrument/errors.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { checkOptions, isRayTracingStage, targetOptions, type InstrumentOptions, type InstrumentedStage } from '../../instrument/options.js';
import { optionsFromFlags, INSTRUMENT_FLAGS_HELP } from '../../instrument/cli-options.js';
import { BuiltIn, Decoration, ExecutionModel, Op, StorageClass } from '../../instrument/model/spec.js';
import { TRACE_OPS } from '../../instrument/passes/marks.js';
import { STAGE_OF_EXECUTION_MODEL } from '../../instrument/model/execution-models.js';
import { drawBlockStageWord } from '../../shared-schema/block-layout.js';
import { RAY_EVENT_MARK, RayCellWord, RayEventHeaderWord, RayRowHeaderWord } from '../../shared-schema/ray-event-layout.js';
import { compileCorpus, compileGlsl, pool, spirvVal, validationEnv, workDir, type CorpusModule } from './spirv-tools.js';
import { compileRayCorpus } from './ray-event-shaders.js';
import { ReadModule } from './ray-event-module.js';
import { repoPath } from './paths.js';

let corpus: CorpusModule[] = [];
let rays: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
  rays = await compileRayCorpus(corpus);
});

const nvidia = targetOptions('nvidia');
const withRays = (options: InstrumentOptions, extra: Partial<InstrumentOptions> = {}): InstrumentOptions => ({ ...options, rayEvents: true, ...extra });
const everything: Partial<InstrumentOptions> = { blocks: true, marks: ['trace', 'loops'] };
/** The cell word each stage counts at its entry (shared-schema/README.md "Ray events"). */
const ENTRY_WORD: Partial<Record<InstrumentedStage, number>> = {
  INTERSECTION: RayCellWord.INTERSECTIONS,
  ANY_HIT: RayCellWord.ANY_HITS,
  CLOSEST_HIT: RayCellWord.CLOSEST_HITS,
  MISS: RayCellWord.MISSES,
  CALLABLE: RayCellWord.CALLABLES,
};
const IGNORES: readonly number[] = [Op.IgnoreIntersectionKHR, Op.IgnoreIntersectionNV];
const TERMINATES: readonly number[] = [Op.TerminateRayKHR, Op.TerminateRayNV];
const BEFORE_PROLOGUE: ReadonlySet<number> = new Set([Op.Variable, Op.Load, Op.Line, Op.NoLine, Op.ExtInst, Op.FunctionCall]);
const EXECUTES: readonly number[] = [Op.HitObjectExecuteShaderNV, Op.HitObjectExecuteShaderEXT, Op.HitObjectReorderExecuteShaderEXT];

test('the ray-tracing modules: every stage, trace calls of every kind, nested traces, any-hit endings, valid to begin with', async () => {
  const stages = new Set(rays.flatMap((m) => new ModuleEditor(parseSpirv(m.bytes)).entryPoints().map((e) => STAGE_OF_EXECUTION_MODEL.get(e.executionModel))));
  assert.deepEqual([...stages].sort(), ['ANY_HIT', 'CALLABLE', 'CLOSEST_HIT', 'INTERSECTION', 'MISS', 'RAYGEN']);
  const count = (ops: readonly number[]) => rays.reduce((n, m) => n + opcodes(m.bytes).filter((op) => ops.includes(op)).length, 0);
  assert.ok(count([Op.TraceRayKHR]) >= 15, 'OpTraceRayKHR');
  assert.ok(count([...TRACE_OPS].filter((op) => op !== Op.TraceRayKHR)) >= 5, 'hit-object traces');
  assert.ok(count(EXECUTES) >= 3, 'hit-object executions');
  assert.ok(count(IGNORES) >= 4 && count(TERMINATES) >= 4, 'any-hit endings, KHR and NV');
  assert.ok(rays.length >= 45, `${rays.length} modules`);
  const errors = (await pool(rays, 2, async (m) => [m.id, await spirvVal(m.bytes, validationEnv(m.spirv))] as const)).filter(([, e]) => e !== null);
  assert.deepEqual(errors, []);
});

test('every ray-tracing module with --ray-events passes spirv-val: alone, with --blocks and --marks, every target, clocks, subgroup stages, bindings', async () => {
  const configs: [string, InstrumentOptions][] = [
    ['nvidia', withRays(nvidia)],
    ['lavapipe', withRays(targetOptions('lavapipe'))],
    ['nvidia, blocks, marks', withRays(nvidia, everything)],
    ['lavapipe, blocks, marks', withRays(targetOptions('lavapipe'), everything)],
    ['no subgroup stages, blocks', withRays(nvidia, { subgroupStages: [], blocks: true })],
    ['device clock, marks', withRays(nvidia, { subgroupClock: false, marks: ['trace'] })],
    ['set 3 binding 5, blocks, marks', withRays(nvidia, { set: 3, binding: 5, ...everything })],
  ];
  const jobs = configs.flatMap(([config, options]) => rays.map((module) => ({ config, options, module })));
  const bad = (
    await pool(jobs, 2, async ({ config, options, module }) => {
      const out = instrumentSpirv(module.bytes, options);
      const error = await spirvVal(out.bytes, validationEnv(out.outputVersion));
      return error === null ? null : `${module.id} [${config}]: ${error}`;
    })
  ).filter((e) => e !== null);
  assert.deepEqual(bad, [], bad.join('\n'));
  assert.ok(jobs.length >= 300, `${jobs.length} modules validated`);
});

test('off, the output is the same bytes; on, a module without a ray-tracing entry point is the same bytes too', () => {
  let untouched = 0;
  for (const m of [...corpus, ...rays]) {
    const ray = new ModuleEditor(parseSpirv(m.bytes)).entryPoints().some((e) => isRayTracingStage(STAGE_OF_EXECUTION_MODEL.get(e.executionModel)!));
    for (const options of [nvidia, targetOptions('lavapipe'), { ...nvidia, ...everything }]) {
      const plain = instrumentSpirv(m.bytes, options);
      assert.deepEqual(instrumentSpirv(m.bytes, { ...options, rayEvents: false }).bytes, plain.bytes, m.id);
      const read = new ReadModule(plain.bytes);
      assert.equal(strings(read.editor).includes(RAY_EVENT_MARK), false, m.id);
      assert.equal(read.named('warptrace_ray_events').length + read.named('warptrace_ray_pixel').length, 0, m.id);
      // With blocks, the draw id and the block row, and a graphics stage's block offset word (the contract's word 3 + k).
      const stageWords = new ModuleEditor(parseSpirv(m.bytes)).entryPoints().map((e) => (drawBlockStageWord(STAGE_OF_EXECUTION_MODEL.get(e.executionModel)!) ?? 0) + 1);
      // Sampling 'runtime' (these options' default): the 12 words up to the sampling rates.
      assert.equal(drawBlockMembers(read), Math.max(options.blocks ? Math.max(2, ...stageWords) : 1, options.sampling === 'runtime' ? DRAW_ID_WORDS_WITH_SAMPLING : 1), `${m.id}: the draw-id block as it was`);
      if (ray) continue;
      assert.deepEqual(instrumentSpirv(m.bytes, withRays(options)).bytes, plain.bytes, `${m.id}: no ray-tracing entry point`);
      untouched++;
    }
  }
  assert.ok(untouched >= 300, `${untouched} modules without ray tracing`);
});

test('the draw-id block gains word 2 (rayRow at offset 8); the table is at the trace set, binding + 3; the module is marked', () => {
  for (const m of rays) {
    for (const [set, binding] of [[7, 0], [3, 5]] as const) {
      // Sampling 'none': the words ray events read alone (with 'runtime' the block has the 12 words of sample-layout.ts).
      const read = new ReadModule(instrumentSpirv(m.bytes, withRays(nvidia, { set, binding, sampling: 'none' })).bytes);
      const sets = read.editor.decorationValues(Decoration.DescriptorSet);
      const bindings = read.editor.decorationValues(Decoration.Binding);
      const [draw] = read.named('warptrace_draw');
      const [table] = read.named('warptrace_ray_events');
      assert.deepEqual([sets.get(draw!), bindings.get(draw!)], [set, binding + 1], m.id);
      assert.deepEqual([sets.get(table!), bindings.get(table!)], [set, binding + 3], m.id);
      assert.equal(read.editor.globalDef(table!)?.words[3], StorageClass.StorageBuffer, m.id);
      assert.equal(drawBlockMembers(read), 3, m.id);
      const struct = drawStruct(read);
      const offsets = read.editor.section(Section.Annotation).filter((i) => i.opcode === Op.MemberDecorate && i.words[1] === struct && i.words[3] === Decoration.Offset).map((i) => [i.words[2], i.words[4]]);
      assert.deepEqual(offsets, [[0, 0], [1, 4], [2, 8]], m.id);
      assert.equal(strings(read.editor).filter((s) => s === RAY_EVENT_MARK).length, 1, m.id);
    }
  }
});

test('each ray-tracing entry starts with its prologue: pixel(LaunchId, LaunchSize), launch in ray generation, t, the stage\'s event, closest hit', () => {
  for (const m of rays) {
    for (const extra of [{}, everything]) {
      const read = new ReadModule(instrumentSpirv(m.bytes, withRays(nvidia, extra)).bytes);
      const entries = new ModuleEditor(parseSpirv(m.bytes)).entryPoints();
      const [tVariable] = read.named('warptrace_ray_t');
      for (const e of entries) {
        const stage = STAGE_OF_EXECUTION_MODEL.get(e.executionModel)!;
        const first = read.functionOf(e.functionId).blocks[0]!.body;
        const at = first.findIndex((i) => read.calls(i, 'pixel'));
        assert.ok(at >= 0, `${m.id} ${stage}: pixel() in the first block`);
        const loads = first.slice(0, at).filter((i) => i.opcode === Op.Load);
        const loaded = (id: number) => read.builtinOf(loads.find((l) => l.words[2] === id)?.words[3] ?? 0);
        assert.deepEqual([loaded(first[at]!.words[4]!), loaded(first[at]!.words[5]!)], [BuiltIn.LaunchIdKHR, BuiltIn.LaunchSizeKHR], `${m.id} ${stage}`);
        // Before it only the function's variables, debug lines and the other passes' calls at the block's start.
        assert.ok(first.slice(0, at).every((i) => BEFORE_PROLOGUE.has(i.opcode)), `${m.id} ${stage}`);
        const calls = first.slice(at).filter((i) => i.opcode === Op.FunctionCall);
        const word = ENTRY_WORD[stage];
        const expected = [
          'pixel',
          ...(stage === 'RAYGEN' ? ['launch'] : []),
          ...(word === undefined ? [] : [`event ${word} 1`]),
          ...(stage === 'CLOSEST_HIT' ? ['closestHit'] : []),
        ];
        const named = calls.slice(0, expected.length).map((c) => {
          const name = (['pixel', 'launch', 'event', 'closestHit'] as const).find((n) => read.calls(c, n)) ?? 'other';
          return name === 'event' ? `event ${read.constant(c.words[4]!)} ${read.constant(c.words[5]!)}` : name;
        });
        assert.deepEqual(named, expected, `${m.id} ${stage}`);
        const tStores = first.filter((i) => i.opcode === Op.Store && i.words[1] === tVariable);
        if (stage === 'ANY_HIT' || stage === 'CLOSEST_HIT') {
          assert.equal(tStores.length, 1, `${m.id} ${stage}: t stored`);
          const cast = first.find((i) => i.opcode === Op.Bitcast && i.words[2] === tStores[0]!.words[2])!;
          const load = first.find((i) => i.opcode === Op.Load && i.words[2] === cast.words[3])!;
          assert.equal(read.builtinOf(load.words[3]!), BuiltIn.RayTmaxKHR, `${m.id} ${stage}: from RayTmaxKHR`);
          assert.ok(first.indexOf(tStores[0]!) < first.indexOf(calls[expected.length - 1]!), `${m.id}: t before the event and closest hit`);
        } else assert.equal(tStores.length, 0, `${m.id} ${stage}`);
      }
    }
  }
});

test('each OpTraceRayKHR is bracketed by trace_begin/trace_end, other traces by trace_uncounted/scratch_restore, executions by save/restore', () => {
  let traces = 0;
  let others = 0;
  for (const m of rays) {
    for (const extra of [{}, everything]) {
      const read = new ReadModule(instrumentSpirv(m.bytes, withRays(nvidia, extra)).bytes);
      const inside = new Set([...read.named('warptrace_mark'), ...read.named('warptrace_record_at_reorder'), ...read.named('warptrace_restart_after_reorder')]);
      const sites = (ops: readonly number[]) => read.functions.flatMap((f) => f.blocks.flatMap((b) => b.body.flatMap((i, k) => (ops.includes(i.opcode) ? [[b.body, k] as const] : []))));
      const check = (ops: readonly number[], before: 'traceBegin' | 'traceUncounted' | 'scratchSave', after: 'traceEnd' | 'scratchRestore') => {
        for (const [body, k] of sites(ops)) {
          // Only the marks' and reorders' calls may sit between (they bracket the instruction closest).
          let b = k - 1;
          while (b >= 0 && inside.has(body[b]!.words[3]!) && body[b]!.opcode === Op.FunctionCall) b--;
          let a = k + 1;
          while (a < body.length && inside.has(body[a]!.words[3]!) && body[a]!.opcode === Op.FunctionCall) a++;
          if (Object.keys(extra).length === 0) assert.deepEqual([b, a], [k - 1, k + 1], `${m.id}: right around it`);
          assert.ok(read.calls(body[b], before), `${m.id}: ${before} before opcode ${body[k]!.opcode}`);
          assert.ok(read.calls(body[a], after), `${m.id}: ${after} after opcode ${body[k]!.opcode}`);
          assert.equal(body[a]!.words[4], body[b]!.words[2], `${m.id}: the saved entry restored`);
        }
        return sites(ops).length;
      };
      const n = check([Op.TraceRayKHR], 'traceBegin', 'traceEnd');
      assert.equal(n, opcodes(m.bytes).filter((op) => op === Op.TraceRayKHR).length, m.id);
      const o = check([...TRACE_OPS].filter((op) => op !== Op.TraceRayKHR), 'traceUncounted', 'scratchRestore');
      check(EXECUTES, 'scratchSave', 'scratchRestore');
      // Nothing else calls them.
      for (const [name, sites] of [['traceBegin', n], ['traceEnd', n], ['traceUncounted', o]] as const) {
        const id = read.rayFunction(name);
        assert.equal(read.functions.flatMap((f) => f.blocks.flatMap((b) => b.body)).filter((i) => i.opcode === Op.FunctionCall && i.words[3] === id).length, sites, `${m.id}: ${name}`);
      }
      if (Object.keys(extra).length === 0) (traces += n), (others += o);
    }
  }
  assert.ok(traces >= 15 && others >= 5, `${traces} OpTraceRayKHR, ${others} other traces`);
});

test('any-hit endings: an ignored-hit event before each ignore, an accept before each terminate and at each return of the entry', () => {
  let ignores = 0;
  let accepts = 0;
  for (const m of rays) {
    const original = new ReadModule(m.bytes);
    const anyHits = original.editor.entryPoints().filter((e) => e.executionModel === ExecutionModel.AnyHitKHR);
    if (anyHits.length === 0) continue;
    const all = original.functions.flatMap((f) => f.blocks.flatMap((b) => b.body));
    const expectedIgnores = all.filter((i) => IGNORES.includes(i.opcode)).length;
    const expectedAccepts = all.filter((i) => TERMINATES.includes(i.opcode)).length + anyHits.reduce((n, e) => n + original.body(e.functionId).filter((i) => i.opcode === Op.Return).length, 0);
    const read = new ReadModule(instrumentSpirv(m.bytes, withRays(nvidia)).bytes);
    const [ended] = read.named('warptrace_hit_ended');
    const body = read.functions.flatMap((f) => f.blocks.flatMap((b) => b.body));
    const ignoreCalls = body.flatMap((i, k) => (read.calls(i, 'event') && read.constant(i.words[4]!) === RayCellWord.ANY_HITS_IGNORED ? [k] : []));
    const acceptCalls = body.flatMap((i, k) => (read.calls(i, 'accept') ? [k] : []));
    assert.equal(ignoreCalls.length, expectedIgnores, `${m.id}: ignores`);
    assert.equal(acceptCalls.length, expectedAccepts, `${m.id}: accepts`);
    // The endings pass then defers each ending (a store of the flag and of which ending, then a return): the call is right before.
    const which = (k: number) => body[k + 2]?.opcode === Op.Store && read.constant(body[k + 2]!.words[2]!);
    for (const k of ignoreCalls) {
      assert.equal(body[k + 1]!.words[1], ended, `${m.id}: the deferred ignore follows`);
      if (which(k) !== false) assert.ok(IGNORES.includes(which(k) as number), m.id);
    }
    for (const k of acceptCalls) {
      const next = body[k + 1]!;
      assert.ok(next.opcode === Op.Return || (next.opcode === Op.Store && next.words[1] === ended && (which(k) === false || TERMINATES.includes(which(k) as number))), `${m.id}: an accept before a return or a terminate`);
    }
    ignores += ignoreCalls.length;
    accepts += acceptCalls.length;
  }
  assert.ok(ignores >= 4 && accepts >= 8, `${ignores} ignores, ${accepts} accepts`);
});

test('the functions: relaxed atomics whose results are unused; launch folds the size; DROPPED and UNCOUNTED_TRAVERSALS in the header', () => {
  const linked = rays.find((m) => m.source === 'linked')!;
  const read = new ReadModule(instrumentSpirv(linked.bytes, withRays(nvidia)).bytes);
  const [table] = read.named('warptrace_ray_events');
  const atomics = [Op.AtomicIAdd, Op.AtomicUMax, Op.AtomicUMin] as readonly number[];
  const headerWordsAdded = (name: 'event' | 'traceBegin' | 'launch') => {
    const body = read.body(read.rayFunction(name)!);
    const chains = new Map(body.filter((i) => i.opcode === Op.AccessChain && i.words[3] === table && i.words.length === 5).map((i) => [i.words[2]!, read.constant(i.words[4]!)]));
    return body.filter((i) => atomics.includes(i.opcode)).map((i) => chains.get(i.words[3]!) ?? 'word');
  };
  assert.deepEqual(headerWordsAdded('event'), [RayEventHeaderWord.DROPPED, 'word']);
  assert.deepEqual(headerWordsAdded('traceBegin'), [RayEventHeaderWord.UNCOUNTED_TRAVERSALS]);
  const launch = read.body(read.rayFunction('launch')!);
  assert.deepEqual(
    [Op.AtomicIAdd, Op.AtomicUMax, Op.AtomicUMin].map((op) => launch.filter((i) => i.opcode === op).length),
    [1, 3, 3],
    'LAUNCHES, then the size into MAX_* and MIN_*',
  );
  assert.equal(RayRowHeaderWord.MIN_DEPTH - RayRowHeaderWord.LAUNCHES, 6);
  for (const f of read.functions.filter((g) => read.editor.nameOf(g.id)?.startsWith('warptrace_ray_'))) {
    for (const i of f.blocks.flatMap((b) => b.body).filter((x) => atomics.includes(x.opcode))) {
      assert.equal(read.constant(i.words[5]!), 0, 'relaxed');
      assert.equal(read.uses(i.words[2]!), 0, `${read.editor.nameOf(f.id)}: the atomic's result is unused`);
    }
  }
});

test('refusals and flags: the table\'s binding taken, a binding without room, entry points of two stages sharing a function; --ray-events', async () => {
  const taken = await compileGlsl(`#version 460\n#extension GL_EXT_ray_tracing : require\nlayout(set = 7, binding = 3) buffer Mine { uint v[]; };\nvoid main() { v[0] = gl_LaunchIDEXT.x; }\n`, 'rgen', 'vulkan1.2');
  assert.throws(() => instrumentSpirv(taken, withRays(nvidia)), /set 7, binding 3 \(wanted for the ray-event table\) is already used by variable %\d+; .*the ray-event table takes M\+3/);
  assert.doesNotThrow(() => instrumentSpirv(taken, nvidia));
  assert.doesNotThrow(() => instrumentSpirv(taken, withRays(nvidia, { binding: 4 })));
  const compute = await compileGlsl(`#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 7, binding = 3) buffer Mine { uint v[]; };\nvoid main() { v[0] = 1u; }\n`, 'comp', 'vulkan1.2');
  assert.deepEqual(instrumentSpirv(compute, withRays(nvidia)).bytes, instrumentSpirv(compute, nvidia).bytes, 'no ray tracing: the binding is not wanted');
  assert.match(checkOptions(withRays(nvidia, { binding: 0xfffffffd })) ?? '', /the ray-event table needs binding \+ 3/);
  assert.equal(checkOptions(withRays(nvidia, { binding: 0xfffffffc })), null);

  // A miss and a callable entry point naming one function: one prologue cannot count both.
  const miss = corpus.find((c) => c.id === 'sky.rmiss@vulkan1.2')!;
  const editor = new ModuleEditor(parseSpirv(miss.bytes));
  const [entry] = editor.entryPoints();
  editor.append(Section.EntryPoint, instruction(Op.EntryPoint, [ExecutionModel.CallableKHR, entry!.functionId, ...encodeString('x'), ...entry!.interfaceIds]));
  const shared = writeSpirv(editor.build());
  assert.throws(() => instrumentSpirv(shared, withRays(nvidia)), (e: unknown) => e instanceof InstrumentError && /"main" \(MISS\) and "x" \(CALLABLE\) share one function/.test(e.message));

  assert.equal(optionsFromFlags({ rayEvents: true }).rayEvents, true);
  assert.equal(optionsFromFlags({}).rayEvents, false);
  assert.match(INSTRUMENT_FLAGS_HELP, /--ray-events/);
  const input = join(workDir, 'cli-rays.rgen.spv');
  writeFileSync(input, rays.find((m) => m.id === 'scene.rgen@vulkan1.2')!.bytes);
  const output = join(workDir, 'cli-rays.out.spv');
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'instrument', input, '-o', output, '--force', '--ray-events', '--binding', '2'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /draw id binding 3, ray-event table binding 5/);
  assert.match(r.stdout, /ray events: 1 entry point; trace calls: 1 OpTraceRayKHR/);
  assert.ok(strings(new ModuleEditor(parseSpirv(new Uint8Array(readFileSync(output))))).includes(RAY_EVENT_MARK));
});

function opcodes(bytes: Uint8Array): number[] {
  return parseSpirv(bytes).instructions.map((i) => i.opcode);
}

function strings(editor: ModuleEditor): string[] {
  return editor.section(Section.DebugSource).filter((i) => i.opcode === Op.String).map((i) => decodeString(i.words, 2).value);
}

/** The draw-id block's struct (the pointee of warptrace_draw's pointer type). */
function drawStruct(read: ReadModule): number {
  const [draw] = read.named('warptrace_draw');
  const pointer = read.editor.globalDef(read.editor.globalDef(draw!)!.words[1]!)!;
  return pointer.words[3]!;
}

function drawBlockMembers(read: ReadModule): number {
  return read.editor.globalDef(drawStruct(read))!.words.length - 2;
}
