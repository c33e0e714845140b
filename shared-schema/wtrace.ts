/**
 * .wtrace: "WTRC" + u32 major version + a MessagePack map (see README.md).
 * Warp columns are varint byte strings in canonical row order: about 10-12
 * bytes per warp on real captures before any general-purpose compression.
 */
import { allocUintColumn, laneMasks } from './columns.js';
import { MAX_WARPS, describeValue, fail } from './errors.js';
import { readObject, type Obj } from './fields.js';
import { MAX_CYCLE_START, MAX_TIME_NS, MAX_TIME_TICKS, storedDurationTicks } from './limits.js';
import { readRegions } from './draw-details.js';
import { readBlockProfile } from './block-wtrace.js';
import { checkMarkColumns, readMarks } from './mark-wtrace.js';
import { readRayEventProfile } from './ray-event-wtrace.js';
import { readCaptureInfo, readDeviceInfo, readDraws } from './metadata.js';
import {
  FORMAT_VERSION,
  TICKS_PER_NS,
  UNKNOWN_SLOT,
  UNKNOWN_SM,
  type DeviceInfo,
  type Trace,
  type UintColumn,
  type WarpColumns,
} from './model.js';
import { readMsgpack } from './msgpack-reader.js';
import { readPositions } from './position-column.js';
import { STAGE_COUNT } from './stages.js';
import { ByteReader } from './varint.js';
import { encodeColumnsChunk, maskBytes } from './column-chunks.js';
import { FILE_START } from './warp-encoder.js';
import { WTRACE_HEADER_BYTES, WTRACE_MAGIC_BYTES, shapeOfTrace, wtraceFile } from './wtrace-writer.js';

export { WTRACE_HEADER_BYTES, WTRACE_MAGIC_BYTES, cyclesPerNsOf } from './wtrace-writer.js';

export function encodeWtrace(trace: Trace): Uint8Array {
  // The writer refuses marks its reader would, naming the field.
  if (trace.marks != null) checkMarkColumns(trace.marks, trace.warps, trace.device.subgroupSize);
  const shape = shapeOfTrace(trace);
  return wtraceFile(shape, [encodeColumnsChunk(trace.warps, 0, shape.count, shape.chunk, FILE_START)]);
}

export function isWtrace(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && WTRACE_MAGIC_BYTES.every((b, i) => bytes[i] === b);
}

/** Checks the 8-byte header: the magic and a major version this reader understands. `bytes`: the file or its first bytes. */
export function checkWtraceHeader(bytes: Uint8Array): void {
  if (!isWtrace(bytes)) fail('bad-magic', 'header', 'not a .wtrace file (missing "WTRC")');
  if (bytes.length < WTRACE_HEADER_BYTES) fail('truncated', 'header', `${bytes.length} bytes, need ${WTRACE_HEADER_BYTES}`);
  const major = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  if (major !== FORMAT_VERSION) {
    fail('unsupported-version', 'header.version', `format version ${major}; this reader understands ${FORMAT_VERSION}`);
  }
}

export function decodeWtrace(bytes: Uint8Array): Trace {
  checkWtraceHeader(bytes);
  const body = readObject(readMsgpack(bytes.subarray(WTRACE_HEADER_BYTES), 'body'), 'body');
  const device = readDeviceInfo(body['device']);
  const capture = readCaptureInfo(body['capture']);
  // Absent in files written before regions were recorded, and in every file of a capture without any.
  const regions = readRegions(body['regions']);
  const draws = readDraws(body['draws'], regions.length);
  const warps = decodeWarps(readObject(body['warps'], 'warps'), draws.length, device);
  if (capture.recordsKept !== warps.count) {
    fail('bad-value', 'capture.recordsKept', `is ${capture.recordsKept} but the file holds ${warps.count} warps`);
  }
  // Absent in files written before block profiles, and in every file of a capture without one.
  const blocks = body['blocks'] === undefined ? {} : { blocks: readBlockProfile(body['blocks'], draws.length) };
  // Absent in files written before marks, and in every file of a capture without any.
  const marks = body['marks'] === undefined ? {} : { marks: readMarks(body['marks'], warps, device.subgroupSize) };
  // Absent in files written before ray events, and in every file of a capture without them.
  const rayEvents = body['rayEvents'] === undefined ? {} : { rayEvents: readRayEventProfile(body['rayEvents'], draws) };
  return { formatVersion: FORMAT_VERSION, device, capture, draws, regions, warps, ...blocks, ...marks, ...rayEvents };
}

function bin(o: Obj, key: string, field: string): Uint8Array {
  const v = o[key];
  if (!(v instanceof Uint8Array)) fail('bad-type', `${field}.${key}`, `expected binary data, got ${describeValue(v)}`);
  return v;
}

function optionalBin(o: Obj, key: string, field: string): Uint8Array | null {
  return o[key] === undefined || o[key] === null ? null : bin(o, key, field);
}

function decodeWarps(o: Obj, drawCount: number, device: DeviceInfo): WarpColumns {
  const { subgroupSize, smCount, warpsPerSm } = device;
  const count = o['count'];
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_WARPS) {
    fail('bad-value', 'warps.count', `expected a warp count up to ${MAX_WARPS}, got ${describeValue(count)}`);
  }
  if (o['ticksPerNs'] !== TICKS_PER_NS) fail('bad-value', 'warps.ticksPerNs', `expected ${TICKS_PER_NS}, got ${describeValue(o['ticksPerNs'])}`);
  const wide = subgroupSize > 32;
  // Written by every writer; the masks' width follows the device, so a lanes value that disagrees is a damaged file, not one to ignore.
  const lanes = o['lanes'];
  if (lanes !== undefined && lanes !== (wide ? 64 : 32)) {
    fail('bad-value', 'warps.lanes', `expected ${wide ? 64 : 32} for a ${subgroupSize}-lane subgroup, got ${describeValue(lanes)}`);
  }
  const groupsObj = readObject(o['smGroups'], 'warps.smGroups');
  const smBytes = bin(groupsObj, 'sm', 'warps.smGroups');
  const countBytes = bin(groupsObj, 'counts', 'warps.smGroups');
  if (smBytes.length % 2 !== 0 || countBytes.length !== smBytes.length * 2) {
    fail('size-mismatch', 'warps.smGroups', `${smBytes.length} bytes of SM ids do not match ${countBytes.length} bytes of counts`);
  }
  const groups = smBytes.length / 2;
  const smView = new DataView(smBytes.buffer, smBytes.byteOffset, smBytes.byteLength);
  const countView = new DataView(countBytes.buffer, countBytes.byteOffset, countBytes.byteLength);
  const sm = new Uint16Array(groups);
  const offsets = new Uint32Array(groups + 1);
  let total = 0;
  for (let g = 0; g < groups; g++) {
    sm[g] = smView.getUint16(g * 2, true);
    if (sm[g] !== UNKNOWN_SM && smCount !== null && (sm[g] as number) >= smCount) {
      fail('bad-value', `warps.smGroups.sm[${g}]`, `SM ${sm[g]} but the device has ${smCount}`);
    }
    if (g > 0 && (sm[g] as number) <= (sm[g - 1] as number)) fail('bad-value', `warps.smGroups.sm[${g}]`, 'SM ids must be strictly ascending');
    const c = countView.getUint32(g * 4, true);
    if (c === 0) fail('bad-value', `warps.smGroups.counts[${g}]`, 'an SM group holds at least one warp');
    total += c;
    offsets[g + 1] = total;
  }
  if (total !== count) fail('size-mismatch', 'warps.smGroups.counts', `sum to ${total}, but warps.count is ${count}`);

  const cols = readObject(o['columns'], 'warps.columns');
  const field = (name: string) => `warps.columns.${name}`;
  // Sizes first: every varint takes at least one byte, fixed columns exactly one.
  const startBytes = bin(cols, 'start', 'warps.columns');
  const durationBytes = bin(cols, 'duration', 'warps.columns');
  const slotBytes = bin(cols, 'slot', 'warps.columns');
  const stageBytes = bin(cols, 'stage', 'warps.columns');
  const drawBytes = bin(cols, 'draw', 'warps.columns');
  const customBytes = bin(cols, 'customId', 'warps.columns');
  const cycleRate = o['cyclesPerNs'] === undefined ? 1 : o['cyclesPerNs'];
  if (typeof cycleRate !== 'number' || !(cycleRate > 0 && cycleRate < 1e3)) fail('bad-value', 'warps.cyclesPerNs', `expected a clock rate in cycles per ns, got ${describeValue(cycleRate)}`);
  const cyclesPerTick = cycleRate / TICKS_PER_NS;
  const cycleStartBytes = optionalBin(cols, 'cycleStart', 'warps.columns');
  const cycleDurationBytes = optionalBin(cols, 'cycleDuration', 'warps.columns');
  // Absent in files written before positions were recorded, and whenever no warp has one.
  const positionBytes = optionalBin(cols, 'position', 'warps.columns');
  for (const [name, b] of [
    ['start', startBytes],
    ['duration', durationBytes],
    ['draw', drawBytes],
    ['customId', customBytes],
    ['cycleStart', cycleStartBytes],
    ['cycleDuration', cycleDurationBytes],
    ['position', positionBytes],
  ] as const) {
    if (b !== null && b.length < count) fail('truncated', field(name), `${b.length} bytes cannot hold ${count} values`);
  }
  if (slotBytes.length !== count) fail('size-mismatch', field('slot'), `${slotBytes.length} bytes for ${count} warps`);
  if (stageBytes.length !== count) fail('size-mismatch', field('stage'), `${stageBytes.length} bytes for ${count} warps`);
  if ((cycleStartBytes === null) !== (cycleDurationBytes === null)) {
    fail('bad-value', field('cycleStart'), 'cycleStart and cycleDuration come together');
  }

  const startNs = new Float64Array(count);
  const startReader = new ByteReader(startBytes, field('start'));
  for (let g = 0; g < groups; g++) {
    let ticks = 0;
    for (let i = offsets[g] as number; i < (offsets[g + 1] as number); i++) {
      ticks = i === offsets[g] ? startReader.int() : ticks + startReader.uint();
      if (ticks < 0 || ticks > MAX_TIME_TICKS) fail('bad-value', `${field('start')}[${i}]`, `start time out of range (0 to ${MAX_TIME_NS} ns)`);
      startNs[i] = ticks / TICKS_PER_NS;
    }
  }
  expectEnd(startReader, field('start'));

  const durationNs = new Float32Array(count);
  const durationTicks = new Float64Array(count);
  const durationReader = new ByteReader(durationBytes, field('duration'));
  for (let i = 0; i < count; i++) {
    const ticks = durationReader.uint();
    durationTicks[i] = ticks;
    // The end as the trace will hold it: the duration rounded to float32 (limits.ts).
    if ((startNs[i] as number) * TICKS_PER_NS + storedDurationTicks(ticks) > MAX_TIME_TICKS) {
      fail('bad-value', `${field('duration')}[${i}]`, `end time out of range (past ${MAX_TIME_NS} ns)`);
    }
    durationNs[i] = ticks / TICKS_PER_NS;
  }
  expectEnd(durationReader, field('duration'));

  for (let i = 0; i < count; i++) {
    const slot = slotBytes[i] as number;
    if (slot !== UNKNOWN_SLOT && warpsPerSm !== null && slot >= warpsPerSm) {
      fail('bad-value', `${field('slot')}[${i}]`, `slot ${slot} but the device has ${warpsPerSm} per SM`);
    }
    if ((stageBytes[i] as number) >= STAGE_COUNT) fail('bad-value', `${field('stage')}[${i}]`, `unknown stage code ${stageBytes[i]}`);
  }
  // No draws: no warp can name one (max −1 refuses every value).
  const draw = readDeltaColumn(drawBytes, count, field('draw'), drawCount - 1);
  const customId = readDeltaColumn(customBytes, count, field('customId'), 0xffffffff);
  const { lo: laneMaskLo, hi: laneMaskHi } = laneMasks(subgroupSize);
  const activeMask = readMask(cols, '', count, laneMaskLo, Math.min(subgroupSize, 32));
  const activeMaskHi = wide ? (readMask(cols, 'Hi', count, laneMaskHi, subgroupSize - 32) as Uint32Array) : null;
  for (let i = 0; i < count; i++) {
    if (activeMask[i] === 0 && (activeMaskHi === null || activeMaskHi[i] === 0)) {
      fail('bad-value', `warps.activeMask[${i}]`, 'a warp has at least one active lane');
    }
  }
  let smCycleStart: Float64Array | null = null;
  let smCycleDuration: Uint32Array | null = null;
  if (cycleStartBytes !== null && cycleDurationBytes !== null) {
    smCycleStart = new Float64Array(count);
    const r = new ByteReader(cycleStartBytes, field('cycleStart'));
    for (let g = 0; g < groups; g++) {
      let cycles = 0;
      for (let i = offsets[g] as number; i < (offsets[g + 1] as number); i++) {
        const residual = r.int();
        cycles =
          i === offsets[g]
            ? residual
            : cycles + residual + Math.round(((startNs[i] as number) - (startNs[i - 1] as number)) * TICKS_PER_NS * cyclesPerTick);
        if (cycles < 0 || cycles > MAX_CYCLE_START) fail('bad-value', `${field('cycleStart')}[${i}]`, 'cycle count out of range');
        smCycleStart[i] = cycles;
      }
    }
    expectEnd(r, field('cycleStart'));
    smCycleDuration = new Uint32Array(count);
    const rd = new ByteReader(cycleDurationBytes, field('cycleDuration'));
    for (let i = 0; i < count; i++) {
      const cycles = rd.int() + Math.round((durationTicks[i] as number) * cyclesPerTick);
      if (!(cycles >= 0 && cycles <= 0xffffffff)) fail('bad-value', `${field('cycleDuration')}[${i}]`, 'cycle count out of range');
      smCycleDuration[i] = cycles;
    }
    expectEnd(rd, field('cycleDuration'));
  }
  const position = positionBytes === null ? null : readPositions(positionBytes, count, field('position'));
  return {
    count,
    startNs,
    durationNs,
    smGroups: { sm, offsets },
    warpSlot: slotBytes.slice(),
    stage: stageBytes.slice(),
    draw,
    customId,
    activeMask,
    activeMaskHi,
    smCycleStart,
    smCycleDuration,
    position,
  };
}

function expectEnd(reader: ByteReader, field: string): void {
  if (!reader.atEnd) fail('size-mismatch', field, `${reader.remaining} bytes left after the last value`);
}

function readDeltaColumn(bytes: Uint8Array, count: number, field: string, max: number): UintColumn {
  const out = allocUintColumn(count, Math.max(0, max));
  const r = new ByteReader(bytes, field);
  let value = 0;
  for (let i = 0; i < count; i++) {
    value = r.delta32(value);
    if (value > max) fail('bad-value', `${field}[${i}]`, max < 0 ? `${value}, but there is nothing to refer to` : `${value} exceeds ${max}`);
    out[i] = value;
  }
  expectEnd(r, field);
  return out;
}

/** A mask column in either encoding (see encodeMask). */
function readMask(cols: Obj, suffix: string, count: number, laneMask: number, lanes: number): UintColumn {
  const out = allocUintColumn(count, laneMask);
  const inactive = optionalBin(cols, `inactiveMask${suffix}`, 'warps.columns');
  if (inactive !== null) {
    const field = `warps.columns.inactiveMask${suffix}`;
    if (inactive.length < count) fail('truncated', field, `${inactive.length} bytes cannot hold ${count} values`);
    const r = new ByteReader(inactive, field);
    for (let i = 0; i < count; i++) out[i] = ~r.u32() & laneMask;
    expectEnd(r, field);
    return out;
  }
  const field = `warps.columns.activeMask${suffix}`;
  const raw = optionalBin(cols, `activeMask${suffix}`, 'warps.columns');
  if (raw === null) fail('bad-type', field, `expected inactiveMask${suffix} or activeMask${suffix}`);
  const width = maskBytes(lanes);
  if (raw.length !== count * width) fail('size-mismatch', field, `${raw.length} bytes for ${count} warps of ${width} bytes`);
  for (let i = 0; i < count; i++) {
    let v = 0;
    for (let b = 0; b < width; b++) v |= (raw[i * width + b] as number) << (8 * b);
    if ((v & ~laneMask) !== 0) fail('bad-value', `${field}[${i}]`, 'lanes beyond the subgroup');
    out[i] = v >>> 0;
  }
  return out;
}
