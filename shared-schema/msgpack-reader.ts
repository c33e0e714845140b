/**
 * A strict MessagePack reader for untrusted .wtrace bodies.
 *
 * Files are written with msgpackr, but read with this subset decoder: nil,
 * booleans, numbers, strings, binary, arrays and maps, nothing else.
 * msgpackr's own decoder compiles record readers with `new Function` and
 * materializes extension types (RegExp, Error...), which a reader of
 * untrusted files must not do. Every declared length is checked against the
 * bytes left before anything is allocated; nesting depth is bounded. The
 * same reader walks a file too large to read whole (msgpack-extent.ts),
 * skipping binaries, to find where its body ends with the same checks.
 */
import { fail } from './errors.js';

export type MsgValue = null | boolean | number | string | Uint8Array | MsgValue[] | { [key: string]: MsgValue };

const MAX_DEPTH = 64;
const decoder = new TextDecoder('utf-8', { fatal: true });
const NO_BYTES = new Uint8Array(0);
const scratch = new Uint8Array(8);
const scratchView = new DataView(scratch.buffer);

/** The bytes a reader walks: in memory, or a file read in windows (msgpack-extent.ts). */
export interface MsgSource {
  readonly length: number;
  byte(at: number): number;
  /** `n` bytes from `at`, all within `length`. */
  bytes(at: number, n: number): Uint8Array;
}

export function memorySource(bytes: Uint8Array): MsgSource {
  return { length: bytes.length, byte: (at) => bytes[at] as number, bytes: (at, n) => bytes.subarray(at, at + n) };
}

export function readMsgpack(bytes: Uint8Array, field: string): MsgValue {
  const reader = new MsgReader(memorySource(bytes), field, true);
  const value = reader.value(0);
  if (!reader.done) fail('bad-encoding', field, `${bytes.length - reader.position} bytes after the MessagePack body`);
  return value;
}

/**
 * Where the value at the start of `source` ends, checked as readMsgpack
 * checks it (the same errors, in the same order), without reading any
 * binary's bytes: those values come back empty.
 */
export function msgpackValueEnd(source: MsgSource, field: string): number {
  const reader = new MsgReader(source, field, false);
  reader.value(0);
  return reader.position;
}

class MsgReader {
  position = 0;

  constructor(
    private readonly bytes: MsgSource,
    private readonly field: string,
    /** false: binaries are checked against the bytes left but not read (an empty array stands for each). */
    private readonly withBinaries: boolean,
  ) {}

  get done(): boolean {
    return this.position === this.bytes.length;
  }

  private need(n: number): number {
    const at = this.position;
    if (n > this.bytes.length - at) {
      fail('truncated', this.field, `MessagePack value at byte ${at} needs ${n} bytes, ${this.bytes.length - at} left`);
    }
    this.position = at + n;
    return at;
  }

  /** The next `n` bytes (1 to 8), big-endian, at the start of a scratch DataView (reused: read it at once). */
  private next(n: number): DataView {
    const at = this.need(n);
    for (let i = 0; i < n; i++) scratch[i] = this.bytes.byte(at + i);
    return scratchView;
  }

  value(depth: number): MsgValue {
    if (depth > MAX_DEPTH) fail('bad-encoding', this.field, `nesting deeper than ${MAX_DEPTH}`);
    const at = this.need(1);
    const token = this.bytes.byte(at);
    if (token <= 0x7f) return token;
    if (token >= 0xe0) return token - 0x100;
    if (token >= 0xa0 && token <= 0xbf) return this.str(token & 0x1f);
    if (token >= 0x90 && token <= 0x9f) return this.array(token & 0x0f, depth);
    if (token >= 0x80 && token <= 0x8f) return this.map(token & 0x0f, depth);
    switch (token) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
        return this.bin(this.bytes.byte(this.need(1)));
      case 0xc5:
        return this.bin(this.next(2).getUint16(0));
      case 0xc6:
        return this.bin(this.next(4).getUint32(0));
      case 0xca:
        return this.next(4).getFloat32(0);
      case 0xcb:
        return this.next(8).getFloat64(0);
      case 0xcc:
        return this.bytes.byte(this.need(1));
      case 0xcd:
        return this.next(2).getUint16(0);
      case 0xce:
        return this.next(4).getUint32(0);
      case 0xcf:
        return this.safe(this.next(8).getBigUint64(0), at);
      case 0xd0:
        return this.next(1).getInt8(0);
      case 0xd1:
        return this.next(2).getInt16(0);
      case 0xd2:
        return this.next(4).getInt32(0);
      case 0xd3:
        return this.safe(this.next(8).getBigInt64(0), at);
      case 0xd9:
        return this.str(this.bytes.byte(this.need(1)));
      case 0xda:
        return this.str(this.next(2).getUint16(0));
      case 0xdb:
        return this.str(this.next(4).getUint32(0));
      case 0xdc:
        return this.array(this.next(2).getUint16(0), depth);
      case 0xdd:
        return this.array(this.next(4).getUint32(0), depth);
      case 0xde:
        return this.map(this.next(2).getUint16(0), depth);
      case 0xdf:
        return this.map(this.next(4).getUint32(0), depth);
      default:
        return fail('bad-encoding', this.field, `unsupported MessagePack type 0x${token.toString(16)} at byte ${at}`);
    }
  }

  private safe(value: bigint, at: number): number {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      fail('bad-value', this.field, `64-bit integer at byte ${at} is not exact in a double`);
    }
    return Number(value);
  }

  private str(length: number): string {
    const at = this.need(length);
    try {
      return decoder.decode(this.bytes.bytes(at, length));
    } catch {
      return fail('bad-encoding', this.field, `invalid UTF-8 string at byte ${at}`);
    }
  }

  private bin(length: number): Uint8Array {
    const at = this.need(length);
    return this.withBinaries ? this.bytes.bytes(at, length) : NO_BYTES;
  }

  private array(length: number, depth: number): MsgValue[] {
    // Every element takes at least one byte: a length beyond the bytes left is a lie.
    if (length > this.bytes.length - this.position) {
      fail('truncated', this.field, `array of ${length} elements at byte ${this.position} exceeds the data`);
    }
    const out: MsgValue[] = new Array<MsgValue>(length);
    for (let i = 0; i < length; i++) out[i] = this.value(depth + 1);
    return out;
  }

  private map(length: number, depth: number): { [key: string]: MsgValue } {
    if (length * 2 > this.bytes.length - this.position) {
      fail('truncated', this.field, `map of ${length} entries at byte ${this.position} exceeds the data`);
    }
    // No prototype: keys like "__proto__" stay plain data.
    const out = Object.create(null) as { [key: string]: MsgValue };
    for (let i = 0; i < length; i++) {
      const key = this.value(depth + 1);
      if (typeof key !== 'string') fail('bad-encoding', this.field, `map key at byte ${this.position} is not a string`);
      out[key] = this.value(depth + 1);
    }
    return out;
  }
}
