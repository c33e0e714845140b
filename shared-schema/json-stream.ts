/**
 * The JSON import format written in chunks of UTF-8: the same text as
 * `JSON.stringify(traceToJson(trace))`, without one string for all of it
 * (10 M warps make ~700 MB, over V8's longest string) nor a JS array per
 * column: memory stays that of the trace plus one chunk. Numbers go
 * straight to bytes (integers digit by digit, 3-15× faster than
 * String(n) and a string per value); only fractions use String(n).
 */
import { laneMasks, smIdPerWarp } from './columns.js';
import { storedCapture, storedDraw, storedRegion } from './draw-details.js';
import { JSON_FORMAT, JSON_VERSION } from './json.js';
import { UNKNOWN_SLOT, UNKNOWN_SM, type Trace } from './model.js';
import { NO_POSITION } from './position.js';
import { STAGES } from './stages.js';
import { jsonBlocks } from './block-wtrace.js';
import { jsonMarks } from './mark-wtrace.js';
import { RAY_EVENTS, type RayEventProfile } from './ray-event-model.js';
import { storedProfileHead, storedRowHead } from './ray-event-wtrace.js';

/** Bytes per yielded chunk, about (default 1 MiB). */
export const DEFAULT_JSON_CHUNK_BYTES = 1 << 20;

const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;
/** Longest text of one number: "-1.2345678901234567e-308" is 24 characters. */
const MAX_NUMBER_CHARS = 32;

/** A buffer of ASCII filled a value at a time and handed out when full. */
class ByteChunks {
  private buffer: Uint8Array;
  private at = 0;
  private readonly digits = new Uint8Array(MAX_NUMBER_CHARS);

  constructor(private readonly chunkBytes: number) {
    this.buffer = new Uint8Array(chunkBytes + MAX_NUMBER_CHARS + 64);
  }

  get full(): boolean {
    return this.at >= this.chunkBytes;
  }

  /** The bytes so far; the next ones go to a new buffer (the caller may still be writing these). */
  take(): Uint8Array {
    const chunk = this.buffer.subarray(0, this.at);
    this.buffer = new Uint8Array(this.chunkBytes + MAX_NUMBER_CHARS + 64);
    this.at = 0;
    return chunk;
  }

  byte(b: number): void {
    this.buffer[this.at++] = b;
  }

  /** ASCII text no longer than MAX_NUMBER_CHARS + 64 (separators, a number, a stage name). */
  ascii(text: string): void {
    for (let i = 0; i < text.length; i++) this.buffer[this.at++] = text.charCodeAt(i);
  }

  /** A number as JSON.stringify writes it. */
  number(v: number): void {
    if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) {
      // Digits of a safe integer; floor(v / 10) is exact below 2^53 (the quotient's fraction is a tenth or more away from the next integer).
      let n = Math.abs(v);
      if (v < 0) this.byte(MINUS);
      let k = 0;
      do {
        const q = Math.floor(n / 10);
        this.digits[k++] = ZERO + (n - q * 10);
        n = q;
      } while (n > 0);
      while (k > 0) this.buffer[this.at++] = this.digits[--k]!;
    } else {
      this.ascii(Number.isFinite(v) ? String(v) : 'null');
    }
  }
}

export function* traceJsonChunks(trace: Trace, chunkBytes = DEFAULT_JSON_CHUNK_BYTES): Generator<Uint8Array, void, undefined> {
  const w = trace.warps;
  const out = new ByteChunks(chunkBytes);
  const encoder = new TextEncoder();

  // Device, capture, draws and regions may hold any Unicode: JSON.stringify and UTF-8, a piece at a time (stored forms as traceToJson writes them).
  let head = `{"format":${JSON.stringify(JSON_FORMAT)},"version":${JSON_VERSION},"device":${JSON.stringify(trace.device)},"capture":${JSON.stringify(storedCapture(trace.capture))},"draws":[`;
  const list = function* <T>(items: readonly T[], stored: (item: T) => object) {
    for (const [i, item] of items.entries()) {
      head += i === 0 ? JSON.stringify(stored(item)) : `,${JSON.stringify(stored(item))}`;
      if (head.length >= chunkBytes) {
        yield encoder.encode(head);
        head = '';
      }
    }
  };
  yield* list(trace.draws, storedDraw);
  head += ']';
  if (trace.regions.length > 0) {
    head += ',"regions":[';
    yield* list(trace.regions, storedRegion);
    head += ']';
  }
  yield encoder.encode(`${head},"warps":{`);

  const sm = smIdPerWarp(w);
  const stageNames = STAGES.map((s) => JSON.stringify(s.name));
  const { startNs, durationNs, warpSlot, stage, draw, customId, activeMask } = w;
  const columns: [string, (i: number) => void][] = [
    ['startNs', (i) => out.number(startNs[i] as number)],
    ['endNs', (i) => out.number((startNs[i] as number) + (durationNs[i] as number))],
    ['sm', (i) => (sm[i] === UNKNOWN_SM ? out.ascii('null') : out.number(sm[i] as number))],
    ['warpSlot', (i) => (warpSlot[i] === UNKNOWN_SLOT ? out.ascii('null') : out.number(warpSlot[i] as number))],
    ['stage', (i) => out.ascii(stageNames[stage[i] as number]!)],
    ['draw', (i) => out.number(draw[i] as number)],
    ['customId', (i) => out.number(customId[i] as number)],
    ['activeMask', (i) => out.number(activeMask[i] as number)],
  ];
  // The same optional columns as traceToJson, in its order.
  const hi = w.activeMaskHi;
  if (laneMasks(trace.device.subgroupSize).hi !== 0 && hi !== null) columns.push(['activeMaskHi', (i) => out.number(hi[i] as number)]);
  const cycleStart = w.smCycleStart;
  const cycleDuration = w.smCycleDuration;
  if (cycleStart !== null && cycleDuration !== null) {
    columns.push(['smCycleStart', (i) => out.number(cycleStart[i] as number)], ['smCycleDuration', (i) => out.number(cycleDuration[i] as number)]);
  }
  const position = w.position;
  if (position !== null) columns.push(['position', (i) => (position[i] === NO_POSITION ? out.ascii('null') : out.number(position[i] as number))]);

  for (const [c, [name, write]] of columns.entries()) {
    out.ascii(`${c === 0 ? '' : ','}"${name}":[`);
    for (let i = 0; i < w.count; i++) {
      if (i > 0) out.byte(COMMA);
      write(i);
      if (out.full) yield out.take();
    }
    out.byte(0x5d); // ]
  }
  out.ascii('}');
  yield out.take();
  // The block profile after the warps, as traceToJson places it (per block, not per warp: one string is enough).
  const blocks = trace.blocks === undefined || trace.blocks === null ? '' : `,"blocks":${JSON.stringify(jsonBlocks(trace.blocks))}`;
  // Marks after it, as traceToJson places them (one string, as for the profile: marks are far fewer than warps in the captures seen so far).
  const marks = trace.marks === undefined || trace.marks === null ? '' : `,"marks":${JSON.stringify(jsonMarks(trace.marks))}`;
  if (trace.rayEvents == null) {
    yield encoder.encode(`${blocks}${marks}}`);
    return;
  }
  yield encoder.encode(`${blocks}${marks}`);
  // Ray events last, as traceToJson places them: their counts streamed (a row holds up to millions of cells per event).
  yield* rayEventChunks(trace.rayEvents, out, encoder);
  yield encoder.encode('}');
}

/** `,"rayEvents":{...}` as JSON.stringify writes jsonRayEvents(profile): the small parts stringified, the counts a number at a time. */
function* rayEventChunks(profile: RayEventProfile, out: ByteChunks, encoder: TextEncoder): Generator<Uint8Array, void, undefined> {
  // Without the closing brace: more keys follow.
  const open = (o: object) => JSON.stringify(o).slice(0, -1);
  let text = `,"rayEvents":${open(storedProfileHead(profile))},"rows":[`;
  for (const [k, row] of profile.rows.entries()) {
    text += `${k === 0 ? '' : ','}${open(storedRowHead(row))},"counts":{`;
    yield encoder.encode(text);
    text = '';
    for (const [e, event] of RAY_EVENTS.entries()) {
      out.ascii(`${e === 0 ? '' : ','}"${event}":[`);
      const counts = row.counts[event];
      for (let c = 0; c < counts.length; c++) {
        if (c > 0) out.byte(COMMA);
        out.number(counts[c] as number);
        if (out.full) yield out.take();
      }
      out.byte(0x5d); // ]
    }
    out.ascii('}}');
    yield out.take();
  }
  yield encoder.encode(`${text}]}`);
}
