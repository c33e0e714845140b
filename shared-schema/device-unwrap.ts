/**
 * Device-clock low words to ticks since the capture origin (README.md,
 * "Calibration"). Records hold the low 32 bits of the device clock, which
 * wrap every 2^32 ticks (4.29 s where it counts ns, as on lavapipe and
 * NVIDIA); the draws' timestamp queries are full 64-bit values. Draws can
 * last seconds (a software device, a path tracer, a GPU hang check), so a
 * word is not unwrapped next to its draw's begin timestamp (a signed 32-bit
 * difference breaks 2^31 ticks away, and llvmpipe writes a begin timestamp
 * inside a render pass when it starts its last tile: a 4.0 s draw read
 * 0.49 s) but below its draw's end timestamp, which follows all of its work:
 * the latest value at most CEILING_SLACK_TICKS past it. That is exact while
 * the capture is shorter than 2^32 ticks less the slack. In a longer one the
 * records are unwrapped in file order: the GPU appends a record right after
 * its clocks are read, so file order is end-time order give or take a
 * descheduled thread (ORDER_JITTER_TICKS); each record takes the earliest
 * value not before the previous record's less that jitter, unless that lies
 * past its draw's ceiling. A warp of any length (below 2^32 cycles, all its
 * record can tell) in a draw of any length reads right, as long as the GPU
 * never goes 2^32 ticks less the jitter without finishing a warp.
 */
import type { SmGroups } from './model.js';
import { PackedIds, RECORD_WORDS, RecordWord } from './raw-layout.js';

const WRAP = 2 ** 32;
/** How far past its draw's end timestamp (ticks) a warp's device-clock read may lie (lavapipe's reach 8.4 µs). */
export const CEILING_SLACK_TICKS = 2 ** 28;
/** How far (ticks) a record may read its clock before the one written before it (a thread descheduled between its clock reads and its append). */
export const ORDER_JITTER_TICKS = 2 ** 28;

/** Per draw, where its device-clock words are unwrapped, in ticks since the origin. */
export interface DrawClockAnchors {
  /** An instant near the draw's warps (its begin timestamp, else the origin) and its low 32 bits: nearest unwrap for draws without timestamps. */
  readonly drawAnchorRelTicks: Float64Array;
  readonly drawAnchorLo: Uint32Array;
  /** The latest device time the draw's warps may read (end timestamp + CEILING_SLACK_TICKS), NaN without timestamps, and its low 32 bits. */
  readonly drawCeilingRelTicks: Float64Array;
  readonly drawCeilingLo: Uint32Array;
}

/** Signed difference a − b of two uint32 values, as if they were wrapping counters. */
function wrapDelta(a: number, b: number): number {
  return (a - b) | 0;
}

/**
 * The anchors from each draw's timestamps (device ticks, null: not written)
 * and the origin (null: no timestamp at all, when `firstLo`, the first
 * record's device word, anchors every draw).
 */
export function drawClockAnchors(begin: readonly (bigint | null)[], end: readonly (bigint | null)[], origin: bigint | null, firstLo: number): DrawClockAnchors {
  const n = begin.length;
  const anchors = {
    drawAnchorRelTicks: new Float64Array(n),
    drawAnchorLo: new Uint32Array(n).fill(origin === null ? firstLo : Number(origin & 0xffffffffn)),
    drawCeilingRelTicks: new Float64Array(n).fill(NaN),
    drawCeilingLo: new Uint32Array(n),
  };
  if (origin === null) return anchors;
  for (let d = 0; d < n; d++) {
    const b = begin[d] ?? null;
    const e = end[d] ?? null;
    if (b === null || e === null) continue;
    anchors.drawAnchorRelTicks[d] = Number(b - origin);
    anchors.drawAnchorLo[d] = Number(b & 0xffffffffn);
    const ceiling = e + BigInt(CEILING_SLACK_TICKS);
    anchors.drawCeilingRelTicks[d] = Number(ceiling - origin);
    anchors.drawCeilingLo[d] = Number(ceiling & 0xffffffffn);
  }
  return anchors;
}

/** Ticks since the origin of device word `lo` of draw d, on its own: the latest at or below the draw's ceiling (nearest its anchor without timestamps). */
export function drawTicksOf(a: DrawClockAnchors, lo: number, d: number): number {
  const ceiling = a.drawCeilingRelTicks[d] as number;
  if (Number.isNaN(ceiling)) return (a.drawAnchorRelTicks[d] as number) + wrapDelta(lo, a.drawAnchorLo[d] as number);
  return ceiling - (((a.drawCeilingLo[d] as number) - lo) >>> 0);
}

/** Ticks of device word `lo` of draw d that follows a record read at `previous` ticks (see the file's comment). */
export function orderedTicksOf(a: DrawClockAnchors, lo: number, d: number, previous: number): number {
  const latest = drawTicksOf(a, lo, d);
  if (Number.isNaN(a.drawCeilingRelTicks[d] as number)) return latest;
  const lower = Math.max(-CEILING_SLACK_TICKS, previous - ORDER_JITTER_TICKS);
  const wrapsAbove = Math.floor((latest - lower) / WRAP);
  return wrapsAbove > 0 ? latest - wrapsAbove * WRAP : latest;
}

/** Whether a draw's ceiling lies 2^32 ticks or more past the earliest a warp may read (the capture start less the slack): only then does file order matter. */
export function needsOrderedUnwrap(a: DrawClockAnchors): boolean {
  for (let d = 0; d < a.drawCeilingRelTicks.length; d++) if ((a.drawCeilingRelTicks[d] as number) + CEILING_SLACK_TICKS >= WRAP) return true;
  return false;
}

/**
 * The device ticks of every record, unwrapped in file order (`fileWords`:
 * the records as written; `word`: the record word holding the device
 * clock's low bits), stored at the record's SM-major row: rows keep file
 * order within an SM (raw-records.ts scatterRecords).
 */
export function rowDeviceTicks(fileWords: Uint32Array, count: number, groups: SmGroups, a: DrawClockAnchors, word: number, out: Float64Array): Float64Array {
  const cursor = new Float64Array(65536).fill(-1);
  groups.sm.forEach((sm, g) => (cursor[sm] = groups.offsets[g] as number));
  let previous = 0;
  for (let i = 0, w = 0; i < count; i++, w += RECORD_WORDS) {
    const sm = (fileWords[w + RecordWord.PACKED_IDS] as number) & PackedIds.SM_MASK;
    const row = cursor[sm] as number;
    cursor[sm] = row + 1;
    previous = orderedTicksOf(a, fileWords[w + word] as number, fileWords[w + RecordWord.DRAW_ID] as number, previous);
    out[row] = previous;
  }
  return out;
}
