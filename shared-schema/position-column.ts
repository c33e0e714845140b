/**
 * The .wtrace position column (see README.md): per row, 0 for NO_POSITION,
 * else 1 + zigzag of the 32-bit wrapping difference from the last earlier
 * row that had a position (from 0 for the first). Rows of one SM near in
 * time are near on screen, so a fragment warp costs 1-3 bytes even when
 * vertex warps run between it and the one before.
 *
 * Like the other delta columns a chunk may start without knowing the rows
 * before it: it then leaves its first positioned row open (stores nothing
 * for it) and chunkHeads (column-chunks.ts) encodes it once every chunk is
 * known; its bytes go after the chunk's `lead` rows, each one byte of 0.
 */
import { fail } from './errors.js';
import { NO_POSITION, positionProblem } from './position.js';
import { ByteReader } from './varint.js';
import { putUint } from './varint-write.js';

/** The stored value of `word` after a last positioned word `last` (NO_POSITION: none yet). */
export function storedPosition(last: number, word: number): number {
  if (word === NO_POSITION) return 0;
  const d = (word - (last === NO_POSITION ? 0 : last)) | 0;
  return (((d << 1) ^ (d >> 31)) >>> 0) + 1;
}

/** The bytes of one stored position (an open row's head). */
export function positionHeadBytes(last: number, word: number): Uint8Array {
  const b = new Uint8Array(5);
  return b.slice(0, putUint(b, 0, storedPosition(last, word)));
}

/** One chunk's position column. */
export interface PositionChunk {
  readonly bytes: Uint8Array;
  /** Rows (one byte each) before the open first positioned row's head bytes go; 0 when the chunk is not open. */
  readonly lead: number;
  /** The open first positioned word (NO_POSITION: none, or not open). */
  readonly first: number;
  /** The last positioned word up to the chunk's end (NO_POSITION: none known). */
  readonly last: number;
}

export class PositionEncoder {
  private bytes = new Uint8Array(0);
  private p = 0;
  private lead = 0;
  private first = NO_POSITION;
  /** Still looking for the open first positioned row. */
  private opening: boolean;
  private last: number;

  /** `last`: the last positioned word before the chunk, or null to leave the chunk's first positioned row open. */
  constructor(last: number | null) {
    this.opening = last === null;
    this.last = last ?? NO_POSITION;
  }

  add(words: Uint32Array, count: number): void {
    if (this.p + count * 5 > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, this.p + count * 5));
      grown.set(this.bytes.subarray(0, this.p));
      this.bytes = grown;
    }
    const b = this.bytes;
    let p = this.p;
    let last = this.last;
    for (let k = 0; k < count; k++) {
      const word = words[k] as number;
      if (word === NO_POSITION) {
        b[p++] = 0;
        if (this.opening) this.lead++;
        continue;
      }
      if (this.opening) {
        this.opening = false;
        this.first = word;
      } else {
        p = putUint(b, p, storedPosition(last, word));
      }
      last = word;
    }
    this.p = p;
    this.last = last;
  }

  finish(): PositionChunk {
    return { bytes: this.bytes.subarray(0, this.p), lead: this.first === NO_POSITION ? 0 : this.lead, first: this.first, last: this.last };
  }
}

/** Reads a position column of `count` rows; null when no row has a position (the model's form for none). */
export function readPositions(bytes: Uint8Array, count: number, field: string): Uint32Array | null {
  const out = new Uint32Array(count);
  const r = new ByteReader(bytes, field);
  let last = NO_POSITION;
  for (let i = 0; i < count; i++) {
    const v = r.uint();
    if (v === 0) {
      out[i] = NO_POSITION;
      continue;
    }
    if (v > 0x100000000) fail('bad-value', `${field}[${i}]`, `stored value ${v} exceeds 2^32`);
    const z = v - 1;
    const word = ((last === NO_POSITION ? 0 : last) + (z % 2 === 0 ? z / 2 : -(z + 1) / 2)) >>> 0;
    if (word === NO_POSITION) fail('bad-value', `${field}[${i}]`, 'NO_POSITION is stored as 0');
    const problem = positionProblem(word);
    if (problem !== null) fail('bad-value', `${field}[${i}]`, problem);
    out[i] = word;
    last = word;
  }
  if (!r.atEnd) fail('size-mismatch', field, `${r.remaining} bytes left after the last value`);
  return last === NO_POSITION ? null : out;
}
