// Pure model code of the draw list and the draw track: glob matching,
// search parsing, the pass tree, packing draws into rows, label elision
// and the sortable draw table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Stage, type Trace } from '../../shared-schema/index.js';
import { findDraws, globToRegExp, parseDrawQuery, stepMatch, stepDrawIndex, wordMatcher } from '../../viewer/model/draw-search.js';
import { buildPassTree, visibleRows } from '../../viewer/model/pass-tree.js';
import { elideToWidth, packSpans } from '../../viewer/model/draw-layout.js';
import { nextSort, sortDraws, BASE_COLUMNS } from '../../viewer/model/draw-table.js';
import type { DrawSummary } from '../../analysis/summary.js';
import { DRAWS_PER_PASS, PASS_COUNT, PASS_NAMES, passFrameTrace } from './pass-frame.js';

const frame: Trace = passFrameTrace();

function spansOf(t: Trace): Float64Array {
  const s = new Float64Array(2 * t.draws.length);
  t.draws.forEach((d, i) => ((s[2 * i] = d.gpuBeginNs!), (s[2 * i + 1] = d.gpuEndNs!)));
  return s;
}

test('glob: * and ? anchored, case-insensitive, regex characters literal', () => {
  assert.ok(globToRegExp('shadow*').test('Shadows/CSM0 mesh_1'));
  assert.ok(!globToRegExp('shadow*').test('The shadows'));
  assert.ok(globToRegExp('mesh_?_rock').test('MESH_3_rock'));
  assert.ok(!globToRegExp('mesh_?_rock').test('mesh_12_rock'));
  assert.ok(globToRegExp('a.b(c)*').test('a.b(c)d'));
  assert.ok(!globToRegExp('a.b').test('axb'));
  assert.ok(wordMatcher('csm1').call(null, 'Shadows/CSM1 mesh'), 'plain words are substrings');
});

test('query parsing: index, range, stage, pass, kind, text; bad stages named', () => {
  const q = parseDrawQuery('  #12 #3-9 stage:fs,VS pass:Shadow* kind:dispatch tree  stage:XX ');
  assert.deepEqual(
    q.terms.map((t) => t.kind),
    ['index', 'index', 'stage', 'pass', 'draw-kind', 'text'],
  );
  assert.deepEqual(q.terms[1], { kind: 'index', from: 3, to: 9 });
  const st = q.terms[2]!;
  assert.ok(st.kind === 'stage');
  assert.deepEqual(st.stages, [Stage.FS, Stage.VS]);
  assert.deepEqual(q.errors, ['stage:XX']);
  assert.equal(parseDrawQuery('   ').terms.length, 0);
});

test('find draws on a 2 000-draw frame: glob, index, pass, stage, AND of terms', () => {
  assert.equal(frame.draws.length, PASS_COUNT * DRAWS_PER_PASS);
  assert.equal(findDraws(frame, ''), null);
  assert.deepEqual([...findDraws(frame, '#1234')!], [1234]);
  const glob = findDraws(frame, 'Shadows/CSM?*rock')!;
  assert.equal(glob.length, 4 * 34, 'k % 3 === 0 in 4 shadow passes');
  assert.ok([...glob].every((d) => /^Shadows\/CSM\d mesh_\d+_rock$/.test(frame.draws[d]!.label)));
  const pass = findDraws(frame, 'pass:Bloom')!;
  assert.equal(pass.length, DRAWS_PER_PASS);
  assert.equal(pass[0], PASS_NAMES.indexOf('Bloom') * DRAWS_PER_PASS);
  assert.equal(findDraws(frame, 'Bloom')!.length, DRAWS_PER_PASS, 'a bare word matches pass names too');
  assert.equal(findDraws(frame, 'pass:Render?Pass?#3')!.length, 25, 'nested render pass by glob');
  const tcs = findDraws(frame, 'stage:TCS')!;
  assert.equal(tcs.length, 18 * 20, 'every 5th draw of the 18 graphics passes');
  assert.equal(findDraws(frame, 'stage:CS')!.length, 2 * DRAWS_PER_PASS);
  assert.equal(findDraws(frame, 'stage:TCS pass:Bloom')!.length, 20);
  assert.equal(findDraws(frame, 'kind:dispatch #900-1000')!.length, 100, 'pass 9 is compute: draws 900-999');
});

test('stepMatch wraps and steps from outside the matches', () => {
  const m = Uint32Array.from([3, 7, 11]);
  assert.equal(stepMatch(m, -1, 1), 3);
  assert.equal(stepMatch(m, -1, -1), 11);
  assert.equal(stepMatch(m, 7, 1), 11);
  assert.equal(stepMatch(m, 11, 1), 3);
  assert.equal(stepMatch(m, 5, -1), 3);
  assert.equal(stepMatch(m, 3, -1), 11);
  assert.equal(stepMatch(new Uint32Array(0), 0, 1), -1);
});

test('pass tree: 20 top-level passes collapsed, draws under their innermost region', () => {
  const tree = buildPassTree(frame, spansOf(frame));
  const top = visibleRows(tree, new Set());
  assert.equal(top.length, PASS_COUNT);
  assert.ok(top.every((r) => r.kind === 'region' && !r.expanded && r.shown === DRAWS_PER_PASS));
  const first = top[0]!;
  assert.ok(first.kind === 'region');
  assert.equal(tree.spans[2 * first.region], 0);
  // Expand pass 0 and its Opaque child: 50 draws at depth 2.
  const rows = visibleRows(tree, new Set([0, 1]));
  const draws = rows.filter((r) => r.kind === 'draw');
  assert.equal(draws.length, 50);
  assert.ok(draws.every((r) => r.depth === 2 && frame.draws[r.draw]!.region === 1));
  assert.equal(rows.length, PASS_COUNT + 2 + 50);
  // A filter opens what holds a match and hides the rest.
  const filtered = visibleRows(tree, new Set(), (d) => d === 1990);
  assert.deepEqual(
    filtered.map((r) => (r.kind === 'draw' ? `d${r.draw}` : `r${r.region}`)),
    ['r76', 'r78', 'r79', 'd1990'],
  );
});

test('packing: rows never overlap; beyond the max, an overflow row', () => {
  const spans = spansOf(frame);
  const order = Array.from({ length: frame.draws.length }, (_, d) => d);
  const p = packSpans(spans, order, 8);
  assert.equal(p.overflowRow, -1);
  const byRow = new Map<number, number[]>();
  order.forEach((d) => byRow.set(p.row[d]!, [...(byRow.get(p.row[d]!) ?? []), d]));
  for (const [, ds] of byRow) for (let i = 1; i < ds.length; i++) assert.ok(spans[2 * ds[i]!]! >= spans[2 * ds[i - 1]! + 1]!, 'no overlap in a row');
  // 5 draws all overlapping, 3 rows: two go to the overflow row.
  const pile = Float64Array.from([0, 10, 1, 10, 2, 10, 3, 10, 4, 10]);
  const q = packSpans(pile, [0, 1, 2, 3, 4], 3);
  assert.deepEqual([...q.row], [0, 1, 2, 3, 3]);
  assert.equal(q.overflowRow, 3);
  assert.equal(q.rowCount, 4);
});

test('elideToWidth: longest prefix plus ellipsis that fits, never wider', () => {
  const measure = (s: string) => s.length * 6;
  assert.equal(elideToWidth('Shadows/CSM0 mesh', 200, measure), 'Shadows/CSM0 mesh');
  const e = elideToWidth('Shadows/CSM0 mesh', 50, measure);
  assert.equal(e, 'Shadows…');
  assert.ok(measure(e) <= 50);
  assert.equal(elideToWidth('Shadows', 8, measure), '');
});

test('draw table: sorts by span descending, nulls last, ties by index', () => {
  const d = (index: number, spanNs: number | null): DrawSummary => ({ index, label: `d${index}`, spanNs, warps: 1, firstStartNs: 0, warpTimeNs: 0, stages: [] }) as unknown as DrawSummary;
  const rows = [d(0, 5), d(1, null), d(2, 9), d(3, 5)];
  const span = BASE_COLUMNS.find((c) => c.id === 'span')!;
  const s = nextSort({ column: 'index', descending: false }, span);
  assert.deepEqual(s, { column: 'span', descending: true });
  assert.deepEqual(sortDraws(rows, s).map((r) => r.index), [2, 0, 3, 1]);
  assert.deepEqual(sortDraws(rows, nextSort(s, span)).map((r) => r.index), [0, 3, 2, 1]);
});

test('stepDrawIndex skips draws without warps, stops at the ends, and follows the matches while the find box filters', () => {
  // Draws 0..4; draws 1 and 3 have no warps (NaN spans).
  const spans = new Float64Array([0, 1, NaN, NaN, 2, 3, NaN, NaN, 4, 5]);
  assert.equal(stepDrawIndex(spans, 5, null, -1, 1), 0);
  assert.equal(stepDrawIndex(spans, 5, null, 0, 1), 2);
  assert.equal(stepDrawIndex(spans, 5, null, 2, 1), 4);
  assert.equal(stepDrawIndex(spans, 5, null, 4, 1), -1, 'past the last draw');
  assert.equal(stepDrawIndex(spans, 5, null, -1, -1), 4);
  assert.equal(stepDrawIndex(spans, 5, null, 2, -1), 0);
  assert.equal(stepDrawIndex(spans, 5, null, 0, -1), -1, 'before the first draw');
  const matches = Uint32Array.of(1, 4);
  assert.equal(stepDrawIndex(spans, 5, matches, 1, 1), 4);
  assert.equal(stepDrawIndex(spans, 5, matches, 4, 1), 1, 'matches wrap');
});
