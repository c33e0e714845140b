// What a reorder point did to a launch's warps (analysis/reorder.ts), on the H200 capture of our
// ray-tracing workload with shader execution reordering, traced through the layer, and on the
// same capture with its after-reorder warps changed as a device that re-forms warps would leave them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildTrace, decodeTrace, packPosition, smIdPerWarp, Stage, type Trace } from '../../shared-schema/index.js';
import { summarizeReorders } from '../../analysis/reorder.js';
import { summarizeTrace } from '../../cli/trace-summary.js';
import { repoPath } from './paths.js';

const sample = decodeTrace(new Uint8Array(readFileSync(repoPath('samples', 'h200-ray-tracing-reorder.wtrace'))));

test('the H200 kept its launch warps across reorderThreadNV: every invocation on both sides, most after-warps with unchanged lanes', () => {
  const [r, ...more] = summarizeReorders(sample);
  assert.equal(more.length, 0);
  assert.equal(r!.draw, 0);
  // 1280 x 720 invocations on each side of the point; full 32-lane launch warps before it.
  assert.deepEqual([r!.before.warps, r!.before.lanes], [28_800, 1280 * 720]);
  assert.deepEqual([r!.after.warps, r!.after.lanes], [29_812, 1280 * 720]);
  assert.deepEqual([r!.before.footprintMedianPx, r!.after.footprintMedianPx, r!.after.footprintP90Px], [32, 32, 32]);
  assert.equal(r!.kept, 27_788);
  assert.equal(r!.verdict, 'kept');
  // The summary `warptrace info --json` prints carries it; traces without a reorder point have none.
  assert.deepEqual(summarizeTrace(sample).reorders, [r]);
  assert.equal(summarizeTrace(decodeTrace(new Uint8Array(readFileSync(repoPath('samples', 'h100-ray-tracing.wtrace'))))).reorders, undefined);
});

/** The sample with each after-reorder warp's lanes spread as a reordering device gathers them: one lane per 8x4 tile. */
function reformed(t: Trace, withPositions: boolean): Trace {
  const w = t.warps;
  const position = Uint32Array.from(w.position!, (p, i) => (w.stage[i] === Stage.RAYGEN_REORDERED ? packPosition((i * 8) % 1152, (i * 4) % 592, ((i * 8) % 1152) + 127, ((i * 4) % 592) + 127) : p));
  const endNs = Float64Array.from(w.startNs, (s, i) => s + w.durationNs[i]!);
  return buildTrace({
    device: t.device,
    capture: t.capture,
    draws: t.draws,
    warps: { startNs: w.startNs, endNs, sm: smIdPerWarp(w), warpSlot: w.warpSlot, stage: w.stage, draw: w.draw, customId: w.customId, activeMask: w.activeMask, ...(withPositions ? { position } : {}) },
  });
}

test('after-warps whose lanes came from far apart pixels: none kept, wide footprints, re-formed; without positions: unknown', () => {
  const [r] = summarizeReorders(reformed(sample, true));
  assert.equal(r!.kept, 0);
  assert.equal(r!.verdict, 're-formed');
  assert.deepEqual([r!.before.footprintMedianPx, r!.after.footprintMedianPx], [32, 128 * 128]);
  const [u] = summarizeReorders(reformed(sample, false));
  assert.deepEqual([u!.kept, u!.verdict, u!.after.footprintMedianPx], [null, 'unknown', null]);
  assert.equal(u!.after.lanes, 1280 * 720);
});
