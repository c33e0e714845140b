/**
 * Raw GPU records → SM-major records, in two passes: the first validates
 * every field and counts records per SM, the second copies each 32-byte
 * record to its SM's next row. Everything after (calibration, canonical
 * order) then works on one SM's contiguous rows, and reads a whole record
 * from one cache line.
 */
import { laneMasks } from './columns.js';
import { describeValue, fail } from './errors.js';
import { UNKNOWN_SLOT, UNKNOWN_SM, type SmGroups } from './model.js';
import { NO_POSITION, positionProblem } from './position.js';
import { PackedIds, RECORD_WORDS, RecordFlag, RecordWord } from './raw-layout.js';
import { STAGE_COUNT } from './stages.js';

/** What records may hold: limits from the metadata. */
export interface RecordLimits {
  readonly drawCount: number;
  /** null: unknown (any SM id or slot is taken). */
  readonly smCount: number | null;
  readonly warpsPerSm: number | null;
  readonly subgroupSize: number;
}

export interface SmMajorRecords {
  readonly count: number;
  readonly groups: SmGroups;
  /** RecordFlag bits shared by every record (SM_CLOCK, DEVICE_CLOCK). */
  readonly clockFlags: number;
  /** The records, RECORD_WORDS each, grouped by SM (file order within an SM). */
  readonly words: Uint32Array;
  /** Subgroups wider than 32 lanes: ACTIVE_MASK_HI holds lanes 32..63. */
  readonly wide: boolean;
  /** Largest custom id (for the column width). */
  readonly maxCustomId: number;
  /** OR of every device-clock word (its lowest bit is the clock's step). */
  readonly deviceLoOr: number;
  /** Some record holds a screen position (RecordFlag.POSITION, not NO_POSITION): the trace gets a position column. */
  readonly withPosition: boolean;
}

/** What one pass over a range of records found. */
export interface RecordCounts {
  /** The SM ids seen (ascending) and how many records each has: small to send back from a worker. */
  readonly sms: Uint16Array;
  readonly counts: Uint32Array;
  readonly maxCustomId: number;
  readonly deviceLoOr: number;
  /** Records with a screen position (flag POSITION, word 3 not NO_POSITION). */
  readonly positions: number;
}

/** The screen position of record word index w (RecordFlag.POSITION set), else NO_POSITION. */
export function positionOfRecord(words: Uint32Array, w: number): number {
  const flags = (words[w + RecordWord.PACKED_IDS] as number) >>> PackedIds.FLAGS_SHIFT;
  return (flags & RecordFlag.POSITION) === 0 ? NO_POSITION : (words[w + RecordWord.POSITION] as number);
}

/** The clock flags of the first record: every record must carry the same. */
export function clockFlagsOf(words: Uint32Array, count: number): number {
  if (count === 0) return 0;
  const flags = ((words[RecordWord.PACKED_IDS] as number) >>> PackedIds.FLAGS_SHIFT) & (RecordFlag.SM_CLOCK | RecordFlag.DEVICE_CLOCK);
  if (flags === 0) fail('bad-value', 'records[0].flags', 'records carry no clock (neither SM_CLOCK nor DEVICE_CLOCK)');
  return flags;
}

/** Validates records [begin, end) and counts them per SM. */
export function countRecords(words: Uint32Array, begin: number, end: number, limits: RecordLimits, clockFlags: number): RecordCounts {
  const { lo: laneLo, hi: laneHi } = laneMasks(limits.subgroupSize);
  const wide = limits.subgroupSize > 32;
  const smLimit = limits.smCount ?? UNKNOWN_SM;
  const slotLimit = limits.warpsPerSm ?? UNKNOWN_SLOT;
  const clockMask = RecordFlag.SM_CLOCK | RecordFlag.DEVICE_CLOCK;
  const counts = new Uint32Array(65536);
  let maxCustomId = 0;
  let deviceLoOr = 0;
  let positions = 0;
  for (let i = begin, w = begin * RECORD_WORDS; i < end; i++, w += RECORD_WORDS) {
    const ids = words[w + RecordWord.PACKED_IDS] as number;
    const sm = ids & PackedIds.SM_MASK;
    const slot = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
    const stage = (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
    const draw = words[w + RecordWord.DRAW_ID] as number;
    const lo = words[w + RecordWord.ACTIVE_MASK_LO] as number;
    const positioned = ((ids >>> PackedIds.FLAGS_SHIFT) & RecordFlag.POSITION) !== 0;
    // Word 3 is lanes 32..63 in wide subgroups, the position when flagged (only allowed in narrow ones).
    const hi = wide ? (words[w + RecordWord.ACTIVE_MASK_HI] as number) : 0;
    if (positioned) {
      const word = words[w + RecordWord.POSITION] as number;
      if (wide) fail('bad-value', `records[${i}].position`, `flag POSITION in a ${limits.subgroupSize}-lane subgroup, where word 3 holds lanes 32..63`);
      const problem = positionProblem(word);
      if (problem !== null) fail('bad-value', `records[${i}].position`, problem);
      if (word !== NO_POSITION) positions++;
    }
    // One test for the common case; the details only when something is off.
    if (
      ((ids >>> PackedIds.FLAGS_SHIFT) & clockMask) !== clockFlags ||
      stage >= STAGE_COUNT ||
      draw >= limits.drawCount ||
      (sm >= smLimit && sm !== UNKNOWN_SM) ||
      (slot >= slotLimit && slot !== UNKNOWN_SLOT) ||
      (lo & ~laneLo) !== 0 ||
      (hi & ~laneHi) !== 0 ||
      (lo | hi) === 0
    ) {
      badRecord(i, ids, draw, lo, hi, limits, clockFlags);
    }
    counts[sm]!++;
    const custom = words[w + RecordWord.CUSTOM_ID] as number;
    if (custom > maxCustomId) maxCustomId = custom;
    deviceLoOr |= words[w + RecordWord.DEVICE_CLOCK] as number;
  }
  const sms: number[] = [];
  for (let sm = 0; sm < 65536; sm++) if (counts[sm] !== 0) sms.push(sm);
  return { sms: Uint16Array.from(sms), counts: Uint32Array.from(sms, (sm) => counts[sm] as number), maxCustomId, deviceLoOr, positions };
}

/**
 * The SM groups of all parts' counts, and per part where its first record of
 * each group goes: cursors[part * groups + g], in words. Parts keep file
 * order, so the grouped records keep file order within an SM.
 */
export function planGroups(parts: readonly RecordCounts[]): { groups: SmGroups; cursors: Float64Array } {
  // Each part's count per SM id (0 where it saw none).
  const byPart = parts.map((p) => {
    const counts = new Map<number, number>();
    p.sms.forEach((s, j) => counts.set(s, p.counts[j] as number));
    return counts;
  });
  const ids = [...new Set(parts.flatMap((p) => Array.from(p.sms)))].sort((a, b) => a - b);
  const sm = Uint16Array.from(ids);
  const offsets = new Uint32Array(ids.length + 1);
  const cursors = new Float64Array(parts.length * ids.length);
  let at = 0;
  ids.forEach((s, g) => {
    offsets[g] = at;
    byPart.forEach((counts, k) => {
      cursors[k * ids.length + g] = at * RECORD_WORDS;
      at += counts.get(s) ?? 0;
    });
  });
  offsets[ids.length] = at;
  return { groups: { sm, offsets }, cursors };
}

/** Copies records [begin, end) to their SM's rows of `out`; cursorBySm (words, per SM id) advances. */
export function scatterRecords(words: Uint32Array, begin: number, end: number, cursorBySm: Float64Array, out: Uint32Array): void {
  for (let i = begin, w = begin * RECORD_WORDS; i < end; i++, w += RECORD_WORDS) {
    const sm = (words[w + RecordWord.PACKED_IDS] as number) & PackedIds.SM_MASK;
    const to = cursorBySm[sm] as number;
    cursorBySm[sm] = to + RECORD_WORDS;
    // The whole record, word by word (RECORD_WORDS is 8).
    out[to] = words[w] as number;
    out[to + 1] = words[w + 1] as number;
    out[to + 2] = words[w + 2] as number;
    out[to + 3] = words[w + 3] as number;
    out[to + 4] = words[w + 4] as number;
    out[to + 5] = words[w + 5] as number;
    out[to + 6] = words[w + 6] as number;
    out[to + 7] = words[w + 7] as number;
  }
}

/** A part's cursors by SM id, from planGroups' cursors. */
export function cursorsOfPart(groups: SmGroups, cursors: Float64Array, part: number): Float64Array {
  const bySm = new Float64Array(65536);
  const count = groups.sm.length;
  for (let g = 0; g < count; g++) bySm[groups.sm[g] as number] = cursors[part * count + g] as number;
  return bySm;
}

/** SM-major records from the parts' counts (see planGroups). */
export function smMajorRecords(parts: readonly RecordCounts[], groups: SmGroups, clockFlags: number, words: Uint32Array, wide: boolean): SmMajorRecords {
  let maxCustomId = 0;
  let deviceLoOr = 0;
  let positions = 0;
  for (const p of parts) {
    maxCustomId = Math.max(maxCustomId, p.maxCustomId);
    deviceLoOr |= p.deviceLoOr;
    positions += p.positions;
  }
  return { count: groups.offsets[groups.offsets.length - 1] as number, groups, clockFlags, words, wide, maxCustomId, deviceLoOr, withPosition: positions > 0 };
}

/** One word of every record in rows [begin, end) of SM-major records, as a column. */
export function recordColumn(words: Uint32Array, word: number, begin: number, end: number, out: Uint32Array = new Uint32Array(end - begin)): Uint32Array {
  for (let i = begin, k = 0, w = begin * RECORD_WORDS + word; i < end; i++, k++, w += RECORD_WORDS) out[k] = words[w] as number;
  return out;
}

/** Names the first bad field of record i. */
function badRecord(i: number, ids: number, draw: number, lo: number, hi: number, limits: RecordLimits, clockFlags: number): never {
  const f = (name: string) => `records[${i}].${name}`;
  const flags = (ids >>> PackedIds.FLAGS_SHIFT) & (RecordFlag.SM_CLOCK | RecordFlag.DEVICE_CLOCK);
  if (flags !== clockFlags) fail('bad-value', f('flags'), `clock flags ${flags} differ from the first record's ${clockFlags}`);
  const stage = (ids >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
  if (stage >= STAGE_COUNT) fail('bad-value', f('stage'), `unknown stage code ${stage}`);
  if (draw >= limits.drawCount) fail('bad-value', f('drawId'), `draw ${draw}, but the metadata lists ${limits.drawCount} draws`);
  const sm = ids & PackedIds.SM_MASK;
  if (sm !== UNKNOWN_SM && limits.smCount !== null && sm >= limits.smCount) fail('bad-value', f('sm'), `SM ${sm}, but the device has ${limits.smCount} (${UNKNOWN_SM}: unknown)`);
  const slot = (ids >>> PackedIds.SLOT_SHIFT) & PackedIds.SLOT_MASK;
  if (slot !== UNKNOWN_SLOT && limits.warpsPerSm !== null && slot >= limits.warpsPerSm) {
    fail('bad-value', f('warpSlot'), `slot ${slot}, but the device has ${limits.warpsPerSm} per SM (${UNKNOWN_SLOT}: unknown)`);
  }
  const { lo: laneLo, hi: laneHi } = laneMasks(limits.subgroupSize);
  if ((lo & ~laneLo) !== 0 || (hi & ~laneHi) !== 0) {
    fail('bad-value', f('activeMask'), `lanes ${describeValue(lo >>> 0)}/${describeValue(hi >>> 0)} exceed a ${limits.subgroupSize}-lane subgroup`);
  }
  return fail('bad-value', f('activeMask'), 'a warp has at least one active lane');
}
