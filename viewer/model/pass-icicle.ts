/**
 * The icicle (flame) view of passes → draws over time: one row per region
 * depth, a region's bar spanning its draws' warps, and each draw's bar in the
 * row under its innermost region (draws in no region in the top row), laid
 * out over a time window in pixels. Pure: no DOM. Bars are clipped to the
 * window; a bar narrower than a pixel keeps a pixel so every draw stays
 * visible (they pile up where many run together).
 */
import type { Trace } from '../../shared-schema/index.js';
import type { DrawSummary } from '../../analysis/summary.js';
import type { PassStat } from '../../analysis/passes.js';

/** Rows at most: deeper regions are not drawn, their draws go to the last row. */
export const ICICLE_MAX_ROWS = 6;

export interface IcicleBar {
  readonly kind: 'region' | 'draw';
  /** Region or draw index. */
  readonly index: number;
  readonly row: number;
  /** Pixels from the left of the view, x0 < x1. */
  readonly x0: number;
  readonly x1: number;
}

export interface IcicleLayout {
  readonly rows: number;
  /** Regions first (by row), then draws, each in index order: later bars are drawn over earlier ones. */
  readonly bars: readonly IcicleBar[];
}

export interface IcicleWindow {
  readonly startNs: number;
  readonly endNs: number;
}

export function icicleLayout(trace: Trace, passes: readonly PassStat[], draws: readonly DrawSummary[], view: IcicleWindow, widthPx: number): IcicleLayout {
  const span = view.endNs - view.startNs;
  const bars: IcicleBar[] = [];
  if (!(span > 0) || !(widthPx > 0)) return { rows: 1, bars };
  const px = (t: number) => ((t - view.startNs) / span) * widthPx;
  const place = (kind: IcicleBar['kind'], index: number, row: number, s: number | null, e: number | null): void => {
    if (s === null || e === null || e < view.startNs || s > view.endNs) return;
    let x0 = Math.max(0, px(s));
    let x1 = Math.min(widthPx, px(e));
    if (x1 - x0 < 1) {
      const mid = (x0 + x1) / 2;
      x0 = Math.max(0, Math.min(widthPx - 1, mid - 0.5));
      x1 = x0 + 1;
    }
    bars.push({ kind, index, row, x0, x1 });
  };
  let deepest = -1;
  for (const p of passes) {
    if (p.depth >= ICICLE_MAX_ROWS - 1) continue;
    deepest = Math.max(deepest, p.depth);
    place('region', p.region, p.depth, p.firstStartNs, p.lastEndNs);
  }
  bars.sort((a, b) => a.row - b.row || a.index - b.index);
  const rows = Math.min(ICICLE_MAX_ROWS, deepest + 2);
  for (const d of draws) {
    const r = trace.draws[d.index]?.region ?? null;
    const depth = r !== null && r >= 0 && r < passes.length ? passes[r]!.depth + 1 : 0;
    place('draw', d.index, Math.min(depth, rows - 1), d.firstStartNs, d.lastEndNs);
  }
  return { rows, bars };
}

/** The bar under (x, row): the last drawn (topmost) one that covers x, or null. */
export function icicleHit(layout: IcicleLayout, x: number, row: number): IcicleBar | null {
  for (let i = layout.bars.length - 1; i >= 0; i--) {
    const b = layout.bars[i]!;
    if (b.row === row && x >= b.x0 && x < b.x1) return b;
  }
  return null;
}

/** The regions from the top down to `region` (its ancestors, then itself), for the breadcrumb. */
export function regionTrail(passes: readonly PassStat[], region: number | null): number[] {
  const out: number[] = [];
  for (let r = region; r !== null && r >= 0 && r < passes.length && out.length < 64; r = passes[r]!.parent) out.unshift(r);
  return out;
}
