/**
 * A strict MessagePack reader for untrusted .wtrace bodies.
 *
 * Files are written with msgpackr, but read with this subset decoder: nil,
 * booleans, numbers, strings, binary, arrays and maps, nothing else.
 * msgpackr's own decoder compiles record readers with `new Function` and
 * materializes extension types (RegExp, Error...), which a reader of
 * untrusted files must not do. Every declared length is checked against the
 * bytes left before anything is allocated; nesting depth is bounded.
 */
import { fail } from './errors.js';

export type MsgValue = null | boolean | number | string | Uint8Array | MsgValue[] | { [key: string]: MsgValue };

const MAX_DEPTH = 64;
const decoder = new TextDecoder('utf-8', { fatal: true });

export function readMsgpack(bytes: Uint8Array, field: string): MsgValue {
  const reader = new MsgReader(bytes, field);
  const value = reader.value(0);
  if (!reader.done) fail('bad-encoding', field, `${bytes.length - reader.position} bytes after the MessagePack body`);
  return value;
}

class MsgReader {
  position = 0;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly field: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

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

  value(depth: number): MsgValue {
    if (depth > MAX_DEPTH) fail('bad-encoding', this.field, `nesting deeper than ${MAX_DEPTH}`);
    const at = this.need(1);
    const token = this.bytes[at] as number;
    if (token <= 0x7f) return token;
    if (token >= 0xe0) return token - 0x100;
    if (token >= 0xa0 && token <= 0xbf) return this.str(token & 0x1f);
    if (token >= 0x90 && token <= 0x9f) return this.array(token & 0x0f, depth);
    if (token >= 0x80 && token <= 0x8f) return this.map(token & 0x0f, depth);
    const v = this.view;
    switch (token) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
        return this.bin(this.bytes[this.need(1)] as number);
      case 0xc5:
        return this.bin(v.getUint16(this.need(2)));
      case 0xc6:
        return this.bin(v.getUint32(this.need(4)));
      case 0xca:
        return v.getFloat32(this.need(4));
      case 0xcb:
        return v.getFloat64(this.need(8));
      case 0xcc:
        return this.bytes[this.need(1)] as number;
      case 0xcd:
        return v.getUint16(this.need(2));
      case 0xce:
        return v.getUint32(this.need(4));
      case 0xcf:
        return this.safe(v.getBigUint64(this.need(8)), at);
      case 0xd0:
        return v.getInt8(this.need(1));
      case 0xd1:
        return v.getInt16(this.need(2));
      case 0xd2:
        return v.getInt32(this.need(4));
      case 0xd3:
        return this.safe(v.getBigInt64(this.need(8)), at);
      case 0xd9:
        return this.str(this.bytes[this.need(1)] as number);
      case 0xda:
        return this.str(v.getUint16(this.need(2)));
      case 0xdb:
        return this.str(v.getUint32(this.need(4)));
      case 0xdc:
        return this.array(v.getUint16(this.need(2)), depth);
      case 0xdd:
        return this.array(v.getUint32(this.need(4)), depth);
      case 0xde:
        return this.map(v.getUint16(this.need(2)), depth);
      case 0xdf:
        return this.map(v.getUint32(this.need(4)), depth);
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
      return decoder.decode(this.bytes.subarray(at, at + length));
    } catch {
      return fail('bad-encoding', this.field, `invalid UTF-8 string at byte ${at}`);
    }
  }

  private bin(length: number): Uint8Array {
    const at = this.need(length);
    return this.bytes.subarray(at, at + length);
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
