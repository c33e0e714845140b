/**
 * A game-like frame for A/B tests: 2,025 draws in 23 passes (graphics passes
 * in a numbered render pass, as the capture layer names them; compute passes
 * of dispatches), long asset-path labels without spaces, named pipelines.
 * Which draw runs where and for how long follows from its place in the frame
 * alone; the mesh names come from a seeded pool (eight families of 48 meshes,
 * so names repeat within a pass). Two frames that differ only in namesSeed are
 * the same draws in the same order under other names, with many names that
 * also occur elsewhere in the same pass: the case where pairing by label and
 * pass pairs the wrong draws. Shared by the node and browser tests (imports
 * only shared-schema).
 */
import { Stage, buildTrace, makeRandom, synthesizeTrace, type DrawInput, type RegionInput, type Trace } from '../../shared-schema/index.js';

export const GAME_PASSES = [
  'Shadows/Cascade0', 'Shadows/Cascade1', 'Shadows/Cascade2', 'Shadows/Cascade3', 'DepthPrepass', 'GBuffer/Terrain', 'GBuffer/Static',
  'GBuffer/Characters', 'GBuffer/Foliage', 'Decals', 'SSAO', 'DeferredLighting', 'VolumetricFog', 'Sky', 'ForwardOpaque', 'Water',
  'Particles', 'Transparent', 'Bloom', 'DepthOfField', 'MotionBlur', 'Tonemap', 'UI',
] as const;
export const GAME_DRAWS = 2025;
const COMPUTE_PASSES: ReadonlySet<string> = new Set(['SSAO', 'VolumetricFog', 'Bloom', 'DepthOfField']);
const MESH_FAMILIES = ['Terrain_Tile', 'Rock_Cliff', 'Tree_Oak', 'Building_Facade', 'Character_Body', 'Prop_Crate', 'Grass_Clump', 'Road_Segment'];
const MESHES_PER_FAMILY = 48;
const MATERIALS = 5;
const SM_COUNT = 16;

export interface GameFrameOptions {
  /** Seed of the mesh names (graphics draws' labels); default 1. */
  readonly namesSeed?: number;
  /** Warps per draw (the first is its vertex warp, the rest fragment or compute); default 4. */
  readonly warpsPerDraw?: number;
  /** A pass left out of the frame (its draws and regions); the later render passes' running numbers shift down. */
  readonly dropPass?: number;
}

/** The pass (index into GAME_PASSES) of each draw of the full frame. */
export function gamePassOfDraw(): Uint8Array {
  const pass = new Uint8Array(GAME_DRAWS);
  for (let p = 0; p < GAME_PASSES.length; p++) {
    for (let d = Math.floor((GAME_DRAWS * p) / GAME_PASSES.length); d < Math.floor((GAME_DRAWS * (p + 1)) / GAME_PASSES.length); d++) pass[d] = p;
  }
  return pass;
}

/** How long draw d of the full frame lasts, ns: heavy-tailed, from its place only. */
export function gameDrawLengthNs(d: number): number {
  const r = makeRandom(0x9e37 + d)();
  return Math.round(600 + 40_000 * r ** 4);
}

export function gameFrameTrace(options: GameFrameOptions = {}): Trace {
  const names = makeRandom(options.namesSeed ?? 1);
  const warpsPerDraw = Math.max(2, options.warpsPerDraw ?? 4);
  const passOf = gamePassOfDraw();
  const base = synthesizeTrace({ warps: 64, seed: 3 });
  const regions: RegionInput[] = [];
  const draws: DrawInput[] = [];
  const cols = { startNs: [] as number[], endNs: [] as number[], sm: [] as number[], warpSlot: [] as number[], stage: [] as number[], draw: [] as number[] };
  let region = -1;
  let renderPasses = 0;
  let clock = 1000;
  for (let src = 0; src < GAME_DRAWS; src++) {
    const p = passOf[src]!;
    const pass = GAME_PASSES[p]!;
    const compute = COMPUTE_PASSES.has(pass);
    // Every graphics draw draws the next mesh of the pool, so names advance alike in every frame of one seed.
    const mesh = compute ? '' : `${MESH_FAMILIES[Math.floor(names() * MESH_FAMILIES.length)]}_${Math.floor(names() * MESHES_PER_FAMILY)}`;
    if (p === options.dropPass) continue;
    if (src === 0 || passOf[src - 1] !== p) {
      regions.push({ label: pass, parent: null, source: 'debug-label' });
      region = regions.length - 1;
      if (!compute) {
        regions.push({ label: `Colour Pass #${++renderPasses} (2 Targets + Depth)`, parent: region, source: 'render-pass' });
        region = regions.length - 1;
      }
    }
    const d = draws.length;
    const k = src - Math.floor((GAME_DRAWS * p) / GAME_PASSES.length);
    const material = k % MATERIALS;
    const len = gameDrawLengthNs(src);
    draws.push({
      index: d,
      label: compute ? `Compute/${pass}/Tile_Dispatch_${k}` : `Assets/Environment/${pass}/${mesh}/LOD0/${mesh}_Mesh_Opaque_DoubleSided_WithAVeryLongAssetName`,
      kind: compute ? 'dispatch' : 'draw',
      gpuBeginNs: clock,
      gpuEndNs: clock + len,
      call: compute ? 'vkCmdDispatch' : 'vkCmdDrawIndexed',
      pipeline: `PSO_${pass}_Material_${material}`,
      region,
      params: null,
    });
    for (let w = 0; w < warpsPerDraw; w++) {
      const start = clock + (w * len) / (warpsPerDraw + 1);
      cols.startNs.push(start);
      cols.endNs.push(w === warpsPerDraw - 1 ? clock + len : start + len / (warpsPerDraw + 1) + 50);
      cols.sm.push((src * 5 + w) % SM_COUNT);
      cols.warpSlot.push((src + w) % 48);
      cols.stage.push(compute ? Stage.CS : w === 0 ? Stage.VS : Stage.FS);
      cols.draw.push(d);
    }
    clock += Math.round(len * 0.7);
  }
  const n = cols.startNs.length;
  return buildTrace({
    device: { ...base.device, smCount: SM_COUNT },
    capture: { ...base.capture, workload: `game-like frame, names seed ${options.namesSeed ?? 1}`, recordsWritten: n, recordsKept: n, bufferCapacity: n },
    draws,
    regions,
    warps: { ...cols, customId: cols.startNs.map((_, i) => i), activeMask: new Array<number>(n).fill(0xffffffff) },
  });
}
