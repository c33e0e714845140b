// Draw overlap, gaps and driver syncs (2016 Big Guy: "draws separated by brief GPU delays").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace, resolveThresholds } from '../../analysis/index.js';
import { synthesizeTrace } from '../../shared-schema/index.js';
import { traceOf, type WarpSpec } from './analysis-fixtures.js';

/** One warp per [start, end) span, on SM `sm`. */
const spanWarps = (spans: readonly [number, number, number][]): WarpSpec[] =>
  spans.map(([draw, start, end], i) => ({ sm: i % 4, slot: i, stage: 'FS', draw, start, end }));

test('overlapping draws: known overlap, hidden share, gaps and busy time', () => {
  const s = analyzeTrace(
    traceOf({
      warps: spanWarps([
        [0, 0, 1000],
        [1, 600, 1600],
        [2, 1500, 2000],
        [3, 3000, 3500],
      ]),
      draws: 4,
    }),
  );
  const [d0, d1, d2, d3] = s.draws;
  assert.equal(d0!.spanNs, 1000);
  assert.equal(d0!.overlapNs, 400);
  assert.equal(d0!.hiddenShare, 0.4);
  assert.equal(d0!.exclusiveNs, 600);
  assert.equal(d1!.overlapNs, 500);
  assert.equal(d2!.overlapNs, 100);
  assert.equal(d3!.overlapNs, 0);
  assert.equal(d0!.gapBeforeNs, null);
  assert.equal(d1!.gapBeforeNs, -400);
  assert.equal(d2!.gapBeforeNs, -100);
  assert.equal(d3!.gapBeforeNs, 1000);
  assert.deepEqual(s.draws.map((d) => d.startOrder), [0, 1, 2, 3]);
  assert.equal(s.frame.drawBusyNs, 2500);
  assert.equal(s.frame.spanNs, 3500);
  // The 1 µs idle gap before draw 3 is a sync at the default threshold (≥ 1000 ns).
  assert.equal(s.syncs.count, 1);
  assert.deepEqual(s.syncs.gaps[0], { afterDraw: 2, beforeDraw: 3, startNs: 2000, endNs: 3000, gapNs: 1000 });
  assert.equal(s.syncs.totalNs, 1000);
  assert.equal(s.syncs.shareOfFrame, 1000 / 3500);
  const f = s.findings.find((x) => x.kind === 'sync')!;
  assert.equal(f.startNs, 2000);
  assert.equal(f.endNs, 3000);
  assert.equal(f.draw, 3);
  assert.equal(f.reliable, true);
});

test('a gap shorter than the threshold is not a sync; the threshold can be lowered', () => {
  const trace = traceOf({ warps: spanWarps([[0, 0, 1000], [1, 1999, 2500]]), draws: 2 });
  const s = analyzeTrace(trace);
  assert.equal(s.syncs.count, 0);
  assert.equal(s.draws[1]!.gapBeforeNs, 999);
  assert.equal(s.findings.length, 0);
  const lowered = analyzeTrace(trace, { thresholds: resolveThresholds({ syncMinGapNs: 500 }) });
  assert.equal(lowered.syncs.count, 1);
  assert.equal(lowered.syncs.gaps[0]!.gapNs, 999);
});

test('not a sync while an earlier draw is still running', () => {
  // Draw 2 starts 2 µs after draw 1 ended, but draw 0 never drained.
  const s = analyzeTrace(traceOf({ warps: spanWarps([[0, 0, 5000], [1, 100, 1000], [2, 3000, 4000]]), draws: 3 }));
  assert.equal(s.syncs.count, 0);
  assert.equal(s.draws[2]!.gapBeforeNs, -2000);
});

test('synthetic frames: syncs found exactly where the generator drained the GPU', () => {
  const trace = synthesizeTrace({ warps: 60000, seed: 2, warpsPerDraw: 800 });
  const s = analyzeTrace(trace);
  const expected = s.draws.filter((d) => d.index > 0 && d.index % 7 === 0 && d.warps > 0).map((d) => d.index);
  assert.deepEqual(s.syncs.gaps.map((g) => g.beforeDraw), expected);
  for (const g of s.syncs.gaps) assert.ok(g.gapNs >= 2000, `gap ${g.gapNs}`);
});

test('unaligned SM clocks: syncs still computed but marked unreliable, with a warning', () => {
  const s = analyzeTrace(traceOf({ warps: spanWarps([[0, 0, 1000], [1, 5000, 6000]]), draws: 2, aligned: false }));
  assert.equal(s.reliability.crossSmReliable, false);
  assert.equal(s.syncs.reliable, false);
  assert.equal(s.findings[0]!.kind, 'sync');
  assert.equal(s.findings[0]!.reliable, false);
  assert.ok(s.reliability.warnings.some((w) => /not aligned/.test(w)));
  // One SM only: cross-SM comparisons do not arise, so results stay reliable.
  const one = analyzeTrace(traceOf({ warps: [{ sm: 5, stage: 'CS', draw: 0, start: 0, end: 10 }, { sm: 5, stage: 'CS', draw: 1, start: 5000, end: 5010 }], draws: 2, aligned: false }));
  assert.equal(one.syncs.reliable, true);
});

test('draws without warps are reported empty and skipped by the detectors', () => {
  const s = analyzeTrace(traceOf({ warps: spanWarps([[0, 0, 100], [2, 5000, 5100]]), draws: 3 }));
  assert.equal(s.draws[1]!.warps, 0);
  assert.equal(s.draws[1]!.spanNs, null);
  assert.equal(s.draws[1]!.startOrder, null);
  assert.equal(s.syncs.gaps[0]!.afterDraw, 0);
  assert.equal(s.syncs.gaps[0]!.beforeDraw, 2);
});
