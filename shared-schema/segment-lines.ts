/**
 * The lines segments place their warps with, and the placing: every row's
 * start and end from its SM's lines, quantized to ticks, checked against
 * its draw's timestamps on the way (draw-bounds.ts).
 */
import type { Line, SegmentFit } from './clock-fit.js';
import { lowerBoundOf, newTally, type DrawCheck } from './draw-bounds.js';
import { TICKS_PER_NS } from './model.js';
import { cycleDurationOfRecord, placeRow, type PlacedRows } from './raw-canonical.js';
import { PackedIds, RECORD_WORDS, RecordWord } from './raw-layout.js';
import type { ClockRows, PlacedFit } from './sm-clock.js';

/**
 * The line each segment of one SM places its warps with: its own, or, for
 * segments whose samples are nearly all late (an SM's first ~20 µs on the
 * H100 read one later instant, which only bounds the truth from above), one
 * that follows the counter from the nearest reliable segment of the same SM
 * (the donor; the following one first): its neighbour toward the donor's
 * line (settled first), or, where the chip's rate changed between them
 * (`changes`, device ns, ascending), a line at the segment's own slope (the
 * chip's rate at its time) meeting the neighbour's at the change, so no
 * line is carried across a rate change. `spans` holds each segment's
 * first and last sample's cycles; borrowed[s] tells which lines follow a donor.
 */
export function segmentLines(
  fits: readonly PlacedFit[],
  spans: readonly { readonly firstX: number; readonly lastX: number }[],
  changes: readonly number[],
): { lines: Line[]; borrowed: boolean[] } {
  const lines = fits.map((f) => f.fit.line);
  const borrowed = fits.map(() => false);
  const donor = fits.map((f, s) => (f.reliable ? null : nearestReliable(fits, s)));
  const follow = (s: number, neighbour: number) => {
    const line = lines[neighbour] as Line;
    const after = neighbour > s;
    const gapFrom = after ? (spans[s] as { lastX: number }).lastX : (spans[neighbour] as { lastX: number }).lastX;
    const gapTo = after ? (spans[neighbour] as { firstX: number }).firstX : (spans[s] as { firstX: number }).firstX;
    borrowed[s] = true;
    // The first rate change going away from the neighbour, if one falls in the gap: its line holds up to there.
    const from = line.intercept + line.slope * gapFrom;
    const to = line.intercept + line.slope * gapTo;
    const inGap = changes.filter((t) => t > from && t < to);
    if (inGap.length === 0) {
      lines[s] = line;
      return;
    }
    const meet = ((after ? (inGap[inGap.length - 1] as number) : (inGap[0] as number)) - line.intercept) / line.slope;
    const slope = (fits[s] as PlacedFit).fit.line.slope;
    lines[s] = { slope, intercept: line.intercept + line.slope * meet - slope * meet };
  };
  for (let s = fits.length - 1; s >= 0; s--) if (donor[s] != null && (donor[s] as number) > s) follow(s, s + 1);
  for (let s = 0; s < fits.length; s++) if (donor[s] != null && (donor[s] as number) < s) follow(s, s - 1);
  return { lines, borrowed };
}

/** Every segment's line and sample span, all SMs in order (segment s: slope, intercept, first x, last x). */
export interface SegmentLines {
  readonly slope: Float64Array;
  readonly intercept: Float64Array;
  readonly firstX: Float64Array;
  readonly lastX: Float64Array;
}

/** What placing a batch of segments found. */
export interface PlacedBatch {
  /** Each segment's [from, to] ns (its first row's start, its last row's end). */
  readonly spans: Float64Array;
  readonly minStartTicks: number;
  /** The first row whose times are out of range (rejectPlacedRow), else −1. */
  readonly badRow: number;
  /** The rows against their draws' bounds (draw-bounds.ts), null when unchecked. */
  readonly drawTally: Float64Array | null;
}


/**
 * Places the rows of segments [first, last) of one SM (global segment
 * indices; the SM's are [groupFirst, groupLast)): end ns from the segment's
 * line, start ns from the line in force at the start cycle, quantized to
 * ticks; start cycles counted from the SM's earliest (minStartCycles).
 */
export function placeSegments(
  rows: ClockRows,
  segments: readonly { readonly begin: number; readonly end: number }[],
  first: number,
  groupFirst: number,
  groupLast: number,
  lines: SegmentLines,
  minStartCycles: number,
  out: PlacedRows & { readonly cycleStart: Float64Array },
  drawCheck: DrawCheck | null,
): PlacedBatch {
  const { xs, byX, words } = rows;
  const { startTicks, durationTicks, cycleStart } = out;
  const spans = new Float64Array(segments.length * 2);
  // The draw check inline, where each row's ticks were just written (a pass of its own would read them again, scattered).
  const drawTally = drawCheck === null ? null : newTally();
  const lower = drawCheck?.bounds.lower ?? null;
  const upper = drawCheck?.bounds.upper ?? null;
  const tolerance = drawCheck?.toleranceTicks ?? 0;
  const binned = drawCheck?.binnedStages ?? 0;
  let checked = 0;
  let outside = 0;
  let worst = -Infinity;
  let worstDraw = -1;
  let minStartTicks = Infinity;
  let badRow = -1;
  segments.forEach(({ begin, end }, j) => {
    const s = first + j;
    const slope = lines.slope[s] as number;
    const intercept = lines.intercept[s] as number;
    const firstX = lines.firstX[s] as number;
    for (let k = begin; k < end; k++) {
      const i = byX[k] as number;
      const x = xs[k] as number;
      const duration = cycleDurationOfRecord(words, i);
      const e = intercept + slope * x;
      // A warp that started before this segment's first end sample started under an earlier line.
      const c = x - duration;
      const at = c >= firstX ? s : lineAt(lines, groupFirst, groupLast, c, s);
      // Lines of neighbouring segments need not meet exactly: never let a start pass its end.
      const start = Math.min((lines.intercept[at] as number) + (lines.slope[at] as number) * c, e);
      if (!placeRow(out, i, start, e) && badRow < 0) badRow = i;
      cycleStart[i] = c - minStartCycles;
      const st = startTicks[i] as number;
      if (st < minStartTicks) minStartTicks = st;
      if (lower === null) continue;
      const d = words[i * RECORD_WORDS + RecordWord.DRAW_ID] as number;
      const stage = ((words[i * RECORD_WORDS + RecordWord.PACKED_IDS] as number) >>> PackedIds.STAGE_SHIFT) & PackedIds.STAGE_MASK;
      const from = binned === 0 ? (lower[d] as number) : lowerBoundOf(drawCheck!.bounds, d, stage, binned);
      if (from === -Infinity) continue;
      // As tallyWarp (draw-bounds.ts): the lowest draw keeps a tie, so any split of the rows tallies the same.
      const excess = Math.max(from - st, st + (durationTicks[i] as number) - ((upper as Float64Array)[d] as number));
      checked++;
      if (excess > tolerance) outside++;
      if (excess > worst || (excess === worst && d < worstDraw)) {
        worst = excess;
        worstDraw = d;
      }
    }
    const firstRow = byX[begin] as number;
    const lastRow = byX[end - 1] as number;
    spans[j * 2] = (startTicks[firstRow] as number) / TICKS_PER_NS;
    spans[j * 2 + 1] = ((startTicks[lastRow] as number) + (durationTicks[lastRow] as number)) / TICKS_PER_NS;
  });
  if (drawTally !== null) drawTally.set([checked, outside, worst, worstDraw]);
  return { spans, minStartTicks, badRow, drawTally };
}

/**
 * The segment (of [first, last)) whose samples span x; `fallback` (the
 * warp's own segment) when x falls in an idle gap, where the rate of the
 * coming work is the better guess than extrapolating an earlier one across the gap.
 */
function lineAt(lines: SegmentLines, first: number, last: number, x: number, fallback: number): number {
  let lo = first;
  let hi = last - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lines.firstX[mid] as number) <= x) lo = mid;
    else hi = mid - 1;
  }
  return (lines.firstX[lo] as number) <= x && x <= (lines.lastX[lo] as number) ? lo : fallback;
}

/** The closest reliable segment, the following one first (null when none). */
function nearestReliable(fits: readonly { fit: SegmentFit; reliable: boolean }[], k: number): number | null {
  for (let d = 1; d < fits.length; d++) {
    if (fits[k + d]?.reliable) return k + d;
    if (fits[k - d]?.reliable) return k - d;
  }
  return null;
}
