/**
 * WORKAROUND, until decodeWtraw accepts timestamps of 2^53 ticks and more:
 * NVIDIA timestamp queries (and the shader device clock) count ns since the
 * Unix epoch (about 1.8e18), beyond float64's exact integers. This moves every
 * timestamp (the table and captureStartTicks) down by the same multiple of
 * 2^32 ticks, which keeps the low 32 bits, so the shaders' device-clock low
 * words unwrap against them exactly as before. Only the absolute origin
 * (originDeviceNs) changes; the shift is kept in the metadata
 * (timestampRebaseTicks). Raw dumps are never modified on disk.
 */
import { RECORD_WORDS, WTRAW_HEADER_BYTES, WTRAW_NO_TIMESTAMP, WTRAW_SECTION_ALIGN, WtrawHeaderWord, encodeWtraw, isWtraw } from '../../shared-schema/index.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const TWO_32 = 1n << 32n;

export function rebaseLargeTimestamps(bytes: Uint8Array): Uint8Array {
  if (!isWtraw(bytes) || bytes.length < WTRAW_HEADER_BYTES) return bytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (w: number) => view.getUint32(w * 4, true);
  const headerBytes = word(WtrawHeaderWord.HEADER_BYTES);
  const metadataBytes = word(WtrawHeaderWord.METADATA_BYTES);
  const timestampCount = word(WtrawHeaderWord.TIMESTAMP_COUNT);
  const recordCount = word(WtrawHeaderWord.RECORD_COUNT);
  const timestampsAt = headerBytes + Math.ceil(metadataBytes / WTRAW_SECTION_ALIGN) * WTRAW_SECTION_ALIGN;
  const recordsAt = timestampsAt + timestampCount * 16;
  if (recordsAt + recordCount * RECORD_WORDS * 4 !== bytes.length) return bytes; // let the decoder report it
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(new TextDecoder().decode(bytes.subarray(headerBytes, headerBytes + metadataBytes))) as Record<string, unknown>;
  } catch {
    return bytes;
  }
  const pairs: ([bigint, bigint] | null)[] = [];
  let smallest: bigint | null = typeof metadata['captureStartTicks'] === 'string' && /^\d+$/.test(metadata['captureStartTicks']) ? BigInt(metadata['captureStartTicks']) : null;
  let largest = smallest ?? 0n;
  for (let d = 0; d < timestampCount; d++) {
    const b = view.getBigUint64(timestampsAt + d * 16, true);
    const e = view.getBigUint64(timestampsAt + d * 16 + 8, true);
    if (b === WTRAW_NO_TIMESTAMP) {
      pairs.push(null);
      continue;
    }
    pairs.push([b, e]);
    if (smallest === null || b < smallest) smallest = b;
    if (e > largest) largest = e;
  }
  if (smallest === null || largest <= SAFE) return bytes;
  // Keep at least 2^32 ticks of headroom below the smallest timestamp.
  const shift = (smallest / TWO_32 - 1n) * TWO_32;
  const rebased: Record<string, unknown> = { ...metadata, timestampRebaseTicks: shift.toString() };
  if (typeof metadata['captureStartTicks'] === 'string') rebased['captureStartTicks'] = (BigInt(metadata['captureStartTicks']) - shift).toString();
  const records = new Uint32Array(recordCount * RECORD_WORDS);
  for (let k = 0; k < records.length; k++) records[k] = view.getUint32(recordsAt + k * 4, true);
  return encodeWtraw({
    metadata: rebased,
    timestamps: timestampCount === 0 ? null : pairs.map((p) => (p === null ? null : ([p[0] - shift, p[1] - shift] as const))),
    records,
    counter: word(WtrawHeaderWord.COUNTER),
    capacity: word(WtrawHeaderWord.CAPACITY),
  });
}
