/**
 * A trace's warp columns as .wtrace chunks (warp-encoder.ts encodes the
 * rows): any range of rows, the head bytes of chunks encoded without their
 * predecessor, and the raw mask bytes.
 */
import { TICKS_PER_NS, type WarpColumns } from './model.js';
import { NO_POSITION } from './position.js';
import { positionHeadBytes } from './position-column.js';
import { ChunkEncoder, FILE_START, WINDOW_ROWS, allocRowWindow, type ChunkShape, type HeadBytes, type OpenRow, type RowLink, type RowWindow, type WarpChunk } from './warp-encoder.js';

/**
 * The delta bytes of each chunk's open first row (null where none was left
 * open), chunks in row order: each row's deltas start from the last row of
 * the chunk before it.
 */
export function chunkHeads(chunks: readonly { readonly open: OpenRow | null; readonly last: RowLink | null }[], shape: ChunkShape): (HeadBytes | null)[] {
  // The open row encoded by the encoder itself after its predecessor: only its delta columns are taken.
  const win = allocRowWindow(1);
  let prev = FILE_START;
  return chunks.map(({ open, last }) => {
    let head: HeadBytes | null = null;
    if (open !== null) {
      win.startTicks[0] = open.startTicks;
      win.cycleStart[0] = open.cycleStart;
      win.draw[0] = open.draw;
      win.customId[0] = open.customId;
      win.position[0] = NO_POSITION;
      const encoder = new ChunkEncoder(1, shape, prev);
      encoder.add(win, 1, open.startsGroup);
      const { start, cycleStart, draw, customId } = encoder.finish();
      // The position column's open row is the chunk's first with a position (none: nothing to add).
      const position = !shape.withPosition ? null : open.position === NO_POSITION ? new Uint8Array(0) : positionHeadBytes(prev.position, open.position);
      head = { start: start.slice(), cycleStart: cycleStart?.slice() ?? null, draw: draw.slice(), customId: customId.slice(), position };
    }
    // A chunk without positions leaves the last position where it was.
    if (last !== null) prev = last.position === NO_POSITION ? { ...last, position: prev.position } : last;
    return head;
  });
}

/** The chunk shape of a trace's columns. */
export function shapeOfColumns(w: WarpColumns, subgroupSize: number, cyclesPerNs: number): ChunkShape {
  return { withCycles: w.smCycleStart !== null && w.smCycleDuration !== null, wide: w.activeMaskHi !== null, subgroupSize, cyclesPerNs, withPosition: w.position !== null };
}

/**
 * Encodes rows [begin, end) of a trace's columns; `link` is the row before
 * (FILE_START for row 0), or null to leave the first row's deltas open.
 */
export function encodeColumnsChunk(w: WarpColumns, begin: number, end: number, shape: ChunkShape, link: RowLink | null): WarpChunk {
  const encoder = new ChunkEncoder(end - begin, shape, link);
  const win = allocRowWindow(Math.min(WINDOW_ROWS, Math.max(1, end - begin)));
  const offsets = w.smGroups.offsets;
  for (let g = 0; g + 1 < offsets.length; g++) {
    const groupBegin = offsets[g] as number;
    const from = Math.max(begin, groupBegin);
    const to = Math.min(end, offsets[g + 1] as number);
    // Windows within one group: only a window's first row can start one.
    for (let at = from; at < to; at += win.startTicks.length) {
      const count = Math.min(win.startTicks.length, to - at);
      fillFromColumns(win, w, at, count);
      encoder.add(win, count, at === groupBegin);
    }
  }
  return encoder.finish();
}

function fillFromColumns(win: RowWindow, w: WarpColumns, at: number, count: number): void {
  const { startNs, durationNs, draw, customId, activeMask, activeMaskHi, warpSlot, stage, smCycleStart, smCycleDuration, position } = w;
  for (let k = 0, i = at; k < count; k++, i++) {
    win.startTicks[k] = Math.round((startNs[i] as number) * TICKS_PER_NS);
    win.durationTicks[k] = Math.round((durationNs[i] as number) * TICKS_PER_NS);
    win.draw[k] = draw[i] as number;
    win.customId[k] = customId[i] as number;
    win.maskLo[k] = activeMask[i] as number;
    win.slot[k] = warpSlot[i] as number;
    win.stage[k] = stage[i] as number;
  }
  if (activeMaskHi !== null) win.maskHi.set(activeMaskHi.subarray(at, at + count));
  if (position !== null) win.position.set(position.subarray(at, at + count));
  if (smCycleStart !== null && smCycleDuration !== null) {
    win.cycleStart.set(smCycleStart.subarray(at, at + count));
    win.cycleDuration.set(smCycleDuration.subarray(at, at + count));
  }
}

/** Bytes per row of a raw mask column for `lanes` lanes. */
export const maskBytes = (lanes: number) => Math.max(1, Math.ceil(lanes / 8));

/** A mask column's raw little-endian bytes, `width` per row, at out[at]. */
export function writeRawMasks(values: Uint32Array, width: number, out: Uint8Array, at: number): void {
  for (let i = 0, p = at; i < values.length; i++) {
    const v = values[i] as number;
    for (let b = 0; b < width; b++) out[p++] = (v >>> (8 * b)) & 0xff;
  }
}
