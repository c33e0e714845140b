// Screen positions (RecordFlag.POSITION, shared-schema/position.ts) in
// instrumented modules: the fragment, ray-tracing and compute corpus through
// spirv-val with every option combination and --position choice; the subgroup
// min/max taken by every active lane before the election (fragment: inside
// the helper test), the 32-lane check, the lane's own pixel per invocation;
// stages without a position unchanged byte for byte; the CLI option and its
// report line. That the words equal the GLSL library's on a real device is
// spirv-e2e.test.ts (lavapipe, every workload); the ray-tracing stages' words,
// run, spirv-position-run.test.ts, and every ray-tracing module with the other
// passes, spirv-ray-positions.test.ts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpirv, type Instruction } from '../../instrument/model/binary.js';
import { FlagError, optionsFromFlags } from '../../instrument/cli-options.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { DEFAULT_POSITION_STAGES, POSITION_STAGES, RAY_TRACING_STAGES, checkOptions, targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { BuiltIn, Capability, Decoration, Op } from '../../instrument/model/spec.js';
import { MAX_POSITION_COORD, PackedIds, RecordFlag, RecordWord } from '../../shared-schema/index.js';
import { compileCorpus, legacy, pool, spirvVal, validationEnv, workDir, type CorpusModule } from './spirv-tools.js';
import { repoPath } from './paths.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const nvidia = targetOptions('nvidia');
const lavapipe = targetOptions('lavapipe');
const positioned = (m: CorpusModule) => (POSITION_STAGES as readonly string[]).includes(m.stage);
const positionedByDefault = (m: CorpusModule) => (DEFAULT_POSITION_STAGES as readonly string[]).includes(m.stage);
/** Every stage that can record a position. */
const everyStage = { positionStages: POSITION_STAGES } as const;

function wrapperBody(module: ReturnType<typeof instrumentSpirv>['module']): Instruction[] {
  const editor = new ModuleEditor(module);
  const entry = editor.entryPoints()[0]!;
  const f = parseFunctions(editor.section(Section.Function)).functions.find((c) => c.id === entry.functionId)!;
  return f.blocks.flatMap((b) => b.body);
}

test('fragment, ray-tracing and compute modules with every option and --position choice pass spirv-val', async () => {
  const all: InstrumentOptions = { ...nvidia, ...everyStage };
  const configs: [string, InstrumentOptions, (m: CorpusModule) => boolean][] = [
    ['nvidia, every stage', all, () => true],
    ['lavapipe, every stage', { ...lavapipe, ...everyStage }, () => true],
    ['portable, every stage', { ...targetOptions('portable'), ...everyStage }, () => true],
    ['device clock, no SM ids', { ...all, subgroupClock: false, smBuiltins: false }, () => true],
    ['sampling none', { ...all, sampling: 'none' }, () => true],
    ['sampling none, lavapipe', { ...lavapipe, ...everyStage, sampling: 'none' }, (m) => m.stage === 'FS'],
    ['discard kill', { ...all, discard: 'kill' }, (m) => m.stage === 'FS'],
    ['frag-coord custom id', { ...all, customIds: { ...all.customIds, FS: 'frag-coord' } }, (m) => m.stage === 'FS'],
    ['khr-ballot', { ...all, legacySubgroup: 'khr-ballot' }, legacy],
    ['per-invocation', { ...all, legacySubgroup: 'per-invocation' }, legacy],
    ['sampling none, per-invocation', { ...all, sampling: 'none', legacySubgroup: 'per-invocation' }, legacy],
  ];
  const jobs = configs.flatMap(([config, options, applies]) => corpus.filter((m) => positioned(m) && applies(m)).map((module) => ({ config, options, module })));
  const outcomes = await pool(jobs, 2, async ({ config, options, module }) => {
    const result = instrumentSpirv(module.bytes, options);
    const error = await spirvVal(result.bytes, validationEnv(result.outputVersion));
    return { config, module, result, error };
  });
  const bad = outcomes.filter((o) => o.error !== null).map((o) => `${o.module.id} [${o.config}]: ${o.error}`);
  assert.deepEqual(bad, [], bad.join('\n'));
  for (const o of outcomes) {
    const ballotOnly = o.config === 'khr-ballot';
    for (const e of o.result.entryPoints) assert.equal(e.position, !ballotOnly, `${o.module.id} [${o.config}]`);
    if (ballotOnly) assert.ok(o.result.notes.some((n) => n.includes('SPV_KHR_shader_ballot has no subgroup min/max')), o.module.id);
  }
  assert.ok(outcomes.length >= 200, `${outcomes.length} modules`);
});

test('per warp: four subgroup reductions before the election, the 32-lane check and the flag; per invocation: the own pixel', () => {
  const cases = corpus.filter((m) => positioned(m) && !legacy(m));
  for (const stage of POSITION_STAGES) assert.ok(cases.some((m) => m.stage === stage), stage);
  for (const m of cases) {
    for (const [config, options] of [['nvidia', { ...nvidia, ...everyStage }], ['no subgroups', { ...nvidia, subgroupStages: [], ...everyStage }]] as const) {
      const where = `${m.id} [${config}]`;
      const { module, entryPoints } = instrumentSpirv(m.bytes, options);
      const body = wrapperBody(module);
      const editor = new ModuleEditor(module);
      const builtIns = editor.decorationValues(Decoration.BuiltIn);
      const constants = new Map(module.instructions.filter((i) => i.opcode === Op.Constant).map((i) => [i.words[2]!, i.words[3]!]));
      const at = (op: number) => body.findIndex((i) => i.opcode === op);
      const reductions = body.filter((i) => i.opcode === Op.GroupNonUniformUMin || i.opcode === Op.GroupNonUniformUMax);
      const sizeLoads = body.filter((i) => i.opcode === Op.Load && builtIns.get(i.words[3]!) === BuiltIn.SubgroupSize);
      const vectors = body.filter((i) => i.opcode === Op.CompositeConstruct && i.words.length === 7);
      const words = vectors.flatMap((v) => Array.from(v.words.subarray(3)));
      const word3 = body.find((i) => i.opcode === Op.Select && i.words[2] === words[RecordWord.POSITION]);
      assert.ok(word3, `${where}: word 3 is selected`);
      const ids = body.find((i) => i.opcode === Op.BitwiseOr && i.words[2] === words[RecordWord.PACKED_IDS])!;
      const flag = body.find((i) => i.opcode === Op.Select && i.words[2] === ids.words[4])!;
      assert.deepEqual([constants.get(flag.words[4]!), constants.get(flag.words[5]!)], [(RecordFlag.POSITION << PackedIds.FLAGS_SHIFT) >>> 0, 0], where);
      assert.equal(flag.words[3], word3.words[3], `${where}: one condition for the flag and the word`);
      // The coordinate limit of position.ts.
      assert.ok(body.some((i) => i.opcode === Op.ULessThanEqual && constants.get(i.words[4]!) === MAX_POSITION_COORD), where);
      const pixelBuiltIn = m.stage === 'FS' ? BuiltIn.FragCoord : m.stage === 'CS' ? BuiltIn.GlobalInvocationId : BuiltIn.LaunchIdKHR;
      assert.ok(body.some((i) => i.opcode === Op.Load && builtIns.get(i.words[3]!) === pixelBuiltIn), `${where}: reads its pixel`);
      if (config === 'nvidia') {
        assert.equal(reductions.length, 4, where);
        const elect = body[at(Op.GroupNonUniformElect)]!;
        const electedBranch = body.findIndex((i) => i.opcode === Op.BranchConditional && i.words[1] === elect.words[2]);
        assert.ok(electedBranch > 0 && reductions.every((r) => body.indexOf(r) < electedBranch), `${where}: min/max by every lane, before the elected lane's branch`);
        assert.equal(sizeLoads.length, 1, `${where}: the 32-lane check`);
        assert.ok(body.some((i) => i.opcode === Op.ULessThanEqual && i.words[3] === sizeLoads[0]!.words[2] && constants.get(i.words[4]!) === 32), where);
        assert.ok(editor.hasCapability(Capability.GroupNonUniformArithmetic), where);
        if (m.stage === 'FS') {
          const helper = body.findIndex((i) => i.opcode === Op.Load && builtIns.get(i.words[3]!) === BuiltIn.HelperInvocation);
          if (helper >= 0) assert.ok(reductions.every((r) => body.indexOf(r) > helper), `${where}: helper lanes are outside`);
        }
      } else {
        assert.deepEqual([reductions.length, sizeLoads.length], [0, 0], `${where}: one invocation, its own pixel`);
        assert.equal(editor.hasCapability(Capability.GroupNonUniformArithmetic), new ModuleEditor(parseSpirv(m.bytes)).hasCapability(Capability.GroupNonUniformArithmetic), where);
      }
      assert.equal(entryPoints[0]!.position, true);
    }
  }
});

test('--position none, and the stages without a position: unchanged byte for byte, no arithmetic capability', () => {
  for (const m of corpus) {
    const none = instrumentSpirv(m.bytes, { ...nvidia, positionStages: [] });
    assert.equal(none.entryPoints[0]!.position, false, m.id);
    const hadArithmetic = new ModuleEditor(parseSpirv(m.bytes)).hasCapability(Capability.GroupNonUniformArithmetic);
    assert.equal(new ModuleEditor(none.module).hasCapability(Capability.GroupNonUniformArithmetic), hadArithmetic, m.id);
    const byDefault = instrumentSpirv(m.bytes, nvidia);
    if (positionedByDefault(m)) assert.notDeepEqual(byDefault.bytes, none.bytes, m.id);
    else assert.deepEqual(byDefault.bytes, none.bytes, `${m.id}: CS and the others record no position by default`);
  }
});

test('--position: fs, the ray-tracing stages, cs or none; other stages refused; the report says where the pixel comes from', () => {
  assert.deepEqual(optionsFromFlags({}).positionStages, ['FS', ...RAY_TRACING_STAGES], 'fragment and every ray-tracing stage by default');
  assert.deepEqual(optionsFromFlags({ position: 'cs, fs' }).positionStages, ['FS', 'CS']);
  assert.deepEqual(optionsFromFlags({ position: 'rgen,raygen' }).positionStages, ['RAYGEN']);
  assert.deepEqual(optionsFromFlags({ position: 'rmiss,rchit,closest_hit,rgen' }).positionStages, ['RAYGEN', 'CLOSEST_HIT', 'MISS']);
  assert.deepEqual(optionsFromFlags({ position: 'rahit,rint,rcall' }).positionStages, ['ANY_HIT', 'INTERSECTION', 'CALLABLE']);
  assert.deepEqual(optionsFromFlags({ position: 'none' }).positionStages, []);
  assert.throws(
    () => optionsFromFlags({ position: 'vs' }),
    (e: unknown) => e instanceof FlagError && /--position: vs records no screen position \(fs, rgen, rahit, rchit, rmiss, rint, rcall, cs or none\)/.test(e.message),
  );
  assert.throws(() => optionsFromFlags({ position: 'banana' }), (e: unknown) => e instanceof FlagError && /--position: "banana" is not one of/.test(e.message));
  assert.match(checkOptions({ ...nvidia, positionStages: ['VS' as 'FS'] }) ?? '', /stage VS records no position/);

  const frag = join(workDir, 'position-cli.frag.spv');
  writeFileSync(frag, corpus.find((c) => c.id === 'early.frag@vulkan1.3')!.bytes);
  const run = (...args: string[]) => spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'instrument', frag, '-o', join(workDir, 'position-cli.out.spv'), '--force', ...args], { encoding: 'utf8' });
  const withPosition = run();
  assert.equal(withPosition.status, 0, withPosition.stderr);
  assert.match(withPosition.stdout, /FS  "main": one record per warp, .*, screen position \(gl_FragCoord\.xy, subgroups up to 32 lanes\)$/m);
  const perInvocation = run('--subgroup-stages', 'none');
  assert.match(perInvocation.stdout, /one record per invocation, .*, screen position \(gl_FragCoord\.xy\)$/m);
  const without = run('--position', 'none');
  assert.doesNotMatch(without.stdout, /screen position/);
  const usage = run('--position', 'tcs');
  assert.equal(usage.status, 2);

  const hit = join(workDir, 'position-cli.rchit.spv');
  writeFileSync(hit, corpus.find((c) => c.id === 'shade.rchit@vulkan1.2')!.bytes);
  const hitRun = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'instrument', hit, '-o', join(workDir, 'position-cli.out.rchit.spv'), '--force'], { encoding: 'utf8' });
  assert.equal(hitRun.status, 0, hitRun.stderr);
  assert.match(hitRun.stdout, /CLOSEST_HIT "main": one record per warp, .*, screen position \(gl_LaunchIDEXT\.xy, subgroups up to 32 lanes\)$/m);
});
