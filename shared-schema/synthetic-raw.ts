/**
 * Turns a trace with known ("true") times into the raw GPU dump a capture of
 * it would produce: per-SM clock offsets and rates, a device clock that
 * floors to its step, wrapping 32-bit words, timestamp queries. Used by the
 * calibration known-answer tests and the conversion benchmark.
 */
import { smIdPerWarp } from './columns.js';
import type { DrawInfo, Trace } from './model.js';
import { RECORD_WORDS, RecordFlag, RecordWord, packIds } from './raw-layout.js';
import { NO_POSITION } from './position.js';
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
  /** This fraction of device-clock reads comes back late, by up to maxNs (never early). */
  readonly lateReads?: { readonly fraction: number; readonly maxNs: number };
  /**
   * As seen on the H100: for this long after an SM's first warp starts, its
   * device-clock reads all return the instant this window ends.
   */
  readonly wakeUpNs?: number;
  /** A chip-wide clock-rate change (boost), as a factor on every SM's rate, at this time. */
  readonly rateChange?: { readonly atNs: number; readonly factor: number };
  /**
   * Failures to test against. These SMs' counters count down (a dump whose
   * SM clock words are no clock).
   */
  readonly backwardsSms?: readonly number[];
  /** These SMs' counters stop while the SM idles longer than 1 µs (clock gating, as on GPUs whose SM clock does). */
  readonly gatedSms?: readonly number[];
  /** The timestamp queries read a clock this far (ns) ahead of the device clock the shaders read (two time bases). */
  readonly timestampSkewNs?: number;
}

/** A gated SM's counter stops in idle gaps longer than this (ns). */
const GATE_AFTER_NS = 1000;

export const H100_CLOCKS: RawClockModel = {
  originDeviceNs: 1_754_000_123_456_789,
  deviceStepNs: 32,
  smClockHz: 1.905e9,
  rateSpread: 5e-6,
  offsetSpreadCycles: 2.9e6 * 1000,
  smClock: true,
  deviceClock: true,
  seed: 7,
  dropped: 0,
};

export interface SmClockTruth {
  /** SM cycles = offsetCycles + cyclesPerNs × (capture ns), before any rate change. */
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
  const stopped = stoppedTime(w, sm, new Set(model.gatedSms ?? []));
  const backwards = new Set(model.backwardsSms ?? []);
  const cyclesAt = (smId: number, clock: SmClockTruth, at: number): number => {
    const ns = at - (stopped.get(smId)?.(at) ?? 0);
    const change = model.rateChange;
    const counted = change === undefined || ns <= change.atNs ? clock.cyclesPerNs * ns : clock.cyclesPerNs * (change.atNs + (ns - change.atNs) * change.factor);
    return backwards.has(smId) ? clock.offsetCycles - counted : clock.offsetCycles + counted;
  };
  // Each SM's first warp start (for the wake-up window).
  const firstStart = new Map<number, number>();
  for (let i = 0; i < w.count; i++) firstStart.set(sm[i] as number, Math.min(firstStart.get(sm[i] as number) ?? Infinity, w.startNs[i] as number));
  const readTime = (smId: number, ns: number): number => {
    let t = ns;
    const wake = model.wakeUpNs;
    if (wake !== undefined) t = Math.max(t, (firstStart.get(smId) as number) + wake);
    if (model.lateReads !== undefined && random() < model.lateReads.fraction) t += random() * model.lateReads.maxNs;
    return t;
  };
  const deviceTicks = (ns: number) => Math.floor((model.originDeviceNs + ns) / model.deviceStepNs) * model.deviceStepNs;
  const lo = (v: number) => ((v % 4294967296) + 4294967296) % 4294967296;
  // Timestamp queries, on their own time base when skewed.
  const timestampTicks = (ns: number) => deviceTicks(ns + (model.timestampSkewNs ?? 0));
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
      records[base + RecordWord.CLOCK_START] = lo(Math.floor(cyclesAt(sm[i] as number, clock, start)));
      records[base + RecordWord.CLOCK_END] = lo(Math.floor(cyclesAt(sm[i] as number, clock, end)));
      if (model.deviceClock) records[base + RecordWord.DEVICE_CLOCK] = lo(deviceTicks(readTime(sm[i] as number, end)));
    } else {
      records[base + RecordWord.CLOCK_START] = lo(deviceTicks(start));
      records[base + RecordWord.CLOCK_END] = lo(deviceTicks(end));
    }
    records[base + RecordWord.ACTIVE_MASK_HI] = w.activeMaskHi === null ? 0 : (w.activeMaskHi[i] as number);
    // Word 3 holds the position instead, flagged, as the shaders write it (subgroups of at most 32 lanes).
    // (Wide subgroups have no room for it: their positions are left out.)
    const position = w.position === null || w.activeMaskHi !== null ? NO_POSITION : (w.position[i] as number);
    if (position !== NO_POSITION) records[base + RecordWord.POSITION] = position;
    records[base + RecordWord.PACKED_IDS] = packIds(sm[i] as number, w.warpSlot[i] as number, w.stage[i] as number, position === NO_POSITION ? flags : flags | RecordFlag.POSITION);
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
    captureStartTicks: String(timestampTicks(0)),
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
    draws: truth.draws.map((draw) => ({ label: draw.label, kind: draw.kind, ...rawDrawDetails(draw) })),
    // As a capture layer writes them; left out when the trace has none, as the reference harness does.
    ...(truth.regions.length > 0 ? { regions: truth.regions.map((r) => ({ label: r.label, parent: r.parent, source: r.source })) } : {}),
    ...(truth.capture.layer !== null ? { layer: truth.capture.layer } : {}),
  };
  const timestamps = truth.draws.map((draw) =>
    draw.gpuBeginNs === null || draw.gpuEndNs === null
      ? null
      : ([BigInt(timestampTicks(draw.gpuBeginNs)), BigInt(timestampTicks(draw.gpuEndNs))] as const),
  );
  return {
    raw: { metadata, timestamps, records, counter: w.count + model.dropped, capacity: w.count },
    clocks,
  };
}

/** A draw's call details as a capture layer writes them (none when unknown). */
function rawDrawDetails(draw: DrawInfo): object {
  const target = {
    ...(draw.target === null ? {} : { target: draw.target }),
    ...(draw.untraced === null ? {} : { untraced: draw.untraced }),
    // == null: a draw cast from a shape older than the key lacks it.
    ...(draw.unprofiled == null ? {} : { unprofiled: draw.unprofiled }),
    ...(draw.barriersBefore == null ? {} : { barriersBefore: draw.barriersBefore }),
  };
  if (draw.call === null && draw.pipeline === null && draw.region === null && draw.params === null) return target;
  return { call: draw.call, pipeline: draw.pipeline, region: draw.region, params: draw.params, ...target };
}

/**
 * Per gated SM, the time (ns) its counter has stood still before a given
 * moment: the idle gaps longer than GATE_AFTER_NS between its warps.
 */
function stoppedTime(w: Trace['warps'], sm: ArrayLike<number>, gated: ReadonlySet<number>): Map<number, (ns: number) => number> {
  const out = new Map<number, (ns: number) => number>();
  for (const id of gated) {
    const spans: [number, number][] = [];
    for (let i = 0; i < w.count; i++) if (sm[i] === id) spans.push([w.startNs[i] as number, (w.startNs[i] as number) + (w.durationNs[i] as number)]);
    spans.sort((a, b) => a[0] - b[0]);
    // Idle gaps: [end of all work so far, next start), when long enough.
    const gaps: [number, number][] = [];
    let busyUntil = -Infinity;
    for (const [start, end] of spans) {
      if (start - busyUntil > GATE_AFTER_NS && busyUntil > -Infinity) gaps.push([busyUntil, start]);
      busyUntil = Math.max(busyUntil, end);
    }
    out.set(id, (ns) => gaps.reduce((sum, [from, to]) => sum + Math.max(0, Math.min(ns, to) - from), 0));
  }
  return out;
}
