// The view models behind issue 24's panels, on the pass frame (20 passes of 100 draws, each
// with Opaque / Alpha halves and a render pass inside Alpha): the draws of a pass as a mask,
// the draws table's filters and row stepping, the icicle's bars and hits, and the threshold
// overrides read back from storage.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../analysis/analyze.js';
import { DEFAULT_THRESHOLDS } from '../../analysis/thresholds.js';
import { filterDraws, stepRow, NO_DRAW_FILTER } from '../../viewer/model/draw-table.js';
import { passChoices, passDrawMask, passPath } from '../../viewer/model/pass-filter.js';
import { icicleHit, icicleLayout, regionTrail } from '../../viewer/model/pass-icicle.js';
import { cleanOverrides, loadThresholdOverrides, saveThresholdOverrides, THRESHOLD_STORAGE_KEY } from '../../viewer/loading/threshold-store.js';
import { DRAWS_PER_PASS, PASS_NAMES, passFrameTrace } from './pass-frame.js';

const trace = passFrameTrace();
const summary = analyzeTrace(trace);
const bloom = 4 * PASS_NAMES.indexOf('Bloom');

test('a pass mask holds the draws of its whole subtree', () => {
  const mask = passDrawMask(trace, bloom);
  const first = PASS_NAMES.indexOf('Bloom') * DRAWS_PER_PASS;
  for (let d = 0; d < trace.draws.length; d++) assert.equal(mask[d], d >= first && d < first + DRAWS_PER_PASS ? 1 : 0, `draw ${d}`);
  const renderPass = passDrawMask(trace, bloom + 3);
  assert.equal(renderPass.reduce((n, v) => n + v, 0), 25, 'the render pass inside Alpha: draws 75-99 of the pass');
  assert.equal(passDrawMask(trace, bloom + 2).reduce((n, v) => n + v, 0), 50, 'Alpha holds its render pass\'s draws too');
  assert.equal(passPath(trace, bloom + 3), 'Bloom › Bloom/Alpha › Render Pass #15');
  const choices = passChoices(trace);
  assert.deepEqual(choices.slice(0, 4).map((c) => c.depth), [0, 1, 1, 2]);
});

test('the draws table filters: find matches, a range (draws whose warps meet it), a pass; all at once', () => {
  const draws = summary.draws;
  assert.equal(filterDraws(draws, NO_DRAW_FILTER), draws, 'no filter: the same rows');
  const matches = Uint32Array.from([3, 5, 1510, 1511, 1999]);
  assert.deepEqual(filterDraws(draws, { ...NO_DRAW_FILTER, matches }).map((d) => d.index), [3, 5, 1510, 1511, 1999]);
  // Draw d's warps span [d µs, d µs + 1.8 µs], 4 µs more for every 7th: 1510.5-1511.2 µs meets 1505 (a long one), 1509, 1510, 1511.
  const range = { startNs: 1_510_500, endNs: 1_511_200 };
  assert.deepEqual(filterDraws(draws, { ...NO_DRAW_FILTER, range }).map((d) => d.index), [1505, 1509, 1510, 1511]);
  const passMask = passDrawMask(trace, bloom);
  assert.deepEqual(filterDraws(draws, { matches, range, passMask }).map((d) => d.index), [1510, 1511], 'find ∩ range ∩ Bloom');
});

test('[ and ] step through the table\'s rows in its order', () => {
  const rows = [summary.draws[7]!, summary.draws[3]!, summary.draws[9]!];
  assert.equal(stepRow(rows, -1, 1), 7, '] from nothing: the first row');
  assert.equal(stepRow(rows, -1, -1), 9, '[ from nothing: the last row');
  assert.equal(stepRow(rows, 7, 1), 3);
  assert.equal(stepRow(rows, 3, 1), 9);
  assert.equal(stepRow(rows, 9, 1), -1, 'past the end');
  assert.equal(stepRow(rows, 3, -1), 7);
  assert.equal(stepRow(rows, 100, 1), 7, 'a draw not in the table: from the top');
  assert.equal(stepRow([], 3, 1), -1);
});

test('the icicle: a row per depth, bars where the passes and draws ran, hits on the topmost bar', () => {
  const section = summary.passes!;
  const frame = { startNs: summary.frame.startNs, endNs: summary.frame.endNs };
  const width = 1000;
  const layout = icicleLayout(trace, section.passes, summary.draws, frame, width);
  assert.equal(layout.rows, 4, 'passes, halves, render passes, then draws (the deepest under their render pass)');
  const px = (t: number) => ((t - frame.startNs) / (frame.endNs - frame.startNs)) * width;
  const bloomBar = layout.bars.find((b) => b.kind === 'region' && b.index === bloom)!;
  const p = section.passes[bloom]!;
  assert.ok(Math.abs(bloomBar.x0 - px(p.firstStartNs!)) < 1e-9 && Math.abs(bloomBar.x1 - px(p.lastEndNs!)) < 1e-9);
  assert.equal(bloomBar.row, 0);
  assert.equal(icicleHit(layout, (bloomBar.x0 + bloomBar.x1) / 2, 0)?.index, bloom, 'a hit on the pass');
  const draw = layout.bars.find((b) => b.kind === 'draw' && b.index === 1590)!;
  assert.equal(draw.row, 3, 'a draw of the render pass, under it');
  assert.ok(draw.x1 - draw.x0 >= 1, 'at least a pixel wide');
  const hit = icicleHit(layout, (draw.x0 + draw.x1) / 2, 3)!;
  assert.equal(hit.kind, 'draw');
  assert.ok(hit.x0 <= draw.x1 && hit.x1 >= draw.x0, 'a draw running there');
  assert.equal(icicleHit(layout, -5, 0), null);
  // Zoomed to the pass: its bar fills the width, bars of other passes are left out.
  const zoomed = icicleLayout(trace, section.passes, summary.draws, { startNs: p.firstStartNs!, endNs: p.lastEndNs! }, width);
  const own = zoomed.bars.find((b) => b.kind === 'region' && b.index === bloom)!;
  assert.deepEqual([own.x0, own.x1], [0, width]);
  assert.ok(zoomed.bars.filter((b) => b.kind === 'region' && b.row === 0).length <= 3, 'at most the neighbours touching its ends');
  assert.deepEqual(regionTrail(section.passes, bloom + 3), [bloom, bloom + 2, bloom + 3]);
});

test('threshold overrides from storage: known, valid, not the default; anything else dropped', () => {
  assert.deepEqual(cleanOverrides({ syncMinGapNs: 500, idleMinNs: DEFAULT_THRESHOLDS.idleMinNs, nope: 3, stallOccupancyShare: 4, leftoverMaxWarps: 2.5, capMinWarps: '9' }), { syncMinGapNs: 500 });
  assert.deepEqual(cleanOverrides([1, 2]), {});
  assert.deepEqual(cleanOverrides(null), {});
  const store = new Map<string, string>();
  const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) };
  assert.ok(saveThresholdOverrides({ syncMinGapNs: 500, stallMinFactor: 12 }, storage));
  assert.deepEqual(loadThresholdOverrides(storage), { syncMinGapNs: 500, stallMinFactor: 12 });
  store.set(THRESHOLD_STORAGE_KEY, '{not json');
  assert.deepEqual(loadThresholdOverrides(storage), {}, 'unreadable: none');
  assert.ok(saveThresholdOverrides({}, storage));
  assert.equal(store.has(THRESHOLD_STORAGE_KEY), false, 'no overrides: the entry goes');
});
