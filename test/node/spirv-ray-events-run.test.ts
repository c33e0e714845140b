// Ray events (`--ray-events`) run: lavapipe has no ray-tracing pipelines, so the functions the instrumenter
// emits are run by a small interpreter (spirv-interpreter.ts), invocation by invocation, the way a GPU calls
// them during a launch (ray-event-gpu.ts plays the traversals), and the table they leave is compared word for
// word with the one the contract (shared-schema/ray-event-layout.ts, README "Ray events") defines: each event
// in its pixel's cell, the binning at every scale, dropped and uncounted work, the row headers, useless any-hits
// as accepted hits that were not committed (exact with a closest hit), and the scratch entries as they were.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { NO_RAY_ROW, RAY_EVENT_HEADER_WORDS, RayCellWord, RayEventHeaderWord, RayRowHeaderWord, rayCellGrid } from '../../shared-schema/ray-event-layout.js';
import { compileCorpusFile, compileGlsl, spirvLink } from './spirv-tools.js';
import { FOG_RMISS, REFLECT_RCHIT } from './ray-event-shaders.js';
import { SpirvInterpreter } from './spirv-interpreter.js';
import { PlayedLaunch, TRACED_DRAW, UNTRACED, cellWord, hostTable, rowHeaderWord, type Candidate, type RayStage, type Traversal, type Vec3 } from './ray-event-gpu.js';

// Corpus files, and (closest hit and miss) shaders that trace rays of their own.
const SOURCES: Readonly<Record<RayStage, string | readonly [string, string]>> = {
  RAYGEN: 'scene.rgen',
  MISS: [FOG_RMISS, 'rmiss'],
  CLOSEST_HIT: [REFLECT_RCHIT, 'rchit'],
  ANY_HIT: 'cutout.rahit',
  INTERSECTION: 'sphere.rint',
  CALLABLE: 'tint.rcall',
};
const STAGES = Object.keys(SOURCES) as RayStage[];
const compile = (source: string | readonly [string, string]) => (typeof source === 'string' ? compileCorpusFile(source, 'vulkan1.2', []) : compileGlsl(source[0], source[1], 'vulkan1.2'));
const withEverything: InstrumentOptions = { ...targetOptions('nvidia'), rayEvents: true, blocks: true, marks: ['trace', 'loops'] };

const interpreter = (bytes: Uint8Array) => new SpirvInterpreter(instrumentSpirv(bytes, withEverything).bytes, 'warptrace_ray_events', 'warptrace_draw', RAY_EVENT_HEADER_WORDS);
/** One module per stage, as a pipeline's stages are compiled; and the six linked into one. */
let perStage: Record<RayStage, SpirvInterpreter>;
let linked: SpirvInterpreter;
let reorder: SpirvInterpreter;
before(async () => {
  const spirv = await Promise.all(STAGES.map((s) => compile(SOURCES[s])));
  perStage = Object.fromEntries(STAGES.map((s, i) => [s, interpreter(spirv[i]!)])) as Record<RayStage, SpirvInterpreter>;
  linked = interpreter(await spirvLink(spirv, 'vulkan1.2'));
  reorder = interpreter(await compileCorpusFile('reorder.rgen', 'vulkan1.2', []));
});

/** A deterministic generator (mulberry32): the same traversals on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function traversal(next: () => number, depth: number): Traversal {
  const candidates: Candidate[] = [];
  // Distinct hit distances: equal ones are the method's known blind spot (a closest hit at the last accepted t).
  const ts = new Set<number>();
  for (let k = Math.floor(next() * 6); k > 0; k--) {
    let t = 1 + Math.floor(next() * 400) / 4;
    while (ts.has(t)) t += 0.25;
    ts.add(t);
    const r = next();
    candidates.push({ t, opaque: next() < 0.25, procedural: next() < 0.3, anyHit: r < 0.5 ? 'accept' : r < 0.9 ? 'ignore' : 'terminate' });
  }
  const nested = depth < 2 && next() < 0.3 ? traversal(next, depth + 1) : null;
  return { candidates, closestHit: next() < 0.8, callable: next() < 0.3, nested };
}

function pixels([w, h, d]: Vec3): Vec3[] {
  const out: Vec3[] = [];
  for (let z = 0; z < d; z++) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out.push([x, y, z]);
  return out;
}

/** Fails at the first word that differs, naming its place in the table. */
function assertSameTable(actual: Uint32Array, expected: Uint32Array, what: string): void {
  const at = actual.findIndex((v, i) => v !== expected[i]);
  if (at < 0) return;
  const cells = expected[RayEventHeaderWord.CELLS]!;
  const rows = expected[RayEventHeaderWord.ROWS]!;
  const rowHeaders = RAY_EVENT_HEADER_WORDS + rows * 8;
  const where = at < RAY_EVENT_HEADER_WORDS ? `header word ${at}` : at < rowHeaders ? `row ${(at - RAY_EVENT_HEADER_WORDS) >> 3} header word ${(at - RAY_EVENT_HEADER_WORDS) & 7}` : at < rowHeaders + rows * cells * 8 ? `cell ${(at - rowHeaders) >> 3} word ${(at - rowHeaders) & 7}` : `scratch word ${at - rowHeaders - rows * cells * 8}`;
  assert.fail(`${what}: ${where} (table word ${at}) is ${actual[at]}, expected ${expected[at]}`);
}

const sum = (table: Uint32Array, row: number, cells: number, word: number) => Array.from({ length: cells }, (_, c) => table[cellWord(table, row, c, word)]!).reduce((a, b) => a + b, 0);

for (const layout of ['one module per stage', 'a linked pipeline'] as const) {
  test(`random traversals (${layout}): every event in its pixel's cell, useless any-hits, dropped and uncounted work, the launch headers, the scratch restored`, () => {
    const shaders = (stage: RayStage) => (layout === 'a linked pipeline' ? linked : perStage[stage]);
    const host = hostTable(100, 3, 600);
    const [actual, expected] = [host.slice(), host.slice()];
    const next = random(layout === 'a linked pipeline' ? 7 : 3);
    const launches: [Vec3, number, number][] = [
      [[37, 23, 1], TRACED_DRAW, 0], // 851 pixels: binned 4 × 4 into 10 × 6 cells; pixels from 600 on have no scratch entry
      [[5, 4, 3], TRACED_DRAW, 1], // three layers of 20 cells
      [[7, 3, 1], TRACED_DRAW, 5], // a row past ROWS: dropped
      [[6, 2, 1], TRACED_DRAW, NO_RAY_ROW], // unprofiled: nothing
      [[6, 2, 1], UNTRACED, 2], // an untraced draw: nothing
      [[37, 23, 1], TRACED_DRAW, 0], // the same call in another frame: the row sums both
    ];
    for (const [size, drawId, row] of launches) {
      const launch = new PlayedLaunch(shaders, actual, expected, size, drawId, row);
      for (const id of pixels(size)) launch.rayGeneration(id, Array.from({ length: Math.floor(next() * 3) }, () => traversal(next, 1)));
    }
    assertSameTable(actual, expected, layout);
    // The launches did what they were meant to (else the comparison above proves little).
    assert.equal(rayCellGrid(37, 23, 1, 100)?.scale, 2);
    assert.equal(expected[rowHeaderWord(0, RayRowHeaderWord.LAUNCHES)], 2);
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((w) => expected[rowHeaderWord(0, w)]), [37, 23, 1, 37, 23, 1]);
    assert.equal(expected[rowHeaderWord(2, RayRowHeaderWord.LAUNCHES)], 0, 'nothing from the untraced draw');
    for (const word of Object.values(RayCellWord)) assert.ok(sum(expected, 0, 60, word) > 0, `row 0 has events of word ${word}`);
    assert.ok(sum(expected, 0, 60, RayCellWord.USELESS_ANY_HITS) > 10);
    assert.ok(expected[RayEventHeaderWord.DROPPED]! > 0 && expected[RayEventHeaderWord.UNCOUNTED_TRAVERSALS]! > 0);
  });
}

test('binning: a launch bins 2^scale × 2^scale pixels per cell at the smallest scale that fits, 0 to 7; one fitting none is dropped', () => {
  const cases: [Vec3, number][] = [
    [[3, 2, 2], 12],
    [[5, 3, 1], 6],
    [[9, 4, 1], 3],
    [[17, 9, 1], 6],
    [[33, 16, 1], 3],
    [[65, 2, 2], 6],
    [[129, 1, 1], 3],
    [[257, 1, 1], 3],
    [[257, 1, 1], 2],
    [[1, 1, 5], 4],
  ];
  assert.deepEqual(
    cases.map(([[w, h, d], cells]) => rayCellGrid(w, h, d, cells)?.scale ?? null),
    [0, 1, 2, 3, 4, 5, 6, 7, null, null],
  );
  for (const [size, cells] of cases) {
    const host = hostTable(cells, 1, 0);
    const [actual, expected] = [host.slice(), host.slice()];
    const launch = new PlayedLaunch((stage) => perStage[stage], actual, expected, size, TRACED_DRAW, 0);
    // One ray each that misses: TRACE_CALLS and MISSES in the pixel's cell, no scratch entry (uncounted).
    for (const id of pixels(size)) launch.rayGeneration(id, [{ candidates: [], closestHit: true, callable: false, nested: null }]);
    assertSameTable(actual, expected, `${size.join('×')} in ${cells} cells`);
    const grid = rayCellGrid(...size, cells);
    const n = size[0] * size[1] * size[2];
    if (grid === null) assert.equal(expected[RayEventHeaderWord.DROPPED], 2 * n, 'two events per pixel dropped');
    else assert.equal(sum(expected, 0, cells, RayCellWord.MISSES), n);
  }
});

test('a closest hit tracing its own ray: the inner traversal keeps the outer one\'s scratch entry (1 + 2 useless any-hits)', () => {
  const host = hostTable(4, 1, 4);
  const [actual, expected] = [host.slice(), host.slice()];
  const hit = (t: number): Candidate => ({ t, opaque: false, procedural: false, anyHit: 'accept' });
  // Inner: three accepted hits, the last (t 7) committed: 2 useless. Outer: 5 then 3 accepted, 3 committed: 1 useless.
  const inner: Traversal = { candidates: [hit(9), hit(8), hit(7)], closestHit: true, callable: false, nested: null };
  const outer: Traversal = { candidates: [hit(5), hit(3)], closestHit: true, callable: false, nested: inner };
  new PlayedLaunch((stage) => perStage[stage], actual, expected, [1, 1, 1], TRACED_DRAW, 0).rayGeneration([0, 0, 0], [outer]);
  assertSameTable(actual, expected, 'nested traces');
  assert.equal(actual[cellWord(actual, 0, 0, RayCellWord.USELESS_ANY_HITS)], 3);
  assert.equal(actual[cellWord(actual, 0, 0, RayCellWord.ANY_HITS)], 5);
  assert.equal(actual[cellWord(actual, 0, 0, RayCellWord.TRACE_CALLS)], 2);
});

test('without a closest hit every accepted any-hit but the last is useless (the contract\'s lower bound); an opaque closer hit makes all useless', () => {
  const accept = (t: number, opaque = false): Candidate => ({ t, opaque, procedural: false, anyHit: 'accept' });
  const cases: [Traversal, number][] = [
    [{ candidates: [accept(9), accept(8), accept(7)], closestHit: false, callable: false, nested: null }, 2],
    [{ candidates: [accept(9), accept(8), accept(2, true)], closestHit: true, callable: false, nested: null }, 2],
    [{ candidates: [accept(9), { t: 8, opaque: false, procedural: false, anyHit: 'terminate' }, accept(1)], closestHit: true, callable: false, nested: null }, 1],
    [{ candidates: [{ t: 4, opaque: false, procedural: true, anyHit: 'ignore' }], closestHit: true, callable: false, nested: null }, 0],
  ];
  for (const [trace, useless] of cases) {
    const host = hostTable(1, 1, 1);
    const [actual, expected] = [host.slice(), host.slice()];
    new PlayedLaunch((stage) => perStage[stage], actual, expected, [1, 1, 1], TRACED_DRAW, 0).rayGeneration([0, 0, 0], [trace]);
    assertSameTable(actual, expected, JSON.stringify(trace));
    assert.equal(actual[cellWord(actual, 0, 0, RayCellWord.USELESS_ANY_HITS)], useless, JSON.stringify(trace));
  }
});

test('other trace instructions (hit-object traces) count the call and an uncounted traversal, and keep the scratch entry', () => {
  // Scratch entries for pixels 0 and 1: pixel (0,0) has one, pixel (1,1) (index 3) has none.
  const host = hostTable(2, 1, 2);
  for (const [id, hasEntry] of [[[0, 0, 0], true], [[1, 1, 0], false]] as const) {
    const actual = host.slice();
    const memory = { buffer: actual, uniform: Uint32Array.of(TRACED_DRAW, 0, 0) };
    const privates = reorder.invocation();
    reorder.call(memory, privates, 'warptrace_ray_pixel', id, [2, 2, 1]);
    const scratch = RAY_EVENT_HEADER_WORDS + 8 + 2 * 8;
    const before = actual.slice(scratch, scratch + 4);
    const saved = reorder.call(memory, privates, 'warptrace_ray_trace_uncounted') as readonly number[];
    // The traversal's any-hits and closest hit would write the pixel's entry; restoring undoes them.
    if (hasEntry) assert.deepEqual([actual[scratch], actual[scratch + 1]], [0, 0], 'zeroed for the traversal');
    actual[scratch] = 77;
    actual[scratch + 2] = 78;
    reorder.call(memory, privates, 'warptrace_ray_scratch_restore', saved);
    // 2 × 2 pixels in 2 cells: binned 2 × 2, all in cell 0.
    assert.equal(actual[cellWord(actual, 0, 0, RayCellWord.TRACE_CALLS)], 1);
    assert.equal(actual[RayEventHeaderWord.UNCOUNTED_TRAVERSALS], 1);
    assert.deepEqual(Array.from(actual.slice(scratch, scratch + 4)), hasEntry ? [before[0], before[1], 78, before[3]] : [77, before[1], 78, before[3]]);
  }
});
