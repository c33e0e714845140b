/**
 * Turns a trace with known ("true") times into the raw GPU dump a capture of
 * it would produce: per-SM clock offsets and rates, a device clock that
 * floors to its step, wrapping 32-bit words, timestamp queries. Used by the
 * calibration known-answer tests and the conversion benchmark.
 */
import { smIdPerWarp } from './columns.js';
import type { Trace } from './model.js';
import { RECORD_WORDS, RecordFlag, RecordWord, packIds } from './raw-layout.js';
import { groupedOrder } from './sort.js';
import { makeRandom } from './synthetic.js';
import type { RawCapture } from './wtraw.js';

export interface RawClockModel {
  /** Device clock at capture time 0, ns (the H100's counts ns since boot). */
  readonly originDeviceNs: number;
  /** Device clock step, ns (32 on the H100). */
  readonly deviceStepNs: number;
  /** Mean SM clock rate, Hz; each SM deviates from it by up to ±rateSpread (relative). */
  readonly smClockHz: number;
  readonly rateSpread: number;
  /** Each SM's cycle counter starts at a random value below this. */
  readonly offsetSpreadCycles: number;
  /** Records carry an SM clock / a device clock. */
  readonly smClock: boolean;
  readonly deviceClock: boolean;
  readonly seed: number;
  /** Shaders tried to write this many more records than the buffer held. */
  readonly dropped: number;
}

export const H100_CLOCKS: RawClockModel = {
  originDeviceNs: 1_754_000_123_456_789,
  deviceStepNs: 32,
  smClockHz: 1.905e9,
  rateSpread: 2e-4,
  offsetSpreadCycles: 2.9e6 * 1000,
  smClock: true,
  deviceClock: true,
  seed: 7,
  dropped: 0,
};

export interface SmClockTruth {
  /** SM cycles = offsetCycles + cyclesPerNs × (capture ns). */
  readonly offsetCycles: number;
  readonly cyclesPerNs: number;
}

/** The raw capture of `truth`, plus the per-SM clocks it was made with. */
export function rawCaptureOf(truth: Trace, model: RawClockModel): { raw: RawCapture; clocks: Map<number, SmClockTruth> } {
  const random = makeRandom(model.seed);
  const w = truth.warps;
  const sm = smIdPerWarp(w);
  const clocks = new Map<number, SmClockTruth>();
  for (const id of w.smGroups.sm) {
    clocks.set(id, {
      offsetCycles: Math.floor(random() * model.offsetSpreadCycles),
      cyclesPerNs: (model.smClockHz / 1e9) * (1 + (random() * 2 - 1) * model.rateSpread),
    });
  }
  const flags = (model.smClock ? RecordFlag.SM_CLOCK : 0) | (model.deviceClock ? RecordFlag.DEVICE_CLOCK : 0);
  const deviceTicks = (ns: number) => Math.floor((model.originDeviceNs + ns) / model.deviceStepNs) * model.deviceStepNs;
  const lo = (v: number) => v % 4294967296;
  // The GPU appends records as warps finish: emit them in end-time order.
  const endTicks = new Float64Array(w.count);
  for (let i = 0; i < w.count; i++) endTicks[i] = Math.round(((w.startNs[i] as number) + (w.durationNs[i] as number)) * 16);
  const byEnd = groupedOrder(new Uint8Array(w.count), endTicks).order;
  const records = new Uint32Array(w.count * RECORD_WORDS);
  for (let k = 0; k < w.count; k++) {
    const i = byEnd === null ? k : (byEnd[k] as number);
    const start = w.startNs[i] as number;
    const end = start + (w.durationNs[i] as number);
    const clock = clocks.get(sm[i] as number)!;
    const base = k * RECORD_WORDS;
    if (model.smClock) {
      records[base + RecordWord.CLOCK_START] = lo(Math.floor(clock.offsetCycles + clock.cyclesPerNs * start));
      records[base + RecordWord.CLOCK_END] = lo(Math.floor(clock.offsetCycles + clock.cyclesPerNs * end));
      if (model.deviceClock) records[base + RecordWord.DEVICE_CLOCK] = lo(deviceTicks(end));
    } else {
      records[base + RecordWord.CLOCK_START] = lo(deviceTicks(start));
      records[base + RecordWord.CLOCK_END] = lo(deviceTicks(end));
    }
    records[base + RecordWord.ACTIVE_MASK_HI] = w.activeMaskHi === null ? 0 : (w.activeMaskHi[i] as number);
    records[base + RecordWord.PACKED_IDS] = packIds(sm[i] as number, w.warpSlot[i] as number, w.stage[i] as number, flags);
    records[base + RecordWord.DRAW_ID] = w.draw[i] as number;
    records[base + RecordWord.CUSTOM_ID] = w.customId[i] as number;
    records[base + RecordWord.ACTIVE_MASK_LO] = w.activeMask[i] as number;
  }
  const d = truth.device;
  const metadata = {
    tool: 'warptrace-synthetic-raw',
    toolVersion: '1',
    capturedAt: truth.capture.capturedAt,
    workload: truth.capture.workload,
    parameters: { ...truth.capture.parameters, rawSeed: model.seed },
    captureStartTicks: String(deviceTicks(0)),
    device: {
      name: d.name,
      vendor: d.vendor,
      api: 'synthetic',
      smCount: d.smCount,
      warpsPerSm: d.warpsPerSm,
      subgroupSize: d.subgroupSize,
      subgroupStages: d.subgroupStages,
      smBuiltins: d.smBuiltins,
      smClock: model.smClock,
      deviceClock: model.deviceClock,
      deviceClockNsPerTick: 1,
      timestampPeriodNs: 1,
      smClockRateHz: model.smClock && !model.deviceClock ? model.smClockHz : null,
    },
    draws: truth.draws.map((draw) => ({ label: draw.label, kind: draw.kind })),
  };
  const timestamps = truth.draws.map((draw) =>
    draw.gpuBeginNs === null || draw.gpuEndNs === null
      ? null
      : ([BigInt(deviceTicks(draw.gpuBeginNs)), BigInt(deviceTicks(draw.gpuEndNs))] as const),
  );
  return {
    raw: { metadata, timestamps, records, counter: w.count + model.dropped, capacity: w.count },
    clocks,
  };
}
