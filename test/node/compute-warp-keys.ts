// "draw workgroup subgroup" of each compute warp of a lavapipe capture whose compute records carry the flat
// workgroup as custom id and their gl_GlobalInvocationID box as position: the box's x is workgroup * 64 + subgroup *
// lanes. The sampling run tests (spirv-sample-run, glsl-sample-run) compare these keys with warpSampled's picks.
import assert from 'node:assert/strict';
import { Stage, type Trace } from '../../shared-schema/index.js';
import { hasPosition, NO_POSITION, positionX } from '../../shared-schema/position.js';

export function popcount(v: number): number {
  let n = 0;
  for (let x = v >>> 0; x !== 0; x &= x - 1) n++;
  return n;
}

/** The keys, sorted; asserts every compute warp has a position inside its workgroup's 64 invocations. */
export function computeWarpKeys(trace: Trace): string[] {
  const w = trace.warps;
  const out: string[] = [];
  for (let i = 0; i < w.count; i++) {
    if (w.stage[i] !== Stage.CS) continue;
    const position = w.position?.[i] ?? NO_POSITION;
    assert.ok(hasPosition(position), 'every CS warp has its position');
    const lanes = popcount(w.activeMask[i]!);
    const workgroup = w.customId[i]!;
    const within = positionX(position) - workgroup * 64;
    assert.ok(within >= 0 && within < 64 && within % lanes === 0, `warp ${i}: x ${positionX(position)} in workgroup ${workgroup}, ${lanes} lanes`);
    out.push(`${w.draw[i]} ${workgroup} ${within / lanes}`);
  }
  return out.sort();
}
