/**
 * Deterministic synthetic traces shaped like the H100 captures: graphics
 * stages on four SMs, compute on all of them, draws that overlap, an
 * occasional long TCS warp. For benchmarks, tests and viewer demos; real
 * captures live in samples/.
 */
import { buildTrace } from './build.js';
import type { DrawInput, Trace } from './model.js';
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
  // When each slot of each SM frees up: warps queue for slots like on the GPU.
  const slotFree = new Float64Array(smCount * warpsPerSm);
  const draws: DrawInput[] = [];

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
    for (let k = 0; k < n; k++, row++) {
      const stageIndex = Math.min(plan.stages.length - 1, Math.floor((k / n) * plan.stages.length + random() * 0.6));
      const st = plan.stages[stageIndex]!;
      const smId = sms === null ? Math.floor(random() * smCount) : sms[Math.floor(random() * sms.length)]!;
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
    draws.push({ index: d, label: `${plan.kind} ${d}`, kind: plan.kind, gpuBeginNs: drawStart - 200, gpuEndNs: drawEnd + 200 });
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
      parameters: { seed: options.seed ?? 1 },
      bufferCapacity: total,
      recordsWritten: total,
      recordsKept: total,
      originDeviceNs: null,
      calibration: { method: 'given', alignedAcrossSms: true, note: 'synthetic times', perSm: [] },
      overhead: null,
    },
    draws,
    warps: { startNs, endNs, sm, warpSlot, stage, draw, customId, activeMask },
  });
}

function maxOf(values: Float64Array): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) if (values[i]! > m) m = values[i]!;
  return m;
}
