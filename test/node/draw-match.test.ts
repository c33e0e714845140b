// A/B draw matching (analysis/draw-match.ts) and the diff built on it, on the
// H100 samples and on the 2,000-draw pass frame with draws inserted, removed,
// reordered and relabelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeTrace } from '../../analysis/analyze.js';
import { diffSummaries } from '../../analysis/diff.js';
import { drawIdentities, matchDraws, summaryDrawIdentities } from '../../analysis/draw-match.js';
import { decodeTrace, encodeWtrace, type Trace } from '../../shared-schema/index.js';
import { editFrame } from './frame-edits.js';
import { DRAWS_PER_PASS, passFrameTrace } from './pass-frame.js';
import { repoPath } from './paths.js';

const frame = passFrameTrace();
const n = frame.draws.length;
const ids = drawIdentities(frame);

function sample(name: string): Trace {
  return decodeTrace(new Uint8Array(readFileSync(repoPath('samples', `${name}.wtrace`))));
}
const skip = (name: string) => (existsSync(repoPath('samples', `${name}.wtrace`)) ? false : `samples/${name}.wtrace not present`);

test('pass frame: the identity carries the region path and pipeline', () => {
  assert.equal(ids[0]!.pass, 'Shadows/CSM0 / Shadows/CSM0/Opaque');
  assert.equal(ids[80]!.pass, 'Shadows/CSM0 / Shadows/CSM0/Alpha / Render Pass #0');
  assert.equal(ids[0]!.pipeline, 'Shadows/CSM0 PSO');
});

test('pass frame against itself: every draw pairs with itself by label and pass', () => {
  const m = matchDraws(ids, ids);
  assert.equal(m.counts['label-pass'], n);
  for (let i = 0; i < n; i++) assert.equal(m.bOfA[i], i);
});

test('a draw inserted early: later draws pair with their own draw, one index on, the new one only in B', () => {
  const order: (number | { label: string; like: number })[] = [...Array(n).keys()];
  order.splice(5, 0, { label: 'Shadows/CSM0 new_debug_draw', like: 5 });
  const b = editFrame(frame, { draws: order });
  const m = matchDraws(ids, drawIdentities(b));
  assert.deepEqual(m.onlyB, [5]);
  assert.deepEqual(m.onlyA, []);
  for (let i = 0; i < n; i++) assert.equal(m.bOfA[i], i < 5 ? i : i + 1, `draw ${i}`);
  assert.equal(m.counts['label-pass'], n);
  assert.equal(m.counts.index, 0);
});

test('draws removed: the others still pair with themselves, the removed ones only in A', () => {
  const removed = new Set([0, 777, 1999]);
  const keep = [...Array(n).keys()].filter((d) => !removed.has(d));
  const b = editFrame(frame, { draws: keep });
  const m = matchDraws(ids, drawIdentities(b));
  assert.deepEqual(m.onlyA, [0, 777, 1999]);
  assert.deepEqual(m.onlyB, []);
  keep.forEach((src, j) => assert.equal(m.aOfB[j], src));
});

test('passes reordered: each draw pairs with its own draw wherever it moved', () => {
  // Swap the first two passes (draws 0-99 and 100-199).
  const order = [...Array(n).keys()].map((d) => (d < DRAWS_PER_PASS ? d + DRAWS_PER_PASS : d < 2 * DRAWS_PER_PASS ? d - DRAWS_PER_PASS : d));
  const b = editFrame(frame, { draws: order });
  const m = matchDraws(ids, drawIdentities(b));
  order.forEach((src, j) => assert.equal(m.aOfB[j], src, `B draw ${j}`));
  assert.equal(m.counts['label-pass'], n);
});

test('relabelled and moved draws: by label across passes, then by pipeline within the pass, then index', () => {
  const a = [
    { kind: 'draw', label: 'terrain', pass: 'GBuffer', pipeline: 'terrain PSO' },
    { kind: 'draw', label: 'rocks', pass: 'GBuffer', pipeline: 'rock PSO' },
    { kind: 'draw', label: 'draw 2', pass: null, pipeline: null },
    { kind: 'dispatch', label: 'dispatch 3', pass: null, pipeline: null },
  ];
  const b = [
    { kind: 'draw', label: 'rocks', pass: 'Forward', pipeline: 'rock PSO' }, // moved pass: by label
    { kind: 'draw', label: 'terrain_lod0', pass: 'GBuffer', pipeline: 'terrain PSO' }, // relabelled: by pipeline
    { kind: 'draw', label: 'draw 2', pass: null, pipeline: null }, // numbering labels name nothing: by index
    { kind: 'draw', label: 'draw 3', pass: null, pipeline: null }, // a draw where A had a dispatch: unmatched
  ];
  const m = matchDraws(a, b);
  assert.deepEqual([...m.aOfB], [1, 0, 2, -1]);
  assert.deepEqual([...m.howOfB], [1, 2, 3, -1]);
  assert.deepEqual(m.onlyA, [3]);
  assert.deepEqual(m.onlyB, [3]);
});

test('diffSummaries pairs draws through the matching: a stretched draw compares with itself after an insertion', () => {
  const small = passFrameTrace();
  const order: (number | { label: string; like: number })[] = [...Array(n).keys()];
  order.splice(0, 0, { label: 'Shadows/CSM0 clear', like: 0 });
  const b = editFrame(small, { draws: order, stretch: new Map([[300, 3]]) });
  const sa = analyzeTrace(small);
  const sb = analyzeTrace(b);
  const d = diffSummaries(sa, sb, { a: drawIdentities(small), b: drawIdentities(b) });
  const stretched = d.draws.find((x) => x.indexA === 300)!;
  assert.equal(stretched.indexB, 301);
  assert.equal(stretched.matchedBy, 'label-pass');
  assert.ok(stretched.warpTimeNs.relative! > 1, `warp-time of the stretched draw: ${stretched.warpTimeNs.relative}`);
  const untouched = d.draws.find((x) => x.indexA === 500)!;
  assert.equal(untouched.warpTimeNs.delta, 0, 'an untouched draw does not change');
  assert.deepEqual(d.matching.onlyB, [0]);
  assert.equal(d.draws.find((x) => x.indexB === 0)!.matchedBy, null);
  assert.match(d.warnings.join('\n'), /Draws matched: 2000 by label and pass; 1 only in B\./);
  // By index (what the diff did before) draw 300 of A would have met draw 300 of B, the pass's previous draw.
  assert.notEqual(d.draws.find((x) => x.indexB === 300)!.indexA, 300);
});

test('stored summaries (no passes): matched by label, then index', () => {
  const sa = analyzeTrace(frame);
  const m = matchDraws(summaryDrawIdentities(sa.draws), summaryDrawIdentities(sa.draws));
  assert.equal(m.counts['label-pass'], n, 'labels are unique in the pass frame');
});

for (const [a, b] of [
  ['h100-aqt', 'h100-aqt-heavy'],
  ['h100-aqt', 'lavapipe-aqt'],
  ['h100-syncs', 'h100-syncs'],
] as const) {
  test(`samples: ${a} vs ${b} pair every draw by label`, { skip: skip(a) || skip(b) }, () => {
    const ta = sample(a);
    const tb = sample(b);
    const m = matchDraws(drawIdentities(ta), drawIdentities(tb));
    assert.equal(m.counts['label-pass'], ta.draws.length);
    for (let i = 0; i < ta.draws.length; i++) assert.equal(tb.draws[m.bOfA[i]!]!.label, ta.draws[i]!.label);
  });
}

test('samples: different workloads share no draw by label; same-kind draws pair by index, the rest stay unmatched', { skip: skip('h100-syncs') || skip('h100-compute-graphics') }, () => {
  const ta = sample('h100-compute-graphics');
  const tb = sample('h100-syncs');
  const m = matchDraws(drawIdentities(ta), drawIdentities(tb));
  assert.equal(m.counts['label-pass'] + m.counts.label + m.counts.pipeline, 0);
  // compute-graphics: dispatch, draw, dispatch; syncs: 8 draws. Only index 1 has the same kind.
  assert.equal(m.counts.index, 1);
  assert.equal(m.bOfA[1], 1);
  assert.deepEqual(m.onlyA, [0, 2]);
});

test('warptrace diff on two traces matches by label and pass (the traces\' regions), as the viewer does', () => {
  const order: (number | { label: string; like: number })[] = [...Array(n).keys()];
  order.splice(0, 0, { label: 'Shadows/CSM0 clear', like: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-diff-'));
  const [pathA, pathB] = [join(dir, 'a.wtrace'), join(dir, 'b.wtrace')];
  writeFileSync(pathA, encodeWtrace(frame));
  writeFileSync(pathB, encodeWtrace(editFrame(frame, { draws: order, stretch: new Map([[300, 3]]) })));
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'diff', pathA, pathB, '--format', 'json'], { encoding: 'utf8', maxBuffer: 256 << 20 });
  assert.equal(r.status, 0, r.stderr);
  const diff = JSON.parse(r.stdout) as { draws: { indexA: number | null; indexB: number | null; matchedBy: string | null }[] };
  const stretched = diff.draws.find((x) => x.indexA === 300)!;
  assert.deepEqual([stretched.indexB, stretched.matchedBy], [301, 'label-pass']);
  assert.match(r.stderr, /Draws matched: 2000 by label and pass; 1 only in B\./);
});
