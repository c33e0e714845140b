// Cost per pass (analysis/passes.ts): busy time is the union of the pass's warps over all
// SMs, checked against the frame the pass-frame trace is built as (every pass contiguous),
// against a brute-force union on a frame with syncs between draws, and on a real capture
// with a render pass and a draw outside it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { decodeTrace, type Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import { PASS_BUSY_MAX_DEPTH, passBusyNs, regionDepths, unionLength } from '../../analysis/passes.js';
import { parseSummary } from '../../analysis/summary-json.js';
import { DRAW_LEN_NS, DRAW_STEP_NS, DRAWS_PER_PASS, PASS_COUNT, passFrameTrace } from './pass-frame.js';
import { GAME_DRAWS_PER_PASS, gameFrameTrace } from './synthetic-game-frame.js';
import { repoPath } from './paths.js';

/** Draws in region r's subtree. */
function drawsUnder(trace: Trace, r: number): Set<number> {
  const out = new Set<number>();
  for (const d of trace.draws) {
    for (let x = d.region; x !== null; x = trace.regions[x]!.parent) {
      if (x === r) {
        out.add(d.index);
        break;
      }
    }
  }
  return out;
}

/** The union of the draws' warp intervals, by sorting them (the straightforward way). */
function bruteBusy(trace: Trace, draws: Set<number>): number {
  const w = trace.warps;
  const iv: [number, number][] = [];
  for (let i = 0; i < w.count; i++) if (draws.has(w.draw[i]!)) iv.push([w.startNs[i]!, w.startNs[i]! + w.durationNs[i]!]);
  iv.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let from = -Infinity;
  let to = -Infinity;
  for (const [s, e] of iv) {
    if (s > to) {
      if (to > from) total += to - from;
      [from, to] = [s, e];
    } else to = Math.max(to, e);
  }
  if (to > from) total += to - from;
  return total;
}

test('unionLength measures overlapping, touching, nested and separate intervals', () => {
  const m = (iv: [number, number][]) => unionLength(Float64Array.from(iv.map((x) => x[0])).sort(), Float64Array.from(iv.map((x) => x[1])).sort());
  assert.equal(m([[0, 10]]), 10);
  assert.equal(m([[0, 10], [5, 15]]), 15, 'overlapping');
  assert.equal(m([[0, 10], [10, 20]]), 20, 'touching');
  assert.equal(m([[0, 100], [10, 20], [30, 40]]), 100, 'nested');
  assert.equal(m([[0, 10], [20, 25], [40, 41]]), 16, 'separate');
  assert.equal(m([[5, 5], [7, 9]]), 2, 'a zero-length interval adds nothing');
  assert.equal(m([]), 0);
});

test('the pass frame: every pass and region is busy from its first draw to its last draw end (the frame is built that way)', () => {
  const trace = passFrameTrace();
  const summary = analyzeTrace(trace);
  const section = summary.passes!;
  assert.ok(section !== undefined, 'a trace with regions gets a passes section');
  assert.equal(section.passes.length, trace.regions.length);
  const end = (d: number) => d * DRAW_STEP_NS + DRAW_LEN_NS + (d % 7 === 0 ? 4000 : 0);
  for (let p = 0; p < PASS_COUNT; p++) {
    const top = section.passes[4 * p]!;
    assert.equal(top.depth, 0);
    assert.equal(top.draws, DRAWS_PER_PASS);
    const first = p * DRAWS_PER_PASS;
    let last = 0;
    for (let d = first; d < first + DRAWS_PER_PASS; d++) last = Math.max(last, end(d));
    assert.equal(top.firstStartNs, first * DRAW_STEP_NS, `pass ${p} starts with its first draw`);
    assert.equal(top.lastEndNs, last, `pass ${p} ends with its latest draw end`);
    // Draws 1 µs apart, each at least 1.8 µs long and busy end to end: no gap inside a pass.
    assert.equal(top.busyNs, last - first * DRAW_STEP_NS, `pass ${p} busy = span`);
    assert.equal(top.shareOfFrame, top.busyNs! / summary.frame.spanNs);
    const opaque = section.passes[4 * p + 1]!;
    assert.equal(opaque.draws, 50);
    assert.equal(opaque.parent, 4 * p);
    const renderPass = section.passes[4 * p + 3]!;
    assert.equal(renderPass.depth, 2, 'the render pass inside Alpha');
    assert.equal(renderPass.draws, 25);
    assert.equal(section.passes[4 * p + 2]!.draws, 50, 'Alpha holds its render pass');
  }
  const warpTime = section.passes.filter((x) => x.depth === 0).reduce((s, x) => s + x.warpTimeNs, 0) + section.outside.warpTimeNs;
  assert.ok(Math.abs(warpTime - summary.frame.warpTimeNs) < 1e-6 * summary.frame.warpTimeNs, 'top-level passes and outside sum to the frame warp-time');
  assert.equal(section.outside.draws, 0);
});

test('a game-like frame with syncs: busy times equal a brute-force union, at every depth and outside', () => {
  const trace = gameFrameTrace({ draws: 600, seed: 5 });
  const summary = analyzeTrace(trace);
  const section = summary.passes!;
  assert.ok(section.passes.length >= 3 * Math.floor(trace.draws.length / GAME_DRAWS_PER_PASS));
  let gapped = 0;
  for (const p of section.passes) {
    const draws = drawsUnder(trace, p.region);
    const brute = bruteBusy(trace, draws);
    assert.ok(Math.abs(p.busyNs! - brute) <= 1e-9 * Math.max(1, brute), `${p.label}: ${p.busyNs} vs ${brute}`);
    assert.ok(p.busyNs! <= p.spanNs! + 1e-6, `${p.label}: busy within its span`);
    if (p.busyNs! < p.spanNs! - 1000) gapped++;
    const warps = [...draws].reduce((s, d) => s + summary.draws[d]!.warps, 0);
    assert.equal(p.warps, warps, `${p.label}: warps of its draws`);
  }
  assert.ok(gapped > 0, 'the synthetic syncs leave idle gaps inside some passes (busy < span)');
  const stages = section.passes[0]!.stageWarpTimeNs;
  const sum = Object.values(stages).reduce((s, v) => s + v, 0);
  assert.ok(Math.abs(sum - section.passes[0]!.warpTimeNs) < 1e-6 * sum, 'warp-time per stage adds up to the warp-time');
});

test('a real capture: the render pass and the trace-rays call outside it, busy from the warps', () => {
  const trace = decodeTrace(new Uint8Array(readFileSync(repoPath('samples', 'h100-raytracingreflections-blocks.wtrace'))));
  const summary = analyzeTrace(trace);
  const section = summary.passes!;
  assert.equal(section.passes.length, 1);
  const pass = section.passes[0]!;
  const inside = drawsUnder(trace, 0);
  const outside = new Set(trace.draws.filter((d) => d.region === null).map((d) => d.index));
  assert.ok(inside.size > 0 && outside.size > 0, 'draws both inside and outside the render pass');
  assert.equal(pass.draws, inside.size);
  assert.equal(section.outside.draws, outside.size);
  assert.ok(Math.abs(pass.busyNs! - bruteBusy(trace, inside)) < 1e-6);
  assert.ok(Math.abs(section.outside.busyNs! - bruteBusy(trace, outside)) < 1e-6);
  assert.equal(pass.label, trace.regions[0]!.label);
  // The section survives a stored summary's checks.
  const back = parseSummary(JSON.parse(JSON.stringify(summary)));
  assert.deepEqual(back.passes, section);
});

test('regions nested past the measured depth get no busy time; a trace without regions no section', () => {
  const base = passFrameTrace();
  // A chain of regions deeper than PASS_BUSY_MAX_DEPTH holding draw 0.
  const chain = Array.from({ length: PASS_BUSY_MAX_DEPTH + 2 }, (_, k) => ({ index: k, label: `level ${k}`, parent: k === 0 ? null : k - 1, source: 'debug-label' as const }));
  const trace: Trace = { ...base, regions: chain, draws: base.draws.map((d) => ({ ...d, region: d.index === 0 ? chain.length - 1 : null })) };
  const depth = regionDepths(trace);
  assert.equal(depth[chain.length - 1], chain.length - 1);
  const busy = passBusyNs(trace, depth);
  const summary = analyzeTrace(trace);
  const deepest = summary.passes!.passes[chain.length - 1]!;
  assert.equal(deepest.busyNs, null);
  assert.equal(deepest.draws, 1);
  const top = summary.passes!.passes[0]!;
  assert.equal(top.busyNs, busy[0]);
  assert.equal(top.busyNs, bruteBusy(trace, new Set([0])));
  assert.equal(analyzeTrace({ ...base, regions: [], draws: base.draws.map((d) => ({ ...d, region: null })) }).passes, undefined);
});
