/**
 * A real-frame-shaped trace: 2 000 draws in 20 top-level passes, each pass
 * holding two nested regions ("<pass>/Opaque" and "<pass>/Alpha", the
 * latter with a render-pass child), on 8 SMs. Neighbouring draws overlap
 * (so the draw track needs several rows); every 10th pass is compute.
 * Shared by the node and browser tests (imports only shared-schema).
 */
import { Stage, buildTrace, synthesizeTrace, type DrawInput, type RegionInput, type Trace } from '../../shared-schema/index.js';

export const PASS_NAMES = [
  'Shadows/CSM0', 'Shadows/CSM1', 'Shadows/CSM2', 'Shadows/CSM3', 'DepthPrepass', 'GBuffer', 'Decals', 'SSAO', 'Lighting', 'Compute Tiles',
  'Sky', 'Opaque Forward', 'Water', 'Particles', 'Transparent', 'Bloom', 'DOF', 'Tonemap', 'UI', 'Compute Histogram',
] as const;
export const PASS_COUNT = PASS_NAMES.length;
export const DRAWS_PER_PASS = 100;
/** Draw d starts at d * DRAW_STEP_NS and lasts DRAW_LEN_NS (+ more for every 7th). */
export const DRAW_STEP_NS = 1000;
export const DRAW_LEN_NS = 1800;

export function passFrameTrace(): Trace {
  const base = synthesizeTrace({ warps: 64, seed: 3 });
  const regions: RegionInput[] = [];
  const draws: DrawInput[] = [];
  const startNs: number[] = [];
  const endNs: number[] = [];
  const sm: number[] = [];
  const slot: number[] = [];
  const stage: number[] = [];
  const drawOf: number[] = [];
  for (let p = 0; p < PASS_COUNT; p++) {
    const name = PASS_NAMES[p]!;
    const compute = p % 10 === 9;
    const top = regions.length;
    regions.push({ label: name, parent: null, source: 'debug-label' });
    const opaque = regions.length;
    regions.push({ label: `${name}/Opaque`, parent: top, source: 'debug-label' });
    const alpha = regions.length;
    regions.push({ label: `${name}/Alpha`, parent: top, source: 'debug-label' });
    const rp = regions.length;
    regions.push({ label: `Render Pass #${p}`, parent: alpha, source: 'render-pass' });
    for (let k = 0; k < DRAWS_PER_PASS; k++) {
      const d = draws.length;
      const s = d * DRAW_STEP_NS;
      const len = DRAW_LEN_NS + (d % 7 === 0 ? 4000 : 0);
      draws.push({
        index: d,
        label: compute ? `${name} dispatch ${k}` : `${name} mesh_${k}_${k % 3 === 0 ? 'rock' : 'tree'}`,
        kind: compute ? 'dispatch' : 'draw',
        gpuBeginNs: s,
        gpuEndNs: s + len,
        call: compute ? 'vkCmdDispatch' : 'vkCmdDrawIndexed',
        pipeline: `${name} PSO`,
        region: k < 50 ? opaque : k < 75 ? alpha : rp,
        params: null,
      });
      const stages = compute ? [Stage.CS, Stage.CS] : k % 5 === 0 ? [Stage.VS, Stage.TCS, Stage.FS] : [Stage.VS, Stage.FS];
      stages.forEach((st, i) => {
        const ws = s + (i * len) / (stages.length + 1);
        startNs.push(ws);
        endNs.push(i === stages.length - 1 ? s + len : ws + len / 2);
        sm.push((d + i) % 8);
        slot.push((d * 3 + i) % 48);
        stage.push(st);
        drawOf.push(d);
      });
    }
  }
  const n = startNs.length;
  return buildTrace({
    device: base.device,
    capture: { ...base.capture, recordsWritten: n, recordsKept: n, bufferCapacity: n },
    draws,
    regions,
    warps: {
      startNs,
      endNs,
      sm,
      warpSlot: slot,
      stage,
      draw: drawOf,
      customId: startNs.map((_, i) => i),
      activeMask: new Array(n).fill(0xffffffff),
    },
  });
}
