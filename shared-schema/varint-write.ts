/**
 * Writing LEB128 varints into byte buffers: the column encoding of .wtrace
 * (varint.ts reads them). Callers make room first: putU32 always stores five
 * bytes.
 */

const TWO_POW_32 = 4294967296;

/** Bytes of a varint of v in [0, 2^32), by Math.clz32(v). */
const VARINT_LENGTH = Uint8Array.from({ length: 33 }, (_, clz) => Math.max(1, Math.ceil((32 - clz) / 7)));

/**
 * Unsigned varint of v in [0, 2^32) at b[p]; returns the next position. Five
 * bytes are always stored and the length taken from a table: no branch on
 * the value (varint lengths vary row to row, and mispredicted loop exits
 * were most of the encoder's time). b needs 5 bytes of room at p.
 */
export function putU32(b: Uint8Array, p: number, v: number): number {
  const length = VARINT_LENGTH[Math.clz32(v)] as number;
  b[p] = v | 0x80;
  b[p + 1] = (v >>> 7) | 0x80;
  b[p + 2] = (v >>> 14) | 0x80;
  b[p + 3] = (v >>> 21) | 0x80;
  b[p + 4] = v >>> 28;
  b[p + length - 1] = (b[p + length - 1] as number) & 0x7f;
  return p + length;
}

/** Unsigned varint of v in [0, 2^53). */
export function putUint(b: Uint8Array, p: number, v: number): number {
  if (v < TWO_POW_32) return putU32(b, p, v);
  while (v >= 0x80) {
    b[p++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  b[p++] = v;
  return p;
}

/** Zigzag varint of v in (-2^52, 2^52). */
export function putInt(b: Uint8Array, p: number, v: number): number {
  // Within int32 the zigzag fits a u32: integer ops, no doubles.
  if (v >= -0x80000000 && v <= 0x7fffffff) return putU32(b, p, ((v << 1) ^ (v >> 31)) >>> 0);
  return putUint(b, p, v >= 0 ? v * 2 : -v * 2 - 1);
}

/** Zigzag varint of the 32-bit wrapping difference to − from. */
export function putDelta32(b: Uint8Array, p: number, from: number, to: number): number {
  const d = (to - from) | 0;
  return putU32(b, p, ((d << 1) ^ (d >> 31)) >>> 0);
}
