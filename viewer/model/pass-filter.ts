/**
 * Filtering by pass: the draws of a region's subtree as a mask (the draws
 * table, the range summary), the regions as choices for a pass menu, and a
 * region's path for labels ("GBuffer › Opaque"). Pure: no DOM.
 */
import type { Trace } from '../../shared-schema/index.js';

/** A region when valid, else null. */
export function validRegion(trace: Trace, region: number | null | undefined): number | null {
  return region !== null && region !== undefined && Number.isInteger(region) && region >= 0 && region < trace.regions.length ? region : null;
}

/** 1 for each draw lying in `region` or a region inside it, else 0. */
export function passDrawMask(trace: Trace, region: number): Uint8Array {
  const R = trace.regions.length;
  // inside[r]: 1 when r is `region` or a descendant, 2 when known outside (memoized walk up).
  const inside = new Uint8Array(R);
  const resolve = (r: number): boolean => {
    const path: number[] = [];
    let x: number | null = r;
    while (x !== null && inside[x] === 0 && x !== region) {
      path.push(x);
      const p: number | null = trace.regions[x]!.parent;
      x = p !== null && p >= 0 && p < x ? p : null;
    }
    const yes = x !== null && (x === region || inside[x] === 1);
    for (const y of path) inside[y] = yes ? 1 : 2;
    if (r === region) inside[r] = 1;
    return yes;
  };
  const mask = new Uint8Array(trace.draws.length);
  for (let d = 0; d < trace.draws.length; d++) {
    const r = validRegion(trace, trace.draws[d]!.region);
    if (r !== null && (inside[r] === 1 || (inside[r] === 0 && resolve(r)))) mask[d] = 1;
  }
  return mask;
}

/** "Shadows › CSM0 › Opaque": the region's path from the top. */
export function passPath(trace: Trace, region: number): string {
  const names: string[] = [];
  for (let r: number | null = validRegion(trace, region); r !== null && names.length < 64; ) {
    names.unshift(trace.regions[r]!.label);
    const p = trace.regions[r]!.parent;
    r = p !== null && p < r ? validRegion(trace, p) : null;
  }
  return names.join(' › ');
}

export interface PassChoice {
  readonly region: number;
  readonly label: string;
  readonly depth: number;
}

/** Every region in region order (parents before children) with its depth, for a pass menu. */
export function passChoices(trace: Trace): PassChoice[] {
  const depth = new Uint16Array(trace.regions.length);
  return trace.regions.map((r, i) => {
    const p = r.parent;
    depth[i] = p !== null && p >= 0 && p < i ? depth[p]! + 1 : 0;
    return { region: i, label: r.label, depth: depth[i]! };
  });
}
