/**
 * Framing of the layer's socket protocol (capture/layer/CONTRACT.md):
 * a 16-byte little-endian header (magic, type or status, JSON size, payload
 * size), then the JSON and the payload. Sizes are checked against the limits
 * before anything is allocated: the peer is a C++ layer inside someone
 * else's process, and a corrupt length must not become a 4 GiB allocation.
 */

/** "WTLR": a request from the layer. */
export const REQUEST_MAGIC = 0x524c5457;
/** "WTLA": an answer from the CLI. */
export const RESPONSE_MAGIC = 0x414c5457;
export const HEADER_BYTES = 16;
export const MAX_JSON_BYTES = 1 << 20;
export const MAX_PAYLOAD_BYTES = 64 << 20;

export const RequestType = { hello: 1, instrument: 2, event: 3 } as const;
export type RequestTypeName = keyof typeof RequestType;

export const Status = { ok: 0, refused: 1, protocolError: 2 } as const;
export type StatusCode = (typeof Status)[keyof typeof Status];

/** One frame as read off the socket: the header's second word is the request type or the response status. */
export interface Frame {
  readonly code: number;
  readonly json: Uint8Array;
  readonly payload: Uint8Array;
}

/** The stream cannot be read as frames any more (bad magic, a size over the limit): the connection must close. */
export class FramingError extends Error {
  override readonly name = 'FramingError';
}

/** Encodes one frame; `json` is serialized with JSON.stringify. */
export function encodeFrame(magic: number, code: number, json: unknown, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const jsonBytes = new TextEncoder().encode(JSON.stringify(json));
  if (jsonBytes.length > MAX_JSON_BYTES) throw new RangeError(`JSON of ${jsonBytes.length} bytes exceeds the ${MAX_JSON_BYTES}-byte limit`);
  if (payload.length > MAX_PAYLOAD_BYTES) throw new RangeError(`payload of ${payload.length} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte limit`);
  const out = new Uint8Array(HEADER_BYTES + jsonBytes.length + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, magic, true);
  view.setUint32(4, code, true);
  view.setUint32(8, jsonBytes.length, true);
  view.setUint32(12, payload.length, true);
  out.set(jsonBytes, HEADER_BYTES);
  out.set(payload, HEADER_BYTES + jsonBytes.length);
  return out;
}

/**
 * Cuts a byte stream into frames. Bytes arrive in arbitrary chunks; the
 * header is validated as soon as its 16 bytes are in, so an oversize or
 * garbage header fails before its body is buffered or allocated.
 */
export class FrameReader {
  private readonly pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Header of the frame being read, once validated. */
  private header: { code: number; jsonBytes: number; payloadBytes: number } | null = null;
  private failed = false;

  constructor(private readonly magic: number) {}

  /**
   * Adds bytes; returns the frames they complete and, on a bad header, the
   * error (frames before it are still returned, to be answered first). After
   * an error the reader stays failed.
   */
  push(chunk: Uint8Array): { frames: Frame[]; error: FramingError | null } {
    if (this.failed) return { frames: [], error: new FramingError('the stream already failed') };
    const frames: Frame[] = [];
    try {
      this.read(chunk, frames);
    } catch (error) {
      if (!(error instanceof FramingError)) throw error;
      return { frames, error };
    }
    return { frames, error: null };
  }

  private read(chunk: Uint8Array, frames: Frame[]): void {
    if (chunk.length > 0) {
      // A plain view, not a Buffer (socket chunks are): frames compare and serialize as Uint8Arrays.
      this.pending.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.pendingBytes += chunk.length;
    }
    for (;;) {
      if (this.header === null) {
        if (this.pendingBytes < HEADER_BYTES) break;
        const head = this.take(HEADER_BYTES);
        const view = new DataView(head.buffer, head.byteOffset, HEADER_BYTES);
        const magic = view.getUint32(0, true);
        const jsonBytes = view.getUint32(8, true);
        const payloadBytes = view.getUint32(12, true);
        if (magic !== this.magic) this.fail(`bad magic 0x${magic.toString(16).padStart(8, '0')} (expected 0x${this.magic.toString(16)})`);
        if (jsonBytes > MAX_JSON_BYTES) this.fail(`JSON of ${jsonBytes} bytes exceeds the ${MAX_JSON_BYTES}-byte limit`);
        if (payloadBytes > MAX_PAYLOAD_BYTES) this.fail(`payload of ${payloadBytes} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte limit`);
        this.header = { code: view.getUint32(4, true), jsonBytes, payloadBytes };
      }
      const { code, jsonBytes, payloadBytes } = this.header;
      if (this.pendingBytes < jsonBytes + payloadBytes) break;
      const json = this.take(jsonBytes);
      const payload = this.take(payloadBytes);
      this.header = null;
      frames.push({ code, json, payload });
    }
  }

  /** Bytes received but not yet part of a whole frame (a peer that closes mid-frame leaves some). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  private fail(message: string): never {
    this.failed = true;
    this.pending.length = 0;
    this.pendingBytes = 0;
    throw new FramingError(message);
  }

  /** Removes and returns the first `n` buffered bytes (copied only when they span chunks). */
  private take(n: number): Uint8Array {
    if (n === 0) return new Uint8Array(0);
    const first = this.pending[0]!;
    let out: Uint8Array;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.pending.shift();
      else this.pending[0] = first.subarray(n);
    } else {
      out = new Uint8Array(n);
      let filled = 0;
      while (filled < n) {
        const chunk = this.pending[0]!;
        const used = Math.min(chunk.length, n - filled);
        out.set(chunk.subarray(0, used), filled);
        filled += used;
        if (used === chunk.length) this.pending.shift();
        else this.pending[0] = chunk.subarray(used);
      }
    }
    this.pendingBytes -= n;
    return out;
  }
}

/** Parses a frame's JSON as an object; null when it is not valid UTF-8 JSON naming an object. */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> | null {
  if (bytes.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
