/**
 * What a capture layer adds to a trace's metadata (see README.md): the
 * labelled regions the draws lie in, each draw's call details, and the
 * layer's own record. Readers for untrusted values (raw metadata, .wtrace,
 * JSON: the same rules everywhere), and the stored forms the writers put
 * in files: a key is written only when it holds something, so a trace
 * without these details writes exactly the bytes it did before they existed.
 */
import { isLegacySampling } from './sampling.js';
import { MAX_DRAWS, describeValue, fail } from './errors.js';
import { type Obj, checkString, readArray, readEnum, readInteger, readNullableInteger, readObject, readOptionalString, readString } from './fields.js';
import {
  DRAW_PARAM_NAMES,
  type CaptureInfo,
  type DrawInfo,
  type DrawParamName,
  type DrawParams,
  type LayerInfo,
  type RegionInfo,
  type RegionSource,
  type RenderTarget,
  type SkippedWork,
} from './model.js';
import { MAX_TARGET_SIZE } from './position.js';

/** Largest region count any reader accepts (as many as draws: a capture opens at most a few per draw). */
export const MAX_REGIONS = MAX_DRAWS;
/** Largest list of skipped work (and of notes) a layer record may hold. */
export const MAX_SKIPPED = 100_000;
/** Largest barriersBefore list a draw may hold (the layer writes at most 8), and longest entry. */
export const MAX_BARRIERS_BEFORE = 64;
export const MAX_BARRIER_LENGTH = 1024;

const U32_MAX = 0xffffffff;
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const SOURCES: readonly RegionSource[] = ['debug-label', 'render-pass'];

/** The regions list (absent or null: none). A region's parent must be an earlier region, which rules out cycles. */
export function readRegions(value: unknown, field = 'regions'): RegionInfo[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail('bad-type', field, `expected an array of regions, got ${describeValue(value)}`);
  if (value.length > MAX_REGIONS) fail('too-large', field, `${value.length} regions exceed the limit of ${MAX_REGIONS}`);
  return value.map((entry, index): RegionInfo => {
    const f = `${field}[${index}]`;
    const o = readObject(entry, f);
    if (o['index'] !== undefined && readInteger(o, 'index', f, 0, MAX_REGIONS) !== index) {
      fail('bad-value', `${f}.index`, `expected ${index} (regions are listed in index order)`);
    }
    const parent = o['parent'] === undefined || o['parent'] === null ? null : readIndexBelow(o, 'parent', f, index);
    return { index, label: readOptionalString(o, 'label', f, `region ${index}`), parent, source: readEnum(o, 'source', f, SOURCES) };
  });
}

/** An integer index in [0, limit), with a message that says what it must be below. */
function readIndexBelow(o: Obj, key: string, field: string, limit: number): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v)) fail('bad-type', `${field}.${key}`, `expected an index, got ${describeValue(v)}`);
  if (v < 0 || v >= limit) {
    fail('bad-value', `${field}.${key}`, limit === 0 ? `${v}, but there is no region to refer to` : `expected an index below ${limit}, got ${v}`);
  }
  return v;
}

function readNullableString(o: Obj, key: string, field: string): string | null {
  return o[key] === undefined || o[key] === null ? null : readString(o, key, field);
}

/**
 * A draw's call details, target, why it ran untraced, why it has no block profile and the barriers before it (each null when absent);
 * `regionCount` is the trace's, which the draw's region must be below.
 */
export function readDrawDetails(
  o: Obj,
  field: string,
  regionCount: number,
): Pick<DrawInfo, 'call' | 'pipeline' | 'region' | 'params' | 'target' | 'untraced' | 'unprofiled' | 'barriersBefore'> {
  const untraced = readNullableString(o, 'untraced', field);
  const unprofiled = readNullableString(o, 'unprofiled', field);
  // An untraced draw has no warps, so no block profile the layer could have skipped: its reason is `untraced`.
  if (untraced !== null && unprofiled !== null) fail('bad-value', `${field}.unprofiled`, 'set on a draw that ran untraced (its reason is `untraced`)');
  return {
    call: readNullableString(o, 'call', field),
    pipeline: readNullableString(o, 'pipeline', field),
    region: o['region'] === undefined || o['region'] === null ? null : readIndexBelow(o, 'region', field, regionCount),
    params: readDrawParams(o['params'], `${field}.params`),
    target: readRenderTarget(o['target'], `${field}.target`),
    untraced,
    unprofiled,
    barriersBefore: readBarriersBefore(o, field),
  };
}

/** The barriers the layer saw before a draw (absent or null: none known): strings, the list's length checked before it is read. */
function readBarriersBefore(o: Obj, field: string): readonly string[] | null {
  if (o['barriersBefore'] === undefined || o['barriersBefore'] === null) return null;
  const list = readArray(o, 'barriersBefore', field, MAX_BARRIERS_BEFORE);
  return list.map((entry, k) => checkString(entry, `${field}.barriersBefore[${k}]`, MAX_BARRIER_LENGTH));
}

/** A draw's render target `{ width, height }` (absent or null: unknown); keys besides those two are ignored. */
export function readRenderTarget(value: unknown, field: string): RenderTarget | null {
  if (value === undefined || value === null) return null;
  const o = readObject(value, field);
  return { width: readInteger(o, 'width', field, 1, MAX_TARGET_SIZE), height: readInteger(o, 'height', field, 1, MAX_TARGET_SIZE) };
}

/**
 * The call's counts, in DRAW_PARAM_NAMES order. Keys outside that list are
 * ignored (a newer layer may record more), as unknown keys are everywhere.
 */
function readDrawParams(value: unknown, field: string): DrawParams | null {
  if (value === undefined || value === null) return null;
  const o = readObject(value, field);
  const out: Partial<Record<DrawParamName, number>> = {};
  for (const name of DRAW_PARAM_NAMES) {
    const v = name === 'vertexOffset' ? readNullableInteger(o, name, field, INT32_MIN, INT32_MAX) : readNullableInteger(o, name, field, 0, U32_MAX);
    if (v !== null) out[name] = v;
  }
  return out;
}

/** The capture layer's record (absent or null: none). */
export function readLayerInfo(value: unknown, field: string): LayerInfo | null {
  if (value === undefined || value === null) return null;
  const o = readObject(value, field);
  const list = (key: string): SkippedWork[] =>
    (o[key] === undefined || o[key] === null ? [] : readArray(o, key, field, MAX_SKIPPED)).map((entry, k): SkippedWork => {
      const f = `${field}.${key}[${k}]`;
      const e = readObject(entry, f);
      return { what: readString(e, 'what', f), why: readString(e, 'why', f) };
    });
  return {
    version: readString(o, 'version', field),
    set: readInteger(o, 'set', field, 0, U32_MAX),
    frame: readNullableInteger(o, 'frame', field, 0, Number.MAX_SAFE_INTEGER),
    submits: readNullableString(o, 'submits', field),
    skipped: list('skipped'),
    notes: list('notes'),
  };
}

/** A draw as files store it: the model's keys in a fixed order, call details only when known. */
export function storedDraw(d: DrawInfo): object {
  return {
    index: d.index,
    label: d.label,
    kind: d.kind,
    gpuBeginNs: d.gpuBeginNs,
    gpuEndNs: d.gpuEndNs,
    // == null: a draw made before these fields existed (cast from an older shape) lacks them.
    ...(d.call == null ? {} : { call: d.call }),
    ...(d.pipeline == null ? {} : { pipeline: d.pipeline }),
    ...(d.region == null ? {} : { region: d.region }),
    ...(d.params == null ? {} : { params: storedParams(d.params) }),
    ...(d.target == null ? {} : { target: { width: d.target.width, height: d.target.height } }),
    ...(d.untraced == null ? {} : { untraced: d.untraced }),
    ...(d.unprofiled == null ? {} : { unprofiled: d.unprofiled }),
    ...(d.barriersBefore == null ? {} : { barriersBefore: [...d.barriersBefore] }),
  };
}

/** The counts in DRAW_PARAM_NAMES order (the order readers build), so a file re-written from what it read is the same bytes. */
function storedParams(params: DrawParams): DrawParams {
  const out: Partial<Record<DrawParamName, number>> = {};
  for (const name of DRAW_PARAM_NAMES) if (params[name] !== undefined) out[name] = params[name];
  return out;
}

export function storedRegion(r: RegionInfo): object {
  return { index: r.index, label: r.label, parent: r.parent, source: r.source };
}

/** Capture info as files store it: `layer` only when there is one. */
export function storedCapture(c: CaptureInfo): object {
  // Neither when absent: a trace without them writes the bytes it did before they existed.
  const { layer, sampling, ...rest } = c;
  const keepSampling = sampling != null && !isLegacySampling(sampling, c.parameters);
  return { ...rest, ...(layer == null ? {} : { layer }), ...(keepSampling ? { sampling } : {}) };
}
