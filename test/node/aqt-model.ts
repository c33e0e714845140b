// A CPU model of the aqt workload's irregular draw (capture/workloads/shaders/aqt_irregular.tesc, common.glsl):
// each patch walks burn(tcsWork × (1 + (hash32(patch) & 3))), the known answer of the block-profile and mark tests.

/** common.glsl hash32. */
export function hash32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}

/** burn()'s loop iterations in patch `patch` of the irregular draw (patchBase 0). */
export function patchIterations(patch: number, tcsWork: number): number {
  return tcsWork * (1 + (hash32(patch) & 3));
}
