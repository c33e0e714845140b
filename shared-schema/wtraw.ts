/**
 * .wtraw: the raw GPU dump written by the capture host (see README.md).
 * decodeWtraw checks every size against the bytes, decodes the records,
 * calibrates the clocks and builds a Trace. encodeWtraw writes the same
 * container (for synthetic captures and tests; the C host writes real ones).
 */
import { buildTrace } from './build.js';
import { calibrate, type ClockMode } from './calibrate.js';
import { MAX_DRAWS, MAX_WARPS, describeValue, fail } from './errors.js';
import {
  type Obj,
  readArray,
  readBoolean,
  readEnum,
  readNullableNumber,
  readNullableU64String,
  readObject,
  readOptionalString,
} from './fields.js';
import { readCaptureInfo, readDeviceInfo, readOverhead } from './metadata.js';
import type { DeviceInfo, DrawInfo, DrawKind, Trace } from './model.js';
import {
  PackedIds,
  RECORD_BYTES,
  RECORD_WORDS,
  RecordFlag,
  RecordWord,
  WTRAW_HEADER_BYTES,
  WTRAW_MAGIC,
  WTRAW_NO_TIMESTAMP,
  WTRAW_SECTION_ALIGN,
  WTRAW_VERSION,
  WtrawHeaderWord,
} from './raw-layout.js';
import { STAGE_COUNT } from './stages.js';

const MAX_METADATA_BYTES = 64 * 1024 * 1024;
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

function littleEndianWords(bytes: Uint8Array): Uint32Array {
  const out = new Uint32Array(bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < out.length; k++) out[k] = view.getUint32(k * 4, true);
  return out;
}

function padded(n: number): number {
  return Math.ceil(n / WTRAW_SECTION_ALIGN) * WTRAW_SECTION_ALIGN;
}

export function isWtraw(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === WTRAW_MAGIC;
}

interface Layout {
  readonly headerBytes: number;
  readonly metadataBytes: number;
  readonly recordCount: number;
  readonly counter: number;
  readonly capacity: number;
  readonly timestampCount: number;
  readonly timestampsAt: number;
  readonly recordsAt: number;
}

function readLayout(bytes: Uint8Array): Layout {
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
  if (bytes.length < headerBytes) fail('truncated', 'header', `${bytes.length} bytes, header declares ${headerBytes}`);
  const metadataBytes = word(WtrawHeaderWord.METADATA_BYTES);
  const recordBytes = word(WtrawHeaderWord.RECORD_BYTES);
  const recordCount = word(WtrawHeaderWord.RECORD_COUNT);
  const counter = word(WtrawHeaderWord.COUNTER);
  const capacity = word(WtrawHeaderWord.CAPACITY);
  const timestampCount = word(WtrawHeaderWord.TIMESTAMP_COUNT);
  if (recordBytes !== RECORD_BYTES) fail('bad-value', 'header.recordBytes', `${recordBytes}, expected ${RECORD_BYTES}`);
  if (metadataBytes > MAX_METADATA_BYTES) fail('too-large', 'header.metadataBytes', `${metadataBytes} bytes of metadata`);
  if (recordCount > MAX_WARPS) fail('too-large', 'header.recordCount', `${recordCount} records exceed the limit of ${MAX_WARPS}`);
  if (timestampCount > MAX_DRAWS) fail('too-large', 'header.timestampCount', `${timestampCount} timestamps exceed the limit of ${MAX_DRAWS}`);
  if (recordCount !== Math.min(counter, capacity)) {
    fail('bad-value', 'header.recordCount', `${recordCount}, but counter ${counter} and capacity ${capacity} mean ${Math.min(counter, capacity)}`);
  }
  const timestampsAt = headerBytes + padded(metadataBytes);
  const recordsAt = timestampsAt + timestampCount * 16;
  const expected = recordsAt + recordCount * RECORD_BYTES;
  if (bytes.length !== expected) {
    fail(bytes.length < expected ? 'truncated' : 'size-mismatch', 'file', `${bytes.length} bytes, but the header declares ${expected}`);
  }
  return { headerBytes, metadataBytes, recordCount, counter, capacity, timestampCount, timestampsAt, recordsAt };
}

interface RawMetadata {
  readonly root: Obj;
  readonly device: Obj;
  readonly draws: readonly { label: string; kind: DrawKind }[];
  readonly captureStartTicks: string | null;
  readonly deviceClockNsPerTick: number;
  readonly timestampPeriodNs: number;
  readonly smClockRateHz: number | null;
}

const KINDS: readonly DrawKind[] = ['draw', 'dispatch', 'trace-rays'];

function readMetadata(bytes: Uint8Array): RawMetadata {
  let root: Obj;
  try {
    root = readObject(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)), 'metadata');
  } catch (error) {
    if (error instanceof Error && error.name === 'TraceFormatError') throw error;
    return fail('bad-encoding', 'metadata', `not valid UTF-8 JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const device = readObject(root['device'], 'metadata.device');
  const draws = readArray(root, 'draws', 'metadata', MAX_DRAWS).map((d, i) => {
    const f = `metadata.draws[${i}]`;
    const o = readObject(d, f);
    return { label: readOptionalString(o, 'label', f, `draw ${i}`), kind: o['kind'] === undefined ? 'draw' : readEnum(o, 'kind', f, KINDS) };
  });
  const positive = (key: string, fallback: number) => {
    const v = readNullableNumber(device, key, 'metadata.device') ?? fallback;
    if (!(v > 0)) fail('bad-value', `metadata.device.${key}`, `expected a positive number, got ${describeValue(v)}`);
    return v;
  };
  const rate = readNullableNumber(device, 'smClockRateHz', 'metadata.device');
  if (rate !== null && !(rate > 0)) fail('bad-value', 'metadata.device.smClockRateHz', 'expected a positive rate');
  return {
    root,
    device,
    draws,
    captureStartTicks: readNullableU64String(root, 'captureStartTicks', 'metadata'),
    deviceClockNsPerTick: positive('deviceClockNsPerTick', 1),
    timestampPeriodNs: positive('timestampPeriodNs', 1),
    smClockRateHz: rate,
  };
}

/** Record indices grouped by SM id (stable), or null when already grouped. */
function smGroupedOrder(words: Uint32Array, n: number): Uint32Array | null {
  const counts = new Uint32Array(65537);
  let grouped = true;
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const sm = ((words[i * RECORD_WORDS + RecordWord.PACKED_IDS] as number) >>> PackedIds.SM_SHIFT) & PackedIds.SM_MASK;
    counts[sm + 1]!++;
    if (sm < previous) grouped = false;
    previous = sm;
  }
  if (grouped) return null;
  for (let s = 1; s <= 65536; s++) counts[s]! += counts[s - 1] as number;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const sm = ((words[i * RECORD_WORDS + RecordWord.PACKED_IDS] as number) >>> PackedIds.SM_SHIFT) & PackedIds.SM_MASK;
    order[counts[sm]!++] = i;
  }
  return order;
}

/** Decodes and calibrates a raw GPU dump. */
export function decodeWtraw(bytes: Uint8Array): Trace {
  const layout = readLayout(bytes);
  const meta = readMetadata(bytes.subarray(layout.headerBytes, layout.headerBytes + layout.metadataBytes));
  const drawCount = meta.draws.length;
  if (layout.timestampCount !== 0 && layout.timestampCount !== drawCount) {
    fail('size-mismatch', 'header.timestampCount', `${layout.timestampCount} timestamp pairs for ${drawCount} draws`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tsBegin = new Float64Array(drawCount).fill(NaN);
  const tsEnd = new Float64Array(drawCount).fill(NaN);
  for (let d = 0; d < layout.timestampCount; d++) {
    const b = view.getBigUint64(layout.timestampsAt + d * 16, true);
    const e = view.getBigUint64(layout.timestampsAt + d * 16 + 8, true);
    if ((b === WTRAW_NO_TIMESTAMP) !== (e === WTRAW_NO_TIMESTAMP)) fail('bad-value', `timestamps[${d}]`, 'begin and end must both be written or both be missing');
    if (b === WTRAW_NO_TIMESTAMP) continue;
    if (b > BigInt(Number.MAX_SAFE_INTEGER) || e > BigInt(Number.MAX_SAFE_INTEGER)) fail('bad-value', `timestamps[${d}]`, 'timestamp beyond 2^53 ticks');
    if (e < b) fail('bad-value', `timestamps[${d}]`, `ends (${e}) before it begins (${b})`);
    tsBegin[d] = Number(b);
    tsEnd[d] = Number(e);
  }

  // Records as u32 words: a view when aligned, else one copy.
  const n = layout.recordCount;
  const at = bytes.byteOffset + layout.recordsAt;
  const words =
    at % 4 === 0 && LITTLE_ENDIAN
      ? new Uint32Array(bytes.buffer, at, n * RECORD_WORDS)
      : littleEndianWords(bytes.subarray(layout.recordsAt, layout.recordsAt + n * RECORD_BYTES));
  // Records in SM order (a counting sort), so per-SM calibration reads memory sequentially.
  const bySm = smGroupedOrder(words, n);
  const packed = new Uint32Array(n);
  const draw = new Uint32Array(n);
  const customId = new Uint32Array(n);
  const maskLo = new Uint32Array(n);
  const maskHi = new Uint32Array(n);
  const clockStartLo = new Uint32Array(n);
  const clockEndLo = new Uint32Array(n);
  const deviceLo = new Uint32Array(n);
  // One record (32 contiguous bytes) at a time: a single random read per record.
  for (let i = 0; i < n; i++) {
    const base = (bySm === null ? i : (bySm[i] as number)) * RECORD_WORDS;
    clockStartLo[i] = words[base + RecordWord.CLOCK_START] as number;
    clockEndLo[i] = words[base + RecordWord.CLOCK_END] as number;
    deviceLo[i] = words[base + RecordWord.DEVICE_CLOCK] as number;
    maskHi[i] = words[base + RecordWord.ACTIVE_MASK_HI] as number;
    packed[i] = words[base + RecordWord.PACKED_IDS] as number;
    draw[i] = words[base + RecordWord.DRAW_ID] as number;
    customId[i] = words[base + RecordWord.CUSTOM_ID] as number;
    maskLo[i] = words[base + RecordWord.ACTIVE_MASK_LO] as number;
  }
  const sm = new Uint16Array(n);
  const slot = new Uint8Array(n);
  const stage = new Uint8Array(n);
  const clockFlags = RecordFlag.SM_CLOCK | RecordFlag.DEVICE_CLOCK;
  const firstFlags = n > 0 ? ((words[RecordWord.PACKED_IDS] as number) >>> PackedIds.FLAGS_SHIFT) & PackedIds.FLAGS_MASK : 0;
  // Errors name the record's position in the file.
  const fileIndex = (i: number) => (bySm === null ? i : (bySm[i] as number));
  for (let i = 0; i < n; i++) {
    const ids = packed[i] as number;
    const flags = (ids >>> PackedIds.FLAGS_SHIFT) & PackedIds.FLAGS_MASK;
    if ((flags & clockFlags) !== (firstFlags & clockFlags)) {
      fail('bad-value', `records[${fileIndex(i)}].flags`, `clock flags ${flags & clockFlags} differ from the first record's ${firstFlags & clockFlags}`);
    }
    sm[i] = (ids >>> PackedIds.SM_SHIFT) & PackedIds.SM_MASK;
    slot[i] = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
    const st = (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
    if (st >= STAGE_COUNT) fail('bad-value', `records[${fileIndex(i)}].stage`, `unknown stage code ${st}`);
    stage[i] = st;
    if ((draw[i] as number) >= drawCount) fail('bad-value', `records[${fileIndex(i)}].drawId`, `draw ${draw[i]}, but the metadata lists ${drawCount} draws`);
  }
  const hasSmClock = (firstFlags & RecordFlag.SM_CLOCK) !== 0;
  const hasDeviceClock = (firstFlags & RecordFlag.DEVICE_CLOCK) !== 0;
  if (n > 0 && !hasSmClock && !hasDeviceClock) fail('bad-value', 'records[0].flags', 'records carry no clock (neither SM_CLOCK nor DEVICE_CLOCK)');
  const mode: ClockMode = hasSmClock ? (hasDeviceClock ? 'per-sm-fit' : 'sm-clock-rebased') : 'device-clock';

  // Time 0: the capture-start timestamp, else the first draw's, else the first device sample.
  const nsPerTick = meta.deviceClockNsPerTick;
  const toDeviceTicks = (tsTicks: number) => Math.round((tsTicks * meta.timestampPeriodNs) / nsPerTick);
  let originTicks = meta.captureStartTicks === null ? NaN : toDeviceTicks(Number(meta.captureStartTicks));
  if (Number.isNaN(originTicks)) {
    for (let d = 0; d < drawCount; d++) if (!Number.isNaN(tsBegin[d]!)) originTicks = Math.min(Number.isNaN(originTicks) ? Infinity : originTicks, toDeviceTicks(tsBegin[d]!));
  }
  const fallbackAnchor = Number.isNaN(originTicks) ? (n > 0 ? (mode === 'per-sm-fit' ? deviceLo[0]! : clockStartLo[0]!) : 0) : originTicks;
  const drawAnchor = new Float64Array(drawCount);
  for (let d = 0; d < drawCount; d++) drawAnchor[d] = Number.isNaN(tsBegin[d]!) ? fallbackAnchor : toDeviceTicks(tsBegin[d]!);
  if (Number.isNaN(originTicks)) originTicks = fallbackAnchor;

  const times = calibrate({
    mode,
    sm,
    clockStartLo,
    clockEndLo,
    deviceLo,
    draw,
    drawAnchorTicks: drawAnchor,
    originTicks,
    deviceNsPerTick: nsPerTick,
    smClockRateHz: meta.smClockRateHz,
  });

  // Keep every time ≥ 0: move the origin back if calibration placed a warp before it.
  let shift = 0;
  for (let i = 0; i < n; i++) if (-(times.startNs[i] as number) > shift) shift = -(times.startNs[i] as number);
  const originNs = originTicks * nsPerTick - shift;
  for (let i = 0; i < n; i++) {
    times.startNs[i] = (times.startNs[i] as number) + shift;
    times.endNs[i] = (times.endNs[i] as number) + shift;
  }
  const draws: DrawInfo[] = meta.draws.map((d, index) => {
    const known = !Number.isNaN(tsBegin[index]!);
    return {
      index,
      label: d.label,
      kind: d.kind,
      gpuBeginNs: known ? tsBegin[index]! * meta.timestampPeriodNs - originNs : null,
      gpuEndNs: known ? tsEnd[index]! * meta.timestampPeriodNs - originNs : null,
    };
  });

  const device = readRawDevice(meta, times.deviceClockGranularityNs, times.smClockRateHz);
  const capture = readCaptureInfo({
    tool: meta.root['tool'],
    toolVersion: meta.root['toolVersion'],
    capturedAt: meta.root['capturedAt'],
    workload: meta.root['workload'],
    parameters: meta.root['parameters'],
    bufferCapacity: layout.capacity,
    recordsWritten: layout.counter,
    recordsKept: n,
    originDeviceNs: mode === 'sm-clock-rebased' ? null : String(Math.max(0, Math.round(originNs))),
    calibration: times.calibration,
    overhead: readOverhead(meta.root['overhead'], 'metadata.overhead'),
  });
  const wide = device.subgroupSize > 32;
  return buildTrace({
    device,
    capture,
    draws,
    warps: {
      startNs: times.startNs,
      endNs: times.endNs,
      sm,
      warpSlot: slot,
      stage,
      draw,
      customId,
      activeMask: maskLo,
      activeMaskHi: wide ? maskHi : null,
      smCycleStart: times.cycleStart,
      smCycleDuration: times.cycleDuration,
    },
  });
}

function readRawDevice(meta: RawMetadata, granularityNs: number | null, rateHz: number | null): DeviceInfo {
  const d = meta.device;
  return readDeviceInfo(
    {
      ...d,
      clocks: {
        smClock: readBoolean(d, 'smClock', 'metadata.device'),
        deviceClock: readBoolean(d, 'deviceClock', 'metadata.device'),
        deviceClockNsPerTick: meta.deviceClockNsPerTick,
        deviceClockGranularityNs: granularityNs,
        smClockRateHz: rateHz,
        timestampPeriodNs: meta.timestampPeriodNs,
      },
    },
    'metadata.device',
  );
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
}

export function encodeWtraw(raw: RawCapture): Uint8Array {
  const metadata = new TextEncoder().encode(JSON.stringify(raw.metadata));
  const recordCount = raw.records.length / RECORD_WORDS;
  if (!Number.isInteger(recordCount)) throw new RangeError('records must hold whole records');
  const timestampCount = raw.timestamps?.length ?? 0;
  const timestampsAt = WTRAW_HEADER_BYTES + padded(metadata.length);
  const recordsAt = timestampsAt + timestampCount * 16;
  const out = new Uint8Array(recordsAt + recordCount * RECORD_BYTES);
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
  ];
  for (const [w, v] of header) view.setUint32(w * 4, v, true);
  out.set(metadata, WTRAW_HEADER_BYTES);
  out.fill(0x20, WTRAW_HEADER_BYTES + metadata.length, timestampsAt);
  raw.timestamps?.forEach((pair, d) => {
    view.setBigUint64(timestampsAt + d * 16, pair === null ? WTRAW_NO_TIMESTAMP : pair[0], true);
    view.setBigUint64(timestampsAt + d * 16 + 8, pair === null ? WTRAW_NO_TIMESTAMP : pair[1], true);
  });
  for (let k = 0; k < raw.records.length; k++) view.setUint32(recordsAt + k * 4, raw.records[k] as number, true);
  return out;
}
