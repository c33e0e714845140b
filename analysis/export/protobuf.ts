/**
 * A minimal protobuf writer (varints and length-delimited fields only), so the
 * Perfetto export needs no runtime dependency. Values are JavaScript numbers:
 * integers up to 2^53 are exact, which covers ns timestamps of ~104 days.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const utf8 = new TextEncoder();

/** A growable byte buffer with protobuf field writers. */
export class ProtoBuffer {
  buf: Uint8Array;
  pos = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  /** Makes room for `n` more bytes (grows by doubling: rare, big packets only). */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** A non-negative integer < 2^53 as a varint. */
  varint(value: number): void {
    this.ensure(10);
    this.pos = put(this.buf, this.pos, value);
  }

  /** A varint field (uint32, uint64, int32/int64 ≥ 0, bool, enum). */
  uint(field: number, value: number): void {
    this.varint((field << 3) | WIRE_VARINT);
    this.varint(value);
  }

  /** A double field (fixed64, little-endian). */
  double(field: number, value: number): void {
    this.varint((field << 3) | WIRE_FIXED64);
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).setFloat64(0, value, true);
    this.pos += 8;
  }

  bytes(field: number, data: Uint8Array): void {
    this.varint((field << 3) | WIRE_LEN);
    this.varint(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  string(field: number, text: string): void {
    this.bytes(field, utf8.encode(text));
  }

  /** A nested message: built in its own buffer, since its length prefix comes first. */
  message(field: number, build: (w: ProtoBuffer) => void): void {
    const inner = new ProtoBuffer();
    build(inner);
    this.bytes(field, inner.buf.subarray(0, inner.pos));
  }

  /** The bytes written so far, and an empty buffer of the same capacity from now on. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.pos);
    this.buf = new Uint8Array(this.buf.length);
    this.pos = 0;
    return out;
  }
}

/** Writes a varint at `p` of `b`, returning the next position (the hot path's inline writer). */
export function put(b: Uint8Array, p: number, value: number): number {
  let v = value;
  // Above 2^31 the bit operators would wrap: divide instead.
  while (v >= 0x80000000) {
    b[p++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  while (v >= 0x80) {
    b[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  b[p++] = v;
  return p;
}

/** Bytes a varint of `value` takes (the hot path's branchy version). */
export function size(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : Math.ceil(Math.log2(value + 1) / 7);
}

export function utf8Bytes(text: string): Uint8Array {
  return utf8.encode(text);
}
