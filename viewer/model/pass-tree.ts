/**
 * The pass tree of the draw list: a trace's regions nested by `parent`, each
 * draw under its innermost region, children in submission order (a region
 * sorts by its first draw). Draws outside every region sit at the top level.
 * `visibleRows` flattens it for a virtualized list: only rows whose
 * ancestors are all expanded, so a collapsed tree of 2 000 draws is a few
 * rows.
 */
import type { Trace } from '../../shared-schema/index.js';

export interface PassTree {
  /** Children of each region: region r's children at [childStart[r], childStart[r+1]) of `children`; the top level is the last entry. */
  readonly childStart: Uint32Array;
  /** Encoded children: a draw d as d, a region r as ~r (negative). */
  readonly children: Int32Array;
  /** Draws in each region's subtree. */
  readonly drawCount: Uint32Array;
  /** [start, end] ns of each region's draws (NaN when none has a span). */
  readonly spans: Float64Array;
  /** Depth of each region (0 at the top). */
  readonly depth: Uint16Array;
}

export type TreeRow =
  | { readonly kind: 'region'; readonly region: number; readonly depth: number; readonly expanded: boolean; readonly shown: number }
  | { readonly kind: 'draw'; readonly draw: number; readonly depth: number };

/** Builds the tree; `drawSpans` is [start, end] ns per draw (NaN when unknown). */
export function buildPassTree(trace: Trace, drawSpans: Float64Array | null): PassTree {
  const R = trace.regions.length;
  const top = R;
  const kids: { key: number; code: number }[][] = Array.from({ length: R + 1 }, () => []);
  const firstDraw = new Float64Array(R).fill(Infinity);
  const drawCount = new Uint32Array(R);
  const spans = new Float64Array(2 * R).fill(NaN);
  const depth = new Uint16Array(R);
  const validRegion = (r: number | null): r is number => r !== null && r >= 0 && r < R;
  for (let r = 0; r < R; r++) {
    const p = trace.regions[r]!.parent;
    depth[r] = validRegion(p) && p < r ? depth[p]! + 1 : 0;
  }
  for (const info of trace.draws) {
    const d = info.index;
    const home = validRegion(info.region) ? info.region : top;
    kids[home]!.push({ key: d, code: d });
    const s = drawSpans?.[2 * d] ?? NaN;
    const e = drawSpans?.[2 * d + 1] ?? NaN;
    for (let r: number | null = home === top ? null : home; validRegion(r); r = parentOf(trace, r)) {
      drawCount[r]!++;
      if (d < firstDraw[r]!) firstDraw[r] = d;
      if (!Number.isNaN(s)) {
        if (!(spans[2 * r]! <= s)) spans[2 * r] = s;
        if (!(spans[2 * r + 1]! >= e)) spans[2 * r + 1] = e;
      }
    }
  }
  for (let r = 0; r < R; r++) {
    const p = trace.regions[r]!.parent;
    const home = validRegion(p) && p < r ? p : top;
    // Regions without draws sort after the draws of their parent, by index.
    kids[home]!.push({ key: Number.isFinite(firstDraw[r]!) ? firstDraw[r]! - 0.5 : 1e15 + r, code: ~r });
  }
  const childStart = new Uint32Array(R + 2);
  const children = new Int32Array(trace.draws.length + R);
  let k = 0;
  for (let r = 0; r <= R; r++) {
    childStart[r] = k;
    for (const c of kids[r]!.sort((a, b) => a.key - b.key)) children[k++] = c.code;
  }
  childStart[R + 1] = k;
  return { childStart, children, drawCount, spans, depth };
}

function parentOf(trace: Trace, r: number): number | null {
  const p = trace.regions[r]!.parent;
  return p !== null && p < r ? p : null;
}

/**
 * The rows to show. With `match` (a filter), only matching draws and the
 * regions holding one are shown, all expanded; `shown` counts the matches.
 */
export function visibleRows(tree: PassTree, expanded: ReadonlySet<number>, match: ((draw: number) => boolean) | null = null): TreeRow[] {
  const R = tree.depth.length;
  let matchCount: Uint32Array | null = null;
  if (match !== null) {
    matchCount = new Uint32Array(R);
    const count = (r: number): number => {
      let n = 0;
      for (let i = tree.childStart[r]!; i < tree.childStart[r + 1]!; i++) {
        const c = tree.children[i]!;
        n += c >= 0 ? (match(c) ? 1 : 0) : count(~c);
      }
      if (r < R) matchCount![r] = n;
      return n;
    };
    count(R);
  }
  const rows: TreeRow[] = [];
  const walk = (r: number, depth: number): void => {
    for (let i = tree.childStart[r]!; i < tree.childStart[r + 1]!; i++) {
      const c = tree.children[i]!;
      if (c >= 0) {
        if (match === null || match(c)) rows.push({ kind: 'draw', draw: c, depth });
        continue;
      }
      const reg = ~c;
      const shown = matchCount === null ? tree.drawCount[reg]! : matchCount[reg]!;
      if (matchCount !== null && shown === 0) continue;
      const open = matchCount !== null || expanded.has(reg);
      rows.push({ kind: 'region', region: reg, depth, expanded: open, shown });
      if (open) walk(reg, depth + 1);
    }
  };
  walk(R, 0);
  return rows;
}

/** The regions to expand so that `draw` is visible (its ancestors). */
export function ancestorsOf(trace: Trace, draw: number): number[] {
  const out: number[] = [];
  const info = trace.draws[draw];
  let r = info?.region ?? null;
  while (r !== null && r >= 0 && r < trace.regions.length) {
    out.push(r);
    r = parentOf(trace, r);
  }
  return out;
}
