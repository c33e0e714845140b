/**
 * Deterministic synthetic traces shaped like the H100 captures: graphics
 * stages on four SMs, compute on all of them, draws that overlap, an
 * occasional long TCS warp. For benchmarks, tests and viewer demos; real
 * captures live in samples/.
 */
import { buildTrace } from './build.js';
import type { DrawInput, RegionInput, Trace } from './model.js';
import { NO_POSITION, packPosition } from './position.js';
import { Stage } from './stages.js';

export interface SyntheticOptions {
  /** Approximate number of warps (the generator stops at this count). */
  readonly warps: number;
  readonly seed?: number;
  readonly smCount?: number;
  readonly warpsPerSm?: number;
  /** SMs that run graphics stages (the H100 ran them on 0, 1, 48, 49). */
  readonly graphicsSms?: readonly number[];
  /** Warps per draw, on average. */
  readonly warpsPerDraw?: number;
  /**
   * Fragment warps get screen positions and graphics draws a 1280x720
   * target (see screenTile): off by default, so traces without positions
   * (benchmarks, most tests) stay as they were.
   */
  readonly positions?: boolean;
  /**
   * Draws per pass: the draws are grouped, in order, into labelled passes
   * ("GBuffer", "Lighting", …, numbered once the names run out), each a
   * debug-label region with an "Opaque" and an "Alpha" child holding its
   * first and second half, and draws are labelled "<pass> <kind> <k>", as a
   * game's frame reads. Off (0) by default: no regions, labels "<kind> <d>".
   */
  readonly drawsPerPass?: number;
}

/** Pass names of a game-like frame, for drawsPerPass. */
const PASS_NAMES = ['Shadows/CSM0', 'Shadows/CSM1', 'DepthPrepass', 'GBuffer', 'Decals', 'SSAO', 'Lighting', 'Sky', 'Opaque Forward', 'Water', 'Particles', 'Transparent', 'Bloom', 'DOF', 'Tonemap', 'UI'];

/** The synthetic render target, in pixels. */
export const SYNTHETIC_TARGET = { width: 1280, height: 720 } as const;
/** Tiles (8x8 px, two 8x4 fragment warps each) per row of a draw's rectangle. */
const RECT_TILES_WIDE = 16;

/**
 * Where the j-th fragment warp of draw d lies: each draw covers a rectangle
 * 16 tiles wide at a place of its own, rasterized tile by tile in rows,
 * each 8x8 tile as two 8x4 warps (eight 2x2 quads); a tile belongs to the
 * SM that owns its 32x32 screen block (blocks dealt to the SMs in turn, as
 * GPUs deal screen tiles to their rasterizers). Returns the position word
 * and the tile's SM (an index into the graphics SMs).
 */
export function screenTile(d: number, j: number, smChoices: number): { position: number; smIndex: number } {
  const tilesWide = SYNTHETIC_TARGET.width / 8;
  const tilesHigh = SYNTHETIC_TARGET.height / 8;
  const rectX = (d * 37) % (tilesWide - RECT_TILES_WIDE);
  const rectY = (d * 11) % tilesHigh;
  const t = j >> 1;
  const tx = rectX + (t % RECT_TILES_WIDE);
  const ty = (rectY + Math.floor(t / RECT_TILES_WIDE)) % tilesHigh;
  const x = tx * 8;
  const y = ty * 8 + (j & 1) * 4;
  return { position: packPosition(x, y, x + 7, y + 3), smIndex: ((tx >> 2) + (ty >> 2) * 3) % smChoices };
}

/** Small, fast, seedable PRNG (mulberry32). */
export function makeRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface DrawPlan {
  readonly kind: 'draw' | 'dispatch';
  readonly stages: readonly number[];
  readonly meanNs: readonly number[];
}

const PLANS: readonly DrawPlan[] = [
  { kind: 'draw', stages: [Stage.VS, Stage.TCS, Stage.TES, Stage.FS], meanNs: [80, 2400, 900, 300] },
  { kind: 'draw', stages: [Stage.VS, Stage.FS], meanNs: [90, 450] },
  { kind: 'draw', stages: [Stage.VS, Stage.GS, Stage.FS], meanNs: [100, 700, 350] },
  { kind: 'dispatch', stages: [Stage.CS], meanNs: [1500] },
];

export function synthesizeTrace(options: SyntheticOptions): Trace {
  const total = Math.max(0, Math.floor(options.warps));
  const random = makeRandom(options.seed ?? 1);
  const smCount = options.smCount ?? 132;
  const warpsPerSm = options.warpsPerSm ?? 64;
  const graphicsSms = options.graphicsSms ?? [0, 1, 48, 49].filter((s) => s < smCount);
  const warpsPerDraw = options.warpsPerDraw ?? 2000;

  const startNs = new Float64Array(total);
  const endNs = new Float64Array(total);
  const sm = new Uint16Array(total);
  const warpSlot = new Uint8Array(total);
  const stage = new Uint8Array(total);
  const draw = new Uint32Array(total);
  const customId = new Uint32Array(total);
  const activeMask = new Uint32Array(total);
  const positions = options.positions === true;
  const position = positions ? new Uint32Array(total).fill(NO_POSITION) : null;
  // When each slot of each SM frees up: warps queue for slots like on the GPU.
  const slotFree = new Float64Array(smCount * warpsPerSm);
  const draws: DrawInput[] = [];
  const drawsPerPass = Math.max(0, Math.floor(options.drawsPerPass ?? 0));
  const regions: RegionInput[] = [];

  let clock = 1000;
  let row = 0;
  while (row < total) {
    const d = draws.length;
    const plan = PLANS[d % PLANS.length === 3 || random() < 0.15 ? 3 : Math.floor(random() * 3)]!;
    const sms = plan.kind === 'dispatch' ? null : graphicsSms;
    const n = Math.min(total - row, Math.max(1, Math.round(warpsPerDraw * (0.5 + random()))));
    // Every few draws the driver syncs: the next draw waits for the GPU to drain.
    const sync = d > 0 && d % 7 === 0;
    const drawStart = sync ? Math.max(clock, maxOf(slotFree)) + 2000 : clock;
    let drawEnd = drawStart;
    let fragments = 0;
    for (let k = 0; k < n; k++, row++) {
      const stageIndex = Math.min(plan.stages.length - 1, Math.floor((k / n) * plan.stages.length + random() * 0.6));
      const st = plan.stages[stageIndex]!;
      let smId = sms === null ? Math.floor(random() * smCount) : sms[Math.floor(random() * sms.length)]!;
      if (position !== null && st === Stage.FS && sms !== null) {
        const tile = screenTile(d, fragments++, sms.length);
        position[row] = tile.position;
        smId = sms[tile.smIndex]!;
      }
      const slot = (k * 7 + Math.floor(random() * warpsPerSm)) % warpsPerSm;
      const base = smId * warpsPerSm + slot;
      const mean = plan.meanNs[stageIndex]!;
      // Log-normal-ish durations plus a rare very long TCS warp (a stall).
      let dur = mean * Math.exp((random() - 0.5) * 1.2);
      if (st === Stage.TCS && random() < 0.0008) dur *= 40;
      const earliest = drawStart + (k / n) * mean * 4 + random() * 50;
      const s = Math.max(earliest, slotFree[base]!);
      startNs[row] = s;
      endNs[row] = s + dur;
      slotFree[base] = s + dur + 20;
      if (s + dur > drawEnd) drawEnd = s + dur;
      sm[row] = smId;
      warpSlot[row] = slot;
      stage[row] = st;
      draw[row] = d;
      customId[row] = st === Stage.CS ? Math.floor(k / 4) : k;
      activeMask[row] = random() < 0.9 ? 0xffffffff : (0xffffffff >>> Math.floor(random() * 31)) >>> 0;
    }
    const target = positions && plan.kind === 'draw' ? { target: { ...SYNTHETIC_TARGET } } : {};
    const pass = drawsPerPass > 0 ? passOf(d, drawsPerPass, regions) : null;
    const label = pass === null ? `${plan.kind} ${d}` : `${pass.name} ${plan.kind} ${d % drawsPerPass}`;
    draws.push({ index: d, label, kind: plan.kind, gpuBeginNs: drawStart - 200, gpuEndNs: drawEnd + 200, ...target, ...(pass === null ? {} : { region: pass.region }) });
    clock = drawStart + (drawEnd - drawStart) * 0.6;
  }
  return buildTrace({
    device: {
      name: 'Synthetic H100-like GPU',
      vendor: 'warptrace',
      vendorId: null,
      deviceId: null,
      api: 'synthetic',
      apiVersion: '',
      driverVersion: '',
      smCount,
      warpsPerSm,
      subgroupSize: 32,
      subgroupStages: ['VS', 'TCS', 'TES', 'GS', 'FS', 'CS'],
      smBuiltins: true,
      clocks: {
        smClock: false,
        deviceClock: false,
        deviceClockNsPerTick: null,
        deviceClockGranularityNs: null,
        smClockRateHz: null,
        timestampPeriodNs: null,
      },
    },
    capture: {
      tool: 'warptrace-synthetic',
      toolVersion: '1',
      capturedAt: '2026-01-01T00:00:00.000Z',
      workload: `synthetic ${total} warps`,
      parameters: { seed: options.seed ?? 1, ...(positions ? { positions } : {}) },
      bufferCapacity: total,
      recordsWritten: total,
      recordsKept: total,
      originDeviceNs: null,
      calibration: { method: 'given', alignedAcrossSms: true, note: 'synthetic times', perSm: [] },
      overhead: null,
    },
    draws,
    ...(regions.length > 0 ? { regions } : {}),
    warps: { startNs, endNs, sm, warpSlot, stage, draw, customId, activeMask, position },
  });
}

/** Draw d's pass (adding its regions when d opens it): its name and the region the draw lies in. */
function passOf(d: number, drawsPerPass: number, regions: RegionInput[]): { name: string; region: number } {
  const p = Math.floor(d / drawsPerPass);
  const name = p < PASS_NAMES.length ? PASS_NAMES[p]! : `Pass ${p}`;
  if (d % drawsPerPass === 0) {
    const top = regions.length;
    regions.push({ label: name, parent: null, source: 'debug-label' });
    regions.push({ label: `${name}/Opaque`, parent: top, source: 'debug-label' });
    regions.push({ label: `${name}/Alpha`, parent: top, source: 'debug-label' });
  }
  const opaque = regions.length - 2;
  return { name, region: d % drawsPerPass < drawsPerPass / 2 ? opaque : opaque + 1 };
}

function maxOf(values: Float64Array): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) if (values[i]! > m) m = values[i]!;
  return m;
}
