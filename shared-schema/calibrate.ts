/**
 * Clock calibration of raw GPU records (see README.md, "Calibration").
 *
 * Records come grouped by SM (SM-major). SM (subgroup-scope) clocks run per
 * SM with their own offsets, so each SM's cycles are mapped to the device
 * clock by robust line segments (sm-clock.ts, segment-fitter.ts), in phases
 * of tasks with a pooling step between them (perSmFitPhases, per-sm-fit.ts):
 * the same program runs on one thread (runPhases) or on a pool of workers
 * (node/convert-pool.ts). The fit's quality is measured where it can fail
 * (clock-quality.ts), and the placed warps against their draws' timestamps
 * (draw-bounds.ts, withDrawBounds).
 */
import { TICKS_PER_NS, type Calibration, type SmCalibration, type SmGroups } from './model.js';
import { perSmFitPhases } from './per-sm-fit.js';
import { runPhases } from './phase-worker.js';
import { RECORD_WORDS, RecordWord } from './raw-layout.js';
import { gather, groupedOrder } from './sort.js';
import { plainColumns, rejectPlacedTicks } from './raw-canonical.js';
import { deviceTicksOf, wrapDelta, type DeviceClockMap } from './sm-clock.js';
import type { DrawClockAnchors } from './device-unwrap.js';

export type ClockMode = 'per-sm-fit' | 'device-clock' | 'sm-clock-rebased';

export interface GroupedClocks extends DrawClockAnchors {
  readonly mode: ClockMode;
  readonly groups: SmGroups;
  readonly clockStartLo: Uint32Array;
  readonly clockEndLo: Uint32Array;
  /** Device-clock low words (per-sm-fit only). */
  readonly deviceLo: Uint32Array;
  /** Draw of each record (its anchors: DrawClockAnchors). */
  readonly draw: Uint32Array;
  /** Each row's device ticks unwrapped in file order (device-unwrap.ts), or null: rows are unwrapped on their own. */
  readonly rowTicks: Float64Array | null;
  readonly deviceNsPerTick: number;
  /** Nominal SM clock rate (null: unknown; 1 cycle = 1 ns where a rate is needed). */
  readonly smClockRateHz: number | null;
}

/** The input of calibrate: records in any order, with their SM ids. */
export interface RawClocks extends Omit<GroupedClocks, 'groups' | 'rowTicks'> {
  /** SM id of each record (0xffff unknown): records are calibrated per SM. */
  readonly sm: Uint16Array;
}

export interface CalibratedTimes {
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  /** SM cycles at start, relative to each SM's first warp (null when no SM clock). */
  readonly cycleStart: Float64Array | null;
  readonly cycleDuration: Uint32Array | null;
  readonly calibration: Calibration;
  /** Step of the device clock found in the samples, ns (null without device clock). */
  readonly deviceClockGranularityNs: number | null;
  /** Mean fitted SM clock rate, Hz (null without a fit). */
  readonly smClockRateHz: number | null;
}

/**
 * The clock's step, in ticks, from the OR of all samples: the largest power of
 * two (≤ 1024) dividing every sample. Trusted from 16 samples on (random phases
 * all aligning to a coarser step by chance has probability 2^-16).
 */
export function granularityTicks(orOfSamples: number, samples: number): number {
  if (samples < 16 || orOfSamples === 0) return 1;
  const lowest = orOfSamples & -orOfSamples;
  return Math.min(lowest >>> 0, 1024);
}

function orOf(values: Uint32Array): number {
  let or = 0;
  for (let i = 0; i < values.length; i++) or |= values[i] as number;
  return or;
}

/** Calibrates records in any order (grouped by SM here, results in input order). */
export function calibrate(raw: RawClocks): CalibratedTimes {
  const n = raw.sm.length;
  // Stable grouping by SM (all keys equal): null when the records already are.
  const { order, groupKeys, offsets } = groupedOrder(raw.sm, new Float64Array(n));
  const take = (column: Uint32Array) => (order === null ? column : gather(column, order, new Uint32Array(n)));
  const grouped = calibrateGrouped({
    ...raw,
    rowTicks: null,
    groups: { sm: groupKeys, offsets },
    clockStartLo: take(raw.clockStartLo),
    clockEndLo: take(raw.clockEndLo),
    deviceLo: raw.mode === 'per-sm-fit' ? take(raw.deviceLo) : raw.deviceLo,
    draw: take(raw.draw),
  });
  if (order === null) return grouped;
  const back = <T extends Float64Array | Uint32Array>(column: T, out: T): T => {
    for (let k = 0; k < n; k++) out[order[k] as number] = column[k] as number;
    return out;
  };
  return {
    ...grouped,
    startNs: back(grouped.startNs, new Float64Array(n)),
    endNs: back(grouped.endNs, new Float64Array(n)),
    cycleStart: grouped.cycleStart === null ? null : back(grouped.cycleStart, new Float64Array(n)),
    cycleDuration: grouped.cycleDuration === null ? null : back(grouped.cycleDuration, new Uint32Array(n)),
  };
}

/** Calibrates SM-major records; the times come back in the same row order. */
export function calibrateGrouped(raw: GroupedClocks): CalibratedTimes {
  switch (raw.mode) {
    case 'device-clock':
      return calibrateDeviceClock(raw);
    case 'sm-clock-rebased':
      return calibrateRebased(raw);
    case 'per-sm-fit':
      return calibratePerSm(raw);
  }
}

function calibrateDeviceClock(raw: GroupedClocks): CalibratedTimes {
  const n = raw.clockStartLo.length;
  const step = granularityTicks(orOf(raw.clockStartLo) | orOf(raw.clockEndLo), 2 * n);
  const map: DeviceClockMap = { ...raw, halfStepTicks: step > 1 ? step / 2 : 0 };
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    // The end word is unwrapped (records are appended in end order, see device-unwrap.ts), the start is its duration before.
    const duration = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
    const startTicks = deviceTicksOf(map, raw.clockEndLo[i] as number, raw.draw[i] as number, i) - duration;
    startNs[i] = (startTicks + map.halfStepTicks) * raw.deviceNsPerTick;
    endNs[i] = (startNs[i] as number) + duration * raw.deviceNsPerTick;
  }
  return {
    startNs,
    endNs,
    cycleStart: null,
    cycleDuration: null,
    calibration: {
      method: 'device-clock',
      alignedAcrossSms: true,
      note: `device clock read at warp start and end (step ${step * raw.deviceNsPerTick} ns): aligned, but durations are quantized to that step`,
      perSm: [],
    },
    deviceClockGranularityNs: step * raw.deviceNsPerTick,
    smClockRateHz: null,
  };
}

function calibrateRebased(raw: GroupedClocks): CalibratedTimes {
  const n = raw.clockStartLo.length;
  const { sm, offsets } = raw.groups;
  const nsPerCycle = raw.smClockRateHz === null ? 1 : 1e9 / raw.smClockRateHz;
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleStart = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  const perSm: SmCalibration[] = [];
  for (let g = 0; g < sm.length; g++) {
    const begin = offsets[g] as number;
    const end = offsets[g + 1] as number;
    const ref = raw.clockStartLo[begin] as number;
    let min = Infinity;
    for (let i = begin; i < end; i++) {
      cycleStart[i] = wrapDelta(raw.clockStartLo[i] as number, ref);
      min = Math.min(min, cycleStart[i] as number);
    }
    let last = 0;
    for (let i = begin; i < end; i++) {
      cycleStart[i] = (cycleStart[i] as number) - min;
      cycleDuration[i] = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
      startNs[i] = (cycleStart[i] as number) * nsPerCycle;
      endNs[i] = (startNs[i] as number) + (cycleDuration[i] as number) * nsPerCycle;
      last = Math.max(last, endNs[i] as number);
    }
    perSm.push({ sm: sm[g] as number, samples: 0, lateSamples: 0, fit: 'rebased', nsPerCycle, offsetNs: 0, residualRmsNs: 0, residualMaxNs: 0, fromNs: 0, toNs: last });
  }
  const rate = raw.smClockRateHz === null ? 'an assumed 1 GHz (1 cycle = 1 ns)' : `${raw.smClockRateHz} Hz`;
  return {
    startNs,
    endNs,
    cycleStart,
    cycleDuration,
    calibration: {
      method: 'sm-clock-rebased',
      alignedAcrossSms: false,
      note: `no device clock: each SM starts at its own first warp and cycles are converted at ${rate}; SMs are NOT aligned`,
      perSm,
    },
    deviceClockGranularityNs: null,
    smClockRateHz: raw.smClockRateHz,
  };
}

/** The device clock's step (from the OR of its `samples` low words) and the map from them to ns (per-sm-fit). */
export function deviceClockMap(
  anchors: DrawClockAnchors & Pick<GroupedClocks, 'deviceNsPerTick' | 'rowTicks'>,
  samples: number,
  orOfDeviceLo: number,
): { map: DeviceClockMap; granularityNs: number } {
  const step = granularityTicks(orOfDeviceLo, samples);
  const { drawAnchorRelTicks, drawAnchorLo, drawCeilingRelTicks, drawCeilingLo, deviceNsPerTick, rowTicks } = anchors;
  return {
    map: { drawAnchorRelTicks, drawAnchorLo, drawCeilingRelTicks, drawCeilingLo, rowTicks, deviceNsPerTick, halfStepTicks: step > 1 ? step / 2 : 0 },
    granularityNs: step * anchors.deviceNsPerTick,
  };
}

function calibratePerSm(raw: GroupedClocks): CalibratedTimes {
  const { map, granularityNs } = deviceClockMap(raw, raw.deviceLo.length, orOf(raw.deviceLo));
  // The steps read records: the clock columns laid out as record words.
  const n = raw.clockStartLo.length;
  const words = new Uint32Array(n * RECORD_WORDS);
  for (let i = 0, w = 0; i < n; i++, w += RECORD_WORDS) {
    words[w + RecordWord.CLOCK_START] = raw.clockStartLo[i] as number;
    words[w + RecordWord.CLOCK_END] = raw.clockEndLo[i] as number;
    words[w + RecordWord.DEVICE_CLOCK] = raw.deviceLo[i] as number;
    words[w + RecordWord.DRAW_ID] = raw.draw[i] as number;
  }
  const fit = runPhases(perSmFitPhases(words, raw.groups, 1, granularityNs, map, raw.smClockRateHz, plainColumns));
  const { startTicks, durationTicks, cycleStart } = fit.placed;
  if (fit.badRow >= 0) rejectPlacedTicks(fit.placed, fit.badRow);
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  const cycleDuration = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    startNs[i] = (startTicks[i] as number) / TICKS_PER_NS;
    endNs[i] = ((startTicks[i] as number) + (durationTicks[i] as number)) / TICKS_PER_NS;
    cycleDuration[i] = ((raw.clockEndLo[i] as number) - (raw.clockStartLo[i] as number)) >>> 0;
  }
  return { ...fit.result(), startNs, endNs, cycleStart, cycleDuration };
}
