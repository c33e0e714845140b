/**
 * LEB128 varints over byte buffers: the column encoding of .wtrace.
 * Values up to 2^53 are exact; the 32-bit paths use bit operations only.
 */
import { fail } from './errors.js';

const TWO_POW_32 = 4294967296;

export class ByteWriter {
  private bytes: Uint8Array;
  private length = 0;

  constructor(initialCapacity = 1024) {
    this.bytes = new Uint8Array(Math.max(16, initialCapacity));
  }

  /** Makes room for `extra` more bytes. */
  private reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Unsigned varint of an integer in [0, 2^32). */
  u32(value: number): void {
    this.reserve(5);
    const b = this.bytes;
    let p = this.length;
    let v = value >>> 0;
    while (v >= 0x80) {
      b[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    b[p++] = v;
    this.length = p;
  }

  /** Unsigned varint of an integer in [0, 2^53). */
  uint(value: number): void {
    if (value < TWO_POW_32) {
      this.u32(value);
      return;
    }
    this.reserve(8);
    const b = this.bytes;
    let p = this.length;
    let v = value;
    while (v >= 0x80) {
      b[p++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    b[p++] = v;
    this.length = p;
  }

  /** Zigzag varint of an integer in (-2^52, 2^52). */
  int(value: number): void {
    this.uint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  /** Zigzag varint of a 32-bit wrapping difference (b − a mod 2^32, read as signed). */
  delta32(from: number, to: number): void {
    const d = (to - from) | 0;
    this.u32((d << 1) ^ (d >> 31));
  }

  byte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  /** The written bytes (a copy sized to fit). */
  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Reads varints from an untrusted byte string; overruns throw a TraceFormatError naming `field`. */
export class ByteReader {
  private pos = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly field: string,
  ) {}

  get atEnd(): boolean {
    return this.pos >= this.bytes.length;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  private truncated(): never {
    fail('truncated', this.field, `column ends inside a value at byte ${this.pos}`);
  }

  /** Unsigned varint < 2^32. */
  u32(): number {
    const b = this.bytes;
    let p = this.pos;
    let result = 0;
    let shift = 0;
    for (;;) {
      if (p >= b.length) this.truncated();
      const byte = b[p++] as number;
      if (shift === 28) {
        if (byte > 0x0f) fail('bad-encoding', this.field, `32-bit value overflows at byte ${p - 1}`);
        result = (result | (byte << 28)) >>> 0;
        break;
      }
      result |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
      shift += 7;
    }
    this.pos = p;
    return result >>> 0;
  }

  /** Unsigned varint < 2^53. */
  uint(): number {
    const b = this.bytes;
    let p = this.pos;
    let result = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (p >= b.length) this.truncated();
      if (i === 8) fail('bad-encoding', this.field, `value longer than 53 bits at byte ${p}`);
      const byte = b[p++] as number;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 128;
    }
    if (result > Number.MAX_SAFE_INTEGER) fail('bad-encoding', this.field, `value longer than 53 bits at byte ${p}`);
    this.pos = p;
    return result;
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  /** Applies a zigzag 32-bit delta to `from`; returns the uint32 result. */
  delta32(from: number): number {
    const z = this.u32();
    return (from + ((z >>> 1) ^ -(z & 1))) >>> 0;
  }
}
