/**
 * Reading LEB128 varints from byte buffers: the column encoding of .wtrace
 * (warp-encoder.ts writes them with varint-write.ts).
 * Values up to 2^53 are exact; the 32-bit paths use bit operations only.
 */
import { fail } from './errors.js';

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
