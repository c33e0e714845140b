/**
 * The JSON import format: plain arrays, so other tools and tests can produce
 * traces without a MessagePack or varint encoder (see README.md).
 */
import { buildTrace } from './build.js';
import { laneMasks, smIdPerWarp } from './columns.js';
import { MAX_WARPS, describeValue, fail } from './errors.js';
import { type Obj, readArray, readObject } from './fields.js';
import { readRegions, storedCapture, storedDraw, storedRegion } from './draw-details.js';
import { readCaptureInfo, readDeviceInfo, readDraws } from './metadata.js';
import { checkStoredRow } from './limits.js';
import { TICKS_PER_NS, UNKNOWN_SLOT, UNKNOWN_SM, type Trace } from './model.js';
import { NO_POSITION, positionProblem } from './position.js';
import { STAGES, isStageCode, parseStageName } from './stages.js';
import { jsonBlocks, readJsonBlocks } from './block-wtrace.js';
import { checkMarkColumns, jsonMarks, readJsonMarks } from './mark-wtrace.js';
import { checkRayEventProfile } from './ray-event-check.js';
import { jsonRayEvents, readJsonRayEvents } from './ray-event-wtrace.js';
import { groupedOrder } from './sort.js';

export const JSON_FORMAT = 'warptrace-json';
export const JSON_VERSION = 1;

/** Parses JSON text or an already-parsed value into a Trace. */
export function traceFromJson(input: string | unknown): Trace {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      fail('bad-encoding', 'json', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const root = readObject(value, 'json');
  if (root['format'] !== JSON_FORMAT) fail('bad-magic', 'format', `expected "${JSON_FORMAT}", got ${describeValue(root['format'])}`);
  if (root['version'] !== JSON_VERSION) {
    fail('unsupported-version', 'version', `expected ${JSON_VERSION}, got ${describeValue(root['version'])}`);
  }
  const warps = readObject(root['warps'], 'warps');
  const startNs = numberColumn(warps, 'startNs');
  const count = startNs.length;
  const device = readDeviceInfo(withDeviceDefaults(readObject(root['device'], 'device')));
  const capture = readCaptureInfo(withCaptureDefaults(root['capture'], count));
  const regions = readRegions(root['regions']);
  const draws = readDraws(root['draws'], regions.length);
  const column = (key: string, parse: (v: unknown, field: string) => number, optional = false): Float64Array | null => {
    if (optional && (warps[key] === undefined || warps[key] === null)) return null;
    const values = readArray(warps, key, 'warps', MAX_WARPS);
    if (values.length !== count) fail('size-mismatch', `warps.${key}`, `has ${values.length} rows but warps.startNs has ${count}`);
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = parse(values[i], `warps.${key}[${i}]`);
    return out;
  };
  const number = (v: unknown, field: string) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) fail('bad-type', field, `expected a number, got ${describeValue(v)}`);
    return v;
  };
  const orUnknown = (unknown: number) => (v: unknown, field: string) => (v === null ? unknown : number(v, field));
  const blocks = root['blocks'] === undefined || root['blocks'] === null ? null : readJsonBlocks(root['blocks'], draws.length);
  const sm = column('sm', orUnknown(UNKNOWN_SM))!;
  const built = buildTrace({
    device,
    capture,
    draws,
    regions,
    warps: {
      startNs,
      endNs: column('endNs', number)!,
      sm,
      warpSlot: column('warpSlot', orUnknown(UNKNOWN_SLOT))!,
      stage: column('stage', parseStage)!,
      draw: column('draw', number)!,
      customId: column('customId', number)!,
      activeMask: column('activeMask', parseMask)!,
      activeMaskHi: column('activeMaskHi', parseMask, true),
      smCycleStart: column('smCycleStart', number, true),
      smCycleDuration: column('smCycleDuration', number, true),
      position: column('position', parsePosition, true),
    },
  });
  const withBlocks = blocks === null ? built : { ...built, blocks };
  const trace = root['marks'] === undefined || root['marks'] === null ? withBlocks : { ...withBlocks, marks: readJsonMarks(root['marks'], withBlocks.warps, device.subgroupSize, canonicalRows(sm, startNs)) };
  if (root['rayEvents'] === undefined || root['rayEvents'] === null) return trace;
  return { ...trace, rayEvents: readJsonRayEvents(root['rayEvents'], draws) };
}

/** File row → trace row: buildTrace's canonical order (by SM, then start tick; ties in file order), null when unchanged. */
function canonicalRows(sm: Float64Array, startNs: Float64Array): Uint32Array | null {
  const ticks = Float64Array.from(startNs, (s) => Math.round(s * TICKS_PER_NS) + 0);
  const { order } = groupedOrder(sm, ticks);
  if (order === null) return null;
  const rowOf = new Uint32Array(order.length);
  for (let k = 0; k < order.length; k++) rowOf[order[k] as number] = k;
  return rowOf;
}

function numberColumn(o: Obj, key: string): Float64Array {
  const values = readArray(o, key, 'warps', MAX_WARPS);
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) fail('bad-type', `warps.${key}[${i}]`, `expected a number, got ${describeValue(v)}`);
    out[i] = v;
  }
  return out;
}

function parseStage(v: unknown, field: string): number {
  if (typeof v === 'string') {
    const code = parseStageName(v);
    if (code === undefined) fail('bad-value', field, `unknown stage ${describeValue(v)} (expected ${STAGES.map((s) => s.name).join(', ')})`);
    return code;
  }
  if (typeof v === 'number' && isStageCode(v)) return v;
  return fail('bad-value', field, `expected a stage name or code, got ${describeValue(v)}`);
}

function parseMask(v: unknown, field: string): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff) return v;
  if (typeof v === 'string' && /^0x[0-9a-f]{1,8}$/i.test(v)) return parseInt(v.slice(2), 16);
  return fail('bad-value', field, `expected a uint32 or a hex string like "0xffffffff", got ${describeValue(v)}`);
}

/** A position word (position.ts); null for a warp without one. buildTrace checks the word. */
function parsePosition(v: unknown, field: string): number {
  if (v === null) return NO_POSITION;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff) return v;
  return fail('bad-value', field, `expected a uint32 position word or null, got ${describeValue(v)}`);
}

function withDeviceDefaults(o: Obj): Obj {
  const clocks = o['clocks'] === undefined ? {} : readObject(o['clocks'], 'device.clocks');
  return {
    vendor: '',
    api: 'json',
    subgroupStages: [],
    smBuiltins: false,
    ...o,
    clocks: { smClock: false, deviceClock: false, ...clocks },
  };
}

function withCaptureDefaults(value: unknown, count: number): Obj {
  const o = value === undefined ? {} : readObject(value, 'capture');
  return {
    tool: 'json-import',
    recordsWritten: count,
    recordsKept: count,
    bufferCapacity: typeof o['recordsWritten'] === 'number' ? o['recordsWritten'] : count,
    calibration: { method: 'given', alignedAcrossSms: true, note: 'times given in ns by the producer', perSm: [] },
    ...o,
  };
}

/** The inverse: a Trace as the JSON import format (for interchange and small fixtures). */
export function traceToJson(trace: Trace): object {
  const w = trace.warps;
  // Refuse what traceFromJson would (a trace that did not come through buildTrace), naming the field.
  readDeviceInfo(trace.device);
  readCaptureInfo(trace.capture);
  readDraws(trace.draws, readRegions(trace.regions).length);
  for (let i = 0; i < w.count; i++) {
    checkStoredRow((w.startNs[i] as number) * TICKS_PER_NS, (w.durationNs[i] as number) * TICKS_PER_NS, w.smCycleStart?.[i] ?? 0, i);
    const problem = w.position === null ? null : positionProblem(w.position[i] as number);
    if (problem !== null) fail('bad-value', `warps.position[${i}]`, problem);
  }
  if (trace.marks != null) checkMarkColumns(trace.marks, w, trace.device.subgroupSize);
  if (trace.rayEvents != null) checkRayEventProfile(trace.rayEvents, trace.draws);
  const sm = smIdPerWarp(w);
  const { hi } = laneMasks(trace.device.subgroupSize);
  const rows = (f: (i: number) => number | string | null) => Array.from({ length: w.count }, (_, i) => f(i));
  return {
    format: JSON_FORMAT,
    version: JSON_VERSION,
    device: trace.device,
    // The capture layer's details only when present: a trace without them writes the JSON it did before they existed.
    capture: storedCapture(trace.capture),
    draws: trace.draws.map(storedDraw),
    ...(trace.regions.length > 0 ? { regions: trace.regions.map(storedRegion) } : {}),
    warps: {
      startNs: rows((i) => w.startNs[i] as number),
      endNs: rows((i) => (w.startNs[i] as number) + (w.durationNs[i] as number)),
      sm: rows((i) => (sm[i] === UNKNOWN_SM ? null : (sm[i] as number))),
      warpSlot: rows((i) => (w.warpSlot[i] === UNKNOWN_SLOT ? null : (w.warpSlot[i] as number))),
      stage: rows((i) => STAGES[w.stage[i] as number]!.name),
      draw: rows((i) => w.draw[i] as number),
      customId: rows((i) => w.customId[i] as number),
      activeMask: rows((i) => w.activeMask[i] as number),
      ...(hi !== 0 && w.activeMaskHi !== null ? { activeMaskHi: rows((i) => w.activeMaskHi![i] as number) } : {}),
      ...(w.smCycleStart !== null && w.smCycleDuration !== null
        ? { smCycleStart: rows((i) => w.smCycleStart![i] as number), smCycleDuration: rows((i) => w.smCycleDuration![i] as number) }
        : {}),
      ...(w.position !== null ? { position: rows((i) => (w.position![i] === NO_POSITION ? null : (w.position![i] as number))) } : {}),
    },
    // The block profile only when present (README "Block profiles"): a trace without one writes the JSON it did before.
    ...(trace.blocks !== undefined && trace.blocks !== null ? { blocks: jsonBlocks(trace.blocks) } : {}),
    // Marks only when present, after the profile (README "Marks").
    ...(trace.marks !== undefined && trace.marks !== null ? { marks: jsonMarks(trace.marks) } : {}),
    // Ray events only when present, last (README "Ray events").
    ...(trace.rayEvents !== undefined && trace.rayEvents !== null ? { rayEvents: jsonRayEvents(trace.rayEvents) } : {}),
  };
}
