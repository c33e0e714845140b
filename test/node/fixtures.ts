/** Shared test inputs: small real-shaped traces with unique custom ids (row identity). */
import { NO_POSITION, STAGE_COUNT, buildTrace, positionProblem, smIdPerWarp, synthesizeTrace, type DrawInput, type LayerInfo, type RegionInput, type Trace } from '../../shared-schema/index.js';

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

/** Regions as a capture layer records them: debug labels around render passes, nested. */
export const LAYER_REGIONS: readonly RegionInput[] = [
  { label: 'Frame', parent: null, source: 'debug-label' },
  { label: 'GBuffer', parent: 0, source: 'debug-label' },
  { label: 'Colour Pass #1 (3 Targets)', parent: 1, source: 'render-pass' },
  { label: 'Lighting', parent: 0, source: 'debug-label' },
  { label: 'Depth-only Pass #2', parent: null, source: 'render-pass' },
];

export const LAYER_INFO: LayerInfo = {
  version: '0.1.0',
  set: 7,
  frame: 60,
  submits: null,
  skipped: [
    { what: 'pipeline 0x0000558a3c2f1e40', why: 'mesh shaders are not instrumented' },
    { what: 'queue family 2', why: 'no timestamp support' },
  ],
  notes: [{ what: 'instance', why: 'the app asked for Vulkan 1.0; the layer created its instance as 1.1 below the app' }],
};

/** `t` as a capture layer would record it: the same warps, with LAYER_REGIONS, call details on most draws and LAYER_INFO. */
export function withPassHierarchy(t: Trace): Trace {
  const w = t.warps;
  const draws = t.draws.map((d, i): DrawInput => {
    // Every fourth draw without details, as one recorded outside the layer's view would be.
    if (i % 4 === 3) return d;
    const dispatch = d.kind === 'dispatch';
    return {
      ...d,
      call: dispatch ? 'vkCmdDispatch' : 'vkCmdDrawIndexed',
      pipeline: i % 2 === 0 ? `GBuffer PSO ${i}` : '0x0000558a3c2f1e40',
      region: i % 3 === 2 ? null : ([2, 3, 4] as const)[i % 3],
      params: dispatch ? { groupCountX: 64 + i, groupCountY: 1, groupCountZ: 1 } : { indexCount: 3 * i + 3, instanceCount: 1, firstIndex: 0, vertexOffset: -i, firstInstance: 0 },
    };
  });
  return buildTrace({
    device: t.device,
    capture: { ...t.capture, layer: LAYER_INFO },
    draws,
    regions: LAYER_REGIONS,
    warps: {
      startNs: w.startNs,
      endNs: Float64Array.from({ length: w.count }, (_, i) => (w.startNs[i] as number) + (w.durationNs[i] as number)),
      sm: smIdPerWarp(w),
      warpSlot: w.warpSlot,
      stage: w.stage,
      draw: w.draw,
      customId: w.customId,
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
    if (w.stage[i]! >= STAGE_COUNT) throw new Error(`row ${i} has a bad stage`);
  }
  t.regions.forEach((r, j) => {
    if (r.index !== j || (r.parent !== null && !(r.parent >= 0 && r.parent < j))) throw new Error(`region ${j} has a bad index or parent`);
  });
  for (const d of t.draws) if (d.region !== null && !(d.region >= 0 && d.region < t.regions.length)) throw new Error(`draw ${d.index} has a bad region`);
  if (w.position !== null) {
    if (w.position.length !== w.count) throw new Error('position column of the wrong length');
    if (!w.position.some((p) => p !== NO_POSITION)) throw new Error('a position column without a position (the model says null)');
    w.position.forEach((p, i) => {
      if (positionProblem(p) !== null) throw new Error(`row ${i} has a bad position`);
    });
  }
  for (const d of t.draws) if (d.target !== null && !(d.target.width >= 1 && d.target.height >= 1)) throw new Error(`draw ${d.index} has a bad target`);
  if (t.capture.recordsKept !== w.count) throw new Error('recordsKept differs from the warp count');
  if (t.capture.recordsWritten < t.capture.recordsKept) throw new Error('more kept than written');
}
