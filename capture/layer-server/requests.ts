/**
 * The requests' JSON, checked field by field: it comes from a layer loaded
 * into an arbitrary app, possibly a newer or broken build, so nothing is
 * trusted. Each reader returns a typed value or throws RequestError naming
 * the field; the server answers that as a protocol error.
 */
import {
  CUSTOM_ID_SOURCES,
  DEFAULT_CUSTOM_IDS,
  INSTRUMENTED_STAGES,
  DEFAULT_POSITION_STAGES,
  SAMPLING_MODES,
  type SamplingMode,
  POSITION_STAGES,
  MARK_SITES,
  type MarkSite,
  type PositionStage,
  type CustomIdSource,
  type InstrumentedStage,
  type InstrumentOptions,
} from '../../instrument/options.js';

/** A request whose JSON is malformed (missing or mistyped field). */
export class RequestError extends Error {
  override readonly name = 'RequestError';
}

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };
export type JsonObject = { readonly [key: string]: JsonValue };

/** FS custom ids the layer may ask for: primitive-id needs the Geometry capability, so the layer picks frag-coord where it is missing. */
const FS_CUSTOM_IDS = ['primitive-id', 'frag-coord', 'none'] as const satisfies readonly CustomIdSource[];
/** Entry-point names are SPIR-V literal strings; a bound keeps error messages and cache keys sane. */
const MAX_NAME_LENGTH = 1024;
const MAX_TEXT_LENGTH = 4096;

type Fields = Record<string, unknown>;

function field(o: Fields, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

function readBool(o: Fields, key: string): boolean {
  const v = field(o, key);
  if (typeof v !== 'boolean') throw new RequestError(`"${key}" must be true or false`);
  return v;
}

/** Absent: false. */
function readOptionalBool(o: Fields, key: string): boolean {
  const v = field(o, key) ?? false;
  if (typeof v !== 'boolean') throw new RequestError(`"${key}" must be true or false`);
  return v;
}

function readU32(o: Fields, key: string): number {
  const v = field(o, key);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RequestError(`"${key}" must be a 32-bit unsigned integer`);
  return v;
}

function readText(o: Fields, key: string, max = MAX_TEXT_LENGTH): string {
  const v = field(o, key);
  if (typeof v !== 'string') throw new RequestError(`"${key}" must be a string`);
  if (v.length > max) throw new RequestError(`"${key}" is longer than ${max} characters`);
  return v;
}

function readStage(value: unknown, key: string): InstrumentedStage {
  if (typeof value !== 'string' || !(INSTRUMENTED_STAGES as readonly string[]).includes(value)) {
    throw new RequestError(`"${key}" must be one of ${INSTRUMENTED_STAGES.join(', ')}`);
  }
  return value as InstrumentedStage;
}

/** What an `instrument` request asks for: the stage and entry point, and the options the instrumenter runs with. */
export interface InstrumentRequest {
  readonly stage: InstrumentedStage;
  readonly entryPoint: string;
  readonly options: InstrumentOptions;
}

export function readInstrumentRequest(o: Fields): InstrumentRequest {
  const stage = readStage(field(o, 'stage'), 'stage');
  const entryPoint = readText(o, 'entryPoint', MAX_NAME_LENGTH);
  if (entryPoint === '') throw new RequestError('"entryPoint" must not be empty');
  const stagesValue = field(o, 'subgroupStages');
  if (!Array.isArray(stagesValue) || stagesValue.length > INSTRUMENTED_STAGES.length) {
    throw new RequestError(`"subgroupStages" must be a list of stages (${INSTRUMENTED_STAGES.join(', ')})`);
  }
  const subgroupStages = [...new Set(stagesValue.map((s, i) => readStage(s, `subgroupStages[${i}]`)))];
  // Absent: the default (primitive-id); the layer only names it where it must differ.
  const fsValue = field(o, 'fsCustomId') ?? 'primitive-id';
  if (typeof fsValue !== 'string' || !(FS_CUSTOM_IDS as readonly string[]).includes(fsValue)) {
    throw new RequestError(`"fsCustomId" must be one of ${FS_CUSTOM_IDS.join(', ')}`);
  }
  const set = readU32(o, 'set');
  const binding = readU32(o, 'binding');
  // The draw-id block sits at binding + 1, which must still be a u32.
  if (binding === 0xffffffff) throw new RequestError('"binding" must leave room for the draw-id block at binding + 1');
  // The rate is no longer compiled in: the layer writes it into the draw-id block at run time.
  if (field(o, 'sampleFs') !== undefined) {
    throw new RequestError('"sampleFs" is no longer taken: the sampling rate is set at run time (the layer writes each stage\'s log2 rate into the draw-id block); send "sampling": "runtime" or "none"');
  }
  // Absent: 'runtime' (the modules read the rate the layer writes; 0, never written: every warp records).
  const samplingValue = field(o, 'sampling');
  const sampling = samplingValue === undefined ? 'runtime' : samplingValue;
  if (typeof sampling !== 'string' || !(SAMPLING_MODES as readonly string[]).includes(sampling)) {
    throw new RequestError(`"sampling" must be one of ${SAMPLING_MODES.join(', ')}`);
  }
  // Absent: the GLSL library's default (FS and every ray-tracing stage); [] records none.
  const positionValue = field(o, 'position') ?? DEFAULT_POSITION_STAGES;
  if (!Array.isArray(positionValue) || positionValue.some((s) => !(POSITION_STAGES as readonly unknown[]).includes(s))) {
    throw new RequestError(`"position" must be a list of stages among ${POSITION_STAGES.join(', ')}`);
  }
  const options: InstrumentOptions = {
    set,
    binding,
    smBuiltins: readBool(o, 'smBuiltins'),
    subgroupClock: readBool(o, 'subgroupClock'),
    deviceClock: readBool(o, 'deviceClock'),
    subgroupStages: INSTRUMENTED_STAGES.filter((s) => subgroupStages.includes(s)),
    customIds: { ...DEFAULT_CUSTOM_IDS, FS: fsValue as (typeof FS_CUSTOM_IDS)[number] },
    legacySubgroup: 'upgrade',
    discard: 'defer',
    entryPoints: [entryPoint],
    // Part of the options, so part of the cache key (cacheKey hashes them all): modules with and without the decision never mix.
    sampling: sampling as SamplingMode,
    positionStages: POSITION_STAGES.filter((s) => (positionValue as readonly PositionStage[]).includes(s)),
    // Absent: no block profile (the layer sends it with WARPTRACE_BLOCKS=1).
    blocks: readOptionalBool(o, 'blocks'),
    // Absent: no marks (the layer sends them with WARPTRACE_MARKS).
    marks: readMarkSites(o),
    // Absent: no ray events.
    rayEvents: readOptionalBool(o, 'rayEvents'),
  };
  return { stage, entryPoint, options };
}

/** "marks": a list of mark sites (the instrumenter's --marks), in MARK_SITES order; absent: []. */
function readMarkSites(o: Fields): MarkSite[] {
  const value = field(o, 'marks') ?? [];
  if (!Array.isArray(value) || value.some((s) => !(MARK_SITES as readonly unknown[]).includes(s))) {
    throw new RequestError(`"marks" must be a list of mark sites among ${MARK_SITES.join(', ')}`);
  }
  return MARK_SITES.filter((s) => (value as readonly unknown[]).includes(s));
}

/** What the layer says about itself when it connects (one hello per VkDevice). */
export interface HelloInfo {
  readonly pid: number;
  readonly app: string;
  readonly device: JsonObject;
  readonly set: number;
  readonly target: JsonObject;
}

export function readHello(o: Fields): HelloInfo {
  const pid = readU32(o, 'pid');
  const app = readText(o, 'app');
  const device = field(o, 'device');
  const target = field(o, 'target') ?? {};
  if (!isPlainObject(device)) throw new RequestError('"device" must be an object');
  if (!isPlainObject(target)) throw new RequestError('"target" must be an object');
  // JSON.parse made these, so they are JSON values already.
  return { pid, app, device: device as JsonObject, set: readU32(o, 'set'), target: target as JsonObject };
}

/** The events the layer reports (CONTRACT.md); `frames` is presents seen so far, when the layer says. */
export type LayerEvent =
  | { readonly event: 'skipped'; readonly what: string; readonly why: string }
  /** Something the layer changed or could not learn while every draw is still traced (not skipped work). */
  | { readonly event: 'note'; readonly what: string; readonly why: string }
  | { readonly event: 'capture-started'; readonly frame: number | null; readonly frames: number | null }
  | {
      readonly event: 'capture-written';
      readonly path: string;
      readonly draws: number;
      readonly records: number;
      readonly counter: number;
      readonly capacity: number;
    }
  | { readonly event: 'capture-failed'; readonly why: string; readonly frames: number | null }
  /** WARPTRACE_TIME_ONLY: the GPU time of the --submits range in an untraced run. */
  | { readonly event: 'timing'; readonly gpuNs: number };

export const EVENT_NAMES = ['skipped', 'note', 'capture-started', 'capture-written', 'capture-failed', 'timing'] as const;

/** A typed event, or null for an event name this CLI does not know (a newer layer's: acknowledged, ignored). */
export function readEvent(o: Fields): LayerEvent | null {
  const name = readText(o, 'event', 64);
  switch (name) {
    case 'skipped':
      return { event: 'skipped', what: readText(o, 'what'), why: readText(o, 'why') };
    case 'note':
      return { event: 'note', what: readText(o, 'what'), why: readText(o, 'why') };
    case 'capture-started':
      return { event: 'capture-started', frame: optionalU32(o, 'frame'), frames: optionalU32(o, 'frames') };
    case 'capture-written':
      return {
        event: 'capture-written',
        path: readText(o, 'path'),
        draws: readU32(o, 'draws'),
        records: readCount(o, 'records'),
        counter: readCount(o, 'counter'),
        capacity: readCount(o, 'capacity'),
      };
    case 'capture-failed':
      return { event: 'capture-failed', why: readText(o, 'why'), frames: optionalU32(o, 'frames') };
    case 'timing':
      return { event: 'timing', gpuNs: readCount(o, 'gpuNs') };
    default:
      return null;
  }
}

function optionalU32(o: Fields, key: string): number | null {
  const v = field(o, key);
  return v === undefined || v === null ? null : readU32(o, key);
}

/** Record counts are u32 on the GPU but may be summed by the layer: any safe integer. */
function readCount(o: Fields, key: string): number {
  const v = field(o, key);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new RequestError(`"${key}" must be a whole number >= 0`);
  return v;
}

function isPlainObject(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
