// Random buildTrace inputs over the whole accepted range, edges included (for
// round-trip.test.ts). Written from the documented limits, not from the code
// that enforces them: times 0 to 2^48 − 1 ns in 1/16 ns ticks, ends as the
// trace holds them (the duration a float32), SM cycles up to 2^50 after the
// SM's first warp, 32-bit ids and cycle durations, lanes of the subgroup.
import {
  DRAW_PARAM_NAMES,
  MAX_CYCLE_START,
  MAX_POSITION_COORD,
  MAX_TIME_NS,
  NO_POSITION,
  STAGES,
  packPosition,
  type CaptureInput,
  type DeviceInfo,
  type DrawInput,
  type DrawParamName,
  type LayerInfo,
  type RegionInput,
  type TraceInput,
} from '../../shared-schema/index.js';

export type Random = () => number;

const MAX_TICKS = MAX_TIME_NS * 16;
const U32_MAX = 0xffffffff;

/** Duration ticks as a float32 of ns holds them. */
export const storedTicks = (ticks: number): number => Math.fround(ticks / 16) * 16;

/** The longest duration (ticks) whose float32 still fits in `room` ticks. */
function longestStored(room: number): number {
  const f = new Float32Array([room / 16]);
  if ((f[0] as number) * 16 > room) new Uint32Array(f.buffer)[0]! -= 1;
  return (f[0] as number) * 16;
}

function tools(random: Random) {
  const int = (max: number) => Math.floor(random() * (max + 1)); // [0, max], max < 2^32
  const big = (max: number) => (Math.floor(random() * 2 ** 26) * 2 ** 26 + Math.floor(random() * 2 ** 26)) % (max + 1); // max < 2^52
  const pick = <T>(values: readonly T[]): T => values[int(values.length - 1)] as T;
  const chance = (p: number) => random() < p;
  return { int, big, pick, chance };
}

/** A position word over its whole range: none, the largest corner and footprint, or any packed box. */
function randomPosition(random: Random): number {
  const { int, pick, chance } = tools(random);
  if (chance(0.3)) return NO_POSITION;
  const coord = () => pick([0, MAX_POSITION_COORD, int(MAX_POSITION_COORD), int(2000)]);
  const x = coord();
  const y = coord();
  return packPosition(x, y, x + pick([0, 1, 7, 127, 5000, int(300)]), y + pick([0, 3, 127, int(300)]));
}

export interface ExpectedRow {
  /** Quantized start, ticks. */
  readonly start: number;
  /** Quantized duration before float32 rounding, ticks. */
  readonly duration: number;
}

export interface RandomOptions {
  readonly minRows?: number;
}

export function randomInput(random: Random, options: RandomOptions = {}): { input: TraceInput; expectedRows: ExpectedRow[] } {
  const { int, big, pick, chance } = tools(random);
  const minRows = options.minRows ?? 0;
  const count = minRows + (chance(0.1) ? 0 : int(40));

  const subgroupSize = chance(0.5) ? pick([1, 2, 31, 32, 33, 63, 64]) : 1 + int(63);
  const smCount = chance(0.3) ? null : pick([1, 2, 0xfffe, 1 + int(200)]);
  const warpsPerSm = chance(0.3) ? null : pick([1, 0xfe, 1 + int(100)]);
  const text = () => pick(['', 'NVIDIA H100 80GB HBM3', 'é漢字🙂', 'x'.repeat(4096), '"quoted"\n\\']);
  const number = () => pick([0, -0, 1.5, -3e-300, 1e300, Number.MAX_VALUE, -(2 ** 53), random() * 1e12]);
  const device: DeviceInfo = {
    name: text(),
    vendor: text(),
    vendorId: chance(0.5) ? null : pick([0, U32_MAX, int(U32_MAX)]),
    deviceId: chance(0.5) ? null : int(U32_MAX),
    api: pick(['vulkan', 'json', '']),
    apiVersion: text(),
    driverVersion: text(),
    smCount,
    warpsPerSm,
    subgroupSize,
    subgroupStages: STAGES.filter(() => chance(0.3)).map((s) => s.name),
    smBuiltins: chance(0.5),
    clocks: {
      smClock: chance(0.5),
      deviceClock: chance(0.5),
      deviceClockNsPerTick: chance(0.5) ? null : number(),
      deviceClockGranularityNs: chance(0.5) ? null : number(),
      // Plausible, at the compression predictor's edge (8 GHz), just past it, implausible, tiny.
      smClockRateHz: pick([null, 1.98e9, 8e9, 8.000001e9, 2.433e12, 1e-300, 1]),
      timestampPeriodNs: chance(0.5) ? null : number(),
    },
  };
  const drawCount = count === 0 && chance(0.5) ? 0 : 1 + int(3);
  // As a capture layer records them: regions nested (each parent an earlier one), draws with call details (or none, as every older file).
  const regionCount = chance(0.5) ? 0 : 1 + int(4);
  const regions: RegionInput[] = Array.from({ length: regionCount }, (_, j) => ({
    ...(chance(0.5) ? { index: j } : {}),
    label: text(),
    parent: j === 0 || chance(0.3) ? null : int(j - 1),
    source: pick(['debug-label', 'render-pass'] as const),
  }));
  const params = () => {
    const out: Partial<Record<DrawParamName, number>> = {};
    for (const name of DRAW_PARAM_NAMES) {
      if (chance(0.5)) out[name] = name === 'vertexOffset' ? pick([-(2 ** 31), -1, 0, 2 ** 31 - 1]) : pick([0, 1, U32_MAX, int(U32_MAX)]);
    }
    return out;
  };
  const draws: DrawInput[] = Array.from({ length: drawCount }, (_, index) => {
    const begin = chance(0.5) ? null : number();
    const draw = { index, label: text(), kind: pick(['draw', 'dispatch', 'trace-rays'] as const), gpuBeginNs: begin, gpuEndNs: begin === null ? null : begin + pick([0, 1, 1e9]) };
    if (chance(0.5)) return draw;
    return {
      ...draw,
      call: pick([null, 'vkCmdDrawIndexed', 'vkCmdDispatchIndirect', text()]),
      pipeline: pick([null, '0x0000558a3c2f1e40', text()]),
      region: regionCount === 0 || chance(0.2) ? null : int(regionCount - 1),
      params: chance(0.2) ? null : params(),
    };
  });
  const layer: LayerInfo | null = chance(0.5)
    ? null
    : {
        version: text(),
        set: pick([0, 7, U32_MAX]),
        frame: pick([null, 1, 60, 2 ** 53 - 1]),
        submits: pick([null, '0..3', text()]),
        skipped: Array.from({ length: int(3) }, () => ({ what: text(), why: text() })),
        notes: Array.from({ length: int(2) }, () => ({ what: text(), why: text() })),
      };
  const recordsWritten = count + pick([0, 1, int(1000), 2 ** 53 - 1 - count]);
  const parameters = JSON.parse('{"shading": 64, "zero": -0, "flag": true, "emoji🙂": "v", "constructor": "c"}') as Record<string, string | number | boolean>;
  const capture: CaptureInput = {
    tool: text(),
    toolVersion: text(),
    capturedAt: text(),
    workload: text(),
    parameters: chance(0.5) ? {} : parameters,
    bufferCapacity: pick([0, count, 2 ** 53 - 1]),
    recordsWritten,
    recordsKept: count,
    originDeviceNs: pick([null, '0', '18446744073709551615', String(big(2 ** 52 - 1))]),
    calibration: {
      method: pick(['per-sm-fit', 'device-clock', 'sm-clock-rebased', 'given'] as const),
      alignedAcrossSms: chance(0.5),
      note: text(),
      perSm: Array.from({ length: int(2) }, () => ({
        sm: pick([0, 0xffff, int(0xffff)]),
        samples: int(1000),
        lateSamples: int(10),
        fit: pick(['linear', 'offset-only', 'rebased'] as const),
        nsPerCycle: number(),
        offsetNs: number(),
        residualRmsNs: number(),
        residualMaxNs: number(),
        fromNs: number(),
        toNs: number(),
      })),
    },
    overhead: chance(0.5) ? null : { plainFrameNs: pick([1e-300, 812000]), tracedFrameNs: pick([845000, Number.MAX_VALUE]), frames: pick([1, 2 ** 53 - 1]) },
    // Left out, null or given: files without a capture layer have none.
    ...(layer === null ? (chance(0.5) ? {} : { layer: null }) : { layer }),
  };

  // A few SMs per trace, so groups hold several rows (deltas between rows are what .wtrace stores).
  const smChoices = Array.from({ length: 1 + int(2) }, () => (smCount === null ? int(0xfffe) : pick([0, smCount - 1, int(smCount - 1)])));
  smChoices.push(0xffff);
  const slotLimit = warpsPerSm ?? 0xff;
  const lo = subgroupSize >= 32 ? U32_MAX : 2 ** subgroupSize - 1;
  const hi = subgroupSize > 32 ? (subgroupSize >= 64 ? U32_MAX : 2 ** (subgroupSize - 32) - 1) : 0;
  const withCycles = chance(0.5);
  const cycleBase = new Map(smChoices.map((sm) => [sm, big(2 ** 52 - 1)]));

  const expectedRows: ExpectedRow[] = [];
  const startNs: number[] = [];
  const endNs: number[] = [];
  const cols = { sm: [] as number[], warpSlot: [] as number[], stage: [] as number[], draw: [] as number[], customId: [] as number[], activeMask: [] as number[], activeMaskHi: [] as number[], smCycleStart: [] as number[], smCycleDuration: [] as number[] };
  for (let i = 0; i < count; i++) {
    const start = chance(0.4) ? pick([0, 1, 15, 16, MAX_TICKS - 16, MAX_TICKS - 1, MAX_TICKS]) : chance(0.5) ? big(MAX_TICKS) : int(1e7);
    const room = MAX_TICKS - start;
    const longest = longestStored(room);
    let duration: number;
    const kind = int(4);
    if (kind === 0) duration = 0;
    else if (kind === 1) duration = int(Math.min(room, 1e6));
    else if (kind === 2) duration = longest;
    else if (kind === 3) duration = longest - 1; // rounds up to `longest` when float32 steps are wider than 2 ticks
    else duration = Math.min(big(room), longest);
    duration = Math.max(0, duration);
    expectedRows.push({ start, duration });
    // Sub-tick noise where it stays exact (buildTrace rounds to ticks).
    const noise = start > 0 && start + duration < 2 ** 40 && chance(0.3) ? pick([0.3, -0.3]) : 0;
    startNs.push((start + noise) / 16);
    endNs.push((start + duration + noise) / 16);
    const sm = pick(smChoices);
    cols.sm.push(sm);
    cols.warpSlot.push(chance(0.2) ? 0xff : pick([0, slotLimit - 1, int(slotLimit - 1)]));
    cols.stage.push(int(STAGES.length - 1));
    cols.draw.push(int(drawCount - 1));
    cols.customId.push(pick([0, U32_MAX, int(U32_MAX)]));
    const maskLo = pick([lo, 1, lo >>> 0 === U32_MAX ? 0x80000000 : lo, int(U32_MAX) & lo]) >>> 0;
    const maskHi = hi === 0 ? 0 : (pick([hi, 0, int(U32_MAX) & hi]) >>> 0);
    cols.activeMask.push(maskLo === 0 && maskHi === 0 ? 1 : maskLo);
    cols.activeMaskHi.push(maskHi);
    cols.smCycleStart.push((cycleBase.get(sm) as number) + pick([0, MAX_CYCLE_START, MAX_CYCLE_START - 1, big(MAX_CYCLE_START)]));
    cols.smCycleDuration.push(pick([0, U32_MAX, int(U32_MAX)]));
  }
  // Screen positions and targets last, so the values above stay what they were before these existed.
  const position = chance(0.5) ? null : Array.from({ length: count }, () => randomPosition(random));
  const targets = draws.map((d) => (chance(0.5) ? d : { ...d, target: chance(0.2) ? null : { width: pick([1, U32_MAX, 1920, 1 + int(8191)]), height: pick([1, U32_MAX, 1080, 1 + int(8191)]) } }));
  return {
    input: {
      device,
      capture,
      draws: targets,
      ...(regionCount === 0 && chance(0.5) ? {} : { regions }),
      warps: {
        startNs,
        endNs,
        sm: cols.sm,
        warpSlot: cols.warpSlot,
        stage: cols.stage,
        draw: cols.draw,
        customId: cols.customId,
        activeMask: cols.activeMask,
        activeMaskHi: hi === 0 ? null : cols.activeMaskHi,
        smCycleStart: withCycles ? cols.smCycleStart : null,
        smCycleDuration: withCycles ? cols.smCycleDuration : null,
        ...(position === null && chance(0.5) ? {} : { position }),
      },
    },
    expectedRows,
  };
}
