/**
 * A game-like frame for the viewer's tests (issue 24's "2,025 draws in 23 passes, long
 * labels", at a size a test opens in a second): 23 passes, each a debug-label region with
 * "Opaque" and "Alpha" children; 2,024 draws labelled with long asset paths (some without a
 * space in 150 characters); graphics on SMs 0, 1, 48 and 49 of an H100-shaped device
 * (VS then FS warps, tessellated draws with TCS and TES warps and, now and then, a stalled
 * TCS warp); three compute passes whose dispatches run on the other SMs; and one more
 * dispatch (TINY_DRAW) of two warps, on SMs 24 and 58 only, lasting 358 ns. Deterministic.
 * Shared by the node and browser tests (imports only shared-schema).
 */
import { Stage, buildTrace, makeRandom, type DrawInput, type RegionInput, type Trace } from '../../shared-schema/index.js';

export const GAME_PASSES = [
  'Shadows/CSM0', 'Shadows/CSM1', 'Shadows/CSM2', 'Shadows/CSM3', 'DepthPrepass', 'GBuffer', 'Decals', 'Compute HiZ', 'SSAO', 'Lighting',
  'Compute Light Clusters', 'Sky', 'Opaque Forward', 'Water', 'Volumetric Fog', 'Particles', 'Transparent', 'Bloom', 'DOF', 'Motion Blur',
  'Tonemap', 'Compute Histogram', 'UI',
] as const;
export const GAME_DRAWS_PER_PASS = 88;
export const GRAPHICS_SMS = [0, 1, 48, 49] as const;
/** The dispatch of two warps on SMs 24 and 58 (the last draw, in pass TINY_PASS). */
export const TINY_DRAW = GAME_PASSES.length * GAME_DRAWS_PER_PASS;
export const TINY_SMS = [24, 58] as const;
export const TINY_SPAN_NS = 358;
const TINY_PASS = GAME_PASSES.indexOf('Compute Light Clusters');
const SM_COUNT = 132;
const SLOTS = 64;

const BIOMES = ['Environment/Terrain', 'Environment/Foliage', 'Characters/Hero', 'Props/Industrial', 'Architecture/Modular'];
const ASSETS = ['Terrain_Tile', 'Rock_Cliff', 'Pine_Tree', 'Hero_Body', 'Pipe_Bundle', 'Wall_Panel', 'Crate_Stack', 'Grass_Clump'];

/** A long asset-path label; every third has no space at all. */
function assetLabel(pass: string, k: number): string {
  const biome = BIOMES[k % BIOMES.length]!;
  const asset = `${ASSETS[k % ASSETS.length]!}_${k}`;
  const path = `Content/${biome}/${asset}/LOD${k % 3}/Meshes/SM_${asset}_Variant_${'ABC'[k % 3]}_MaterialInstanceDynamic_TwoSided_Masked.uasset`;
  return k % 3 === 0 ? path : `${pass} ${path}`;
}

export function gameFrameTrace(): Trace {
  const random = makeRandom(24);
  const regions: RegionInput[] = [];
  const draws: DrawInput[] = [];
  const cols = { startNs: [] as number[], endNs: [] as number[], sm: [] as number[], warpSlot: [] as number[], stage: [] as number[], draw: [] as number[], activeMask: [] as number[] };
  const slotFree = new Float64Array(SM_COUNT * SLOTS);
  const warp = (d: number, st: number, sm: number, earliest: number, durNs: number): number => {
    let slot = Math.floor(random() * SLOTS);
    for (let k = 0; k < SLOTS && slotFree[sm * SLOTS + slot]! > earliest; k++) slot = (slot + 1) % SLOTS;
    const s = Math.max(earliest, slotFree[sm * SLOTS + slot]!);
    slotFree[sm * SLOTS + slot] = s + durNs + 10;
    cols.startNs.push(s);
    cols.endNs.push(s + durNs);
    cols.sm.push(sm);
    cols.warpSlot.push(slot);
    cols.stage.push(st);
    cols.draw.push(d);
    cols.activeMask.push(random() < 0.85 ? 0xffffffff : (0xffffffff >>> Math.floor(1 + random() * 30)) >>> 0);
    return s + durNs;
  };
  const jitter = (mean: number) => mean * Math.exp((random() - 0.5) * 1.2);
  let clock = 2000;
  for (let p = 0; p < GAME_PASSES.length; p++) {
    const name = GAME_PASSES[p]!;
    const compute = name.startsWith('Compute');
    const top = regions.length;
    regions.push({ label: name, parent: null, source: 'debug-label' }, { label: `${name}/Opaque`, parent: top, source: 'debug-label' }, { label: `${name}/Alpha`, parent: top, source: 'debug-label' });
    for (let k = 0; k < GAME_DRAWS_PER_PASS; k++) {
      const d = draws.length;
      let end = clock;
      if (compute) {
        for (let j = 0; j < 24; j++) {
          const sm = 2 + Math.floor(random() * (SM_COUNT - 2));
          end = Math.max(end, warp(d, Stage.CS, GRAPHICS_SMS.includes(sm as 48) ? sm + 1 : sm, clock + j * 15, jitter(900)));
        }
      } else {
        const tess = k % 9 === 4;
        const plan = tess ? [Stage.VS, Stage.TCS, Stage.TES, Stage.FS] : [Stage.VS, Stage.FS];
        const mean = { [Stage.VS]: 90, [Stage.TCS]: 1500, [Stage.TES]: 600, [Stage.FS]: 350 } as Record<number, number>;
        const n = 24 + Math.floor(random() * 32);
        for (let j = 0; j < n; j++) {
          const st = plan[Math.min(plan.length - 1, Math.floor((j / n) * plan.length))]!;
          const stall = st === Stage.TCS && random() < 0.02 ? 30 : 1;
          end = Math.max(end, warp(d, st, GRAPHICS_SMS[Math.floor(random() * GRAPHICS_SMS.length)]!, clock + j * 12, jitter(mean[st]!) * stall));
        }
      }
      draws.push({
        index: d,
        label: compute ? `${name} dispatch ${k}: ClusterCull_${k}_BinLightsIntoFroxelGrid_Pass${k % 4}` : assetLabel(name, d),
        kind: compute ? 'dispatch' : 'draw',
        gpuBeginNs: clock - 100,
        gpuEndNs: end + 100,
        region: top + (k < GAME_DRAWS_PER_PASS / 2 ? 1 : 2),
      });
      clock += (end - clock) * 0.55 + 20;
    }
    clock += 1500;
  }
  // The tiny dispatch, in its compute pass's time, on two SMs far from the graphics SMs.
  const tinyStart = cols.startNs[cols.draw.indexOf(TINY_PASS * GAME_DRAWS_PER_PASS + 40)]!;
  const d = draws.length;
  for (const [sm, durNs] of [[TINY_SMS[0], 300], [TINY_SMS[1], TINY_SPAN_NS]] as const) {
    warp(d, Stage.CS, sm, tinyStart, durNs);
    // Both start at once, whatever their slots were doing.
    cols.startNs[cols.startNs.length - 1] = tinyStart;
    cols.endNs[cols.endNs.length - 1] = tinyStart + durNs;
  }
  draws.push({ index: d, label: 'Compute Light Clusters dispatch: ClearFroxelCounters (2 warps)', kind: 'dispatch', gpuBeginNs: tinyStart - 50, gpuEndNs: tinyStart + TINY_SPAN_NS + 50, region: 3 * TINY_PASS + 2 });
  const n = cols.startNs.length;
  return buildTrace({
    device: {
      name: 'Synthetic H100-like GPU (game frame)',
      vendor: 'warptrace',
      vendorId: null,
      deviceId: null,
      api: 'synthetic',
      apiVersion: '',
      driverVersion: '',
      smCount: SM_COUNT,
      warpsPerSm: SLOTS,
      subgroupSize: 32,
      subgroupStages: ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'],
      smBuiltins: true,
      clocks: { smClock: false, deviceClock: false, deviceClockNsPerTick: null, deviceClockGranularityNs: null, smClockRateHz: null, timestampPeriodNs: null },
    },
    capture: {
      tool: 'warptrace-test',
      toolVersion: '1',
      capturedAt: '2026-01-01T00:00:00.000Z',
      workload: 'game-like frame',
      parameters: {},
      bufferCapacity: n,
      recordsWritten: n,
      recordsKept: n,
      originDeviceNs: null,
      calibration: { method: 'given', alignedAcrossSms: true, note: 'synthetic times', perSm: [] },
      overhead: null,
    },
    draws,
    regions,
    warps: { ...cols, customId: cols.startNs.map((_, i) => i), position: null },
  });
}
