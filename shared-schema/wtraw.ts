/**
 * .wtraw: the raw GPU dump written by the capture host (see README.md).
 * decodeWtraw checks every size against the bytes, decodes the records,
 * calibrates the clocks and builds a Trace. The metadata JSON is read in
 * raw-metadata.ts; encodeWtraw (wtraw-writer.ts) writes the same container.
 */
import { calibrateGrouped, deviceClockMap, type CalibratedTimes, type ClockMode } from './calibrate.js';
import { withDrawBounds } from './calibration-record.js';
import { binnedStagesOf, drawBoundsToleranceNs, drawCheckOf, newTally, tallyWarp } from './draw-bounds.js';
import { drawClockAnchors, needsOrderedUnwrap, rowDeviceTicks, type DrawClockAnchors } from './device-unwrap.js';
import { perSmFitPhases } from './per-sm-fit.js';
import { runPhases, type ChunkReport, type PhaseProgram } from './phase-worker.js';
import { mergeTasks } from './row-sort.js';
import { claimBySize, planSlices, splitRows } from './row-tasks.js';
import { cyclesPerNsOfRate, layoutWtrace, packPrefix, writeFixed, type WtracePrefix, type WtraceShape } from './wtrace-writer.js';
import { chunkHeads } from './column-chunks.js';
import type { ChunkShape } from './warp-encoder.js';
import type { BlockProfile, DescribeModule } from './block-model.js';
import { blockProfileOf } from './block-profile.js';
import { readBlockSection } from './block-raw.js';
import { readRayEventSection } from './ray-event-raw.js';
import type { RayEventProfile } from './ray-event-model.js';
import { fail } from './errors.js';
import { scaleTicks } from './exact-ticks.js';
import { readCaptureInfo, readOverhead } from './metadata.js';
import { FORMAT_VERSION, TICKS_PER_NS, type DrawInfo, type Trace, type WarpColumns } from './model.js';
import { readMetadata, readRawDevice, type RawMetadata } from './raw-metadata.js';
import { isWtraw, readLayout, type Layout } from './wtraw-header.js';
import { placeMarks, splitMarks, type RawMarks } from './mark-raw.js';
import { encodeWtrace } from './wtrace.js';
import { allocOrderRows, allocWarpColumns, placeRow, plainColumns, rejectPlacedRow, rejectPlacedTicks, type ColumnAllocator, type OrderRows, type PlacedRows } from './raw-canonical.js';
import { clockFlagsOf, planGroups, recordColumn, smMajorRecords, type RecordCounts, type RecordLimits } from './raw-records.js';
import {
  PackedIds,
  RECORD_BYTES,
  RECORD_WORDS,
  RecordFlag,
  RecordWord,
  WTRAW_NO_TIMESTAMP,
} from './raw-layout.js';

export { encodeWtraw, type RawCapture } from './wtraw-writer.js';
export { isWtraw } from './wtraw-header.js';

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

function littleEndianWords(bytes: Uint8Array): Uint32Array {
  const out = new Uint32Array(bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < out.length; k++) out[k] = view.getUint32(k * 4, true);
  return out;
}

/** A .wtraw file checked and parsed, up to its records (shared by the one-thread and worker decoders). */
export interface ParsedWtraw {
  readonly layout: Layout;
  readonly meta: RawMetadata;
  /** The warp records as u32 words (a view when aligned, else a copy; a compact copy when the dump has marks). */
  readonly words: Uint32Array;
  /** Warp records in `words` (the file's records less its marks). */
  readonly recordCount: number;
  /** The dump's mark records, taken out before the warps are decoded (mark-raw.ts); null: none. */
  readonly marks: RawMarks | null;
  readonly limits: RecordLimits;
  /** Where each draw's device-clock words are unwrapped (device-unwrap.ts). */
  readonly anchors: DrawClockAnchors;
  /** Draw timestamps, ns since the origin before the shift (null: not written). */
  readonly gpuBegin: readonly (number | null)[];
  readonly gpuEnd: readonly (number | null)[];
  /** The origin in device ticks, when known. */
  readonly originDevice: bigint | null;
  /** The block profile (null: the dump has none). */
  readonly blocks: BlockProfile | null;
  /** The ray events (null: the dump has none). */
  readonly rayEvents: RayEventProfile | null;
}

/** How a raw dump is decoded. */
export interface RawDecodeOptions {
  /** Describes each block-profiled module from its SPIR-V (default: its block mark only, block-profile.ts). */
  readonly describeModule?: DescribeModule;
}

/** Checks sizes, reads metadata and timestamps, and places the origin. */
export function parseWtraw(bytes: Uint8Array, options: RawDecodeOptions = {}): ParsedWtraw {
  const layout = readLayout(bytes);
  const meta = readMetadata(bytes.subarray(layout.headerBytes, layout.headerBytes + layout.metadataBytes));
  const drawCount = meta.draws.length;
  if (layout.timestampCount !== 0 && layout.timestampCount !== drawCount) {
    fail('size-mismatch', 'header.timestampCount', `${layout.timestampCount} timestamp pairs for ${drawCount} draws`);
  }
  const blockSection = readBlockSection(bytes.subarray(layout.blocksAt, layout.blocksAt + layout.blockBytes), meta.root['blocks'], drawCount);
  const blocks = blockSection === null ? null : blockProfileOf(blockSection, options.describeModule);
  const rayEvents = readRayEventSection(bytes.subarray(layout.rayEventsAt, layout.rayEventsAt + layout.rayEventBytes), meta.root['rayEvents'], meta.draws);
  // Validated now: its limits check every record.
  const device = readRawDevice(meta, null, null);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Timestamps are full 64-bit values (NVIDIA's count ns since 1970, beyond 2^53):
  // they stay BigInt until taken relative to the capture origin.
  const tsBegin: (bigint | null)[] = new Array<bigint | null>(drawCount).fill(null);
  const tsEnd: (bigint | null)[] = new Array<bigint | null>(drawCount).fill(null);
  for (let d = 0; d < layout.timestampCount; d++) {
    const b = view.getBigUint64(layout.timestampsAt + d * 16, true);
    const e = view.getBigUint64(layout.timestampsAt + d * 16 + 8, true);
    if ((b === WTRAW_NO_TIMESTAMP) !== (e === WTRAW_NO_TIMESTAMP)) fail('bad-value', `timestamps[${d}]`, 'begin and end must both be written or both be missing');
    if (b === WTRAW_NO_TIMESTAMP) continue;
    if (e < b) fail('bad-value', `timestamps[${d}]`, `ends (${e}) before it begins (${b})`);
    tsBegin[d] = b;
    tsEnd[d] = e;
  }

  const n = layout.recordCount;
  const at = bytes.byteOffset + layout.recordsAt;
  const fileWords =
    at % 4 === 0 && LITTLE_ENDIAN
      ? new Uint32Array(bytes.buffer, at, n * RECORD_WORDS)
      : littleEndianWords(bytes.subarray(layout.recordsAt, layout.recordsAt + n * RECORD_BYTES));
  const limits: RecordLimits = { drawCount, smCount: device.smCount, warpsPerSm: device.warpsPerSm, subgroupSize: device.subgroupSize };
  // Marks out first: the warp pipeline never sees them (without any, `words` is the file's own).
  const { words, count: recordCount, marks } = splitMarks(fileWords, n, limits);
  const firstIds = recordCount > 0 ? (words[RecordWord.PACKED_IDS] as number) : 0;
  const firstFlags = (firstIds >>> PackedIds.FLAGS_SHIFT) & PackedIds.FLAGS_MASK;
  const firstDeviceLo = recordCount === 0 ? 0 : (firstFlags & RecordFlag.SM_CLOCK) !== 0 ? (words[RecordWord.DEVICE_CLOCK] as number) : (words[RecordWord.CLOCK_START] as number);

  // Time 0: the capture-start timestamp, else the earliest draw's, else the first device sample.
  const nsPerTick = meta.deviceClockNsPerTick;
  const period = meta.timestampPeriodNs;
  let origin: bigint | null = meta.captureStartTicks === null ? null : BigInt(meta.captureStartTicks);
  for (const t of tsBegin) if (origin === null || (t !== null && t < origin)) origin = t ?? origin;
  /** Timestamp ticks → ns since the origin; the distance must stay exact in a double. */
  const relativeNs = (t: bigint, field: string): number => {
    const ticks = t - (origin as bigint);
    if (ticks > MAX_EXACT || ticks < -MAX_EXACT) fail('bad-value', field, 'more than 2^53 ticks away from the capture start');
    return Number(ticks) * period;
  };
  // The same instants in device-clock ticks (identical when both clocks count ns, as on NVIDIA).
  const toDeviceTicks = (t: bigint): bigint => scaleTicks(t, period, nsPerTick);
  const originDevice = origin === null ? null : toDeviceTicks(origin);
  const deviceTicksOf = (t: bigint | null) => (t === null ? null : toDeviceTicks(t));
  const anchors = drawClockAnchors(tsBegin.map(deviceTicksOf), tsEnd.map(deviceTicksOf), originDevice, firstDeviceLo);
  return {
    layout,
    meta,
    words,
    recordCount,
    marks,
    limits,
    anchors,
    gpuBegin: tsBegin.map((t, d) => (t === null ? null : relativeNs(t, `timestamps[${d}]`))),
    gpuEnd: tsEnd.map((t, d) => (t === null ? null : relativeNs(t, `timestamps[${d}]`))),
    originDevice,
    blocks,
    rayEvents,
  };
}

/** The clock mode the records' flags call for. */
export function clockModeOf(clockFlags: number): ClockMode {
  const hasSmClock = (clockFlags & RecordFlag.SM_CLOCK) !== 0;
  const hasDeviceClock = (clockFlags & RecordFlag.DEVICE_CLOCK) !== 0;
  return hasSmClock ? (hasDeviceClock ? 'per-sm-fit' : 'sm-clock-rebased') : 'device-clock';
}

/** How far (ticks) every time moves so none is negative: a warp (calibration noise) or a draw may start before the origin. */
export function originShiftTicks(parsed: ParsedWtraw, minStartTicks: number): number {
  let shift = Math.max(0, -minStartTicks);
  for (const b of parsed.gpuBegin) if (b !== null) shift = Math.max(shift, Math.ceil(-b * TICKS_PER_NS));
  return shift;
}

/** A trace without its warp rows: what a conversion reports besides the file. */
export type TraceHeader = Omit<Trace, 'warps'>;

/** Everything of the Trace but its warps (times moved by `shift` ns, as the warps'). */
export function wtrawHeader(parsed: ParsedWtraw, times: CalibrationResult, shift: number): TraceHeader {
  const { meta, layout } = parsed;
  const draws: DrawInfo[] = meta.draws.map((d, index) => ({
    index,
    label: d.label,
    kind: d.kind,
    gpuBeginNs: parsed.gpuBegin[index] == null ? null : (parsed.gpuBegin[index] as number) + shift,
    gpuEndNs: parsed.gpuEnd[index] == null ? null : (parsed.gpuEnd[index] as number) + shift,
    call: d.call,
    pipeline: d.pipeline,
    region: d.region,
    params: d.params,
    target: d.target,
    untraced: d.untraced,
    unprofiled: d.unprofiled,
    barriersBefore: d.barriersBefore,
  }));
  const { originDevice } = parsed;
  const nsPerTick = meta.deviceClockNsPerTick;
  // The origin as exact device ns (a decimal string), when known.
  const originDeviceNs =
    originDevice === null || times.calibration.method === 'sm-clock-rebased'
      ? null
      : String(scaleTicks(originDevice, nsPerTick, 1) - BigInt(Math.ceil(shift)));
  // Segment times and offsets on the trace's time base, like the warps.
  const calibration = {
    ...times.calibration,
    perSm: times.calibration.perSm.map((c) => (c.fit === 'rebased' ? c : { ...c, offsetNs: c.offsetNs + shift, fromNs: c.fromNs + shift, toNs: c.toNs + shift })),
  };
  const capture = readCaptureInfo({
    tool: meta.root['tool'],
    toolVersion: meta.root['toolVersion'],
    capturedAt: meta.root['capturedAt'],
    workload: meta.root['workload'],
    parameters: meta.root['parameters'],
    bufferCapacity: layout.capacity,
    // Marks share the buffer with warps: the counter counts both. The marks kept are no warps and were not dropped:
    // written = warps kept + records dropped (warps or marks: the buffer cannot tell) (README "Marks").
    recordsWritten: layout.counter - (layout.recordCount - parsed.recordCount),
    recordsKept: parsed.recordCount,
    originDeviceNs,
    calibration,
    overhead: readOverhead(meta.root['overhead'], 'metadata.overhead'),
    layer: meta.layer,
    sampling: meta.sampling,
  });
  // The profile only when there is one: a trace without blocks is the object it was before them.
  const blocks = parsed.blocks === null ? {} : { blocks: parsed.blocks };
  // The same for ray events.
  const rayEvents = parsed.rayEvents === null ? {} : { rayEvents: parsed.rayEvents };
  return { formatVersion: FORMAT_VERSION, device: readRawDevice(meta, times.deviceClockGranularityNs, times.smClockRateHz), capture, draws, regions: meta.regions, ...blocks, ...rayEvents };
}

/** Decodes and calibrates a raw GPU dump. */
export function decodeWtraw(bytes: Uint8Array, options: RawDecodeOptions = {}): Trace {
  const { header, warps } = runPhases(wtrawProgram(parseWtraw(bytes, options), 1, plainColumns, 'trace'));
  return { ...header, warps: warps as WarpColumns };
}

/** A converted raw dump: the .wtrace bytes, the trace's header and its warp count. */
export interface WtraceConversion {
  readonly wtrace: Uint8Array;
  readonly header: TraceHeader;
  readonly warpCount: number;
}

/** A raw GPU dump straight to .wtrace bytes (the same bytes as encodeWtrace(decodeWtraw(bytes)), without the Trace in between). */
export function wtrawToWtrace(bytes: Uint8Array, options: RawDecodeOptions = {}): WtraceConversion {
  return conversionOf(runPhases(wtrawProgram(parseWtraw(bytes, options), 1, plainColumns, 'file')));
}

/** What a 'file' program returned, as a conversion. */
export function conversionOf(result: WtrawResult): WtraceConversion {
  if (result.wtrace === null) throw new Error('the program wrote no file');
  return { wtrace: result.wtrace, header: result.header, warpCount: result.count };
}

/** What wtrawProgram returns: the header, and the warp columns ('trace') or the file ('file'). */
export interface WtrawResult {
  readonly header: TraceHeader;
  readonly count: number;
  readonly warps: WarpColumns | null;
  readonly wtrace: Uint8Array | null;
}

/** The calibration's findings besides the times. */
type CalibrationResult = Omit<CalibratedTimes, 'startNs' | 'endNs' | 'cycleStart' | 'cycleDuration'>;

/**
 * The decoding of a parsed dump as phases for `workers` workers (see
 * phase-worker.ts): records validated and grouped by SM, clocks calibrated,
 * canonical rows sorted and written as warp columns ('trace') or encoded
 * into the .wtrace file ('file': chunks encoded by the workers, laid out
 * here, copied in by whoever encoded them). Arrays shared with workers come
 * from `allocate` (shared memory for a pool), the file too.
 */
export function* wtrawProgram(parsed: ParsedWtraw, workers: number, allocate: ColumnAllocator, output: 'trace' | 'file'): PhaseProgram<WtrawResult> {
  const { words, limits } = parsed;
  const count = parsed.recordCount;
  const clockFlags = clockFlagsOf(words, count);
  const recordRanges = splitRows(count, workers);
  const oneEach = recordRanges.map((_, w) => [w]);
  const parts = (yield { phase: 'count', tasks: recordRanges, assignment: oneEach, words, limits, clockFlags }) as RecordCounts[];
  const { groups, cursors } = planGroups(parts);
  const out = allocate.uint(count * RECORD_WORDS, 0xffffffff) as Uint32Array;
  yield { phase: 'scatter', tasks: recordRanges.map(([begin, end], part) => ({ begin, end, part })), assignment: oneEach, words, groups, cursors, out };
  const records = smMajorRecords(parts, groups, clockFlags, out, limits.subgroupSize > 32);
  const mode = clockModeOf(records.clockFlags);
  const n = records.count;
  // A capture longer than the device clock's low word reaches is unwrapped in file order (device-unwrap.ts).
  const deviceWord = mode === 'per-sm-fit' ? RecordWord.DEVICE_CLOCK : RecordWord.CLOCK_END;
  const inOrder = mode !== 'sm-clock-rebased' && needsOrderedUnwrap(parsed.anchors);
  const clocks = {
    ...parsed.anchors,
    rowTicks: inOrder ? rowDeviceTicks(words, count, groups, parsed.anchors, deviceWord, allocate.f64(n)) : null,
    deviceNsPerTick: parsed.meta.deviceClockNsPerTick,
    smClockRateHz: parsed.meta.smClockRateHz,
  };
  let calibration: () => CalibrationResult;
  let rateHz: number | null;
  let placed: PlacedRows;
  let minStartTicks = Infinity;
  let scratch: OrderRows;
  // Warps are checked against their draws' timestamps where they are placed (unless SMs are rebased: no common time base).
  const drawToleranceNs = drawBoundsToleranceNs(parsed.meta.timestampUncertaintyNs);
  const drawCheck = mode === 'sm-clock-rebased' ? null : drawCheckOf(parsed.gpuBegin, parsed.gpuEnd, allocate, drawToleranceNs, binnedStagesOf(parsed.meta.driverName));
  let drawTally: Float64Array | null = null;
  if (mode === 'per-sm-fit') {
    const fit = deviceClockMap(clocks, n, records.deviceLoOr);
    const calibrated = yield* perSmFitPhases(out, groups, workers, fit.granularityNs, fit.map, clocks.smClockRateHz, allocate, drawCheck);
    ({ placed, minStartTicks, drawTally } = calibrated);
    calibration = calibrated.result;
    rateHz = calibrated.smClockRateHz;
    if (calibrated.badRow >= 0) rejectPlacedTicks(placed, calibrated.badRow);
    // The calibration's rows are free now: the canonical sort's scratch.
    const { rows } = calibrated;
    scratch = { sliceRows: rows.sliceRows, sliceKeys: rows.sliceKeys, order: rows.byX, orderKeys: rows.xs };
  } else {
    // Without both clocks there is nothing to fit: a few passes, done here.
    const column = (word: number) => recordColumn(out, word, 0, n);
    const draw = column(RecordWord.DRAW_ID);
    const packed = column(RecordWord.PACKED_IDS);
    const { startNs, endNs, cycleStart, cycleDuration: _, ...own } = calibrateGrouped({ ...clocks, mode, groups, clockStartLo: column(RecordWord.CLOCK_START), clockEndLo: column(RecordWord.CLOCK_END), deviceLo: new Uint32Array(0), draw });
    calibration = () => own;
    rateHz = own.smClockRateHz;
    placed = { startTicks: allocate.f64(n), durationTicks: allocate.f64(n), cycleStart: cycleStart === null ? null : allocate.share(cycleStart) };
    drawTally = drawCheck === null ? null : newTally();
    for (let i = 0; i < n; i++) {
      if (!placeRow(placed, i, startNs[i] as number, endNs[i] as number)) rejectPlacedRow(i, startNs[i] as number, endNs[i] as number);
      const st = placed.startTicks[i] as number;
      minStartTicks = Math.min(minStartTicks, st);
      if (drawCheck !== null) {
        const stage = ((packed[i] as number) >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
        tallyWarp(drawCheck.bounds, drawTally as Float64Array, draw[i] as number, st, st + (placed.durationTicks[i] as number), drawCheck.toleranceTicks, stage, drawCheck.binnedStages);
      }
    }
    scratch = allocOrderRows(n, allocate);
  }
  const shiftTicks = originShiftTicks(parsed, minStartTicks);
  const withCycles = placed.cycleStart !== null;
  const chunkShape: ChunkShape = { withCycles, wide: records.wide, subgroupSize: limits.subgroupSize, cyclesPerNs: cyclesPerNsOfRate(rateHz), withPosition: records.withPosition };
  // With marks the program builds the columns (marks are placed on rows), and a file is encoded from the trace.
  const columns = output === 'trace' || parsed.marks !== null ? allocWarpColumns(records, limits.drawCount, limits.subgroupSize, withCycles, allocate) : null;
  // The trace's header (the calibration record), and for a file its shape and packed prefix: built while the workers sort.
  const own: { header: TraceHeader | null; file: { shape: WtraceShape; prefix: WtracePrefix } | null } = { header: null, file: null };
  const buildHeader = () => {
    const result = calibration();
    own.header = wtrawHeader(parsed, { ...result, calibration: withDrawBounds(result.calibration, drawTally, drawToleranceNs) }, shiftTicks / TICKS_PER_NS);
    if (columns !== null) return;
    const shape = { ...own.header, count: n, smGroups: groups, chunk: chunkShape };
    own.file = { shape, prefix: packPrefix(shape) };
  };
  const input = { records, placed, scratch, shiftTicks, sink: columns !== null ? { columns } : { chunks: chunkShape } };
  // Canonical rows: each SM sorted by start (a busy SM in slices, merged by parts), written or encoded where sorted.
  const plan = planSlices(groups.offsets, workers);
  const ordered = (yield { phase: 'order', tasks: plan.tasks, assignment: plan.claim, ...input, meanwhile: buildHeader }) as { samples: Float64Array | null; chunk: ChunkReport | null }[];
  const reports: ChunkReport[] = [];
  const collect = (replies: readonly (ChunkReport | null)[]) => {
    for (const report of replies) if (report != null) reports.push(report);
  };
  collect(ordered.map((o) => o.chunk));
  const merges = mergeTasks(
    plan,
    ordered.map((o) => o.samples),
  );
  if (merges.tasks.length > 0) {
    collect((yield { phase: 'emit', tasks: merges.tasks, assignment: claimBySize(merges.weights), ...input }) as (ChunkReport | null)[]);
  }
  const header = own.header as TraceHeader;
  if (columns !== null) {
    const marked = parsed.marks === null ? header : { ...header, marks: placeMarks(parsed.marks, words, count, columns) };
    if (output === 'trace') return { header: marked, count: n, warps: columns, wtrace: null };
    return { header: marked, count: n, warps: null, wtrace: encodeWtrace({ ...marked, warps: columns }) };
  }
  // The file: laid out here from the chunks' sizes, each chunk copied in by the worker that encoded it.
  reports.sort((a, b) => a.from - b.from);
  const heads = chunkHeads(reports, chunkShape);
  const file = own.file as { shape: WtraceShape; prefix: WtracePrefix };
  const layout = layoutWtrace(
    file.shape,
    reports.map((r) => r.sizes),
    heads,
    file.prefix,
  );
  const wtrace = allocate.uint(layout.length, 0xff) as Uint8Array;
  writeFixed(layout, wtrace);
  const byWorker: number[][] = Array.from({ length: workers }, () => []);
  reports.forEach(({ worker }, k) => (byWorker[worker] as number[]).push(k));
  yield { phase: 'pack', tasks: reports.map(({ from }, k) => [from, k] as const), assignment: byWorker, layout, out: wtrace };
  return { header, count: n, warps: null, wtrace };
}
