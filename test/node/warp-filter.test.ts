// The viewer's warp filters (viewer/model/warp-filter.ts) on a game-like frame and a sample:
// the find box's matches (with its stage: terms), a duration range of one stage, a brush,
// and all of them together, against this file's own reading of the warp columns; the
// duration range's count against the analysis's histogram; the longest warps against a
// sort. Also where a selected draw ran (draw-lanes.ts) and the keyboard's time range.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Stage, decodeWtrace, smOfWarp, type Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import { runSteps } from '../../viewer/model/color-by.js';
import { findDraws } from '../../viewer/model/draw-search.js';
import { drawWarpsPerLane } from '../../viewer/model/draw-lanes.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';
import { rowHighlight } from '../../viewer/model/row-highlight.js';
import { LONGEST_KEPT, stageMaskOfQuery, warpFilterSteps, type WarpFilters } from '../../viewer/model/warp-filter.js';
import { extendKeyRange } from '../../viewer/components/timeline-navigation.js';
import { TINY_DRAW, TINY_SMS, gameFrameTrace } from './game-frame.js';
import { repoPath } from './paths.js';

const game = gameFrameTrace();
const none: WarpFilters = { find: null, duration: null, rows: null };

function rowsWhere(t: Trace, test: (i: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < t.warps.count; i++) if (test(i)) out.push(i);
  return out;
}

function checkHighlight(t: Trace, filters: WarpFilters, want: number[], what: string): void {
  for (const slice of [Infinity, 4099]) {
    const h = runSteps(warpFilterSteps(t, filters, slice));
    assert.deepEqual([...h.rows], want, `${what} (slice ${slice})`);
    assert.equal(h.count, want.length);
    const w = t.warps;
    assert.equal(h.warpTimeNs, want.reduce((s, i) => s + w.durationNs[i]!, 0));
    const longest = [...want].sort((a, b) => w.durationNs[b]! - w.durationNs[a]! || a - b).slice(0, LONGEST_KEPT);
    assert.deepEqual([...h.longest], longest, `${what}: the longest`);
  }
}

test('find: the warps of the matching draws, only of the stages its stage: terms name; the draw track keeps the matches', () => {
  const query = 'pass:Lighting stage:FS';
  const draws = findDraws(game, query)!;
  assert.ok(draws.length > 40);
  const find = { draws, stageMask: stageMaskOfQuery(query), text: query };
  assert.equal(find.stageMask, 1 << Stage.FS);
  const lighting = new Set(draws);
  const w = game.warps;
  checkHighlight(game, { ...none, find }, rowsWhere(game, (i) => lighting.has(w.draw[i]!) && w.stage[i] === Stage.FS), query);
  const h = runSteps(warpFilterSteps(game, { ...none, find }, Infinity));
  for (let d = 0; d < game.draws.length; d++) assert.equal(h.draws![d], lighting.has(d) ? 1 : 0);
  // No stage: term: every stage of the matching draws.
  assert.equal(stageMaskOfQuery('pass:Lighting'), -1);
  assert.equal(stageMaskOfQuery('stage:VS,FS stage:FS,TCS'), 1 << Stage.FS);
});

test('duration: one stage’s warps in [min, max), as many as the analysis’s histogram bins hold', () => {
  const t = decodeWtrace(new Uint8Array(readFileSync(repoPath('samples', 'h100-aqt.wtrace'))));
  const summary = analyzeTrace(t);
  const w = t.warps;
  for (const st of summary.stages) {
    const h = st.histogram;
    const busiest = h.counts.indexOf(Math.max(...h.counts));
    const lo = Math.max(0, busiest - 1);
    const hi = Math.min(h.counts.length - 1, busiest + 1);
    const minNs = h.lowerNs[lo]!;
    const maxNs = hi + 1 < h.lowerNs.length ? h.lowerNs[hi + 1]! : h.upperNs;
    const filters = { ...none, duration: { stage: st.stageCode, draw: null, minNs, maxNs } };
    const want = rowsWhere(t, (i) => w.stage[i] === st.stageCode && w.durationNs[i]! >= minNs && w.durationNs[i]! < maxNs);
    checkHighlight(t, filters, want, `${st.stage} bins ${lo}-${hi}`);
    assert.equal(want.length, h.counts.slice(lo, hi + 1).reduce((a, b) => a + b, 0), `${st.stage}: the bins' counts`);
  }
  // In one draw: the selected draw's stage table.
  const d = w.draw[0]!;
  const filters = { ...none, duration: { stage: w.stage[0]!, draw: d, minNs: 0, maxNs: Infinity } };
  checkHighlight(t, filters, rowsWhere(t, (i) => w.draw[i] === d && w.stage[i] === w.stage[0]), 'one draw');
});

test('filters narrow each other: find, duration and a brush together', () => {
  const w = game.warps;
  const draws = findDraws(game, 'GBuffer')!;
  const inFind = new Set(draws);
  const brush = rowsWhere(game, (i) => i % 3 === 0);
  const filters: WarpFilters = {
    find: { draws, stageMask: -1, text: 'GBuffer' },
    duration: { stage: Stage.FS, draw: null, minNs: 200, maxNs: 500 },
    rows: rowHighlight(brush, w.count),
  };
  checkHighlight(game, filters, rowsWhere(game, (i) => i % 3 === 0 && inFind.has(w.draw[i]!) && w.stage[i] === Stage.FS && w.durationNs[i]! >= 200 && w.durationNs[i]! < 500), 'all three');
  // A brush alone: its own rows.
  checkHighlight(game, { ...none, rows: rowHighlight(brush, w.count) }, brush, 'brush');
  assert.equal(runSteps(warpFilterSteps(game, { ...none, rows: rowHighlight(brush, w.count) }, Infinity)).draws, null, 'a brush dims no draw');
});

test('a selected draw’s lanes: the two-warp dispatch ran on SMs 24 and 58 only', () => {
  const index = buildLaneIndex(game);
  const per = drawWarpsPerLane(game, index, TINY_DRAW);
  const sms = index.lanes.filter((_, g) => per[g]! > 0).map((l) => l.sm);
  assert.deepEqual(sms, [...TINY_SMS]);
  assert.equal(per.reduce((a, b) => a + b, 0), 2);
  // Any draw: its warps per lane, counted here.
  const d = 700;
  const want = new Map<number, number>();
  for (let i = 0; i < game.warps.count; i++) if (game.warps.draw[i] === d) want.set(smOfWarp(game.warps.smGroups, i), (want.get(smOfWarp(game.warps.smGroups, i)) ?? 0) + 1);
  const got = new Map(index.lanes.map((l, g) => [l.sm, drawWarpsPerLane(game, index, d)[g]!] as const).filter(([, n]) => n > 0));
  assert.deepEqual(got, want);
});

test('the keyboard’s time range: from the cursor, grown and shrunk at its moving edge, a mouse range goes on at its end', () => {
  const bounds = { startNs: 0, endNs: 1000 };
  let r = extendKeyRange(null, null, 500, 20, bounds);
  assert.deepEqual(r.range, { startNs: 500, endNs: 520 });
  r = extendKeyRange(r.key, r.range, 0, 20, bounds);
  assert.deepEqual(r.range, { startNs: 500, endNs: 540 });
  r = extendKeyRange(r.key, r.range, 0, -20, bounds);
  r = extendKeyRange(r.key, r.range, 0, -20, bounds);
  assert.equal(r.range, null, 'back on its anchor: no range');
  r = extendKeyRange(r.key, r.range, 500, -20, bounds);
  assert.deepEqual(r.range, { startNs: 480, endNs: 500 }, 'left of the anchor');
  const mouse = { startNs: 100, endNs: 200 };
  r = extendKeyRange(r.key, mouse, 500, 20, bounds);
  assert.deepEqual(r.range, { startNs: 100, endNs: 220 }, 'a dragged range moves at its end');
  r = extendKeyRange(null, null, 990, 50, bounds);
  assert.deepEqual(r.range, { startNs: 990, endNs: 1000 }, 'clamped to the trace');
});
