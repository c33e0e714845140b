/**
 * The .wtrace warp columns, encoded in chunks of rows (see README.md for the
 * column layout). Rows reach the encoder through a small window of fixed
 * typed columns (times in ticks), refilled from wherever they come from: a
 * Trace's columns, or calibrated records in canonical order. A chunk may
 * leave its first row's deltas open (its predecessor is another chunk's
 * last row): chunkHeads (column-chunks.ts) encodes those once every chunk is done, so chunks
 * encoded anywhere, in any order, join into the bytes of one chunk of all rows.
 */
import { laneMasks } from './columns.js';
import { MAX_CYCLE_START, MAX_TIME_TICKS, checkStoredRow } from './limits.js';
import { TICKS_PER_NS } from './model.js';
import { fail } from './errors.js';
import { NO_POSITION, positionProblem } from './position.js';
import { PositionEncoder } from './position-column.js';
import { putDelta32, putInt, putU32, putUint } from './varint-write.js';

/** Rows per window: small enough to stay in cache between filling and encoding. */
export const WINDOW_ROWS = 2048;

/** Rows as the encoder reads them (times in ticks; cycle columns unused without cycles, maskHi without wide subgroups). */
export interface RowWindow {
  readonly startTicks: Float64Array;
  readonly durationTicks: Float64Array;
  readonly cycleStart: Float64Array;
  readonly cycleDuration: Uint32Array;
  readonly draw: Uint32Array;
  readonly customId: Uint32Array;
  readonly slot: Uint8Array;
  readonly stage: Uint8Array;
  readonly maskLo: Uint32Array;
  readonly maskHi: Uint32Array;
  /** Position words (unused without positions). */
  readonly position: Uint32Array;
}

export function allocRowWindow(rows = WINDOW_ROWS): RowWindow {
  return {
    startTicks: new Float64Array(rows),
    durationTicks: new Float64Array(rows),
    cycleStart: new Float64Array(rows),
    cycleDuration: new Uint32Array(rows),
    draw: new Uint32Array(rows),
    customId: new Uint32Array(rows),
    slot: new Uint8Array(rows),
    stage: new Uint8Array(rows),
    maskLo: new Uint32Array(rows),
    maskHi: new Uint32Array(rows),
    position: new Uint32Array(rows),
  };
}

/** What every chunk of one file shares. */
export interface ChunkShape {
  readonly withCycles: boolean;
  /** Subgroups wider than 32 lanes (a second mask column). */
  readonly wide: boolean;
  readonly subgroupSize: number;
  /** The SM clock rate cycle columns are predicted with (cyclesPerNsOf). */
  readonly cyclesPerNs: number;
  /** Some warp has a screen position (a position column). */
  readonly withPosition: boolean;
}

/** What the next row's deltas start from: the previous row's start and cycles (same SM), draw, custom id, and the last position word (position-column.ts). */
export interface RowLink {
  readonly startTicks: number;
  readonly cycleStart: number;
  readonly draw: number;
  readonly customId: number;
  /** The last positioned row's word (NO_POSITION: none); in an OpenRow, the chunk's first positioned word. */
  readonly position: number;
}

/** Before the first row of a file. */
export const FILE_START: RowLink = { startTicks: 0, cycleStart: 0, draw: 0, customId: 0, position: NO_POSITION };

/** A chunk's first row when its deltas were left open. */
export interface OpenRow extends RowLink {
  /** The row is the first of its SM group (start and cycles stored whole). */
  readonly startsGroup: boolean;
}

/** One range of rows: each varint column's bytes, and the fixed-width columns. */
export interface WarpChunk {
  readonly rows: number;
  readonly start: Uint8Array;
  readonly cycleStart: Uint8Array | null;
  readonly duration: Uint8Array;
  readonly draw: Uint8Array;
  readonly customId: Uint8Array;
  readonly position: Uint8Array | null;
  /** Rows of the position column before an open chunk's head bytes go (position-column.ts). */
  readonly positionLead: number;
  readonly cycleDuration: Uint8Array | null;
  readonly inactiveMask: Uint8Array;
  readonly inactiveMaskHi: Uint8Array | null;
  readonly slot: Uint8Array;
  readonly stage: Uint8Array;
  /** Raw masks, for files that store them raw (decided once all chunks are known). */
  readonly maskLo: Uint32Array;
  readonly maskHi: Uint32Array | null;
  /** The first row, when its deltas (start, cycleStart, draw, customId) are left to chunkHeads. */
  readonly open: OpenRow | null;
  /** The last row (null for no rows). */
  readonly last: RowLink | null;
}

/** The varint bytes of a chunk's open first row, in the columns that hold deltas. */
export interface HeadBytes {
  readonly start: Uint8Array;
  readonly cycleStart: Uint8Array | null;
  readonly draw: Uint8Array;
  readonly customId: Uint8Array;
  readonly position: Uint8Array | null;
}

/** A growing varint column: its bytes and the most bytes a row may take. */
interface Growing {
  readonly bytes: Uint8Array;
  readonly maxPerRow: number;
}

const growing = (maxPerRow: number): Growing => ({ bytes: new Uint8Array(0), maxPerRow });

/**
 * The column with room past `used` for `count` rows of its longest varints
 * (and the 5 bytes putU32 stores): grown to twice that, or to what all
 * `rest` rows still to come could take, whichever is less.
 */
function roomFor(column: Growing, used: number, count: number, rest: number): Growing {
  const need = used + count * column.maxPerRow + 8;
  if (need <= column.bytes.length) return column;
  const bytes = new Uint8Array(Math.max(need, Math.min(2 * need, used + rest * column.maxPerRow + 8)));
  bytes.set(column.bytes.subarray(0, used));
  return { bytes, maxPerRow: column.maxPerRow };
}

/**
 * Refuses rows the readers would refuse: buildTrace already keeps a Trace
 * within the limits, this stops any other producer (raw dumps calibrated
 * straight to the file) from writing a file that cannot be read.
 */
function checkRanges(win: RowWindow, count: number, withCycles: boolean, withPosition: boolean): void {
  const { startTicks, durationTicks, cycleStart } = win;
  if (withPosition) checkPositionWords(win.position, count);
  let ok = true;
  for (let k = 0; k < count; k++) {
    // storedDurationTicks inlined: this runs on every row written.
    const start = startTicks[k] as number;
    const duration = durationTicks[k] as number;
    ok = ok && start >= 0 && duration >= 0 && start + Math.fround(duration * (1 / TICKS_PER_NS)) * TICKS_PER_NS <= MAX_TIME_TICKS;
  }
  if (withCycles) for (let k = 0; k < count; k++) ok = ok && (cycleStart[k] as number) >= 0 && (cycleStart[k] as number) <= MAX_CYCLE_START;
  if (ok) return;
  // Find the row and say what is wrong with it.
  for (let k = 0; k < count; k++) checkStoredRow(startTicks[k] as number, durationTicks[k] as number, withCycles ? (cycleStart[k] as number) : 0, null);
}

/** Refuses position words the reader would (x0 or y0 of 8191 outside NO_POSITION). */
function checkPositionWords(position: Uint32Array, count: number): void {
  for (let k = 0; k < count; k++) {
    const word = position[k] as number;
    // Coordinates below 8191 (or the marker itself): the common case, two compares.
    if (((word & 0x1fff) === 0x1fff || ((word >>> 13) & 0x1fff) === 0x1fff) && word !== NO_POSITION) {
      fail('bad-value', 'warps.position', positionProblem(word) ?? `word ${word}`);
    }
  }
}

/**
 * Encodes rows handed over window by window into one chunk. With `link`
 * null the first row's deltas are left open (see chunkHeads).
 */
export class ChunkEncoder {
  // Varint columns grow as rows come (sized for what they hold, not the worst case: a large
  // fresh buffer costs page faults or a memset). Each is [bytes, most bytes per row].
  private start = growing(8);
  private duration = growing(8);
  private draw = growing(5);
  private customId = growing(5);
  private inactive = growing(5);
  private inactiveHi = growing(5);
  private cycleStart = growing(8);
  private cycleDuration = growing(8);
  private readonly slot: Uint8Array;
  private readonly stage: Uint8Array;
  private readonly maskLo: Uint32Array;
  private readonly maskHi: Uint32Array | null;
  private readonly laneLo: number;
  private readonly laneHi: number;
  private readonly cyclesPerTick: number;
  private rows = 0;
  private ps = 0;
  private pd = 0;
  private pw = 0;
  private pc = 0;
  private pi = 0;
  private ph = 0;
  private pcs = 0;
  private pcd = 0;
  private link: RowLink | null;
  private open: OpenRow | null = null;
  private readonly positions: PositionEncoder | null;

  /** Room for `capacity` rows. */
  constructor(
    private readonly capacity: number,
    private readonly shape: ChunkShape,
    link: RowLink | null,
  ) {
    this.slot = new Uint8Array(capacity);
    this.stage = new Uint8Array(capacity);
    this.maskLo = new Uint32Array(capacity);
    this.maskHi = shape.wide ? new Uint32Array(capacity) : null;
    const lanes = laneMasks(shape.subgroupSize);
    this.laneLo = lanes.lo;
    this.laneHi = lanes.hi;
    // Cycles are stored as the residual from what the SM clock rate predicts from the ticks.
    this.cyclesPerTick = shape.cyclesPerNs / TICKS_PER_NS;
    this.link = link;
    this.positions = shape.withPosition ? new PositionEncoder(link === null ? null : link.position) : null;
  }

  /** Room in every varint column for `count` more rows of the longest varints. */
  private makeRoom(count: number): void {
    const rest = this.capacity - this.rows;
    this.start = roomFor(this.start, this.ps, count, rest);
    this.duration = roomFor(this.duration, this.pd, count, rest);
    this.draw = roomFor(this.draw, this.pw, count, rest);
    this.customId = roomFor(this.customId, this.pc, count, rest);
    this.inactive = roomFor(this.inactive, this.pi, count, rest);
    if (this.shape.wide) this.inactiveHi = roomFor(this.inactiveHi, this.ph, count, rest);
    if (this.shape.withCycles) {
      this.cycleStart = roomFor(this.cycleStart, this.pcs, count, rest);
      this.cycleDuration = roomFor(this.cycleDuration, this.pcd, count, rest);
    }
  }

  /** Window rows [0, count), which follow the rows added before; row 0 starts an SM group when `startsGroup`. */
  add(win: RowWindow, count: number, startsGroup: boolean): void {
    if (count <= 0) return;
    if (this.rows + count > this.capacity) throw new RangeError(`chunk holds ${this.capacity} rows, ${this.rows + count} added`);
    checkRanges(win, count, this.shape.withCycles, this.shape.withPosition);
    this.makeRoom(count);
    this.addFixed(win, count);
    this.positions?.add(win.position, count);
    let from = 0;
    if (this.link === null) {
      this.open = {
        startsGroup,
        startTicks: win.startTicks[0] as number,
        cycleStart: win.cycleStart[0] as number,
        draw: win.draw[0] as number,
        customId: win.customId[0] as number,
        position: NO_POSITION, // the position column's own open row: set at finish
      };
      this.link = this.open;
      from = 1;
    }
    this.addDeltas(win, from, count, startsGroup);
    this.rows += count;
  }

  /** The columns a row encodes on its own. */
  private addFixed(win: RowWindow, count: number): void {
    const { cyclesPerTick, laneLo } = this;
    const duration = this.duration.bytes;
    const inactive = this.inactive.bytes;
    const cycleDuration = this.shape.withCycles ? this.cycleDuration.bytes : null;
    let pd = this.pd;
    let pi = this.pi;
    let pcd = this.pcd;
    for (let k = 0; k < count; k++) {
      const durationTicks = win.durationTicks[k] as number;
      pd = putUint(duration, pd, durationTicks);
      pi = putU32(inactive, pi, (~(win.maskLo[k] as number) & laneLo) >>> 0);
      if (cycleDuration !== null) pcd = putInt(cycleDuration, pcd, (win.cycleDuration[k] as number) - Math.round(durationTicks * cyclesPerTick));
    }
    this.pd = pd;
    this.pi = pi;
    this.pcd = pcd;
    const at = this.rows;
    this.slot.set(win.slot.subarray(0, count), at);
    this.stage.set(win.stage.subarray(0, count), at);
    this.maskLo.set(win.maskLo.subarray(0, count), at);
    if (this.maskHi !== null) {
      this.maskHi.set(win.maskHi.subarray(0, count), at);
      const inactiveHi = this.inactiveHi.bytes;
      let ph = this.ph;
      for (let k = 0; k < count; k++) ph = putU32(inactiveHi, ph, (~(win.maskHi[k] as number) & this.laneHi) >>> 0);
      this.ph = ph;
    }
  }

  /** The columns a row encodes against the row before it: rows [from, count) of the window. */
  private addDeltas(win: RowWindow, from: number, count: number, startsGroup: boolean): void {
    const { cyclesPerTick } = this;
    const start = this.start.bytes;
    const draw = this.draw.bytes;
    const customId = this.customId.bytes;
    const cycleStart = this.shape.withCycles ? this.cycleStart.bytes : null;
    const link = this.link as RowLink;
    let ps = this.ps;
    let pw = this.pw;
    let pc = this.pc;
    let pcs = this.pcs;
    let prevTicks = from === 0 ? link.startTicks : (win.startTicks[0] as number);
    let prevCycles = from === 0 ? link.cycleStart : (win.cycleStart[0] as number);
    let prevDraw = from === 0 ? link.draw : (win.draw[0] as number);
    let prevCustom = from === 0 ? link.customId : (win.customId[0] as number);
    for (let k = from; k < count; k++) {
      const ticks = win.startTicks[k] as number;
      const first = k === 0 && startsGroup;
      ps = first ? putInt(start, ps, ticks) : putUint(start, ps, ticks - prevTicks);
      if (cycleStart !== null) {
        const c = win.cycleStart[k] as number;
        pcs = putInt(cycleStart, pcs, first ? c : c - prevCycles - Math.round((ticks - prevTicks) * cyclesPerTick));
        prevCycles = c;
      }
      prevTicks = ticks;
      const d = win.draw[k] as number;
      pw = putDelta32(draw, pw, prevDraw, d);
      prevDraw = d;
      const c = win.customId[k] as number;
      pc = putDelta32(customId, pc, prevCustom, c);
      prevCustom = c;
    }
    this.ps = ps;
    this.pw = pw;
    this.pc = pc;
    this.pcs = pcs;
    this.link = { startTicks: prevTicks, cycleStart: prevCycles, draw: prevDraw, customId: prevCustom, position: link.position };
  }

  finish(): WarpChunk {
    const rows = this.rows;
    const { withCycles, wide } = this.shape;
    const positions = this.positions?.finish() ?? null;
    return {
      rows,
      start: this.start.bytes.subarray(0, this.ps),
      cycleStart: withCycles ? this.cycleStart.bytes.subarray(0, this.pcs) : null,
      duration: this.duration.bytes.subarray(0, this.pd),
      cycleDuration: withCycles ? this.cycleDuration.bytes.subarray(0, this.pcd) : null,
      draw: this.draw.bytes.subarray(0, this.pw),
      customId: this.customId.bytes.subarray(0, this.pc),
      position: positions?.bytes ?? null,
      positionLead: positions?.lead ?? 0,
      inactiveMask: this.inactive.bytes.subarray(0, this.pi),
      inactiveMaskHi: wide ? this.inactiveHi.bytes.subarray(0, this.ph) : null,
      slot: this.slot.subarray(0, rows),
      stage: this.stage.subarray(0, rows),
      maskLo: this.maskLo.subarray(0, rows),
      maskHi: this.maskHi === null ? null : this.maskHi.subarray(0, rows),
      open: this.open === null || positions === null ? this.open : { ...this.open, position: positions.first },
      last: rows === 0 || this.link === null ? null : positions === null ? this.link : { ...this.link, position: positions.last },
    };
  }
}
