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
import { MATCH_HOWS, drawIdentities, matchDraws, summaryDrawIdentities } from '../../analysis/draw-match.js';
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

test('pass frame: the identity carries the region path (a render pass without its running number) and pipeline', () => {
  assert.equal(ids[0]!.pass, 'Shadows/CSM0 / Shadows/CSM0/Opaque');
  assert.equal(frame.regions[frame.draws[80]!.region!]!.label, 'Render Pass #0');
  assert.equal(ids[80]!.pass, 'Shadows/CSM0 / Shadows/CSM0/Alpha / Render Pass');
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

test('relabelled and moved draws: a relabelled draw by its place in its pass, a moved one by label; guesses are weak', () => {
  const a = [
    { kind: 'draw', label: 'terrain', pass: 'GBuffer', pipeline: 'terrain PSO' },
    { kind: 'draw', label: 'rocks', pass: 'GBuffer', pipeline: 'rock PSO' },
    { kind: 'draw', label: 'draw 2', pass: null, pipeline: null },
    { kind: 'dispatch', label: 'dispatch 3', pass: null, pipeline: null },
  ];
  const b = [
    // Moved pass: by label; weak, as the traces' labels did not agree where their passes lined up.
    { kind: 'draw', label: 'rocks', pass: 'Forward', pipeline: 'rock PSO' },
    // Relabelled: GBuffer lost a draw, so its place is inferred, by the pipeline (weak).
    { kind: 'draw', label: 'terrain_lod0', pass: 'GBuffer', pipeline: 'terrain PSO' },
    // Outside passes, numbering labels name nothing: by order, weak as the dispatch after it has no counterpart.
    { kind: 'draw', label: 'draw 2', pass: null, pipeline: null },
    { kind: 'draw', label: 'draw 3', pass: null, pipeline: null }, // a draw where A had a dispatch: unmatched
  ];
  const m = matchDraws(a, b);
  assert.deepEqual([...m.aOfB], [1, 0, 2, -1]);
  assert.deepEqual([...m.howOfB].map((k) => MATCH_HOWS[k] ?? null), ['label', 'order', 'order', null]);
  assert.deepEqual([...m.strongOfB], [0, 0, 0, 0]);
  assert.deepEqual(m.onlyA, [3]);
  assert.deepEqual(m.onlyB, [3]);
});

test('labels that agree make a moved draw strong; pipelines named by handle do not count', () => {
  const draw = (label: string, pass: string, pipeline: string | null) => ({ kind: 'draw', label, pass, pipeline });
  const a = [draw('sky', 'Sky', '0x1000'), draw('sun', 'Sky', '0x1008'), draw('hud', 'UI', 'hud PSO'), draw('text', 'UI', 'text PSO')];
  // The capture's handles differ; the sun moved to UI; UI's labels agree.
  const b = [draw('sky', 'Sky', '0x2000'), draw('hud', 'UI', 'hud PSO'), draw('sun', 'UI', '0x2008'), draw('text', 'UI', 'text PSO')];
  const m = matchDraws(a, b);
  assert.deepEqual([...m.aOfB], [0, 2, 1, 3]);
  assert.deepEqual([...m.howOfB].map((k) => MATCH_HOWS[k]), ['label-pass', 'label-pass', 'label', 'label-pass']);
  assert.equal(m.strong, 4, 'labels agree where the passes line up, and "sun" is unique in both');
});

test('a pass that lines up one to one except for a named pipeline is aligned instead (weak)', () => {
  const draw = (label: string, pipeline: string) => ({ kind: 'draw', label, pass: 'GBuffer', pipeline });
  const a = [draw('a', 'p0'), draw('b', 'p1'), draw('c', 'p2')];
  const b = [draw('x', 'p0'), draw('y', 'p9'), draw('z', 'p2')];
  const m = matchDraws(a, b);
  assert.deepEqual([...m.aOfB], [0, 1, 2], 'still by place');
  assert.equal(m.weak, 3);
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

test('samples: different workloads share no draw by label; the one draw of A pairs by order, weakly, the rest stay unmatched', { skip: skip('h100-syncs') || skip('h100-compute-graphics') }, () => {
  const ta = sample('h100-compute-graphics');
  const tb = sample('h100-syncs');
  const m = matchDraws(drawIdentities(ta), drawIdentities(tb));
  assert.equal(m.counts['label-pass'] + m.counts.label + m.counts.pipeline + m.counts.index, 0);
  // compute-graphics: dispatch, draw, dispatch; syncs: 8 draws. A's draw keeps its place among B's draws.
  assert.equal(m.counts.order, 1);
  assert.equal(m.bOfA[1], 1);
  assert.equal(m.weak, 1, 'a guess: the frames do not line up');
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
