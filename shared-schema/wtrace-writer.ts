/**
 * Writing a .wtrace file from warp columns encoded in chunks of rows
 * (warp-encoder.ts): the small parts (header, metadata, map keys, binary
 * headers) are packed with msgpackr, and each chunk's bytes are copied once,
 * straight to where they belong, by whoever encoded them. The bytes are
 * exactly what msgpackr would write for the whole body (see README.md for
 * the layout), without packing hundreds of MB of columns through it.
 */
import { Packr } from 'msgpackr';
import { FORMAT_VERSION, TICKS_PER_NS, type Trace, type WarpColumns } from './model.js';
import { maskBytes, writeRawMasks, type WarpChunk } from './warp-encoder.js';

/** Bytes 0-3 of a .wtrace file: "WTRC". */
export const WTRACE_MAGIC_BYTES = Uint8Array.of(0x57, 0x54, 0x52, 0x43);
/** Magic and u32 major version, then the MessagePack body. */
export const WTRACE_HEADER_BYTES = 8;
const MINOR_VERSION = 0;

const packr = new Packr({ useRecords: false, variableMapSize: true });

/** The SM clock rate the cycle columns are predicted with (1 when unknown). */
export function cyclesPerNsOf(trace: Trace): number {
  const hz = trace.device.clocks.smClockRateHz;
  return hz !== null && hz > 0 && Number.isFinite(hz) ? hz / 1e9 : 1;
}

/** Where one chunk (rows [begin, end)) goes: the file offset of each of its columns' bytes. */
export interface ChunkPlacement {
  readonly begin: number;
  readonly end: number;
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
}

export interface WtraceLayout {
  readonly length: number;
  /** Everything but the column data, and where it goes. */
  readonly fixed: readonly { readonly at: number; readonly bytes: Uint8Array }[];
  readonly chunks: readonly ChunkPlacement[];
  readonly maskWidth: number;
  readonly maskHiWidth: number;
}

/** The byte lengths of a chunk's varint columns (what the layout needs, without the bytes). */
export type ChunkSizes = { readonly [K in keyof WarpChunk]: number | null };

export function chunkSizes(chunk: WarpChunk): ChunkSizes {
  const size = (bytes: Uint8Array | null) => (bytes === null ? null : bytes.length);
  return {
    start: chunk.start.length,
    duration: chunk.duration.length,
    draw: chunk.draw.length,
    customId: chunk.customId.length,
    inactiveMask: chunk.inactiveMask.length,
    inactiveMaskHi: size(chunk.inactiveMaskHi),
    cycleStart: size(chunk.cycleStart),
    cycleDuration: size(chunk.cycleDuration),
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

/**
 * The file's layout for a trace whose warp columns were encoded as chunks
 * of these sizes, over rows ranges[k] (all rows, in order).
 */
export function layoutWtrace(trace: Trace, sizes: readonly ChunkSizes[], ranges: readonly (readonly [number, number])[]): WtraceLayout {
  const w = trace.warps;
  const lanes = trace.device.subgroupSize;
  const fixed: { at: number; bytes: Uint8Array }[] = [];
  let at = 0;
  const put = (bytes: Uint8Array) => {
    fixed.push({ at, bytes });
    at += bytes.length;
  };
  // A copy: msgpackr may reuse the buffer it packed into.
  const pack = (value: unknown) => put(Uint8Array.from(packr.pack(value)));
  const header = new Uint8Array(WTRACE_HEADER_BYTES);
  header.set(WTRACE_MAGIC_BYTES, 0);
  new DataView(header.buffer).setUint32(4, FORMAT_VERSION, true);
  put(header);
  put(mapHeader(6));
  for (const [key, value] of [
    ['formatVersion', FORMAT_VERSION],
    ['minorVersion', MINOR_VERSION],
    ['device', trace.device],
    ['capture', trace.capture],
    ['draws', trace.draws],
  ] as const) {
    pack(key);
    pack(value);
  }
  pack('warps');
  put(mapHeader(6));
  const groups = w.smGroups.sm.length;
  const smBytes = new Uint8Array(groups * 2);
  const countBytes = new Uint8Array(groups * 4);
  const smView = new DataView(smBytes.buffer);
  const countView = new DataView(countBytes.buffer);
  for (let g = 0; g < groups; g++) {
    smView.setUint16(g * 2, w.smGroups.sm[g] as number, true);
    countView.setUint32(g * 4, (w.smGroups.offsets[g + 1] as number) - (w.smGroups.offsets[g] as number), true);
  }
  for (const [key, value] of [
    ['count', w.count],
    ['ticksPerNs', TICKS_PER_NS],
    ['lanes', lanes > 32 ? 64 : 32],
    ['cyclesPerNs', cyclesPerNsOf(trace)],
    ['smGroups', { sm: smBytes, counts: countBytes }],
  ] as const) {
    pack(key);
    pack(value);
  }
  pack('columns');
  const total = (key: keyof ChunkSizes) => sizes.reduce((sum, s) => sum + (s[key] ?? 0), 0);
  const maskWidth = maskBytes(Math.min(lanes, 32));
  const maskHiWidth = maskBytes(lanes - 32);
  // A mask column as whichever is smaller: varints of the inactive lanes (full warps cost one byte) or raw bytes.
  const rawMask = total('inactiveMask') > w.count * maskWidth;
  const rawMaskHi = w.activeMaskHi !== null && total('inactiveMaskHi') > w.count * maskHiWidth;
  const withCycles = w.smCycleStart !== null && w.smCycleDuration !== null;
  put(mapHeader(7 + (w.activeMaskHi !== null ? 1 : 0) + (withCycles ? 2 : 0)));
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
  const slot = column('slot', w.count);
  const stage = column('stage', w.count);
  const draw = varints('draw', 'draw');
  const customId = varints('customId', 'customId');
  const mask = rawMask ? column('activeMask', w.count * maskWidth) : varints('inactiveMask', 'inactiveMask');
  const maskHi = w.activeMaskHi === null ? null : rawMaskHi ? column('activeMaskHi', w.count * maskHiWidth) : varints('inactiveMaskHi', 'inactiveMaskHi');
  const cycleStart = withCycles ? varints('cycleStart', 'cycleStart') : null;
  const cycleDuration = withCycles ? varints('cycleDuration', 'cycleDuration') : null;
  // Each chunk's bytes follow the chunks before it in every column.
  const cursor = { start, duration, draw, customId, mask, maskHi: maskHi ?? 0, cycleStart: cycleStart ?? 0, cycleDuration: cycleDuration ?? 0 };
  const chunks = sizes.map((s, k): ChunkPlacement => {
    const [begin, end] = ranges[k] as readonly [number, number];
    const placement: ChunkPlacement = {
      begin,
      end,
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
    };
    cursor.start += s.start ?? 0;
    cursor.duration += s.duration ?? 0;
    cursor.draw += s.draw ?? 0;
    cursor.customId += s.customId ?? 0;
    cursor.mask += s.inactiveMask ?? 0;
    cursor.maskHi += s.inactiveMaskHi ?? 0;
    cursor.cycleStart += s.cycleStart ?? 0;
    cursor.cycleDuration += s.cycleDuration ?? 0;
    return placement;
  });
  return { length: at, fixed, chunks, maskWidth, maskHiWidth };
}

/** Writes everything but the column data. */
export function writeFixed(layout: WtraceLayout, out: Uint8Array): void {
  for (const { at, bytes } of layout.fixed) out.set(bytes, at);
}

/** Writes chunk k's rows of every column. */
export function writeChunk(layout: WtraceLayout, k: number, chunk: WarpChunk, warps: WarpColumns, out: Uint8Array): void {
  const p = layout.chunks[k] as ChunkPlacement;
  out.set(chunk.start, p.start);
  out.set(chunk.duration, p.duration);
  out.set(warps.warpSlot.subarray(p.begin, p.end), p.slot);
  out.set(warps.stage.subarray(p.begin, p.end), p.stage);
  out.set(chunk.draw, p.draw);
  out.set(chunk.customId, p.customId);
  if (p.mask.raw) writeRawMasks(warps.activeMask, p.begin, p.end, layout.maskWidth, out, p.mask.at);
  else out.set(chunk.inactiveMask, p.mask.at);
  if (p.maskHi !== null && warps.activeMaskHi !== null) {
    if (p.maskHi.raw) writeRawMasks(warps.activeMaskHi, p.begin, p.end, layout.maskHiWidth, out, p.maskHi.at);
    else if (chunk.inactiveMaskHi !== null) out.set(chunk.inactiveMaskHi, p.maskHi.at);
  }
  if (p.cycleStart !== null && chunk.cycleStart !== null) out.set(chunk.cycleStart, p.cycleStart);
  if (p.cycleDuration !== null && chunk.cycleDuration !== null) out.set(chunk.cycleDuration, p.cycleDuration);
}

/** The whole file on this thread, from chunks of rows ranges[k]. */
export function wtraceFile(trace: Trace, chunks: readonly WarpChunk[], ranges: readonly (readonly [number, number])[]): Uint8Array {
  const layout = layoutWtrace(trace, chunks.map(chunkSizes), ranges);
  const out = new Uint8Array(layout.length);
  writeFixed(layout, out);
  chunks.forEach((chunk, k) => writeChunk(layout, k, chunk, trace.warps, out));
  return out;
}
