/**
 * Warps picked by the viewer's filters, highlighted on the timeline (the rest
 * dimmed), counted and listed: the find box's matching draws (and, with
 * `stage:` terms, only warps of those stages), a duration range of one stage
 * (a histogram's bins in the Statistics panel), and the screen panel's brush.
 * Filters that are set narrow each other: a warp is highlighted when it
 * passes every one.
 *
 * The result is a RowHighlight (row-highlight.ts: a bitset and the sorted
 * rows) with the count, the warp-time and the longest warps, built a slice of
 * rows per step (warpFilterSteps; components/warp-filter-sync.ts drives it on
 * the page), so a filter over 5 M warps never holds one task for long.
 */
import type { Trace } from '../../shared-schema/index.js';
import { parseDrawQuery } from './draw-search.js';
import { isHighlighted, type RowHighlight } from './row-highlight.js';

/** Durations of one stage in [minNs, maxNs) (a histogram's bins), in one draw or all. */
export interface DurationFilter {
  readonly stage: number;
  /** Only this draw's warps (the selected draw's stage table), or null: every draw. */
  readonly draw: number | null;
  readonly minNs: number;
  readonly maxNs: number;
}

/** The find box's matches: draws, and the stages its `stage:` terms allow (all bits: any). */
export interface FindFilter {
  readonly draws: Uint32Array;
  readonly stageMask: number;
  /** The query, for the summary line. */
  readonly text: string;
}

export interface WarpFilters {
  readonly find: FindFilter | null;
  readonly duration: DurationFilter | null;
  /** The screen panel's brush (or another panel's rows). */
  readonly rows: RowHighlight | null;
}

/** Longest warps a highlight keeps for its list. */
export const LONGEST_KEPT = 100;

export interface WarpHighlight extends RowHighlight {
  readonly filters: WarpFilters;
  /** Warps highlighted. */
  readonly count: number;
  /** Their summed durations, ns. */
  readonly warpTimeNs: number;
  /** Up to LONGEST_KEPT of them, longest first. */
  readonly longest: Uint32Array;
  /** Per draw, 1 when the find box matched it (the draw track dims the others); null without a find filter. */
  readonly draws: Uint8Array | null;
}

/** Every stage a query's `stage:` terms allow (each term one of its stages; all bits without such terms). */
export function stageMaskOfQuery(query: string): number {
  let mask = -1;
  for (const t of parseDrawQuery(query).terms) if (t.kind === 'stage') mask &= t.stages.reduce((m, s) => m | (1 << s), 0);
  return mask;
}

export function hasFilters(f: WarpFilters): boolean {
  return f.find !== null || f.duration !== null || f.rows !== null;
}

/** The highlight of `filters`, `slice` rows per step, yielding between steps. */
export function* warpFilterSteps(trace: Trace, filters: WarpFilters, slice: number): Generator<void, WarpHighlight> {
  const w = trace.warps;
  const n = w.count;
  if (filters.find === null && filters.duration === null && filters.rows !== null) return brushOnly(trace, filters, filters.rows);
  const mask = new Uint32Array(Math.ceil(n / 32));
  const drawOk = filters.find === null ? null : drawMask(trace, filters.find.draws);
  const stageMask = filters.find?.stageMask ?? -1;
  const dur = filters.duration;
  const brush = filters.rows;
  const { draw, stage, durationNs } = w;
  const longest = new LongestRows(LONGEST_KEPT);
  let count = 0;
  let warpTimeNs = 0;
  for (let begin = 0; begin < n; begin += slice) {
    const end = Math.min(n, begin + slice);
    for (let i = begin; i < end; i++) {
      if (drawOk !== null && drawOk[draw[i]!] !== 1) continue;
      if (((stageMask >>> stage[i]!) & 1) === 0) continue;
      const d = durationNs[i]!;
      if (dur !== null && (stage[i] !== dur.stage || d < dur.minNs || d >= dur.maxNs || (dur.draw !== null && draw[i] !== dur.draw))) continue;
      if (brush !== null && !isHighlighted(brush, i)) continue;
      mask[i >>> 5]! |= 1 << (i & 31);
      count++;
      warpTimeNs += d;
      longest.offer(i, d);
    }
    if (end < n) yield;
  }
  const rows = new Uint32Array(count);
  let k = 0;
  const wordSlice = Math.max(1, Math.floor(slice / 32));
  for (let word = 0; word < mask.length; word++) {
    let bits = mask[word]!;
    while (bits !== 0) {
      const low = bits & -bits;
      rows[k++] = word * 32 + (31 - Math.clz32(low));
      bits ^= low;
    }
    if (word % wordSlice === wordSlice - 1) yield;
  }
  return { rows, mask, filters, count, warpTimeNs, longest: longest.sorted(), draws: drawOk };
}

/** A brush alone: its own rows, a cost that follows them. */
function brushOnly(trace: Trace, filters: WarpFilters, brush: RowHighlight): WarpHighlight {
  const longest = new LongestRows(LONGEST_KEPT);
  let warpTimeNs = 0;
  for (const r of brush.rows) {
    const d = trace.warps.durationNs[r]!;
    warpTimeNs += d;
    longest.offer(r, d);
  }
  return { rows: brush.rows, mask: brush.mask, filters, count: brush.rows.length, warpTimeNs, longest: longest.sorted(), draws: null };
}

/** Per draw, 1 for the listed draws (indices past the trace's draws ignored). */
function drawMask(trace: Trace, draws: Uint32Array): Uint8Array {
  // One byte past the draws: warps whose draw index is out of range read 0.
  const ok = new Uint8Array(trace.draws.length + 1);
  for (const d of draws) if (d < trace.draws.length) ok[d] = 1;
  return ok;
}

/**
 * The k longest rows seen, offered in ascending row order: a heap whose root is the row to
 * drop first (the shortest; among equal durations the latest row), so equal durations keep
 * the earlier rows.
 */
class LongestRows {
  private readonly rows: Uint32Array;
  private readonly ns: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.rows = new Uint32Array(k);
    this.ns = new Float64Array(k);
  }

  /** Slot a drops before slot b. */
  private before(a: number, b: number): boolean {
    return this.ns[a]! < this.ns[b]! || (this.ns[a] === this.ns[b] && this.rows[a]! > this.rows[b]!);
  }

  private swap(a: number, b: number): void {
    const r = this.rows[a]!;
    const n = this.ns[a]!;
    this.rows[a] = this.rows[b]!;
    this.ns[a] = this.ns[b]!;
    this.rows[b] = r;
    this.ns[b] = n;
  }

  offer(row: number, ns: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      this.rows[i] = row;
      this.ns[i] = ns;
      while (i > 0 && this.before(i, (i - 1) >> 1)) {
        this.swap(i, (i - 1) >> 1);
        i = (i - 1) >> 1;
      }
      return;
    }
    // A later row of equal duration never displaces an earlier one.
    if (ns <= this.ns[0]!) return;
    this.rows[0] = row;
    this.ns[0] = ns;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const c = l + 1 < this.size && this.before(l + 1, l) ? l + 1 : l;
      if (!this.before(c, i)) break;
      this.swap(c, i);
      i = c;
    }
  }

  /** Rows longest first (equal durations: lower row first). */
  sorted(): Uint32Array {
    const idx = Array.from({ length: this.size }, (_, i) => i).sort((a, b) => this.ns[b]! - this.ns[a]! || this.rows[a]! - this.rows[b]!);
    return Uint32Array.from(idx, (i) => this.rows[i]!);
  }
}
