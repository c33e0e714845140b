/**
 * The .wtraw metadata JSON (see README.md): device, draws, the capture's
 * clocks, and what a capture layer adds (regions, each draw's call
 * details, the layer's record). Untrusted: every field is checked here,
 * and errors name it under `metadata.`.
 */
import { readDrawDetails, readLayerInfo, readRegions } from './draw-details.js';
import { MAX_DRAWS, describeValue, fail } from './errors.js';
import { type Obj, readArray, readBoolean, readEnum, readNullableNumber, readNullableU64String, readObject, readOptionalString } from './fields.js';
import { readDeviceInfo } from './metadata.js';
import type { DeviceInfo, DrawInfo, DrawKind, LayerInfo, ParameterValue, RegionInfo, WarpSampling } from './model.js';
import { readSampling } from './sampling.js';

/** A draw as the raw metadata describes it: everything but its GPU bounds, which come from the timestamp table. */
export type RawDraw = Omit<DrawInfo, 'index' | 'gpuBeginNs' | 'gpuEndNs'>;

export interface RawMetadata {
  readonly root: Obj;
  readonly device: Obj;
  readonly draws: readonly RawDraw[];
  readonly regions: readonly RegionInfo[];
  readonly layer: LayerInfo | null;
  /** `sampling`, or an older capture's `parameters.sampleFs` as one (sampling.ts); null: every warp recorded. */
  readonly sampling: WarpSampling | null;
  readonly captureStartTicks: string | null;
  readonly deviceClockNsPerTick: number;
  readonly timestampPeriodNs: number;
  readonly smClockRateHz: number | null;
  /**
   * How far (ns) the host's move of the timestamps into the device clock's
   * time base may be off, from its clock check (`clockCheck`): 0 when the time
   * bases are shared or nothing was checked.
   */
  readonly timestampUncertaintyNs: number;
  /** The driver's name (VkPhysicalDeviceDriverProperties), '' when not given. */
  readonly driverName: string;
}

const KINDS: readonly DrawKind[] = ['draw', 'dispatch', 'trace-rays'];

/** Only `sampleFs` of the raw parameters, for the legacy sampling: the parameters themselves are checked with the capture. */
function legacyParameters(value: unknown): Readonly<Record<string, ParameterValue>> {
  if (typeof value !== 'object' || value === null) return {};
  const n = (value as Record<string, unknown>)['sampleFs'];
  return typeof n === 'number' ? { sampleFs: n } : {};
}

export function readMetadata(bytes: Uint8Array): RawMetadata {
  let root: Obj;
  try {
    root = readObject(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)), 'metadata');
  } catch (error) {
    if (error instanceof Error && error.name === 'TraceFormatError') throw error;
    return fail('bad-encoding', 'metadata', `not valid UTF-8 JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const device = readObject(root['device'], 'metadata.device');
  // Regions first: each draw's region must be one of them.
  const regions = readRegions(root['regions'], 'metadata.regions');
  const draws = readArray(root, 'draws', 'metadata', MAX_DRAWS).map((d, i): RawDraw => {
    const f = `metadata.draws[${i}]`;
    const o = readObject(d, f);
    return {
      label: readOptionalString(o, 'label', f, `draw ${i}`),
      kind: o['kind'] === undefined ? 'draw' : readEnum(o, 'kind', f, KINDS),
      ...readDrawDetails(o, f, regions.length),
    };
  });
  const positive = (key: string, fallback: number) => {
    const v = readNullableNumber(device, key, 'metadata.device') ?? fallback;
    if (!(v > 0)) fail('bad-value', `metadata.device.${key}`, `expected a positive number, got ${describeValue(v)}`);
    return v;
  };
  const rate = readNullableNumber(device, 'smClockRateHz', 'metadata.device');
  if (rate !== null && !(rate > 0)) fail('bad-value', 'metadata.device.smClockRateHz', 'expected a positive rate');
  return {
    root,
    device,
    draws,
    regions,
    layer: readLayerInfo(root['layer'], 'metadata.layer'),
    sampling: readSampling(root['sampling'], 'metadata.sampling', legacyParameters(root['parameters'])),
    captureStartTicks: readNullableU64String(root, 'captureStartTicks', 'metadata'),
    deviceClockNsPerTick: positive('deviceClockNsPerTick', 1),
    timestampPeriodNs: positive('timestampPeriodNs', 1),
    smClockRateHz: rate,
    timestampUncertaintyNs: timestampUncertaintyOf(root['clockCheck'], 'metadata.clockCheck'),
    driverName: readOptionalString(device, 'driverName', 'metadata.device', ''),
  };
}

/**
 * The uncertainty of the clock check (capture/host/warptrace.h, wtCheckClocks):
 * with shared time bases nothing was moved; where the brackets agree, half the
 * range of offsets they allow; where they disagree, the median bracket.
 */
function timestampUncertaintyOf(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  const o = readObject(value, field);
  if (o['sharedTimeBase'] !== false) return 0;
  const finite = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail('bad-value', `${field}.${name}`, `expected a finite number, got ${describeValue(v)}`);
    return v;
  };
  if (o['fit'] === 'disagree') {
    const brackets = readObject(o['bracketNs'], `${field}.bracketNs`);
    return Math.max(0, finite(brackets['median'], 'bracketNs.median'));
  }
  const range = o['timestampMinusDeviceNs'];
  if (!Array.isArray(range) || range.length !== 2) return fail('bad-value', `${field}.timestampMinusDeviceNs`, 'expected [low, high]');
  return Math.max(0, (finite(range[1], 'timestampMinusDeviceNs[1]') - finite(range[0], 'timestampMinusDeviceNs[0]')) / 2);
}

/** The trace's device from the raw metadata, with what calibration found (null before it ran). */
export function readRawDevice(meta: RawMetadata, granularityNs: number | null, rateHz: number | null): DeviceInfo {
  const d = meta.device;
  return readDeviceInfo(
    {
      ...d,
      clocks: {
        smClock: readBoolean(d, 'smClock', 'metadata.device'),
        deviceClock: readBoolean(d, 'deviceClock', 'metadata.device'),
        deviceClockNsPerTick: meta.deviceClockNsPerTick,
        deviceClockGranularityNs: granularityNs,
        smClockRateHz: rateHz,
        timestampPeriodNs: meta.timestampPeriodNs,
      },
    },
    'metadata.device',
  );
}
