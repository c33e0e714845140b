/**
 * The positioned warps of a set of draws in execution order (by start time):
 * the order the screen view paints them in, so a pixel ends up showing the
 * warp that started last there, and a time cutoff is a prefix of the order.
 */
import { NO_POSITION } from '../shared-schema/position.js';
import { TICKS_PER_NS } from '../shared-schema/model.js';
import { argsortNonNegative, radixSortPairs } from './radix.js';
import type { ScreenColumns } from './screen-columns.js';

export interface ScreenOrder {
  /** Rows with a position in the selected draws, by start time (ties by row). */
  readonly rows: Uint32Array;
  /** startNs of rows[k], ascending. */
  readonly startNs: Float64Array;
  /**
   * End (start + duration) of rows[k], ns: made on first use (only time
   * windows need it; its gather reads the duration column at random).
   */
  readonly endNs: Float64Array;
  /** Latest end over the order, ns (-Infinity when empty). */
  readonly lastEndNs: number;
}

/** endNs when `window` needs it, else null (no window: no end is read). */
export function endsFor(order: ScreenOrder, windowStartNs: number): Float64Array | null {
  return windowStartNs === -Infinity ? null : order.endNs;
}

/** Which warps an image shows: those in flight in `window` (when given) that started by `untilNs`. */
export interface ScreenFilter {
  /** Time cutoff: only warps started at or before it (the frame as it stood then). Infinity: all. */
  readonly untilNs?: number;
  /** A time range (the timeline's selection): only warps that overlap it. null or absent: all. */
  readonly window?: { readonly startNs: number; readonly endNs: number } | null;
}

/**
 * The order of the positioned warps of the draws in `draws` (a mask over draw
 * indices; null: every draw) and of the stages in `stages` (a mask over stage
 * codes, screen-columns.ts stageSet; null: every stage).
 */
export function screenOrder(cols: ScreenColumns, draws: Uint8Array | null, stages: Uint8Array | null = null): ScreenOrder {
  const { position, draw, stage, startNs, durationNs } = cols;
  const shown = (i: number) => position[i] !== NO_POSITION && (draws === null || draws[draw[i]!] === 1) && (stages === null || stages[stage[i]!] === 1);
  let n = 0;
  let minStart = Infinity;
  let lastEndNs = -Infinity;
  for (let i = 0; i < cols.count; i++) {
    if (!shown(i)) continue;
    n++;
    if (startNs[i]! < minStart) minStart = startNs[i]!;
    if (startNs[i]! + durationNs[i]! > lastEndNs) lastEndNs = startNs[i]! + durationNs[i]!;
  }
  const rows = new Uint32Array(n);
  for (let i = 0, k = 0; i < cols.count; i++) if (shown(i)) rows[k++] = i;
  const { rows: sortedRows, ticks } = sortByStart(rows, startNs, minStart);
  const sortedStarts = new Float64Array(n);
  // The sorted ticks give the starts exactly, without a random read of the start column.
  if (ticks === null) for (let k = 0; k < n; k++) sortedStarts[k] = startNs[sortedRows[k]!]!;
  else for (let k = 0; k < n; k++) sortedStarts[k] = minStart + ticks[k]! / TICKS_PER_NS;
  let ends: Float64Array | null = null;
  return {
    rows: sortedRows,
    startNs: sortedStarts,
    get endNs(): Float64Array {
      if (ends === null) {
        ends = new Float64Array(n);
        for (let k = 0; k < n; k++) ends[k] = sortedStarts[k]! + durationNs[sortedRows[k]!]!;
      }
      return ends;
    },
    lastEndNs,
  };
}

/**
 * `rows` sorted by start (stable). Starts are multiples of 1/TICKS_PER_NS:
 * when the rows span fewer than 2^32 ticks (268 ms) one 32-bit radix sort of
 * the ticks, carrying the rows, does it (and gives the sorted ticks);
 * otherwise the 64-bit float argsort (ticks null).
 */
function sortByStart(rows: Uint32Array, startNs: Float64Array, minStart: number): { rows: Uint32Array; ticks: Uint32Array | null } {
  const n = rows.length;
  const ticks = new Uint32Array(n);
  let exact = true;
  for (let k = 0; k < n && exact; k++) {
    const t = (startNs[rows[k]!]! - minStart) * TICKS_PER_NS;
    exact = t <= 0xffffffff && Number.isInteger(t);
    ticks[k] = t;
  }
  if (exact) {
    const sorted = radixSortPairs(ticks, rows, new Uint32Array(n), new Uint32Array(n));
    return { rows: sorted.payload, ticks: sorted.keys };
  }
  // The float argsort wants non-negative keys; shifting by the minimum keeps the order.
  const starts = new Float64Array(n);
  for (let k = 0; k < n; k++) starts[k] = startNs[rows[k]!]! - minStart;
  const perm = argsortNonNegative(starts);
  const sorted = new Uint32Array(n);
  for (let k = 0; k < n; k++) sorted[k] = rows[perm[k]!]!;
  return { rows: sorted, ticks: null };
}

/** Entries of `order` started at or before `untilNs`: the prefix [0, result). */
export function startedBy(order: ScreenOrder, untilNs: number): number {
  const s = order.startNs;
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (s[mid]! <= untilNs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The prefix of `order` a filter can show, and the window's start (-Infinity: none). */
export function filterBounds(order: ScreenOrder, filter: ScreenFilter): { end: number; windowStartNs: number } {
  const window = filter.window ?? null;
  const until = Math.min(filter.untilNs ?? Infinity, window === null ? Infinity : window.endNs);
  // A window starting at -Infinity admits every end, like no window.
  return { end: until === Infinity ? order.rows.length : startedBy(order, until), windowStartNs: window === null ? -Infinity : window.startNs };
}

/** Time span of the order (first start, last end), for the time slider; null when empty. */
export function orderSpan(order: ScreenOrder): { startNs: number; endNs: number } | null {
  const n = order.rows.length;
  if (n === 0) return null;
  return { startNs: order.startNs[0]!, endNs: order.lastEndNs };
}
