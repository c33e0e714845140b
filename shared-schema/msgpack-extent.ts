/**
 * Where a MessagePack value in a file ends, found without reading the file
 * whole: msgpack-reader.ts walks it over a small window of the file and
 * skips every binary's bytes. A .wtrace body's columns are binaries, so this
 * reads a few KiB to a few hundred KiB of a large file and tells whether the
 * file is as long as its body: a file padded past its body (or cut short)
 * is refused before it is read whole, with the errors the reader gives.
 */
import { fail } from './errors.js';
import { msgpackValueEnd, type MsgSource } from './msgpack-reader.js';

/** Reads up to `length` bytes of a file at `position` (fewer only at its end). */
export type ReadAt = (position: number, length: number) => Uint8Array;

/** Bytes a ReadAt is asked for at once: a window, read again when the walk leaves it (small: after each column it jumps past the column's bytes). */
const WINDOW_BYTES = 4 * 1024;

/** The file from `start` on, as the reader sees it, read in windows; counts the bytes read. */
class WindowSource implements MsgSource {
  private at = 0;
  private window: Uint8Array = new Uint8Array(0);
  bytesRead = 0;

  constructor(
    private readonly read: ReadAt,
    private readonly start: number,
    readonly length: number,
  ) {}

  byte(at: number): number {
    const k = at - this.at;
    if (k >= 0 && k < this.window.length) return this.window[k] as number;
    this.window = this.fetch(at, WINDOW_BYTES);
    this.at = at;
    return this.window[0] as number;
  }

  bytes(at: number, n: number): Uint8Array {
    const k = at - this.at;
    if (k >= 0 && k + n <= this.window.length) return this.window.subarray(k, k + n);
    // Numbers across a window's end and strings (metadata: short) come straight from the file.
    return this.fetch(at, n);
  }

  private fetch(at: number, n: number): Uint8Array {
    const got = this.read(this.start + at, Math.min(n, this.length - at));
    this.bytesRead += got.length;
    // Only when the file shrank after its size was taken.
    if (got.length < Math.min(n, this.length - at) || got.length === 0) fail('truncated', 'file', `ended before byte ${this.start + at + got.length}`);
    return got;
  }
}

/**
 * The end (a position in the file) of the MessagePack value at `start`, in
 * a file of `fileBytes` bytes read through `read`; `stats.bytesRead` says how
 * much was read. Throws the TraceFormatError readMsgpack would (on `field`)
 * where the value is malformed or claims more bytes than the file has.
 */
export function msgpackEnd(read: ReadAt, start: number, fileBytes: number, field: string, stats: { bytesRead: number } = { bytesRead: 0 }): number {
  const source = new WindowSource(read, start, fileBytes - start);
  try {
    return start + msgpackValueEnd(source, field);
  } finally {
    stats.bytesRead = source.bytesRead;
  }
}
