// A/B draw pairing on the game-like frame (2,025 draws, 23 passes, long labels):
// two frames of the same draws in the same order under other mesh names, with a
// draw made longer, inserted or removed, and with a pass left out. The expected
// pairs are the ones the test built: B's j-th draw is the source draw order[j].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeTrace } from '../../analysis/analyze.js';
import { DIFF_VERSION, diffSummaries } from '../../analysis/diff.js';
import { MATCH_HOWS, drawIdentities, matchDraws } from '../../analysis/draw-match.js';
import { encodeWtrace, type Trace } from '../../shared-schema/index.js';
import { GAME_DRAWS, GAME_PASSES, gameFrameTrace, gamePassOfDraw } from './ab-game-frame.js';
import { editFrame } from './frame-edits.js';
import { repoPath } from './paths.js';

const a = gameFrameTrace();
const renamed = gameFrameTrace({ namesSeed: 2 });
const passOf = gamePassOfDraw();
const all = [...Array(GAME_DRAWS).keys()];
/** A short draw in Particles, made 3× longer in B. */
const STRETCHED = 1480;
/** A draw of GBuffer/Static after which B inserts one, and a draw of Water B leaves out. */
const INSERTED_AFTER = 600;
const REMOVED = 1350;

type Order = (number | { label: string; like: number })[];

function editedOrder(): Order {
  const order: Order = all.filter((d) => d !== REMOVED);
  order.splice(order.indexOf(INSERTED_AFTER) + 1, 0, { label: 'Assets/Environment/GBuffer/Static/Debug_Probe_Sphere/LOD0/Debug_Probe_Sphere_Mesh', like: INSERTED_AFTER });
  return order;
}

const sourceOf = (order: Order) => order.map((e) => (typeof e === 'number' ? e : -1));

function match(x: Trace, y: Trace) {
  return matchDraws(drawIdentities(x), drawIdentities(y));
}

test('the renamed frame is the trap: most labels differ at their place, hundreds name another draw of the same pass', () => {
  assert.equal(a.draws.length, GAME_DRAWS);
  assert.equal(new Set(a.regions.filter((r) => r.parent === null).map((r) => r.label)).size, GAME_PASSES.length);
  let differ = 0;
  let elsewhere = 0;
  for (let d = 0; d < GAME_DRAWS; d++) {
    if (a.draws[d]!.label !== renamed.draws[d]!.label) differ++;
    for (let e = 0; e < GAME_DRAWS; e++) if (e !== d && passOf[e] === passOf[d] && a.draws[e]!.label === renamed.draws[d]!.label) elsewhere++;
  }
  assert.ok(differ > 1600, `${differ} labels differ`);
  assert.ok(elsewhere > 200, `${elsewhere} B labels name another A draw of the pass`);
  assert.ok(a.draws.every((d) => d.label.length > 25 && !d.label.includes(' ')), 'long labels without spaces');
});

test('same draws in the same order under other names: each pairs with the draw at its place in its pass, strongly', () => {
  const m = match(a, renamed);
  for (let j = 0; j < GAME_DRAWS; j++) {
    assert.equal(m.aOfB[j], j, `B draw ${j}`);
    const how = MATCH_HOWS[m.howOfB[j]!];
    assert.equal(how, a.draws[j]!.label === renamed.draws[j]!.label ? 'label-pass' : 'order', `how B draw ${j} paired`);
  }
  assert.equal(m.strong, GAME_DRAWS);
  assert.deepEqual([m.onlyA, m.onlyB], [[], []]);
});

test('their diff with one draw 3× longer: the highlights name that draw, paired with itself, and no other', () => {
  const b = editFrame(renamed, { draws: all, stretch: new Map([[STRETCHED, 3]]) });
  const d = diffSummaries(analyzeTrace(a), analyzeTrace(b), { a: drawIdentities(a), b: drawIdentities(b) });
  const stretched = d.draws.find((x) => x.indexB === STRETCHED)!;
  assert.deepEqual([stretched.indexA, stretched.matchedBy, stretched.confidence], [STRETCHED, 'order', 'strong']);
  const drawLines = d.highlights.filter((h) => /\bDraw \d+/.test(h));
  assert.deepEqual(drawLines.map((h) => h.startsWith(`Draw ${STRETCHED} "${b.draws[STRETCHED]!.label}" span +`)), [true], d.highlights.join('\n'));
  assert.ok(d.draws.every((x) => x.confidence === 'strong' && x.indexA === x.indexB));
  assert.match(d.warnings.join('\n'), /Draws matched: \d+ by label and pass, \d+ by pass and order\./);
});

test('same names, a draw inserted, one removed, one longer: the edits found exactly, every pair strong', () => {
  const order = editedOrder();
  const b = editFrame(a, { draws: order, stretch: new Map([[STRETCHED, 3]]) });
  const m = match(a, b);
  assert.deepEqual([...m.aOfB], sourceOf(order));
  assert.deepEqual(m.onlyA, [REMOVED]);
  assert.deepEqual(m.onlyB, [INSERTED_AFTER + 1]);
  assert.equal(m.strong, GAME_DRAWS - 1);
});

test('other names and the same edits: untouched passes pair as built and strongly, the edited passes weakly, kept out of the lead', () => {
  const order = editedOrder();
  const b = editFrame(renamed, { draws: order, stretch: new Map([[STRETCHED, 3]]) });
  const m = match(a, b);
  const edited = new Set([passOf[INSERTED_AFTER]!, passOf[REMOVED]!]);
  const passOfB = order.map((e) => passOf[typeof e === 'number' ? e : e.like]!);
  order.forEach((src, j) => {
    if (edited.has(passOfB[j]!)) {
      if (m.aOfB[j]! >= 0) assert.equal(m.strongOfB[j], 0, `B draw ${j} in an edited pass: a weak pair`);
    } else {
      assert.deepEqual([m.aOfB[j], m.strongOfB[j]], [src, 1], `B draw ${j}`);
    }
  });
  assert.equal(m.onlyB.filter((j) => passOfB[j] === passOf[INSERTED_AFTER]).length, 1, 'one draw of the pass with the insertion only in B');
  assert.equal(m.onlyA.filter((i) => passOf[i] === passOf[REMOVED]).length, 1, 'one draw of the pass with the removal only in A');
  assert.equal(m.onlyA.length + m.onlyB.length, 2);
  const d = diffSummaries(analyzeTrace(a), analyzeTrace(b), { a: drawIdentities(a), b: drawIdentities(b) });
  const firstDraw = d.highlights.find((h) => /\bDraw \d+/.test(h))!;
  assert.ok(firstDraw.startsWith(`Draw ${order.indexOf(STRETCHED)} "`), `the stretched draw leads: ${d.highlights.join('\n')}`);
  // Draw lines of weak pairs come after every other line, marked.
  const firstWeak = d.highlights.findIndex((h) => h.startsWith('Weak pair'));
  if (firstWeak >= 0) assert.ok(d.highlights.slice(firstWeak).every((h) => h.startsWith('Weak pair')), d.highlights.join('\n'));
  const weakDraws = d.draws.filter((x) => x.confidence === 'weak');
  assert.ok(weakDraws.length > 0 && weakDraws.every((x) => edited.has(passOfB[x.indexB!]!)), 'the weak pairs are the edited passes\' draws');
  assert.match(d.warnings.join('\n'), new RegExp(`; ${weakDraws.length} of the pairs weak \\(kept out of the highlights' lead\\); 1 only in A; 1 only in B\\.`));
});

test('a pass left out: the later render passes are numbered one less, and still pair by pass and order', () => {
  const dropped = 15;
  const b = gameFrameTrace({ namesSeed: 2, dropPass: dropped });
  const particles = a.regions.findIndex((r) => r.label === 'Particles');
  const renumbered = (t: Trace, top: number) => t.regions.find((r) => r.parent === top)!.label;
  assert.notEqual(renumbered(a, particles), renumbered(b, b.regions.findIndex((r) => r.label === 'Particles')), 'Particles\' render pass got another number');
  const kept = all.filter((d) => passOf[d] !== dropped);
  const m = match(a, b);
  assert.deepEqual([...m.aOfB], kept);
  assert.equal(m.strong, kept.length);
  assert.deepEqual(m.onlyA, all.filter((d) => passOf[d] === dropped));
});

test('warptrace diff on the renamed frames: every pair by pass and order, strong, in JSON and Markdown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-diff-game-'));
  const [pathA, pathB] = [join(dir, 'a.wtrace'), join(dir, 'b.wtrace')];
  writeFileSync(pathA, encodeWtrace(a));
  writeFileSync(pathB, encodeWtrace(editFrame(renamed, { draws: all, stretch: new Map([[STRETCHED, 3]]) })));
  const run = (...args: string[]) => spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'diff', pathA, pathB, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const json = run('--format', 'json');
  assert.equal(json.status, 0, json.stderr);
  const diff = JSON.parse(json.stdout) as { schemaVersion: number; draws: { indexA: number; indexB: number; confidence: string }[]; matching: { strong: number; weak: number } };
  assert.equal(diff.schemaVersion, DIFF_VERSION);
  assert.ok(diff.draws.every((x) => x.indexA === x.indexB && x.confidence === 'strong'));
  assert.deepEqual([diff.matching.strong, diff.matching.weak], [GAME_DRAWS, 0]);
  const md = run();
  assert.equal(md.status, 0, md.stderr);
  const row = md.stdout.split('\n').find((l) => l.startsWith(`| ${STRETCHED} "`))!;
  assert.ok(row.includes(`| A ${STRETCHED} "${a.draws[STRETCHED]!.label.replaceAll('_', '\\_')}", pass and order |`), row);
});
