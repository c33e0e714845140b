/** Shared test inputs: small real-shaped traces with unique custom ids (row identity). */
import { buildTrace, smIdPerWarp, synthesizeTrace, type Trace } from '../../shared-schema/index.js';

/** A synthetic trace whose customId is the row's index, so rows can be matched after re-sorting. */
export function traceWithRowIds(warps: number, seed = 5): Trace {
  const t = synthesizeTrace({ warps, seed });
  const w = t.warps;
  const endNs = Float64Array.from({ length: w.count }, (_, i) => (w.startNs[i] as number) + (w.durationNs[i] as number));
  return buildTrace({
    device: t.device,
    capture: t.capture,
    draws: t.draws,
    warps: {
      startNs: w.startNs,
      endNs,
      sm: smIdPerWarp(w),
      warpSlot: w.warpSlot,
      stage: w.stage,
      draw: w.draw,
      customId: Uint32Array.from({ length: w.count }, (_, i) => i),
      activeMask: w.activeMask,
    },
  });
}

/** Asserts the structural invariants every Trace must satisfy (used by round-trip and fuzz tests). */
export function checkInvariants(t: Trace): void {
  const w = t.warps;
  const { sm, offsets } = w.smGroups;
  if (offsets[0] !== 0 || offsets[sm.length] !== w.count) throw new Error('smGroups do not cover the rows');
  for (let g = 0; g < sm.length; g++) {
    if (g > 0 && sm[g]! <= sm[g - 1]!) throw new Error('SM ids not ascending');
    for (let i = offsets[g]! + 1; i < offsets[g + 1]!; i++) {
      if (w.startNs[i]! < w.startNs[i - 1]!) throw new Error(`row ${i} not time-sorted`);
    }
  }
  for (let i = 0; i < w.count; i++) {
    if (!(w.startNs[i]! >= 0) || !(w.durationNs[i]! >= 0)) throw new Error(`row ${i} has a bad time`);
    if (w.draw[i]! >= t.draws.length) throw new Error(`row ${i} has a bad draw`);
    if (w.stage[i]! >= 14) throw new Error(`row ${i} has a bad stage`);
  }
  if (t.capture.recordsKept !== w.count) throw new Error('recordsKept differs from the warp count');
  if (t.capture.recordsWritten < t.capture.recordsKept) throw new Error('more kept than written');
}
