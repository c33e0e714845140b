// Screen positions of ray-tracing warps, run: lavapipe has no ray-tracing pipelines, so the wrappers the
// instrumenter gives every ray-tracing entry point (ray generation, intersection, any-hit, closest-hit, miss,
// callable; KHR and NV; one module per stage and a linked pipeline) run in the interpreter, one warp of lanes
// at a time (spirv-warp.ts), with the application's own entry point stubbed (what it computes is not the
// record's). The record each warp leaves is read with shared-schema's layout, and its position word must be
// shared-schema's packPosition of the box of the launch ids the warp's lanes ran with: hit and miss warps
// gather lanes from rays of pixels far apart (a box past 128 px), partial warps, one lane; no position past
// 8190 or on a 64-lane subgroup (word 3 holds lanes 32..63); one record per invocation with its own pixel
// without subgroup operations; none with --position none, nothing for an untraced draw.
import { DRAW_ID_WORDS_WITH_SAMPLING } from '../../shared-schema/sample-layout.js';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor } from '../../instrument/model/module.js';
import { parseSpirv } from '../../instrument/model/binary.js';
import { STAGE_OF_EXECUTION_MODEL } from '../../instrument/model/execution-models.js';
import { BuiltIn } from '../../instrument/model/spec.js';
import { RAY_TRACING_STAGES, targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { UNTRACED_DRAW } from '../../instrument/passes/record-wrapper.js';
import { BUFFER_HEADER_BYTES, BufferWord, NO_POSITION, PackedIds, RECORD_WORDS, RecordFlag, RecordWord, Stage, packPosition } from '../../shared-schema/index.js';
import { compileCorpusFile, pool, spirvLink, workDir } from './spirv-tools.js';
import { SpirvInterpreter } from './spirv-interpreter.js';
import { runWarp, type Lane } from './spirv-warp.js';
import { repoPath } from './paths.js';

const run = promisify(execFile);
const HEADER_WORDS = BUFFER_HEADER_BYTES / 4;
const DRAW = 7;

interface RayModule {
  readonly id: string;
  readonly bytes: Uint8Array;
}

let modules: RayModule[] = [];
before(async () => {
  // The reference workloads' shaders without the GLSL library's records, and the corpus's (NV any-hit, callable).
  const workloads = ['rt.rgen', 'rt_reorder.rgen', 'rt.rahit', 'rt.rchit', 'rt_sphere.rchit', 'rt.rmiss', 'rt_shadow.rmiss', 'rt.rint'];
  const fromWorkloads = await pool(workloads, 2, async (source) => {
    const out = join(workDir, `position-run-${source}.spv`);
    await run('glslangValidator', ['-V', '--target-env', 'vulkan1.2', `-I${repoPath('capture', 'shaders')}`, repoPath('capture', 'workloads', 'shaders', source), '-o', out]);
    return { id: `workload ${source}`, bytes: new Uint8Array(readFileSync(out)) };
  });
  const corpus = ['scene.rgen', 'cutout.rahit', 'nv.rahit', 'shade.rchit', 'sky.rmiss', 'sphere.rint', 'tint.rcall'];
  const fromCorpus = await Promise.all(corpus.map(async (source) => ({ id: source, bytes: await compileCorpusFile(source, 'vulkan1.2', []) })));
  const linkedParts = ['scene.rgen', 'sky.rmiss', 'shade.rchit', 'cutout.rahit', 'sphere.rint', 'tint.rcall'].map((s) => fromCorpus.find((m) => m.id === s)!.bytes);
  modules = [...fromWorkloads, ...fromCorpus, { id: 'linked pipeline', bytes: await spirvLink(linkedParts, 'vulkan1.2') }];
});

/** One ray-tracing entry point of an instrumented module, ready to run. */
interface Entry {
  readonly where: string;
  readonly stage: (typeof RAY_TRACING_STAGES)[number];
  readonly gpu: SpirvInterpreter;
  readonly wrapper: number;
  /** The application's entry point, stubbed. */
  readonly original: number;
}

function entries(m: RayModule, options: InstrumentOptions): Entry[] {
  const out = instrumentSpirv(m.bytes, options).bytes;
  const gpu = new SpirvInterpreter(out, 'warptrace_buffer', 'warptrace_draw', HEADER_WORDS, 4);
  const plain = new ModuleEditor(parseSpirv(m.bytes)).entryPoints();
  return new ModuleEditor(parseSpirv(out)).entryPoints().map((e, k) => {
    const stage = STAGE_OF_EXECUTION_MODEL.get(e.executionModel)! as Entry['stage'];
    return { where: `${m.id} ${stage} "${e.name}"`, stage, gpu, wrapper: e.functionId, original: plain[k]!.functionId };
  });
}

type Pixel = readonly [number, number];
const LAUNCH = [1280, 720, 1] as const;

/** Lanes at these subgroup indices, working for these launch pixels (primitive id 100 + index). */
function lanes(indices: readonly number[], pixels: readonly Pixel[], subgroupSize = 32, launch: readonly number[] = LAUNCH): Lane[] {
  return indices.map((index, k) => ({
    index,
    inputs: new Map<number, number | readonly number[]>([
      [BuiltIn.LaunchIdKHR, [pixels[k]![0], pixels[k]![1], 0]],
      [BuiltIn.LaunchSizeKHR, launch],
      [BuiltIn.PrimitiveId, 100 + index],
      [BuiltIn.SubgroupSize, subgroupSize],
      [BuiltIn.SMIDNV, 3],
      [BuiltIn.WarpIDNV, 5],
    ]),
  }));
}

/** Runs the warp on a fresh trace buffer of `capacity` records; the records it left. */
function records(e: Entry, warp: readonly Lane[], drawId = DRAW, capacity = 64): Uint32Array[] {
  const buffer = new Uint32Array(HEADER_WORDS + capacity * RECORD_WORDS);
  // The draw-id block's 12 words: the sampling rates 0, every warp records.
  const uniform = new Uint32Array(DRAW_ID_WORDS_WITH_SAMPLING);
  uniform[0] = drawId;
  runWarp(e.gpu, { buffer, uniform }, e.wrapper, warp, new Set([e.original]));
  const count = buffer[BufferWord.COUNT]!;
  return Array.from({ length: count }, (_, k) => buffer.subarray(HEADER_WORDS + k * RECORD_WORDS, HEADER_WORDS + (k + 1) * RECORD_WORDS));
}

const flagsOf = (r: Uint32Array) => r[RecordWord.PACKED_IDS]! >>> PackedIds.FLAGS_SHIFT;
const stageOf = (r: Uint32Array) => (r[RecordWord.PACKED_IDS]! >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
const maskOf = (indices: readonly number[], half: 0 | 1) => indices.filter((i) => i >> 5 === half).reduce((m, i) => (m | (1 << (i & 31))) >>> 0, 0);

/** The box of the pixels as shared-schema packs it. */
function boxOf(pixels: readonly Pixel[]): number {
  const xs = pixels.map((p) => p[0]);
  const ys = pixels.map((p) => p[1]);
  return packPosition(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys));
}

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('every ray-tracing stage: the record\'s position is the box of the launch ids its lanes ran with, flagged', () => {
  const next = random(11);
  const pixel = (w: number, h: number, x0 = 0, y0 = 0): Pixel => [x0 + Math.floor(next() * w), y0 + Math.floor(next() * h)];
  const all = Array.from({ length: 32 }, (_, i) => i);
  const stages = new Set<string>();
  let wide = 0;
  for (const m of modules) {
    for (const e of entries(m, targetOptions('nvidia'))) {
      stages.add(e.stage);
      const cases: [string, number[], Pixel[]][] = [
        // A hit or miss warp of rays from all over the launch: past 128 px, the box is cut at 128 from its corner.
        ['32 lanes from far apart', all, all.map(() => pixel(1280, 720))],
        ['a ray-generation tile', all, all.map((i) => [64 + (i & 7), 200 + (i >> 3)] as const)],
        ['9 lanes of 32, nearby', [0, 3, 4, 9, 17, 22, 25, 30, 31], Array.from({ length: 9 }, () => pixel(40, 5, 13, 7))],
        ['one lane', [12], [[1279, 719]]],
        ['lanes 5 and 31 at the limit', [5, 31], [[8190, 0], [8190, 8190]]],
      ];
      for (const [what, indices, pixels] of cases) {
        const where = `${e.where}, ${what}`;
        const launch = what.includes('limit') ? [8191, 8191, 1] : LAUNCH;
        const [r, ...more] = records(e, lanes(indices, pixels, 32, launch));
        assert.ok(r !== undefined && more.length === 0, `${where}: one record`);
        const box = boxOf(pixels);
        assert.notEqual(box, NO_POSITION, where);
        assert.equal(r[RecordWord.POSITION], box, `${where}: position`);
        assert.equal(flagsOf(r) & RecordFlag.POSITION, RecordFlag.POSITION, `${where}: flag`);
        assert.equal(stageOf(r), Stage[e.stage], where);
        assert.equal(r[RecordWord.ACTIVE_MASK_LO], maskOf(indices, 0), `${where}: its lanes`);
        assert.equal(r[RecordWord.DRAW_ID], DRAW, where);
        // The custom id is the lowest lane's (primitive id, or the flattened launch id).
        const low = indices.indexOf(Math.min(...indices));
        const launchIndex = pixels[low]![0] + launch[0]! * pixels[low]![1];
        assert.equal(r[RecordWord.CUSTOM_ID], ['CLOSEST_HIT', 'ANY_HIT', 'INTERSECTION'].includes(e.stage) ? 100 + indices[low]! : launchIndex, `${where}: custom id`);
        if (((box >>> 26) & 7) === 7) wide++;
      }
    }
  }
  assert.deepEqual([...stages].sort(), [...RAY_TRACING_STAGES].sort());
  assert.ok(wide >= modules.length, `${wide} boxes 128 px wide`);
});

test('no position where it does not fit: lanes past x 8190, a 64-lane subgroup (word 3 holds lanes 32..63)', () => {
  for (const m of modules) {
    for (const e of entries(m, targetOptions('nvidia'))) {
      const [past] = records(e, lanes([0, 1], [[8191, 10], [8200, 20]], 32, [9000, 100, 1]));
      assert.equal(flagsOf(past!) & RecordFlag.POSITION, 0, `${e.where}: past 8190`);
      assert.equal(past![RecordWord.POSITION], 0, `${e.where}: word 3 is the mask's high half`);
      const wide = [0, 7, 31, 32, 40, 63];
      const [r] = records(e, lanes(wide, wide.map((i) => [i, i] as const), 64));
      assert.equal(flagsOf(r!) & RecordFlag.POSITION, 0, `${e.where}: 64 lanes`);
      assert.deepEqual([r![RecordWord.ACTIVE_MASK_LO], r![RecordWord.ACTIVE_MASK_HI]], [maskOf(wide, 0), maskOf(wide, 1)], `${e.where}: lanes 32..63 in word 3`);
    }
  }
});

test('one record per invocation without subgroup operations, each with its own pixel; none with --position none; nothing for an untraced draw', () => {
  const pixels: Pixel[] = [[3, 4], [900, 700], [17, 0]];
  for (const m of modules) {
    for (const e of entries(m, { ...targetOptions('nvidia'), subgroupStages: [] })) {
      const rs = records(e, lanes([0, 1, 2], pixels));
      assert.deepEqual(
        rs.map((r) => [r[RecordWord.POSITION], flagsOf(r) & (RecordFlag.POSITION | RecordFlag.PER_INVOCATION), r[RecordWord.ACTIVE_MASK_LO]]),
        pixels.map((p) => [packPosition(p[0], p[1], p[0], p[1]), RecordFlag.POSITION | RecordFlag.PER_INVOCATION, 1]),
        e.where,
      );
    }
    for (const e of entries(m, { ...targetOptions('nvidia'), positionStages: [] })) {
      const [r] = records(e, lanes([0, 1, 2], pixels));
      assert.deepEqual([flagsOf(r!) & RecordFlag.POSITION, r![RecordWord.POSITION], r![RecordWord.ACTIVE_MASK_LO]], [0, 0, 0b111], e.where);
    }
    for (const e of entries(m, targetOptions('nvidia'))) assert.equal(records(e, lanes([0, 1], pixels), UNTRACED_DRAW).length, 0, e.where);
  }
});
