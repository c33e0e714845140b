/**
 * Writing the .wtraw container (see README.md): for synthetic captures and
 * tests; the capture layer writes real ones.
 */
import { RECORD_BYTES, RECORD_WORDS, WTRAW_HEADER_BYTES, WTRAW_MAGIC, WTRAW_NO_TIMESTAMP, WTRAW_SECTION_ALIGN, WTRAW_VERSION, WtrawHeaderWord } from './raw-layout.js';

/** A section's length padded to the section alignment. */
export function paddedSection(n: number): number {
  return Math.ceil(n / WTRAW_SECTION_ALIGN) * WTRAW_SECTION_ALIGN;
}

export interface RawCapture {
  /** The metadata JSON object (see README.md). */
  readonly metadata: object;
  /** One [begin, end] pair of timestamp ticks per draw (null: not written), or null for no table. */
  readonly timestamps: readonly (readonly [bigint, bigint] | null)[] | null;
  /** Records, RECORD_WORDS u32 each. */
  readonly records: Uint32Array;
  /** The GPU atomic counter (≥ records when records were dropped). */
  readonly counter: number;
  readonly capacity: number;
  /** The block-profile section (synthetic-blocks.ts), described by the metadata's `blocks` key; absent: none. */
  readonly blockSection?: Uint8Array;
  /** The ray-event section (synthetic-rays.ts), described by the metadata's `rayEvents` key; absent: none. */
  readonly rayEventSection?: Uint8Array;
}

export function encodeWtraw(raw: RawCapture): Uint8Array {
  const metadata = new TextEncoder().encode(JSON.stringify(raw.metadata));
  const recordCount = raw.records.length / RECORD_WORDS;
  if (!Number.isInteger(recordCount)) throw new RangeError('records must hold whole records');
  const timestampCount = raw.timestamps?.length ?? 0;
  const timestampsAt = WTRAW_HEADER_BYTES + paddedSection(metadata.length);
  const recordsAt = timestampsAt + timestampCount * 16;
  const blocksAt = recordsAt + recordCount * RECORD_BYTES;
  const blockBytes = raw.blockSection?.length ?? 0;
  const rayEventsAt = blocksAt + blockBytes;
  const rayEventBytes = raw.rayEventSection?.length ?? 0;
  const out = new Uint8Array(rayEventsAt + rayEventBytes);
  const view = new DataView(out.buffer);
  const header: [number, number][] = [
    [WtrawHeaderWord.MAGIC, WTRAW_MAGIC],
    [WtrawHeaderWord.VERSION, WTRAW_VERSION],
    [WtrawHeaderWord.HEADER_BYTES, WTRAW_HEADER_BYTES],
    [WtrawHeaderWord.METADATA_BYTES, metadata.length],
    [WtrawHeaderWord.RECORD_BYTES, RECORD_BYTES],
    [WtrawHeaderWord.RECORD_COUNT, recordCount],
    [WtrawHeaderWord.COUNTER, raw.counter],
    [WtrawHeaderWord.CAPACITY, raw.capacity],
    [WtrawHeaderWord.TIMESTAMP_COUNT, timestampCount],
    [WtrawHeaderWord.BLOCK_BYTES, blockBytes],
    [WtrawHeaderWord.RAY_EVENT_BYTES, rayEventBytes],
  ];
  for (const [w, v] of header) view.setUint32(w * 4, v, true);
  out.set(metadata, WTRAW_HEADER_BYTES);
  out.fill(0x20, WTRAW_HEADER_BYTES + metadata.length, timestampsAt);
  raw.timestamps?.forEach((pair, d) => {
    view.setBigUint64(timestampsAt + d * 16, pair === null ? WTRAW_NO_TIMESTAMP : pair[0], true);
    view.setBigUint64(timestampsAt + d * 16 + 8, pair === null ? WTRAW_NO_TIMESTAMP : pair[1], true);
  });
  for (let k = 0; k < raw.records.length; k++) view.setUint32(recordsAt + k * 4, raw.records[k] as number, true);
  if (raw.blockSection !== undefined) out.set(raw.blockSection, blocksAt);
  if (raw.rayEventSection !== undefined) out.set(raw.rayEventSection, rayEventsAt);
  return out;
}
