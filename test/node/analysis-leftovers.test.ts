// Leftover warps: a draw whose tail runs on a handful of warps (2016: "a single leftover TCS warp").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrace, resolveThresholds } from '../../analysis/index.js';
import { denseTraffic, traceOf, type WarpSpec } from './analysis-fixtures.js';

const body = (): WarpSpec[] => denseTraffic({ sm: 0, slots: 16, perSlot: 12, stage: 'TCS', draw: 0, start: 0, durationNs: 1500 });
const lastEnd = (warps: readonly WarpSpec[]) => Math.max(...warps.map((w) => w.end));

test('one leftover TCS warp lengthening a draw', () => {
  const warps = body();
  const bodyEnd = lastEnd(warps);
  warps.push({ sm: 1, slot: 7, stage: 'TCS', draw: 0, start: 17000, end: 40000, custom: 4242 });
  // The next draw starts just after (no overlap with the tail).
  warps.push(...denseTraffic({ sm: 0, slots: 8, perSlot: 4, stage: 'TES', draw: 1, start: 40500, durationNs: 900 }));
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  assert.equal(s.leftovers.count, 1);
  const l = s.leftovers.items[0]!;
  assert.equal(l.draw, 0);
  assert.equal(l.warps, 1);
  assert.equal(l.startNs, bodyEnd);
  assert.equal(l.endNs, 40000);
  assert.equal(l.tailNs, 40000 - bodyEnd);
  assert.equal(l.shareOfDraw, (40000 - bodyEnd) / 40000);
  assert.equal(l.overlappedNs, 0);
  assert.equal(l.tailWarps[0]!.customId, 4242);
  assert.equal(l.tailWarps[0]!.sm, 1);
  assert.equal(l.tailWarps[0]!.stage, 'TCS');
  const f = s.findings.find((x) => x.kind === 'leftover')!;
  assert.match(f.title, /Draw 0: 1 leftover TCS warp for 21\.\d µs/);
  assert.equal(f.costNs, 40000 - bodyEnd);
  assert.equal(f.sm, 1);
  assert.equal(f.startNs, 17000);
  assert.equal(f.endNs, 40000);
});

test('the part of a tail hidden behind another draw does not count as cost', () => {
  const warps = body();
  const bodyEnd = lastEnd(warps);
  warps.push({ sm: 1, slot: 7, stage: 'TCS', draw: 0, start: 17000, end: 40000 });
  warps.push(...denseTraffic({ sm: 2, slots: 8, perSlot: 10, stage: 'FS', draw: 1, start: 30000, durationNs: 1000 }));
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  const l = s.leftovers.items[0]!;
  assert.equal(l.overlappedNs, 10000);
  assert.equal(s.findings.find((x) => x.kind === 'leftover')!.costNs, 40000 - bodyEnd - 10000);
});

test('three leftover warps are reported as three', () => {
  const warps = body();
  for (const [slot, end] of [[20, 30000], [21, 31000], [22, 32000]] as const) warps.push({ sm: 2, slot, stage: 'TCS', draw: 0, start: 16000, end });
  const s = analyzeTrace(traceOf({ warps, draws: 1 }));
  assert.equal(s.leftovers.items[0]!.warps, 3);
  assert.equal(s.leftovers.items[0]!.tailNs, 32000 - lastEnd(body()));
});

test('dense normal traffic has no leftover tail', () => {
  const s = analyzeTrace(traceOf({ warps: body(), draws: 1 }));
  assert.equal(s.leftovers.count, 0);
  assert.equal(s.findings.length, 0);
});

test('small draws are not checked; the minimum is a threshold', () => {
  const warps: WarpSpec[] = [
    { sm: 0, slot: 0, stage: 'VS', draw: 0, start: 0, end: 100 },
    { sm: 0, slot: 1, stage: 'VS', draw: 0, start: 0, end: 110 },
    { sm: 0, slot: 2, stage: 'VS', draw: 0, start: 0, end: 5000 },
  ];
  assert.equal(analyzeTrace(traceOf({ warps, draws: 1 })).leftovers.count, 0);
  const loose = analyzeTrace(traceOf({ warps, draws: 1 }), { thresholds: resolveThresholds({ leftoverMinDrawWarps: 3, leftoverMaxWarps: 1 }) });
  assert.equal(loose.leftovers.count, 1);
  assert.equal(loose.leftovers.items[0]!.tailNs, 4890);
});
