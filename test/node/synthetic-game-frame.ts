/**
 * A game-like frame as issue 24 tried the viewer on: the synthetic generator
 * (shared-schema/synthetic.ts, what `bench:viewer --draws-per-pass 90` opens)
 * at 2,000+ draws in 23 passes of 90 draws, each pass with Opaque / Alpha
 * halves, and every draw labelled with a long asset path without spaces
 * (the labels that overflowed columns and tooltips). Small warps per draw,
 * so a browser test builds it in well under a second. Shared by the node and
 * browser tests (imports only shared-schema).
 */
import { synthesizeTrace, type Trace } from '../../shared-schema/index.js';

export const GAME_DRAWS_PER_PASS = 90;

/** A label without spaces, longer than any column: an engine's asset path. */
export function assetLabel(d: number): string {
  return `Content/Environment/Terrain/Meshes/Terrain_Tile_${d}_LOD0_MaterialInstance_WetRock_VariantB_Decal_Blend_Overlay.uasset`;
}

/** Warps per draw, on average. */
const WARPS_PER_DRAW = 24;

/** About `draws` draws (default 2,025: 23 passes), WARPS_PER_DRAW warps each on average. */
export function gameFrameTrace(options: { readonly draws?: number; readonly seed?: number } = {}): Trace {
  const warps = (options.draws ?? 2025) * WARPS_PER_DRAW;
  const base = synthesizeTrace({ warps, seed: options.seed ?? 24, warpsPerDraw: WARPS_PER_DRAW, drawsPerPass: GAME_DRAWS_PER_PASS });
  return { ...base, draws: base.draws.map((d) => ({ ...d, label: assetLabel(d.index) })) };
}
