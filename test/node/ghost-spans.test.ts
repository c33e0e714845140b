// The ghost track's baseline spans: taken from the lane index the decode worker built
// (rememberDrawSpans) instead of a scan of the baseline's warps, with the same result;
// and each ghost laid from its own pair's start (the game-like frame made shorter).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeWtrace, encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { buildGhostTrack, rememberDrawSpans } from '../../viewer/model/ghost-track.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';
import { gameFrameTrace } from './ab-game-frame.js';
import { editFrame } from './frame-edits.js';

test('a baseline whose lane index was remembered gives the same ghost track as one whose warps are scanned', () => {
  const bytes = encodeWtrace(synthesizeTrace({ warps: 120_000, seed: 5, drawsPerPass: 12 }));
  const current = synthesizeTrace({ warps: 110_000, seed: 6, drawsPerPass: 12 });
  const currentSpans = buildLaneIndex(current).drawSpans;
  // Two copies of one baseline: one scanned, one remembered from its index.
  const scanned = decodeWtrace(bytes);
  const remembered = decodeWtrace(bytes);
  const index = buildLaneIndex(remembered);
  rememberDrawSpans(remembered, index.drawSpans);
  const a = buildGhostTrack(current, currentSpans, scanned);
  const b = buildGhostTrack(current, currentSpans, remembered);
  assert.ok(a.baselineDraw.some((d) => d >= 0), 'draws were paired');
  assert.notEqual(a.offsetNs, 0, 'the two traces start at different times (the offset is exercised)');
  assert.equal(b.offsetNs, a.offsetNs, 'same time offset');
  assert.deepEqual(b.spans, a.spans, 'same ghost spans');
  assert.deepEqual(b.onlyBaselineSpans, a.onlyBaselineSpans, 'same spans of baseline-only draws');
});

test('spans of another trace (a draw count that does not fit) are not remembered', () => {
  const trace = synthesizeTrace({ warps: 20_000, seed: 7 });
  const other = buildLaneIndex(synthesizeTrace({ warps: 40_000, seed: 8 }));
  rememberDrawSpans(trace, other.drawSpans);
  const current = synthesizeTrace({ warps: 20_000, seed: 9 });
  const fresh = decodeWtrace(encodeWtrace(trace));
  const currentSpans = buildLaneIndex(current).drawSpans;
  assert.deepEqual(buildGhostTrack(current, currentSpans, trace).spans, buildGhostTrack(current, currentSpans, fresh).spans, 'the scan is used, not the misfit spans');
});

test('ghosts are laid per pair: a frame that got shorter keeps each ghost under its own draw, a baseline-only draw moves with the draw before it', () => {
  // B: the game frame with its first ten draws half as long and every later draw 30 µs earlier, draw 500 left out.
  const a = gameFrameTrace();
  const earlier = -30_000;
  const order = [...Array(a.draws.length).keys()].filter((d) => d !== 500);
  const b = editFrame(gameFrameTrace({ namesSeed: 2 }), {
    draws: order,
    stretch: new Map(Array.from({ length: 10 }, (_, d) => [d, 0.5] as const)),
    moveNs: new Map(order.filter((d) => d >= 10).map((d) => [d, earlier] as const)),
  });
  const spansA = buildLaneIndex(a).drawSpans;
  const spansB = buildLaneIndex(b).drawSpans;
  const g = buildGhostTrack(b, spansB, a);
  assert.equal(g.offsetNs, 0, 'both frames start with the same first warp');
  order.forEach((src, j) => {
    assert.equal(g.baselineDraw[j], src, `B draw ${j} is A's draw ${src}`);
    // The ghost starts where B's draw does and lasts as long as A's draw did.
    assert.equal(g.spans[2 * j], spansB[2 * j], `ghost of B draw ${j} starts with it`);
    assert.equal(g.spans[2 * j + 1]! - g.spans[2 * j]!, spansA[2 * src + 1]! - spansA[2 * src]!, `ghost of B draw ${j} is A's length`);
    assert.equal(g.movedNs[j], src < 10 ? 0 : earlier, `B draw ${j} moved`);
  });
  // An unchanged draw after the shortened ones sits exactly under its ghost (aligned at the first warp it would be 30 µs off).
  assert.deepEqual([g.spans[2 * 1000], g.spans[2 * 1000 + 1]], [spansB[2 * 1000], spansB[2 * 1000 + 1]]);
  assert.deepEqual(g.onlyBaseline, [500]);
  assert.deepEqual([...g.onlyBaselineSpans], [spansA[2 * 500]! + earlier, spansA[2 * 500 + 1]! + earlier], 'the removed draw moves as draw 499 did');
});
