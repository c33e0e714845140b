/** The .wtraw header (README.md): its checks, and the file's layout it declares. */
import { MAX_BLOCK_BYTES } from './block-raw.js';
import { MAX_RAY_EVENT_BYTES } from './ray-event-raw.js';
import { MAX_DRAWS, MAX_WARPS, fail } from './errors.js';
import { RECORD_BYTES, WTRAW_HEADER_BYTES, WTRAW_MAGIC, WTRAW_SECTION_ALIGN, WTRAW_VERSION, WtrawHeaderWord } from './raw-layout.js';
import { paddedSection } from './wtraw-writer.js';

const MAX_METADATA_BYTES = 64 * 1024 * 1024;

export function isWtraw(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === WTRAW_MAGIC;
}

export interface Layout {
  readonly headerBytes: number;
  readonly metadataBytes: number;
  readonly recordCount: number;
  readonly counter: number;
  readonly capacity: number;
  readonly timestampCount: number;
  readonly timestampsAt: number;
  readonly recordsAt: number;
  /** The optional block-profile section after the records (block-raw.ts): its offset and length (0: none). */
  readonly blocksAt: number;
  readonly blockBytes: number;
  /** The optional ray-event section after the block section (ray-event-raw.ts): its offset and length (0: none). */
  readonly rayEventsAt: number;
  readonly rayEventBytes: number;
}

/**
 * Checks the header and that the file is as long as it declares. `bytes`:
 * the file, or only its first bytes (a header's worth) with the file's
 * length as `fileBytes`, to refuse a file before reading it whole.
 */
export function readLayout(bytes: Uint8Array, fileBytes = bytes.length): Layout {
  if (!isWtraw(bytes)) fail('bad-magic', 'header.magic', 'not a .wtraw file (missing "WTRW")');
  if (bytes.length < WTRAW_HEADER_BYTES) fail('truncated', 'header', `${bytes.length} bytes, a .wtraw header needs ${WTRAW_HEADER_BYTES}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (w: number) => view.getUint32(w * 4, true);
  const version = word(WtrawHeaderWord.VERSION);
  if (version !== WTRAW_VERSION) fail('unsupported-version', 'header.version', `raw format ${version}; this reader understands ${WTRAW_VERSION}`);
  const headerBytes = word(WtrawHeaderWord.HEADER_BYTES);
  if (headerBytes < WTRAW_HEADER_BYTES || headerBytes % WTRAW_SECTION_ALIGN !== 0) {
    fail('bad-value', 'header.headerBytes', `${headerBytes}, expected ≥ ${WTRAW_HEADER_BYTES} and a multiple of ${WTRAW_SECTION_ALIGN}`);
  }
  if (fileBytes < headerBytes) fail('truncated', 'header', `${fileBytes} bytes, header declares ${headerBytes}`);
  const metadataBytes = word(WtrawHeaderWord.METADATA_BYTES);
  const recordBytes = word(WtrawHeaderWord.RECORD_BYTES);
  const recordCount = word(WtrawHeaderWord.RECORD_COUNT);
  const counter = word(WtrawHeaderWord.COUNTER);
  const capacity = word(WtrawHeaderWord.CAPACITY);
  const timestampCount = word(WtrawHeaderWord.TIMESTAMP_COUNT);
  // 0 in every file written before block profiles: those read as they did.
  const blockBytes = word(WtrawHeaderWord.BLOCK_BYTES);
  // 0 in every file written before ray events.
  const rayEventBytes = word(WtrawHeaderWord.RAY_EVENT_BYTES);
  if (recordBytes !== RECORD_BYTES) fail('bad-value', 'header.recordBytes', `${recordBytes}, expected ${RECORD_BYTES}`);
  if (metadataBytes > MAX_METADATA_BYTES) fail('too-large', 'header.metadataBytes', `${metadataBytes} bytes of metadata`);
  if (recordCount > MAX_WARPS) fail('too-large', 'header.recordCount', `${recordCount} records exceed the limit of ${MAX_WARPS}`);
  if (blockBytes > MAX_BLOCK_BYTES) fail('too-large', 'header.blockBytes', `${blockBytes} bytes of block profile exceed the limit of ${MAX_BLOCK_BYTES}`);
  if (rayEventBytes > MAX_RAY_EVENT_BYTES) fail('too-large', 'header.rayEventBytes', `${rayEventBytes} bytes of ray events exceed the limit of ${MAX_RAY_EVENT_BYTES}`);
  if (timestampCount > MAX_DRAWS) fail('too-large', 'header.timestampCount', `${timestampCount} timestamps exceed the limit of ${MAX_DRAWS}`);
  if (recordCount !== Math.min(counter, capacity)) {
    fail('bad-value', 'header.recordCount', `${recordCount}, but counter ${counter} and capacity ${capacity} mean ${Math.min(counter, capacity)}`);
  }
  const timestampsAt = headerBytes + paddedSection(metadataBytes);
  const recordsAt = timestampsAt + timestampCount * 16;
  const blocksAt = recordsAt + recordCount * RECORD_BYTES;
  const rayEventsAt = blocksAt + blockBytes;
  const expected = rayEventsAt + rayEventBytes;
  if (fileBytes !== expected) {
    fail(fileBytes < expected ? 'truncated' : 'size-mismatch', 'file', `${fileBytes} bytes, but the header declares ${expected}`);
  }
  return { headerBytes, metadataBytes, recordCount, counter, capacity, timestampCount, timestampsAt, recordsAt, blocksAt, blockBytes, rayEventsAt, rayEventBytes };
}
