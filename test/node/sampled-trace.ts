/**
 * A full trace cut down the way a sampled capture would have recorded it
 * (issue 25): each warp of a sampled stage kept only when the capture's own
 * hash (shared-schema/sample-layout.ts) picks it, keyed as the GPU keys it
 * (the first lane's pixel for fragment warps: here the warp's recorded
 * screen corner; its row where a warp has no position), and
 * capture.sampling set. Shared by the node and browser tests (imports only
 * shared-schema).
 */
import { Stage, buildTrace, hasPosition, positionX, positionY, rateStageCode, smOfWarp, type StageName, type Trace, type WarpSampling } from '../../shared-schema/index.js';
import { pixelKey, warpSampled } from '../../shared-schema/sample-layout.js';

/**
 * The warp key a GPU would use for row i: its pixel when it has a position; else its row, unique per warp as the
 * GPU's workgroup and subgroup key is (a custom id is not: many warps share one, and would be kept or dropped together).
 */
function warpKey(trace: Trace, i: number): number {
  const word = trace.warps.position?.[i];
  if (word !== undefined && hasPosition(word)) return pixelKey(positionX(word), positionY(word));
  return i;
}

export function sampledTrace(trace: Trace, every: Partial<Record<StageName, number>>, how: Pick<WarpSampling, 'chosenBy' | 'budget'> = { chosenBy: 'flag', budget: null }): Trace {
  const log2 = new Int8Array(16);
  for (const [stage, n] of Object.entries(every)) log2[Stage[stage as StageName]] = Math.log2(n);
  const w = trace.warps;
  const keep: number[] = [];
  for (let i = 0; i < w.count; i++) {
    // Ray generation after a reorder point decided as ray generation, in its prologue.
    const code = rateStageCode(w.stage[i]!);
    const k = log2[code]!;
    if (k === 0 || warpSampled(warpKey(trace, i), w.draw[i]!, code, k)) keep.push(i);
  }
  const pick = (col: ArrayLike<number>) => keep.map((i) => col[i]!);
  const n = keep.length;
  return buildTrace({
    device: trace.device,
    capture: { ...trace.capture, recordsWritten: n, recordsKept: n, bufferCapacity: n, sampling: { every, ...how } },
    draws: trace.draws,
    regions: trace.regions.map((r) => ({ label: r.label, parent: r.parent, source: r.source })),
    warps: {
      startNs: pick(w.startNs),
      endNs: keep.map((i) => w.startNs[i]! + w.durationNs[i]!),
      sm: keep.map((i) => smOfWarp(w.smGroups, i)),
      warpSlot: pick(w.warpSlot),
      stage: pick(w.stage),
      draw: pick(w.draw),
      customId: pick(w.customId),
      activeMask: pick(w.activeMask),
      activeMaskHi: w.activeMaskHi === null ? null : pick(w.activeMaskHi),
      position: w.position === null ? null : pick(w.position),
    },
  });
}
