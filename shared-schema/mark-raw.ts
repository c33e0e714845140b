/**
 * Marks in a raw dump (mark-layout.ts, README "Marks"): taken out of the
 * records before the warp pipeline (raw-records.ts, the calibration) sees
 * them, so that pipeline never meets stage 15 and a dump without marks takes
 * exactly the path it took before marks existed. Once the warps are built,
 * each mark is placed on its warp's row (placeMarks).
 */
import { laneMasks, smIdPerWarp } from './columns.js';
import { describeValue, fail } from './errors.js';
import { MARK_STAGE, MAX_MARKS, MarkWord } from './mark-layout.js';
import type { MarkColumns } from './mark-model.js';
import { TICKS_PER_NS, UNKNOWN_SLOT, UNKNOWN_SM, type WarpColumns } from './model.js';
import { PackedIds, RECORD_WORDS, RecordFlag, RecordWord } from './raw-layout.js';
import type { RecordLimits } from './raw-records.js';
import { sortedOrder } from './sort.js';

/** The mark records of a dump, RECORD_WORDS each, in file order. */
export interface RawMarks {
  readonly count: number;
  readonly words: Uint32Array;
}

/** A dump's records with its marks taken out. */
export interface SplitRecords {
  /** The warp records (the dump's own words when it has no marks). */
  readonly words: Uint32Array;
  readonly count: number;
  /** null: the dump has no mark. */
  readonly marks: RawMarks | null;
}

const CLOCK_FLAGS = RecordFlag.SM_CLOCK | RecordFlag.DEVICE_CLOCK;

function isMark(words: Uint32Array, w: number): boolean {
  return (((words[w + RecordWord.PACKED_IDS] as number) >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK) === MARK_STAGE;
}

/** Room for n records, in shared memory when the dump lies there (worker threads read the warp records where they lie). */
function wordsLike(source: Uint32Array, n: number): Uint32Array {
  const bytes = n * RECORD_WORDS * 4;
  return typeof SharedArrayBuffer !== 'undefined' && source.buffer instanceof SharedArrayBuffer ? new Uint32Array(new SharedArrayBuffer(bytes)) : new Uint32Array(n * RECORD_WORDS);
}

/**
 * Takes the marks out of `count` records: one scan; without a mark the
 * records come back as they are (no copy). Marks are validated like warp
 * records (raw-records.ts), naming the record by its index in the file.
 */
export function splitMarks(words: Uint32Array, count: number, limits: RecordLimits): SplitRecords {
  let marks = 0;
  for (let i = 0, w = 0; i < count; i++, w += RECORD_WORDS) if (isMark(words, w)) marks++;
  if (marks === 0) return { words, count, marks: null };
  const kept = wordsLike(words, count - marks);
  const markWords = new Uint32Array(marks * RECORD_WORDS);
  const fileIndex = new Uint32Array(marks);
  let k = 0;
  let m = 0;
  for (let i = 0, w = 0; i < count; i++, w += RECORD_WORDS) {
    const record = words.subarray(w, w + RECORD_WORDS);
    if (isMark(words, w)) {
      fileIndex[m] = i;
      markWords.set(record, m++ * RECORD_WORDS);
    } else {
      kept.set(record, k++ * RECORD_WORDS);
    }
  }
  // Marks carry their warp's clock flags: the first warp record's (the pipeline holds every warp to them), else the first mark's.
  const first = k > 0 ? kept : markWords;
  const clockFlags = ((first[RecordWord.PACKED_IDS] as number) >>> PackedIds.FLAGS_SHIFT) & CLOCK_FLAGS;
  checkMarks(markWords, fileIndex, limits, clockFlags);
  return { words: kept, count: k, marks: { count: m, words: markWords } };
}

function checkMarks(words: Uint32Array, fileIndex: Uint32Array, limits: RecordLimits, clockFlags: number): void {
  const { lo: laneLo, hi: laneHi } = laneMasks(limits.subgroupSize);
  const smLimit = limits.smCount ?? UNKNOWN_SM;
  const slotLimit = limits.warpsPerSm ?? UNKNOWN_SLOT;
  for (let m = 0, w = 0; m < fileIndex.length; m++, w += RECORD_WORDS) {
    const f = (name: string) => `records[${fileIndex[m]}].${name}`;
    const ids = words[w + MarkWord.PACKED_IDS] as number;
    const flags = (ids >>> PackedIds.FLAGS_SHIFT) & CLOCK_FLAGS;
    if (clockFlags === 0) fail('bad-value', f('flags'), 'records carry no clock (neither SM_CLOCK nor DEVICE_CLOCK)');
    if (flags !== clockFlags) fail('bad-value', f('flags'), `a mark's clock flags ${flags} differ from its warps' ${clockFlags}`);
    const sm = ids & PackedIds.SM_MASK;
    if (sm >= smLimit && sm !== UNKNOWN_SM) fail('bad-value', f('sm'), `SM ${sm}, but the device has ${limits.smCount} (${UNKNOWN_SM}: unknown)`);
    const slot = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
    if (slot >= slotLimit && slot !== UNKNOWN_SLOT) fail('bad-value', f('warpSlot'), `slot ${slot}, but the device has ${limits.warpsPerSm} per SM (${UNKNOWN_SLOT}: unknown)`);
    const draw = words[w + MarkWord.DRAW_ID] as number;
    if (draw >= limits.drawCount) fail('bad-value', f('drawId'), `draw ${draw}, but the metadata lists ${limits.drawCount} draws`);
    const sequence = words[w + MarkWord.SEQUENCE] as number;
    if (sequence >= MAX_MARKS) fail('bad-value', f('sequence'), `${describeValue(sequence)}, but an invocation writes at most ${MAX_MARKS} marks`);
    const lo = words[w + MarkWord.ACTIVE_MASK_LO] as number;
    // Word 3 of a mark is always lanes 32..63 (a mark has no position): 0 in subgroups of at most 32 lanes.
    const hi = words[w + MarkWord.ACTIVE_MASK_HI] as number;
    if ((lo & ~laneLo) !== 0 || (hi & ~laneHi) !== 0) {
      fail('bad-value', f('activeMask'), `lanes ${describeValue(lo >>> 0)}/${describeValue(hi >>> 0)} exceed a ${limits.subgroupSize}-lane subgroup`);
    }
    // The lane that wrote the mark was live.
    if ((lo | hi) === 0) fail('bad-value', f('activeMask'), 'a mark has at least one live lane');
  }
}

/** What a mark's warp record and its warp row share (the model keeps no raw clock): SM, slot, draw, stage, custom id, lanes 0..31, and the cycle count when the model holds cycles. */
function rowKey(sm: number, slot: number, draw: number, stage: number, customId: number, maskLo: number, cycles: number | null): string {
  return `${sm}:${slot}:${draw}:${stage}:${customId}:${maskLo}:${cycles ?? ''}`;
}

/**
 * Places marks on the trace's warps: each mark's warp record is the first
 * of `records` with its SM, slot, draw id and CLOCK_START == WARP_START;
 * that record's row is found by what the model keeps of it (rowKey; rows
 * of records alike are dealt out in order, first record to first row).
 * Marks without a warp are counted as orphans.
 */
export function placeMarks(marks: RawMarks, records: Uint32Array, recordCount: number, warps: WarpColumns): MarkColumns {
  const mw = marks.words;
  const n = marks.count;
  const parentKey = (sm: number, slot: number, draw: number, clock: number) => `${sm}:${slot}:${draw}:${clock}`;
  const markParentKey = (m: number) => {
    const w = m * RECORD_WORDS;
    const ids = mw[w + MarkWord.PACKED_IDS] as number;
    return parentKey(ids & PackedIds.SM_MASK, (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK, mw[w + MarkWord.DRAW_ID] as number, mw[w + MarkWord.WARP_START] as number);
  };
  // 1. Each mark's warp record: one scan, a string only for records whose start clock some mark names.
  const parentOf = new Map<string, number>();
  const starts = new Set<number>();
  for (let m = 0; m < n; m++) {
    parentOf.set(markParentKey(m), -1);
    starts.add(mw[m * RECORD_WORDS + MarkWord.WARP_START] as number);
  }
  for (let i = 0, w = 0; i < recordCount; i++, w += RECORD_WORDS) {
    const start = records[w + RecordWord.CLOCK_START] as number;
    if (!starts.has(start)) continue;
    const ids = records[w + RecordWord.PACKED_IDS] as number;
    const key = parentKey(ids & PackedIds.SM_MASK, (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK, records[w + RecordWord.DRAW_ID] as number, start);
    if (parentOf.get(key) === -1) parentOf.set(key, i);
  }
  // 2. The rows of those records, by the key the model keeps: parents in file order take rows in row order.
  const withCycles = warps.smCycleDuration !== null;
  const parents = [...new Set(parentOf.values())].filter((p) => p >= 0).sort((a, b) => a - b);
  const parentsByKey = new Map<string, number[]>();
  const customIds = new Set<number>();
  for (const p of parents) {
    const w = p * RECORD_WORDS;
    const ids = records[w + RecordWord.PACKED_IDS] as number;
    const cycles = withCycles ? ((records[w + RecordWord.CLOCK_END] as number) - (records[w + RecordWord.CLOCK_START] as number)) >>> 0 : null;
    const key = rowKey(ids & PackedIds.SM_MASK, (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK, records[w + RecordWord.DRAW_ID] as number, (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK, records[w + RecordWord.CUSTOM_ID] as number, records[w + RecordWord.ACTIVE_MASK_LO] as number, cycles);
    const list = parentsByKey.get(key);
    if (list === undefined) parentsByKey.set(key, [p]);
    else list.push(p);
    customIds.add(records[w + RecordWord.CUSTOM_ID] as number);
  }
  const rowOfParent = new Map<number, number>();
  const taken = new Map<string, number>();
  const sm = smIdPerWarp(warps);
  for (let r = 0; r < warps.count; r++) {
    if (!customIds.has(warps.customId[r] as number)) continue;
    const key = rowKey(sm[r] as number, warps.warpSlot[r] as number, warps.draw[r] as number, warps.stage[r] as number, warps.customId[r] as number, warps.activeMask[r] as number, withCycles ? (warps.smCycleDuration![r] as number) : null);
    const list = parentsByKey.get(key);
    if (list === undefined) continue;
    const k = taken.get(key) ?? 0;
    if (k >= list.length) continue;
    taken.set(key, k + 1);
    rowOfParent.set(list[k] as number, r);
  }
  // 3. Each placed mark's row and offset, then sorted by row, then sequence (file order among equals).
  const row = new Float64Array(n);
  const offsetNs = new Float64Array(n);
  let placed = 0;
  for (let m = 0; m < n; m++) {
    const p = parentOf.get(markParentKey(m)) as number;
    const r = p < 0 ? undefined : rowOfParent.get(p);
    if (r === undefined) {
      row[m] = -1;
      continue;
    }
    placed++;
    row[m] = r;
    offsetNs[m] = markOffsetNs(mw, m, records, p, warps.durationNs[r] as number);
  }
  const key = new Float64Array(n);
  for (let m = 0; m < n; m++) key[m] = row[m] === -1 ? Number.MAX_SAFE_INTEGER : (row[m] as number) * MAX_MARKS + (mw[m * RECORD_WORDS + MarkWord.SEQUENCE] as number);
  const order = sortedOrder(key);
  const wide = warps.activeMaskHi !== null;
  const out = {
    count: placed,
    warp: new Uint32Array(placed),
    id: new Uint32Array(placed),
    sequence: new Uint8Array(placed),
    offsetNs: new Float32Array(placed),
    activeMask: new Uint32Array(placed),
    activeMaskHi: wide ? new Uint32Array(placed) : null,
    orphans: n - placed,
  };
  for (let k = 0; k < placed; k++) {
    const m = order[k] as number;
    const w = m * RECORD_WORDS;
    out.warp[k] = row[m] as number;
    out.id[k] = mw[w + MarkWord.ID] as number;
    out.sequence[k] = mw[w + MarkWord.SEQUENCE] as number;
    out.offsetNs[k] = offsetNs[m] as number;
    out.activeMask[k] = mw[w + MarkWord.ACTIVE_MASK_LO] as number;
    if (out.activeMaskHi !== null) out.activeMaskHi[k] = mw[w + MarkWord.ACTIVE_MASK_HI] as number;
  }
  return out;
}

/**
 * Mark m's time after its warp's start: its clock words less the warp's
 * start (mod 2^32) at the warp's own ns per clock (duration / (end − start)),
 * so a mark needs no calibration of its own. Quantized to ticks as warp
 * times are (a .wtrace holds ticks: the trace and its file agree), and
 * within [0, duration].
 */
function markOffsetNs(marks: Uint32Array, m: number, records: Uint32Array, parent: number, durationNs: number): number {
  const w = parent * RECORD_WORDS;
  const clocks = ((records[w + RecordWord.CLOCK_END] as number) - (records[w + RecordWord.CLOCK_START] as number)) >>> 0;
  if (clocks === 0) return 0;
  const elapsed = ((marks[m * RECORD_WORDS + MarkWord.CLOCK] as number) - (marks[m * RECORD_WORDS + MarkWord.WARP_START] as number)) >>> 0;
  const ns = Math.min(durationNs, (elapsed * durationNs) / clocks);
  return Math.min(durationNs, Math.round(ns * TICKS_PER_NS) / TICKS_PER_NS);
}
