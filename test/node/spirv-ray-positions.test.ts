// Screen positions in every ray-tracing stage (instrument/options.ts DEFAULT_POSITION_STAGES), on every
// ray-tracing module the tests have (ray-event-shaders.ts: the corpus's, the reference workloads', closest-hit
// and miss shaders that trace, a linked pipeline of all six stages): each output passes spirv-val alone and
// with --blocks, --marks and --ray-events, on every target; each ray-tracing entry point's wrapper takes the
// subgroup min and max of its launch id's x and y (per invocation: reads its own launch id) and sets the
// flag; the words the code writes are run in spirv-position-run.test.ts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpirv, type Instruction } from '../../instrument/model/binary.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { STAGE_OF_EXECUTION_MODEL } from '../../instrument/model/execution-models.js';
import { BuiltIn, Capability, Decoration, GroupOperation, Op } from '../../instrument/model/spec.js';
import { DEFAULT_POSITION_STAGES, isRayTracingStage, targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { PackedIds, RecordFlag } from '../../shared-schema/index.js';
import { compileCorpus, pool, spirvVal, validationEnv, type CorpusModule } from './spirv-tools.js';
import { compileRayCorpus } from './ray-event-shaders.js';

let rays: CorpusModule[] = [];
before(async () => {
  rays = await compileRayCorpus(await compileCorpus());
});

const nvidia = targetOptions('nvidia');
const everything: Partial<InstrumentOptions> = { blocks: true, marks: ['trace', 'loops'], rayEvents: true };

test('the ray-tracing stages record a position by default, as ray generation did', () => {
  for (const stage of ['RAYGEN', 'ANY_HIT', 'CLOSEST_HIT', 'MISS', 'INTERSECTION', 'CALLABLE'] as const) assert.ok(DEFAULT_POSITION_STAGES.includes(stage), stage);
  assert.ok(!DEFAULT_POSITION_STAGES.includes('CS'), 'compute only when asked');
});

test('every ray-tracing module with positions in every stage passes spirv-val: alone, with --blocks, --marks and --ray-events, every target', async () => {
  const configs: [string, InstrumentOptions][] = [
    ['nvidia', nvidia],
    ['lavapipe', targetOptions('lavapipe')],
    ['portable', targetOptions('portable')],
    ['nvidia, blocks', { ...nvidia, blocks: true }],
    ['nvidia, marks', { ...nvidia, marks: ['trace', 'loops'] }],
    ['nvidia, ray events', { ...nvidia, rayEvents: true }],
    ['nvidia, blocks, marks, ray events', { ...nvidia, ...everything }],
    ['lavapipe, blocks, marks, ray events', { ...targetOptions('lavapipe'), ...everything }],
    ['device clock, no SM ids, everything', { ...nvidia, subgroupClock: false, smBuiltins: false, ...everything }],
  ];
  const jobs = configs.flatMap(([config, options]) => rays.map((module) => ({ config, options, module })));
  const bad = (
    await pool(jobs, 2, async ({ config, options, module }) => {
      const out = instrumentSpirv(module.bytes, options);
      const missing = out.entryPoints.filter((e) => isRayTracingStage(e.stage) && !e.position).map((e) => e.stage);
      if (missing.length > 0) return `${module.id} [${config}]: no position in ${missing.join(', ')}`;
      const error = await spirvVal(out.bytes, validationEnv(out.outputVersion));
      return error === null ? null : `${module.id} [${config}]: ${error}`;
    })
  ).filter((e) => e !== null);
  assert.deepEqual(bad, [], bad.join('\n'));
  assert.ok(jobs.length >= 400, `${jobs.length} modules validated`);
});

/** Each entry point's wrapper body (the instrumented module's entry function) with its stage. */
function wrappers(bytes: Uint8Array): { stage: string; name: string; body: Instruction[]; editor: ModuleEditor }[] {
  const editor = new ModuleEditor(parseSpirv(bytes));
  const functions = parseFunctions(editor.section(Section.Function)).functions;
  return editor.entryPoints().map((e) => ({
    stage: STAGE_OF_EXECUTION_MODEL.get(e.executionModel)!,
    name: e.name,
    body: functions.find((f) => f.id === e.functionId)!.blocks.flatMap((b) => b.body),
    editor,
  }));
}

test('each ray-tracing entry point\'s wrapper: the min and max of LaunchId.x and .y over the lanes, the flag; per invocation its own launch id', () => {
  let entries = 0;
  for (const m of rays) {
    for (const [config, options] of [['nvidia', nvidia], ['everything', { ...nvidia, ...everything }], ['per invocation', { ...nvidia, subgroupStages: [] }]] as const) {
      const bytes = instrumentSpirv(m.bytes, options).bytes;
      for (const { stage, name, body, editor } of wrappers(bytes)) {
        const where = `${m.id} ${stage} "${name}" [${config}]`;
        const builtIns = editor.decorationValues(Decoration.BuiltIn);
        const constants = new Map(editor.section(Section.Global).filter((i) => i.opcode === Op.Constant).map((i) => [i.words[2]!, i.words[3]!]));
        const def = (id: number) => body.find((i) => i.words[2] === id && i.opcode !== Op.Label);
        // x (0) or y (1) of a load of the launch id, or null.
        const launchAxis = (id: number): number | null => {
          const extract = def(id);
          if (extract?.opcode !== Op.CompositeExtract) return null;
          const load = def(extract.words[3]!);
          return load?.opcode === Op.Load && builtIns.get(load.words[3]!) === BuiltIn.LaunchIdKHR ? extract.words[4]! : null;
        };
        const reductions = body.filter((i) => i.opcode === Op.GroupNonUniformUMin || i.opcode === Op.GroupNonUniformUMax);
        if (config === 'per invocation') {
          assert.equal(reductions.length, 0, where);
          assert.ok(body.some((i) => i.opcode === Op.Load && builtIns.get(i.words[3]!) === BuiltIn.LaunchIdKHR), `${where}: reads its launch id`);
        } else {
          const seen = reductions.map((r) => `${r.opcode === Op.GroupNonUniformUMin ? 'min' : 'max'} ${launchAxis(r.words[5]!) === 0 ? 'x' : launchAxis(r.words[5]!) === 1 ? 'y' : '?'}`).sort();
          assert.deepEqual(seen, ['max x', 'max y', 'min x', 'min y'], where);
          assert.ok(reductions.every((r) => r.words[4] === GroupOperation.Reduce), where);
          assert.ok(editor.hasCapability(Capability.GroupNonUniformArithmetic), where);
        }
        // The POSITION flag, or 0, into the packed ids.
        const flag = (RecordFlag.POSITION << PackedIds.FLAGS_SHIFT) >>> 0;
        assert.ok(body.some((i) => i.opcode === Op.Select && constants.get(i.words[4]!) === flag && constants.get(i.words[5]!) === 0), `${where}: the flag`);
        entries++;
      }
    }
  }
  assert.ok(entries >= 150, `${entries} entry points`);
});
