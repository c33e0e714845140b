/**
 * Writing a .wtrace file from warp columns encoded in chunks of rows
 * (warp-encoder.ts): the small parts (header, metadata, map keys, binary
 * headers) are packed with msgpackr, and each chunk's bytes are copied once,
 * straight to where they belong, by whoever encoded them. The bytes are
 * exactly what msgpackr would write for the whole body (see README.md for
 * the layout), without packing hundreds of MB of columns through it.
 */
import { Packr } from 'msgpackr';
import { MAX_PREDICTOR_CYCLES_PER_NS } from './limits.js';
import { readRegions, storedCapture, storedDraw, storedRegion } from './draw-details.js';
import { readCaptureInfo, readDeviceInfo, readDraws } from './metadata.js';
import { readBlockProfile, storedBlocks } from './block-wtrace.js';
import { storedMarks } from './mark-wtrace.js';
import { checkRayEventProfile } from './ray-event-check.js';
import type { RayEventProfile } from './ray-event-model.js';
import { storedRayEvents } from './ray-event-wtrace.js';
import type { MarkColumns } from './mark-model.js';
import { FORMAT_VERSION, TICKS_PER_NS, type BlockProfile, type CaptureInfo, type DeviceInfo, type DrawInfo, type RegionInfo, type SmGroups, type Trace } from './model.js';
import { chunkHeads, maskBytes, shapeOfColumns, writeRawMasks } from './column-chunks.js';
import type { ChunkShape, HeadBytes, WarpChunk } from './warp-encoder.js';

/** Bytes 0-3 of a .wtrace file: "WTRC". */
export const WTRACE_MAGIC_BYTES = Uint8Array.of(0x57, 0x54, 0x52, 0x43);
/** Magic and u32 major version, then the MessagePack body. */
export const WTRACE_HEADER_BYTES = 8;
const MINOR_VERSION = 0;

const packr = new Packr({ useRecords: false, variableMapSize: true });

/** The SM clock rate the cycle columns are predicted with (1 when unknown). */
export function cyclesPerNsOf(device: DeviceInfo): number {
  return cyclesPerNsOfRate(device.clocks.smClockRateHz);
}

/** cyclesPerNsOf for a device whose SM clock rate is `hz` (1 for a rate the cycle columns cannot be predicted with: limits.ts). */
export function cyclesPerNsOfRate(hz: number | null): number {
  return hz !== null && hz > 0 && hz / 1e9 <= MAX_PREDICTOR_CYCLES_PER_NS ? hz / 1e9 : 1;
}

/** Everything of a trace the file holds besides the warp rows. */
export interface WtraceShape {
  readonly device: DeviceInfo;
  readonly capture: CaptureInfo;
  readonly draws: readonly DrawInfo[];
  readonly regions: readonly RegionInfo[];
  readonly count: number;
  readonly smGroups: SmGroups;
  readonly chunk: ChunkShape;
  /** The block profile (absent or null: none). */
  readonly blocks?: BlockProfile | null;
  /** Marks inside warps (absent or null: none); checked against the warps by encodeWtrace. */
  readonly marks?: MarkColumns | null;
  /** Ray events (absent or null: none). */
  readonly rayEvents?: RayEventProfile | null;
}

export function shapeOfTrace(trace: Trace): WtraceShape {
  const { device, capture, draws, regions, warps } = trace;
  return { device, capture, draws, regions, count: warps.count, smGroups: warps.smGroups, chunk: shapeOfColumns(warps, device.subgroupSize, cyclesPerNsOf(device)), blocks: trace.blocks ?? null, marks: trace.marks ?? null, rayEvents: trace.rayEvents ?? null };
}

/** Where one chunk (rows [begin, end)) goes: the file offset of each of its columns' bytes (its open row's first). */
export interface ChunkPlacement {
  readonly begin: number;
  readonly end: number;
  readonly head: HeadBytes | null;
  readonly start: number;
  readonly duration: number;
  readonly slot: number;
  readonly stage: number;
  readonly draw: number;
  readonly customId: number;
  /** raw: the mask column is stored as raw bytes (smaller for scattered lanes), else the chunk's varints. */
  readonly mask: { readonly at: number; readonly raw: boolean };
  readonly maskHi: { readonly at: number; readonly raw: boolean } | null;
  readonly cycleStart: number | null;
  readonly cycleDuration: number | null;
  readonly position: number | null;
}

export interface WtraceLayout {
  readonly length: number;
  /** Everything but the column data, and where it goes. */
  readonly fixed: readonly { readonly at: number; readonly bytes: Uint8Array }[];
  readonly chunks: readonly ChunkPlacement[];
  readonly maskWidth: number;
  readonly maskHiWidth: number;
}

/** A chunk's row count and the byte lengths of its varint columns (what the layout needs, without the bytes). */
export interface ChunkSizes {
  readonly rows: number;
  readonly start: number;
  readonly duration: number;
  readonly draw: number;
  readonly customId: number;
  readonly inactiveMask: number;
  readonly inactiveMaskHi: number;
  readonly cycleStart: number;
  readonly cycleDuration: number;
  readonly position: number;
}

export function chunkSizes(chunk: WarpChunk): ChunkSizes {
  return {
    rows: chunk.rows,
    start: chunk.start.length,
    duration: chunk.duration.length,
    draw: chunk.draw.length,
    customId: chunk.customId.length,
    inactiveMask: chunk.inactiveMask.length,
    inactiveMaskHi: chunk.inactiveMaskHi?.length ?? 0,
    cycleStart: chunk.cycleStart?.length ?? 0,
    cycleDuration: chunk.cycleDuration?.length ?? 0,
    position: chunk.position?.length ?? 0,
  };
}

/** A chunk's sizes with its open row's head bytes. */
function withHead(s: ChunkSizes, head: HeadBytes | null): ChunkSizes {
  if (head === null) return s;
  return {
    ...s,
    start: s.start + head.start.length,
    draw: s.draw + head.draw.length,
    customId: s.customId + head.customId.length,
    cycleStart: s.cycleStart + (head.cycleStart?.length ?? 0),
    position: s.position + (head.position?.length ?? 0),
  };
}

function binHeader(length: number): Uint8Array {
  if (length < 0x100) return Uint8Array.of(0xc4, length);
  if (length < 0x10000) return Uint8Array.of(0xc5, length >> 8, length & 0xff);
  return Uint8Array.of(0xc6, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff);
}

function mapHeader(entries: number): Uint8Array {
  if (entries > 15) throw new RangeError('wtrace maps hold at most 15 entries');
  return Uint8Array.of(0x80 | entries);
}

/** The file up to its warp columns' data: header, metadata, the warps map's fixed entries (packed, then placed by layoutWtrace). */
export interface WtracePrefix {
  readonly pieces: readonly Uint8Array[];
}

/** Packs everything before the column data (what does not depend on the chunks: it can be packed while they are encoded). */
export function packPrefix(shape: WtraceShape): WtracePrefix {
  // The writer refuses metadata its reader would (a NaN, a string too long...), naming the field.
  readDeviceInfo(shape.device);
  readCaptureInfo(shape.capture);
  readDraws(shape.draws, readRegions(shape.regions).length);
  const blocks = shape.blocks == null ? null : storedBlocks(shape.blocks);
  if (blocks !== null) readBlockProfile(blocks, shape.draws.length);
  if (shape.rayEvents != null) checkRayEventProfile(shape.rayEvents, shape.draws);
  const pieces: Uint8Array[] = [];
  // A copy: msgpackr may reuse the buffer it packed into.
  const pack = (value: unknown) => pieces.push(Uint8Array.from(packr.pack(value)));
  const header = new Uint8Array(WTRACE_HEADER_BYTES);
  header.set(WTRACE_MAGIC_BYTES, 0);
  new DataView(header.buffer).setUint32(4, FORMAT_VERSION, true);
  // Regions only when there are some: a trace without them writes the bytes it did before they existed.
  const withRegions = shape.regions.length > 0;
  // The same for block profiles: the key only when the trace has one.
  // And for marks.
  const marks = shape.marks == null ? null : storedMarks(shape.marks, shape.device.subgroupSize);
  // And for ray events, last.
  const rayEvents = shape.rayEvents == null ? null : storedRayEvents(shape.rayEvents);
  pieces.push(header, mapHeader(6 + (withRegions ? 1 : 0) + (blocks !== null ? 1 : 0) + (marks !== null ? 1 : 0) + (rayEvents !== null ? 1 : 0)));
  for (const [key, value] of [
    ['formatVersion', FORMAT_VERSION],
    ['minorVersion', MINOR_VERSION],
    ['device', shape.device],
    ['capture', storedCapture(shape.capture)],
    ['draws', shape.draws.map(storedDraw)],
    ...(withRegions ? [['regions', shape.regions.map(storedRegion)] as const] : []),
    ...(blocks !== null ? [['blocks', blocks] as const] : []),
    ...(marks !== null ? [['marks', marks] as const] : []),
    ...(rayEvents !== null ? [['rayEvents', rayEvents] as const] : []),
  ] as const) {
    pack(key);
    pack(value);
  }
  pack('warps');
  pieces.push(mapHeader(6));
  const groups = shape.smGroups.sm.length;
  const smBytes = new Uint8Array(groups * 2);
  const countBytes = new Uint8Array(groups * 4);
  const smView = new DataView(smBytes.buffer);
  const countView = new DataView(countBytes.buffer);
  for (let g = 0; g < groups; g++) {
    smView.setUint16(g * 2, shape.smGroups.sm[g] as number, true);
    countView.setUint32(g * 4, (shape.smGroups.offsets[g + 1] as number) - (shape.smGroups.offsets[g] as number), true);
  }
  for (const [key, value] of [
    ['count', shape.count],
    ['ticksPerNs', TICKS_PER_NS],
    ['lanes', shape.device.subgroupSize > 32 ? 64 : 32],
    ['cyclesPerNs', shape.chunk.cyclesPerNs],
    ['smGroups', { sm: smBytes, counts: countBytes }],
  ] as const) {
    pack(key);
    pack(value);
  }
  pack('columns');
  return { pieces };
}

/**
 * The file's layout from its chunks' sizes (all rows, in order) and the
 * head bytes of their open rows (chunkHeads); `prefix` from packPrefix(shape).
 */
export function layoutWtrace(shape: WtraceShape, chunkSizeList: readonly ChunkSizes[], heads: readonly (HeadBytes | null)[], prefix: WtracePrefix = packPrefix(shape)): WtraceLayout {
  const sizes = chunkSizeList.map((s, k) => withHead(s, heads[k] ?? null));
  const count = shape.count;
  const lanes = shape.device.subgroupSize;
  const fixed: { at: number; bytes: Uint8Array }[] = [];
  let at = 0;
  const put = (bytes: Uint8Array) => {
    fixed.push({ at, bytes });
    at += bytes.length;
  };
  const pack = (value: unknown) => put(Uint8Array.from(packr.pack(value)));
  for (const piece of prefix.pieces) put(piece);
  const total = (key: keyof ChunkSizes) => sizes.reduce((sum, s) => sum + s[key], 0);
  if (total('rows') !== count) throw new RangeError(`chunks hold ${total('rows')} rows, the trace ${count}`);
  const { wide, withCycles, withPosition } = shape.chunk;
  const maskWidth = maskBytes(Math.min(lanes, 32));
  const maskHiWidth = maskBytes(lanes - 32);
  // A mask column as whichever is smaller: varints of the inactive lanes (full warps cost one byte) or raw bytes.
  const rawMask = total('inactiveMask') > count * maskWidth;
  const rawMaskHi = wide && total('inactiveMaskHi') > count * maskHiWidth;
  put(mapHeader(7 + (wide ? 1 : 0) + (withCycles ? 2 : 0) + (withPosition ? 1 : 0)));
  /** Starts a column of `length` bytes; returns where its data begins. */
  const column = (name: string, length: number): number => {
    pack(name);
    put(binHeader(length));
    const begin = at;
    at += length;
    return begin;
  };
  const varints = (name: string, key: keyof ChunkSizes) => column(name, total(key));
  const start = varints('start', 'start');
  const duration = varints('duration', 'duration');
  const slot = column('slot', count);
  const stage = column('stage', count);
  const draw = varints('draw', 'draw');
  const customId = varints('customId', 'customId');
  const mask = rawMask ? column('activeMask', count * maskWidth) : varints('inactiveMask', 'inactiveMask');
  const maskHi = !wide ? null : rawMaskHi ? column('activeMaskHi', count * maskHiWidth) : varints('inactiveMaskHi', 'inactiveMaskHi');
  const cycleStart = withCycles ? varints('cycleStart', 'cycleStart') : null;
  const cycleDuration = withCycles ? varints('cycleDuration', 'cycleDuration') : null;
  // Last, and only when some warp has one: a trace without positions writes the bytes it did before they existed.
  const position = withPosition ? varints('position', 'position') : null;
  // Each chunk's bytes follow the chunks before it in every column.
  const cursor = { rows: 0, start, duration, draw, customId, mask, maskHi: maskHi ?? 0, cycleStart: cycleStart ?? 0, cycleDuration: cycleDuration ?? 0, position: position ?? 0 };
  const chunks = sizes.map((s, k): ChunkPlacement => {
    const begin = cursor.rows;
    const placement: ChunkPlacement = {
      begin,
      end: begin + s.rows,
      head: heads[k] ?? null,
      start: cursor.start,
      duration: cursor.duration,
      slot: slot + begin,
      stage: stage + begin,
      draw: cursor.draw,
      customId: cursor.customId,
      mask: { at: rawMask ? mask + begin * maskWidth : cursor.mask, raw: rawMask },
      maskHi: maskHi === null ? null : { at: rawMaskHi ? maskHi + begin * maskHiWidth : cursor.maskHi, raw: rawMaskHi },
      cycleStart: cycleStart === null ? null : cursor.cycleStart,
      cycleDuration: cycleDuration === null ? null : cursor.cycleDuration,
      position: position === null ? null : cursor.position,
    };
    cursor.rows += s.rows;
    cursor.start += s.start;
    cursor.duration += s.duration;
    cursor.draw += s.draw;
    cursor.customId += s.customId;
    cursor.mask += s.inactiveMask;
    cursor.maskHi += s.inactiveMaskHi;
    cursor.cycleStart += s.cycleStart;
    cursor.cycleDuration += s.cycleDuration;
    cursor.position += s.position;
    return placement;
  });
  return { length: at, fixed, chunks, maskWidth, maskHiWidth };
}

/** Writes everything but the column data. */
export function writeFixed(layout: WtraceLayout, out: Uint8Array): void {
  for (const { at, bytes } of layout.fixed) out.set(bytes, at);
}

/** Writes chunk k's rows of every column (its open row's head bytes first). */
export function writeChunk(layout: WtraceLayout, k: number, chunk: WarpChunk, out: Uint8Array): void {
  const p = layout.chunks[k] as ChunkPlacement;
  const head = p.head;
  /** Head bytes, then the chunk's. */
  const put = (headBytes: Uint8Array | null | undefined, bytes: Uint8Array, at: number) => {
    const skip = headBytes?.length ?? 0;
    if (headBytes != null) out.set(headBytes, at);
    out.set(bytes, at + skip);
  };
  put(head?.start, chunk.start, p.start);
  out.set(chunk.duration, p.duration);
  out.set(chunk.slot, p.slot);
  out.set(chunk.stage, p.stage);
  put(head?.draw, chunk.draw, p.draw);
  put(head?.customId, chunk.customId, p.customId);
  if (p.mask.raw) writeRawMasks(chunk.maskLo, layout.maskWidth, out, p.mask.at);
  else out.set(chunk.inactiveMask, p.mask.at);
  if (p.maskHi !== null) {
    if (p.maskHi.raw && chunk.maskHi !== null) writeRawMasks(chunk.maskHi, layout.maskHiWidth, out, p.maskHi.at);
    else if (chunk.inactiveMaskHi !== null) out.set(chunk.inactiveMaskHi, p.maskHi.at);
  }
  if (p.cycleStart !== null && chunk.cycleStart !== null) put(head?.cycleStart, chunk.cycleStart, p.cycleStart);
  if (p.cycleDuration !== null && chunk.cycleDuration !== null) out.set(chunk.cycleDuration, p.cycleDuration);
  if (p.position !== null && chunk.position !== null) {
    // The open head goes after the chunk's leading rows without a position (position-column.ts).
    const lead = chunk.positionLead;
    const headBytes = head?.position ?? new Uint8Array(0);
    out.set(chunk.position.subarray(0, lead), p.position);
    out.set(headBytes, p.position + lead);
    out.set(chunk.position.subarray(lead), p.position + lead + headBytes.length);
  }
}

/** The whole file on this thread, from chunks of all rows in order (their open rows' heads encoded here). */
export function wtraceFile(shape: WtraceShape, chunks: readonly WarpChunk[]): Uint8Array {
  const layout = layoutWtrace(shape, chunks.map(chunkSizes), chunkHeads(chunks, shape.chunk));
  const out = new Uint8Array(layout.length);
  writeFixed(layout, out);
  chunks.forEach((chunk, k) => writeChunk(layout, k, chunk, out));
  return out;
}
