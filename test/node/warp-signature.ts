// What two traces of the same frame must share, warp for warp: the layer's
// tests compare traces made different ways (the GLSL library and the layer;
// graphics pipeline libraries and complete pipelines) by these keys.
import { STAGES, type Trace } from '../../shared-schema/index.js';

export interface WarpSignature {
  /** "draw D STAGE" -> warps. */
  readonly perDrawStage: Map<string, number>;
  /** "draw D STAGE id I mask M/H position P" -> warps. */
  readonly warps: Map<string, number>;
}

export function warpSignature(trace: Trace): WarpSignature {
  const w = trace.warps;
  const perDrawStage = new Map<string, number>();
  const warps = new Map<string, number>();
  for (let i = 0; i < w.count; i++) {
    const ds = `draw ${w.draw[i]} ${STAGES[w.stage[i] as number]?.name ?? `stage ${w.stage[i]}`}`;
    perDrawStage.set(ds, (perDrawStage.get(ds) ?? 0) + 1);
    const key = `${ds} id ${w.customId[i]} mask ${w.activeMask[i]}/${w.activeMaskHi?.[i] ?? 0} position ${w.position?.[i] ?? 'none'}`;
    warps.set(key, (warps.get(key) ?? 0) + 1);
  }
  return { perDrawStage, warps };
}

export const sortedEntries = (m: Map<string, number>): [string, number][] => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

/** The keys whose counts differ, at most `limit` of them: "key: A N, B M". */
export function signatureDifferences(a: Map<string, number>, b: Map<string, number>, names: readonly [string, string], limit = 20): string {
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  const lines = keys.filter((k) => a.get(k) !== b.get(k)).map((k) => `${k}: ${names[0]} ${a.get(k) ?? 0}, ${names[1]} ${b.get(k) ?? 0}`);
  return `${lines.length} keys differ${lines.length > limit ? ` (first ${limit})` : ''}:\n${lines.slice(0, limit).join('\n')}`;
}
