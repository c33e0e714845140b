// Marks (`--marks trace,loops`, instrument/passes/marks.ts) on the whole corpus: every output
// passes spirv-val, the calls sit where they should (loop headers and merge blocks after their
// OpPhis, right around trace calls, outside a reorder point's record and restart), with --blocks
// too; without the option nothing changes. And the GLSL library's wtMark compiles in every stage.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeString, parseSpirv, type Instruction } from '../../instrument/model/binary.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { Op } from '../../instrument/model/spec.js';
import { FlagError, optionsFromFlags } from '../../instrument/cli-options.js';
import { MARK_FUNCTION, TRACE_OPS } from '../../instrument/passes/marks.js';
import { MARK_KIND_SHIFT, MARK_SITE_MASK, MarkKind } from '../../shared-schema/mark-layout.js';
import { NVIDIA_PROFILE, traceDefines } from '../../capture/capture-run/shaders.js';
import { compileCorpus, legacy, pool, spirvVal, validationEnv, workDir, type CorpusModule } from './spirv-tools.js';
import { repoPath } from './paths.js';

const run = promisify(execFile);
let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const withMarks = (options: InstrumentOptions, blocks = false): InstrumentOptions => ({ ...options, marks: ['trace', 'loops'], blocks });

test('every corpus module with --marks trace,loops passes spirv-val (nvidia, lavapipe, legacy modes, with --blocks)', async () => {
  const configs: [string, InstrumentOptions, (m: CorpusModule) => boolean][] = [
    ['nvidia', withMarks(targetOptions('nvidia')), () => true],
    ['lavapipe', withMarks(targetOptions('lavapipe')), () => true],
    ['khr-ballot', withMarks({ ...targetOptions('nvidia'), legacySubgroup: 'khr-ballot' }), legacy],
    ['per-invocation', withMarks({ ...targetOptions('nvidia'), legacySubgroup: 'per-invocation' }), legacy],
    ['nvidia --blocks', withMarks(targetOptions('nvidia'), true), () => true],
    ['lavapipe --blocks', withMarks(targetOptions('lavapipe'), true), () => true],
    ['device clock', withMarks({ ...targetOptions('nvidia'), subgroupClock: false }), () => true],
  ];
  const bad: string[] = [];
  let checked = 0;
  for (const [name, options, picks] of configs) {
    const modules = corpus.filter(picks);
    const errors = await pool(modules, 2, async (m) => {
      const out = instrumentSpirv(m.bytes, options);
      return [m.id, await spirvVal(out.bytes, validationEnv(out.outputVersion))] as const;
    });
    checked += modules.length;
    for (const [id, error] of errors) if (error !== null) bad.push(`${id} [${name}]: ${error}`);
  }
  assert.ok(checked > 600, `${checked} module x config pairs`);
  assert.deepEqual(bad, []);
});

test('without --marks the output is the same bytes as before the option existed', () => {
  for (const m of corpus) {
    for (const options of [targetOptions('nvidia'), targetOptions('lavapipe'), { ...targetOptions('nvidia'), blocks: true }]) {
      const plain = instrumentSpirv(m.bytes, options);
      const off = instrumentSpirv(m.bytes, { ...options, marks: [] });
      assert.deepEqual(off.bytes, plain.bytes, m.id);
      assert.equal(nameIds(new ModuleEditor(parseSpirv(plain.bytes)), MARK_FUNCTION).size, 0, m.id);
    }
  }
});

test('loop headers, loop exits and trace calls call the mark function with their kind and site, numbered in module order', () => {
  let loops = 0;
  let traces = 0;
  for (const m of corpus) {
    for (const blocks of [false, true]) {
      const out = instrumentSpirv(m.bytes, withMarks(targetOptions('nvidia'), blocks));
      const editor = new ModuleEditor(parseSpirv(out.bytes));
      const marks = nameIds(editor, MARK_FUNCTION);
      const markId = (i: Instruction) => (i.opcode === Op.FunctionCall && marks.has(i.words[3]!) ? constantValue(editor, i.words[4]!) : null);
      const calls = new Map<number, number>();
      const section = parseFunctions(editor.section(Section.Function));
      const loopSites: number[] = [];
      const traceSites: number[] = [];
      for (const f of section.functions) {
        const byLabel = new Map(f.blocks.map((b) => [b.label, b]));
        for (const b of f.blocks) {
          for (const i of b.body) {
            const id = markId(i);
            if (id !== null) calls.set(id, (calls.get(id) ?? 0) + 1);
          }
          const merge = b.body.find((i) => i.opcode === Op.LoopMerge);
          if (merge !== undefined) {
            const head = firstOwn(b.body, blocks);
            const site = (markId(head) ?? 0) & MARK_SITE_MASK;
            assert.equal(markId(head), kindSite(MarkKind.LOOP_HEAD, site), `${m.id}: loop header %${b.label} marks first`);
            loopSites.push(site);
            assert.equal(markId(firstOwn(byLabel.get(merge.words[1]!)!.body, blocks)), kindSite(MarkKind.LOOP_EXIT, site), `${m.id}: merge block of loop ${site}`);
          }
          b.body.forEach((i, at) => {
            if (!TRACE_OPS.has(i.opcode)) return;
            const before = markId(b.body[at - 1]!) ?? markId(b.body[at - 2]!);
            const after = markId(b.body[at + 1]!) ?? markId(b.body[at + 2]!);
            const site = (before ?? 0) & MARK_SITE_MASK;
            assert.equal(before, kindSite(MarkKind.BEFORE_TRACE, site), `${m.id}: a mark right before the trace`);
            assert.equal(after, kindSite(MarkKind.AFTER_TRACE, site), `${m.id}: a mark right after the trace`);
            traceSites.push(site);
          });
        }
      }
      assert.deepEqual([...loopSites].sort((a, b) => a - b), loopSites.map((_, i) => i), `${m.id}: loops 0..${loopSites.length - 1}`);
      assert.deepEqual([...traceSites].sort((a, b) => a - b), traceSites.map((_, i) => i), `${m.id}: trace sites 0..${traceSites.length - 1}`);
      // Nothing else calls it, and each site once.
      assert.equal([...calls.values()].reduce((a, b) => a + b, 0), 2 * (loopSites.length + traceSites.length), m.id);
      assert.ok([...calls.values()].every((n) => n === 1), m.id);
      assert.equal(countOps(m.bytes, Op.LoopMerge), loopSites.length, `${m.id}: every loop of the source`);
      if (!blocks) (loops += loopSites.length), (traces += traceSites.length);
    }
  }
  assert.ok(loops > 50 && traces >= 6, `${loops} loops, ${traces} trace calls`);
});

test('--marks takes trace and loops on the command line; anything else is refused by name', () => {
  assert.deepEqual(optionsFromFlags({ marks: 'loops,trace' }).marks, ['trace', 'loops']);
  assert.deepEqual(optionsFromFlags({ marks: 'loops' }).marks, ['loops']);
  assert.deepEqual(optionsFromFlags({}).marks, []);
  assert.throws(() => optionsFromFlags({ marks: 'loops,calls' }), (e: unknown) => e instanceof FlagError && /--marks takes trace, loops .*"calls"/.test(e.message));
  assert.throws(() => instrumentSpirv(corpus[0]!.bytes, { ...targetOptions('nvidia'), marks: ['blocks' as 'trace'] }), /marks: "blocks" is no mark site/);
});

test('the GLSL library: wtMark compiles in every stage, per warp and per invocation, and compiles to nothing without WT_ENABLE', async () => {
  const bodies: Record<string, [string, string, string]> = {
    vert: ['', 'gl_Position = vec4(0.0);', 'VS'],
    tesc: ['layout(vertices = 3) out;', 'gl_TessLevelOuter[0] = 1.0;', 'TCS'],
    tese: ['layout(triangles) in;', 'gl_Position = vec4(0.0);', 'TES'],
    geom: ['layout(points) in; layout(points, max_vertices = 1) out;', 'EmitVertex();', 'GS'],
    frag: ['layout(location = 0) out vec4 color;', 'color = vec4(1.0);', 'FS'],
    comp: ['layout(local_size_x = 64) in;', '', 'CS'],
    rgen: ['#extension GL_EXT_ray_tracing : require\nlayout(location = 0) rayPayloadEXT vec4 payload;\nlayout(set = 0, binding = 0) uniform accelerationStructureEXT scene;', 'traceRayEXT(scene, 0u, 255u, 0u, 1u, 0u, vec3(0.0), 0.001, vec3(0.0, 0.0, 1.0), 100.0, 0);', 'RAYGEN'],
  };
  const source = (pre: string, body: string, marks: boolean) =>
    `#version 460\n#extension GL_GOOGLE_include_directive : require\n#include "warptrace.glsl"\n${pre}\nvoid main() {\n  wtBegin();\n${marks ? '  wtMark(1u);\n  for (int i = 0; i < 20; i++) wtMark(2u + uint(i));\n' : ''}  ${body}\n  wtEnd(0u, 0u);\n}\n`;
  const compile = async (name: string, text: string, defines: readonly string[]) => {
    const input = join(workDir, name);
    writeFileSync(input, text);
    await run('glslangValidator', ['-V', '--target-env', 'vulkan1.2', `-I${repoPath('capture/shaders')}`, ...defines, input, '-o', `${input}.spv`]);
    return new Uint8Array((await import('node:fs')).readFileSync(`${input}.spv`));
  };
  for (const [ext, [pre, body, stage]] of Object.entries(bodies)) {
    for (const subgroups of [true, false]) {
      const profile = { ...NVIDIA_PROFILE, smBuiltins: subgroups, subgroupStages: subgroups ? NVIDIA_PROFILE.subgroupStages : [] };
      const spv = await compile(`marks-${subgroups}.${ext}`, source(pre, body, true), traceDefines(profile, stage as 'VS'));
      assert.equal(await spirvVal(spv, 'vulkan1.2'), null, `${ext} subgroups=${subgroups}`);
      assert.ok(countOps(spv, Op.AtomicIAdd) >= 2, `${ext}: the mark's atomic beside the record's`);
    }
    const plainWith = await compile(`plain-marks.${ext}`, source(pre, body, true), []);
    const plainWithout = await compile(`plain.${ext}`, source(pre, body, false), []);
    assert.equal(countOps(plainWith, Op.AtomicIAdd), 0, `${ext}: nothing without WT_ENABLE`);
    assert.equal(countOps(plainWith, Op.LoopMerge), countOps(plainWithout, Op.LoopMerge) + 1, `${ext}: only the (empty) loop stays`);
  }
});

function kindSite(kind: number, site: number): number {
  return ((kind << MARK_KIND_SHIFT) | site) >>> 0;
}

/** The block's first instruction past its OpPhis (and, with --blocks, the block call). */
function firstOwn(body: readonly Instruction[], blocks: boolean): Instruction {
  const at = body.findIndex((i) => i.opcode !== Op.Phi && i.opcode !== Op.Line && i.opcode !== Op.NoLine);
  return body[at + (blocks ? 1 : 0)]!;
}

function countOps(bytes: Uint8Array, opcode: number): number {
  const words = new Uint32Array(bytes.slice().buffer);
  let n = 0;
  for (let at = 5; at < words.length; at += words[at]! >>> 16) if ((words[at]! & 0xffff) === opcode) n++;
  return n;
}

function nameIds(editor: ModuleEditor, name: string): Set<number> {
  const ids = new Set<number>();
  for (const inst of editor.section(Section.DebugName)) if (inst.opcode === Op.Name && decodeString(inst.words, 2).value === name) ids.add(inst.words[1]!);
  return ids;
}

function constantValue(editor: ModuleEditor, id: number): number {
  const def = editor.globalDef(id);
  assert.equal(def?.opcode, Op.Constant, `%${id} is an OpConstant`);
  return def!.words[3]!;
}
