/**
 * The draw track: each draw's span (first warp start to last warp end, or
 * its GPU timestamps when it recorded no warps), packed into rows so that no
 * two draws of a row overlap (greedy, by start time, first row free). At
 * most MAX_DRAW_ROWS such rows; draws that fit in none go to one overflow
 * row below them, drawn as density (translucent, no labels).
 *
 * When the trace has regions, the top rows hold region bars (one row per
 * nesting depth, at most MAX_REGION_ROWS), and draw rows follow them:
 * `row[d]` already counts them.
 */
import type { Trace } from '../../shared-schema/index.js';
import type { LaneIndex } from './lane-index.js';
import { buildPassTree, type PassTree } from './pass-tree.js';

export interface DrawLayout {
  /** [start, end] ns per draw; NaN when the draw has neither warps nor timestamps. */
  readonly spans: Float64Array;
  /** Track row of each draw (region rows included). */
  readonly row: Uint16Array;
  readonly rowCount: number;
  /** Draw indices sorted by span start (draws without a span left out). */
  readonly byStart: Uint32Array;
  /** The overflow row (draws overlapping in it), -1 when every draw has a row of its own. */
  readonly overflowRow: number;
  /** Rows of region bars at the top (0 without regions). */
  readonly regionRows: number;
  /** The pass tree (regions nested, with their draws' spans and counts). */
  readonly tree: PassTree;
}

export const MAX_DRAW_ROWS = 8;
export const MAX_REGION_ROWS = 3;

export interface Packing {
  readonly row: Uint16Array;
  /** Rows used, the overflow row included. */
  readonly rowCount: number;
  readonly overflowRow: number;
}

/** Packs spans (in `order`, by start) into at most maxRows non-overlapping rows plus an overflow row. */
export function packSpans(spans: Float64Array, order: ArrayLike<number>, maxRows: number): Packing {
  const row = new Uint16Array(spans.length / 2);
  const rowEnd: number[] = [];
  let overflow = false;
  for (let i = 0; i < order.length; i++) {
    const d = order[i]!;
    const s = spans[2 * d]!;
    let r = -1;
    for (let k = 0; k < rowEnd.length; k++) {
      if (rowEnd[k]! <= s) {
        r = k;
        break;
      }
    }
    if (r < 0 && rowEnd.length < maxRows) {
      r = rowEnd.length;
      rowEnd.push(-Infinity);
    }
    if (r < 0) {
      row[d] = maxRows;
      overflow = true;
      continue;
    }
    row[d] = r;
    rowEnd[r] = spans[2 * d + 1]!;
  }
  return { row, rowCount: Math.max(1, rowEnd.length + (overflow ? 1 : 0)), overflowRow: overflow ? maxRows : -1 };
}

export function buildDrawLayout(trace: Trace, index: LaneIndex, maxRows = MAX_DRAW_ROWS): DrawLayout {
  const n = trace.draws.length;
  const spans = new Float64Array(n * 2);
  const order: number[] = [];
  for (let d = 0; d < n; d++) {
    let s = index.drawSpans[2 * d]!;
    let e = index.drawSpans[2 * d + 1]!;
    if (Number.isNaN(s)) {
      const info = trace.draws[d]!;
      s = info.gpuBeginNs ?? NaN;
      e = info.gpuEndNs ?? NaN;
    }
    spans[2 * d] = s;
    spans[2 * d + 1] = e;
    if (!Number.isNaN(s) && !Number.isNaN(e)) order.push(d);
  }
  order.sort((a, b) => spans[2 * a]! - spans[2 * b]! || a - b);
  const tree = buildPassTree(trace, spans);
  let regionRows = 0;
  for (let r = 0; r < tree.depth.length; r++) {
    if (tree.drawCount[r]! > 0 && !Number.isNaN(tree.spans[2 * r]!)) regionRows = Math.max(regionRows, Math.min(MAX_REGION_ROWS, tree.depth[r]! + 1));
  }
  const packed = packSpans(spans, order, maxRows);
  const row = packed.row;
  for (let d = 0; d < n; d++) row[d] = row[d]! + regionRows;
  return {
    spans,
    row,
    rowCount: packed.rowCount + regionRows,
    byStart: Uint32Array.from(order),
    overflowRow: packed.overflowRow < 0 ? -1 : packed.overflowRow + regionRows,
    regionRows,
    tree,
  };
}

/** Draws whose span overlaps [t0, t1], in start order. */
export function drawsInWindow(layout: DrawLayout, t0: number, t1: number): number[] {
  const out: number[] = [];
  for (const d of layout.byStart) {
    const s = layout.spans[2 * d]!;
    if (s > t1) break;
    if (layout.spans[2 * d + 1]! >= t0) out.push(d);
  }
  return out;
}

/** Regions drawn as bars whose span overlaps [t0, t1]: [region, row] pairs. */
export function regionBarsInWindow(layout: DrawLayout, t0: number, t1: number): [number, number][] {
  const out: [number, number][] = [];
  const t = layout.tree;
  for (let r = 0; r < t.depth.length; r++) {
    const depth = t.depth[r]!;
    if (depth >= layout.regionRows) continue;
    const s = t.spans[2 * r]!;
    const e = t.spans[2 * r + 1]!;
    if (Number.isNaN(s) || s > t1 || e < t0) continue;
    out.push([r, depth]);
  }
  return out;
}

/**
 * The longest prefix of `label` (plus "…") whose width fits `maxPx`, by
 * `measure`; '' when not even one character and the ellipsis fit.
 */
export function elideToWidth(label: string, maxPx: number, measure: (s: string) => number): string {
  if (measure(label) <= maxPx) return label;
  let lo = 0;
  let hi = label.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(`${label.slice(0, mid)}…`) <= maxPx) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : `${label.slice(0, lo)}…`;
}

/** The region bar at time `t` (± tolNs) in track row `row`, or -1 (also for draw rows). */
export function regionBarAt(layout: DrawLayout, row: number, t: number, tolNs: number): number {
  if (row < 0 || row >= layout.regionRows) return -1;
  const tree = layout.tree;
  for (let r = 0; r < tree.depth.length; r++) {
    if (tree.depth[r] !== row) continue;
    if (tree.spans[2 * r]! - tolNs <= t && t <= tree.spans[2 * r + 1]! + tolNs) return r;
  }
  return -1;
}
