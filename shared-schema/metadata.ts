/**
 * Decoding of the trace's metadata (device, capture, draws; regions, call
 * details and the layer record in draw-details.ts) from untrusted plain
 * objects, as found in .wtrace and JSON files. Unknown keys are ignored so
 * newer writers don't break older readers.
 */
import { readDrawDetails, readLayerInfo } from './draw-details.js';
import { MAX_DRAWS, fail } from './errors.js';
import {
  type Obj,
  checkWellFormed,
  readArray,
  readBoolean,
  readEnum,
  readInteger,
  readNullableInteger,
  readNullableNumber,
  readNullableU64String,
  readNumber,
  readObject,
  readOptionalString,
  readString,
} from './fields.js';
import type {
  Calibration,
  CalibrationMethod,
  CalibrationQuality,
  DrawBoundsCheck,
  CaptureInfo,
  ClockInfo,
  DeviceInfo,
  DrawInfo,
  DrawKind,
  Overhead,
  ParameterValue,
  SmCalibration,
} from './model.js';
import { readSampling } from './sampling.js';
import { STAGES, type StageName } from './stages.js';

const STAGE_NAMES = STAGES.map((s) => s.name);
const U32_MAX = 0xffffffff;

export function readDeviceInfo(value: unknown, field = 'device'): DeviceInfo {
  const o = readObject(value, field);
  const subgroupStages = readArray(o, 'subgroupStages', field, STAGE_NAMES.length).map((s, i) => {
    if (typeof s !== 'string' || !(STAGE_NAMES as string[]).includes(s)) {
      fail('bad-value', `${field}.subgroupStages[${i}]`, `expected a stage name (${STAGE_NAMES.join(', ')})`);
    }
    return s as StageName;
  });
  return {
    name: readString(o, 'name', field),
    vendor: readOptionalString(o, 'vendor', field, ''),
    vendorId: readNullableInteger(o, 'vendorId', field, 0, U32_MAX),
    deviceId: readNullableInteger(o, 'deviceId', field, 0, U32_MAX),
    api: readOptionalString(o, 'api', field, ''),
    apiVersion: readOptionalString(o, 'apiVersion', field, ''),
    driverVersion: readOptionalString(o, 'driverVersion', field, ''),
    smCount: readNullableInteger(o, 'smCount', field, 1, 0xfffe),
    warpsPerSm: readNullableInteger(o, 'warpsPerSm', field, 1, 0xfe),
    subgroupSize: readInteger(o, 'subgroupSize', field, 1, 64),
    subgroupStages,
    smBuiltins: readBoolean(o, 'smBuiltins', field),
    clocks: readClockInfo(o['clocks'], `${field}.clocks`),
  };
}

function readClockInfo(value: unknown, field: string): ClockInfo {
  const o = readObject(value, field);
  return {
    smClock: readBoolean(o, 'smClock', field),
    deviceClock: readBoolean(o, 'deviceClock', field),
    deviceClockNsPerTick: readNullableNumber(o, 'deviceClockNsPerTick', field),
    deviceClockGranularityNs: readNullableNumber(o, 'deviceClockGranularityNs', field),
    smClockRateHz: readNullableNumber(o, 'smClockRateHz', field),
    timestampPeriodNs: readNullableNumber(o, 'timestampPeriodNs', field),
  };
}

const METHODS: readonly CalibrationMethod[] = ['per-sm-fit', 'device-clock', 'sm-clock-rebased', 'given'];
const FITS: readonly SmCalibration['fit'][] = ['linear', 'offset-only', 'rebased'];

function readCalibration(value: unknown, field: string): Calibration {
  const o = readObject(value, field);
  const perSm = readArray(o, 'perSm', field, 0x10000).map((entry, i): SmCalibration => {
    const f = `${field}.perSm[${i}]`;
    const e = readObject(entry, f);
    return {
      sm: readInteger(e, 'sm', f, 0, 0xffff),
      samples: readInteger(e, 'samples', f, 0, Number.MAX_SAFE_INTEGER),
      fit: readEnum(e, 'fit', f, FITS),
      nsPerCycle: readNumber(e, 'nsPerCycle', f),
      offsetNs: readNumber(e, 'offsetNs', f),
      residualRmsNs: readNumber(e, 'residualRmsNs', f),
      residualMaxNs: readNumber(e, 'residualMaxNs', f),
      lateSamples: e['lateSamples'] === undefined ? 0 : readInteger(e, 'lateSamples', f, 0, Number.MAX_SAFE_INTEGER),
      fromNs: readNullableNumber(e, 'fromNs', f) ?? 0,
      toNs: readNullableNumber(e, 'toNs', f) ?? 0,
    };
  });
  // Absent in files written before the decoder measured them (unknown): left out, so such traces read back as they were.
  const quality = readQuality(o['quality'], `${field}.quality`);
  const drawBounds = readDrawBounds(o['drawBounds'], `${field}.drawBounds`);
  return {
    method: readEnum(o, 'method', field, METHODS),
    alignedAcrossSms: readBoolean(o, 'alignedAcrossSms', field),
    note: readOptionalString(o, 'note', field, ''),
    perSm,
    ...(quality === null ? {} : { quality }),
    ...(drawBounds === null ? {} : { drawBounds }),
  };
}

const COUNT_MAX = Number.MAX_SAFE_INTEGER;

function readNonNegative(o: Obj, key: string, field: string): number {
  const v = readNumber(o, key, field);
  if (v < 0) fail('bad-value', `${field}.${key}`, `expected ≥ 0, got ${v}`);
  return v;
}

function readQuality(value: unknown, field: string): CalibrationQuality | null {
  if (value === undefined || value === null) return null;
  const o = readObject(value, field);
  const samples = readInteger(o, 'samples', field, 0, COUNT_MAX);
  const lateSamples = readInteger(o, 'lateSamples', field, 0, samples);
  const c = readObject(o['crossCheck'], `${field}.crossCheck`);
  const cf = `${field}.crossCheck`;
  const checks = readInteger(c, 'checks', cf, 0, COUNT_MAX);
  return {
    samples,
    lateSamples,
    keptRmsNs: readNonNegative(o, 'keptRmsNs', field),
    allRmsNs: readNonNegative(o, 'allRmsNs', field),
    allP99Ns: readNonNegative(o, 'allP99Ns', field),
    crossCheck: {
      limitNs: readNonNegative(c, 'limitNs', cf),
      checks,
      failed: readInteger(c, 'failed', cf, 0, checks),
      worstNs: readNonNegative(c, 'worstNs', cf),
      worstSm: readNullableInteger(c, 'worstSm', cf, 0, 0xffff),
    },
  };
}

function readDrawBounds(value: unknown, field: string): DrawBoundsCheck | null {
  if (value === undefined || value === null) return null;
  const o = readObject(value, field);
  const checked = readInteger(o, 'checked', field, 0, COUNT_MAX);
  return {
    toleranceNs: readNonNegative(o, 'toleranceNs', field),
    checked,
    outside: readInteger(o, 'outside', field, 0, checked),
    worstExcessNs: readNonNegative(o, 'worstExcessNs', field),
    worstDraw: readNullableInteger(o, 'worstDraw', field, 0, MAX_DRAWS),
  };
}

function readParameters(value: unknown, field: string): Record<string, ParameterValue> {
  if (value === undefined || value === null) return {};
  const o = readObject(value, field);
  const out: Record<string, ParameterValue> = {};
  const keys = Object.keys(o);
  if (keys.length > 1000) fail('too-large', field, `${keys.length} parameters exceed the limit of 1000`);
  for (const key of keys) {
    const v = o[key];
    checkWellFormed(key, `${field}.${key}`);
    // MessagePack readers rename this key (msgpackr reads "__proto_"): it would not come back.
    if (key === '__proto__') fail('bad-value', `${field}.${key}`, 'reserved name');
    if (typeof v === 'string') checkWellFormed(v, `${field}.${key}`);
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) {
      // −0 as 0: JSON writes both as 0.
      Object.defineProperty(out, key, { value: typeof v === 'number' ? v + 0 : v, enumerable: true, writable: true, configurable: true });
    } else {
      fail('bad-type', `${field}.${key}`, 'expected a string, number or boolean');
    }
  }
  return out;
}

export function readCaptureInfo(value: unknown, field = 'capture'): CaptureInfo {
  const o = readObject(value, field);
  const recordsWritten = readInteger(o, 'recordsWritten', field, 0, Number.MAX_SAFE_INTEGER);
  const recordsKept = readInteger(o, 'recordsKept', field, 0, Number.MAX_SAFE_INTEGER);
  if (recordsKept > recordsWritten) {
    fail('bad-value', `${field}.recordsKept`, `${recordsKept} kept but only ${recordsWritten} written`);
  }
  const parameters = readParameters(o['parameters'], `${field}.parameters`);
  return {
    tool: readOptionalString(o, 'tool', field, ''),
    toolVersion: readOptionalString(o, 'toolVersion', field, ''),
    capturedAt: readOptionalString(o, 'capturedAt', field, ''),
    workload: readOptionalString(o, 'workload', field, ''),
    parameters,
    bufferCapacity: readInteger(o, 'bufferCapacity', field, 0, Number.MAX_SAFE_INTEGER),
    recordsWritten,
    recordsKept,
    originDeviceNs: readNullableU64String(o, 'originDeviceNs', field),
    calibration: readCalibration(o['calibration'], `${field}.calibration`),
    overhead: readOverhead(o['overhead'], `${field}.overhead`),
    layer: readLayerInfo(o['layer'], `${field}.layer`),
    sampling: readSampling(o['sampling'], `${field}.sampling`, parameters),
  };
}

export function readOverhead(value: unknown, field: string): Overhead | null {
  if (value === undefined || value === null) return null;
  const o = readObject(value, field);
  const frames = readInteger(o, 'frames', field, 1, Number.MAX_SAFE_INTEGER);
  const plainFrameNs = readNumber(o, 'plainFrameNs', field);
  const tracedFrameNs = readNumber(o, 'tracedFrameNs', field);
  if (plainFrameNs <= 0 || tracedFrameNs <= 0) fail('bad-value', field, 'frame times must be positive');
  return { plainFrameNs, tracedFrameNs, frames };
}

const KINDS: readonly DrawKind[] = ['draw', 'dispatch', 'trace-rays'];

/** The draws; `regionCount` is the trace's region count, which every draw's region must be below. */
export function readDraws(value: unknown, regionCount: number, field = 'draws'): DrawInfo[] {
  if (!Array.isArray(value)) fail('bad-type', field, 'expected an array of draws');
  if (value.length > MAX_DRAWS) fail('too-large', field, `${value.length} draws exceed the limit of ${MAX_DRAWS}`);
  return value.map((entry, i) => readDraw(entry, i, `${field}[${i}]`, regionCount));
}

function readDraw(value: unknown, position: number, field: string, regionCount: number): DrawInfo {
  const o: Obj = readObject(value, field);
  const index = o['index'] === undefined ? position : readInteger(o, 'index', field, 0, MAX_DRAWS);
  if (index !== position) fail('bad-value', `${field}.index`, `expected ${position} (draws are listed in index order)`);
  const gpuBeginNs = readNullableNumber(o, 'gpuBeginNs', field);
  const gpuEndNs = readNullableNumber(o, 'gpuEndNs', field);
  if ((gpuBeginNs === null) !== (gpuEndNs === null)) {
    fail('bad-value', field, 'gpuBeginNs and gpuEndNs must both be set or both be null');
  }
  if (gpuBeginNs !== null && gpuEndNs !== null && gpuEndNs < gpuBeginNs) {
    fail('bad-value', `${field}.gpuEndNs`, `ends (${gpuEndNs}) before it begins (${gpuBeginNs})`);
  }
  return {
    index,
    label: readOptionalString(o, 'label', field, `draw ${index}`),
    kind: o['kind'] === undefined ? 'draw' : readEnum(o, 'kind', field, KINDS),
    gpuBeginNs,
    gpuEndNs,
    ...readDrawDetails(o, field, regionCount),
  };
}
