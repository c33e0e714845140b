// Ray generation after a reorder point in a sampled trace (issue 25 with issue 22's RAYGEN_REORDERED records). The
// wrapper decides once, in the prologue, at ray generation's rate; the records after the point carry that decision.
// So RGen↻ is sampled at RAYGEN's rate (shared-schema sampleEveryOf), and its estimates hold where the warps kept
// their lanes across the point, as on the H200 (samples/h200-ray-tracing-reorder.wtrace: its driver reorders nothing).
// Where the device re-formed the warps, the summary says its RGen↻ figures estimate nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Stage, buildTrace, decodeTrace, sampleEveryOf, smOfWarp, type Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/index.js';
import { summarizeReorders } from '../../analysis/reorder.js';
import { repoPath } from './paths.js';
import { sampledTrace } from './sampled-trace.js';

const full = decodeTrace(new Uint8Array(readFileSync(repoPath('samples', 'h200-ray-tracing-reorder.wtrace'))));
const count = (trace: Trace, stage: number) => {
  let n = 0;
  for (let i = 0; i < trace.warps.count; i++) if (trace.warps.stage[i] === stage) n++;
  return n;
};

test('sampleEveryOf: ray generation after a reorder point has ray generation\'s rate; a rate given for it alone is dropped', () => {
  const sampling = { every: { RAYGEN: 8 }, chosenBy: 'flag' as const, budget: null };
  assert.equal(sampleEveryOf(sampling, 'RAYGEN_REORDERED'), 8);
  assert.equal(sampleEveryOf(sampling, 'MISS'), 1);
  const cut = sampledTrace(full, { RAYGEN: 8 });
  assert.ok(count(cut, Stage.RAYGEN_REORDERED) < count(full, Stage.RAYGEN_REORDERED) / 4, 'the cut keeps about 1 in 8 of the after-point records');
});

test('h200-ray-tracing-reorder at RAYGEN 1 in 8: both sides of the point are estimated at 1 in 8, within 3 SE of the full counts; the warps kept their lanes, so nothing more is withheld', () => {
  const summary = analyzeTrace(sampledTrace(full, { RAYGEN: 8 }));
  const stages = new Map(summary.sampling!.stages.map((s) => [s.stage, s]));
  for (const [name, code] of [['RAYGEN', Stage.RAYGEN], ['RAYGEN_REORDERED', Stage.RAYGEN_REORDERED]] as const) {
    const e = stages.get(name)!;
    assert.equal(e.every, 8, name);
    const truth = count(full, code);
    assert.ok(Math.abs(e.warps - truth) <= 3 * e.warpsSe, `${name}: ≈${e.warps} ± ${e.warpsSe.toFixed(0)} against ${truth}`);
  }
  assert.ok(summarizeReorders(sampledTrace(full, { RAYGEN: 8 })).every((d) => d.verdict === 'kept'));
  assert.equal(summary.sampling!.withheld.find((w) => w.what === 'reordered ray generation'), undefined);
});

test('where the warps were re-formed at the point (after-point masks that match no launch warp), the sampled summary says RGen↻ estimates nothing', () => {
  const cut = sampledTrace(full, { RAYGEN: 8 });
  const w = cut.warps;
  // The same records with every after-point warp's lanes moved: no mask matches a launch warp's any more.
  const moved = buildTrace({
    device: cut.device,
    capture: cut.capture,
    draws: cut.draws,
    regions: cut.regions.map((r) => ({ label: r.label, parent: r.parent, source: r.source })),
    warps: {
      startNs: Array.from(w.startNs),
      endNs: Array.from(w.startNs, (s, i) => s + w.durationNs[i]!),
      sm: Array.from({ length: w.count }, (_, i) => smOfWarp(w.smGroups, i)),
      warpSlot: Array.from(w.warpSlot),
      stage: Array.from(w.stage),
      draw: Array.from(w.draw),
      customId: Array.from(w.customId),
      activeMask: Array.from(w.activeMask, (m, i) => (w.stage[i] === Stage.RAYGEN_REORDERED ? ((m & 1) !== 0 ? (m ^ 1) || 2 : m | 1) >>> 0 : m)),
      activeMaskHi: w.activeMaskHi === null ? null : Array.from(w.activeMaskHi),
      position: w.position === null ? null : Array.from(w.position),
    },
  });
  assert.ok(summarizeReorders(moved).some((d) => d.verdict === 're-formed'));
  const note = analyzeTrace(moved).sampling!.withheld.find((w) => w.what === 'reordered ray generation');
  assert.ok(note !== undefined && note.why.includes('RGen↻ counts and times are not estimates'), JSON.stringify(note));
  // A full trace with the same re-formed warps has no sampling section at all.
  assert.equal(analyzeTrace(full).sampling, undefined);
});
