/**
 * Color by draw and color by pass: categorical colours (class-palette.ts) that
 * tell neighbouring draws, or passes, apart on the timeline.
 *
 * - draw: draw d takes colour d mod 16. Draws follow each other in submission
 *   order, so neighbours always differ; a frame of 2,000 draws reuses each
 *   colour every 16 draws, and the legend names the draws with the most
 *   warp-time (the tooltip names every warp's draw).
 * - pass: the region a draw lies in, at the pass depth (passDepth): the
 *   shallowest depth at which the draws lie in more than one region, so a
 *   frame wrapped in one "Frame" label is colored by the passes inside it.
 *   The k-th pass at that depth (region order) takes colour k mod 15; draws in
 *   no region at that depth are grey (class 15, "outside passes").
 *
 * A warp's class is its draw's: one table lookup per warp. The fill also sums
 * warps and warp-time per draw, for the legend.
 */
import { formatNs, type Trace } from '../../shared-schema/index.js';
import { CATEGORICAL_RGB, OUTSIDE_RGB, classColors } from './class-palette.js';
import type { ClassFill, ClassPalette, LegendEntry } from './color-by.js';

/** Colours that cycle over draws. */
const DRAW_COLORS = 16;
/** Colours that cycle over passes; the last class is "outside passes". */
const PASS_COLORS = 15;
export const OUTSIDE_PASS = 15;
/** With more draws (passes) than colours, the legend names this many, the ones with most warp-time. */
export const LEGEND_TOP = 8;

/** Depth of each region (0 at the top; a parent that does not come before its child counts as none). */
function regionDepths(trace: Trace): Uint16Array {
  const depth = new Uint16Array(trace.regions.length);
  trace.regions.forEach((r, i) => {
    const p = r.parent;
    depth[i] = p !== null && p >= 0 && p < i ? depth[p]! + 1 : 0;
  });
  return depth;
}

/** The ancestor of region r (itself included) at `depth`, or -1 when r is shallower. */
function ancestorAt(trace: Trace, depths: Uint16Array, r: number, depth: number): number {
  if (r < 0 || r >= depths.length || depths[r]! < depth) return -1;
  while (depths[r]! > depth) r = trace.regions[r]!.parent!;
  return r;
}

/** The shallowest region depth at which the draws lie in more than one region (0 when none does). */
export function passDepth(trace: Trace): number {
  const depths = regionDepths(trace);
  const maxDepth = depths.reduce((m, d) => Math.max(m, d), 0);
  for (let depth = 0; depth <= maxDepth; depth++) {
    const seen = new Set<number>();
    for (const d of trace.draws) {
      const a = d.region === null ? -1 : ancestorAt(trace, depths, d.region, depth);
      if (a >= 0) seen.add(a);
    }
    if (seen.size > 1) return depth;
    if (seen.size === 0) return Math.max(0, depth - 1);
  }
  return 0;
}

/** Per draw, its pass (a region index at passDepth) or -1; and the passes in region order. */
export function passesOfDraws(trace: Trace): { passOfDraw: Int32Array; passes: number[]; depth: number } {
  const depths = regionDepths(trace);
  const depth = passDepth(trace);
  const passOfDraw = new Int32Array(trace.draws.length).fill(-1);
  const used = new Set<number>();
  trace.draws.forEach((d, i) => {
    const a = d.region === null ? -1 : ancestorAt(trace, depths, d.region, depth);
    passOfDraw[i] = a;
    if (a >= 0) used.add(a);
  });
  return { passOfDraw, passes: [...used].sort((a, b) => a - b), depth };
}

interface Item {
  readonly cls: number;
  readonly label: string;
  readonly warps: number;
  readonly warpTimeNs: number;
}

/**
 * A legend of named items (draws or passes): every item when each has a colour of its own,
 * else the LEGEND_TOP with most warp-time, and a note saying how the colours cycle.
 */
function itemLegend(items: readonly Item[], colors: number, noun: string, cycle: string): { legend: LegendEntry[]; note?: string } {
  const entry = (it: Item): LegendEntry => ({ cls: it.cls, label: it.label, title: `${it.label}: warp-time ${formatNs(it.warpTimeNs)}`, rgb: CATEGORICAL_RGB[it.cls]!, warps: it.warps });
  if (items.length <= colors) return { legend: items.map(entry) };
  const top = [...items].sort((a, b) => b.warpTimeNs - a.warpTimeNs).slice(0, LEGEND_TOP);
  return {
    legend: top.map(entry),
    note: `${items.length.toLocaleString('en-US')} ${noun} in ${colors} colors (${cycle}); most warp-time:`,
  };
}

/** Sums warps and warp-time per draw while classifying by a per-draw class table. */
function perDrawFill(trace: Trace, classOfDraw: Uint8Array, outside: number, palette: (warps: Uint32Array, timeNs: Float64Array) => ClassPalette): ClassFill {
  const w = trace.warps;
  const classOf = new Uint8Array(w.count);
  const n = trace.draws.length;
  const warps = new Uint32Array(n);
  const timeNs = new Float64Array(n);
  const { draw, durationNs } = w;
  return {
    classOf,
    fill(begin: number, end: number): void {
      for (let i = begin; i < end; i++) {
        const d = draw[i]!;
        if (d >= n) {
          classOf[i] = outside;
          continue;
        }
        classOf[i] = classOfDraw[d]!;
        warps[d]!++;
        timeNs[d]! += durationNs[i]!;
      }
    },
    palette: () => palette(warps, timeNs),
  };
}

const drawName = (trace: Trace, d: number) => `#${d} ${trace.draws[d]!.label}`.trim();

export function drawFill(trace: Trace): ClassFill {
  const classOfDraw = Uint8Array.from(trace.draws, (_, d) => d % DRAW_COLORS);
  return perDrawFill(trace, classOfDraw, 0, (warps, timeNs) => {
    const items: Item[] = [];
    for (let d = 0; d < trace.draws.length; d++) if (warps[d]! > 0) items.push({ cls: d % DRAW_COLORS, label: drawName(trace, d), warps: warps[d]!, warpTimeNs: timeNs[d]! });
    return {
      ...classColors(CATEGORICAL_RGB),
      ...itemLegend(items, DRAW_COLORS, 'draws', `draw d: color d mod ${DRAW_COLORS}`),
      warpLabel: (row) => drawName(trace, trace.warps.draw[row]!),
    };
  });
}

export function passFill(trace: Trace): ClassFill {
  const { passOfDraw, passes } = passesOfDraws(trace);
  const k = new Map(passes.map((r, i) => [r, i]));
  const classOfDraw = Uint8Array.from(passOfDraw, (r) => (r < 0 ? OUTSIDE_PASS : k.get(r)! % PASS_COLORS));
  return perDrawFill(trace, classOfDraw, OUTSIDE_PASS, (warps, timeNs) => {
    const sums = passes.map(() => ({ warps: 0, timeNs: 0 }));
    const outside = { warps: 0, timeNs: 0 };
    passOfDraw.forEach((r, d) => {
      const s = r < 0 ? outside : sums[k.get(r)!]!;
      s.warps += warps[d]!;
      s.timeNs += timeNs[d]!;
    });
    const items: Item[] = [];
    passes.forEach((r, i) => {
      if (sums[i]!.warps > 0) items.push({ cls: i % PASS_COLORS, label: trace.regions[r]!.label, warps: sums[i]!.warps, warpTimeNs: sums[i]!.timeNs });
    });
    const { legend, note } = itemLegend(items, PASS_COLORS, 'passes', `pass k: color k mod ${PASS_COLORS}`);
    if (outside.warps > 0) legend.push({ cls: OUTSIDE_PASS, label: 'outside passes', title: `draws in no pass: warp-time ${formatNs(outside.timeNs)}`, rgb: OUTSIDE_RGB, warps: outside.warps });
    const rgbs = [...CATEGORICAL_RGB.slice(0, PASS_COLORS), OUTSIDE_RGB];
    return {
      ...classColors(rgbs),
      legend,
      ...(note === undefined ? {} : { note }),
      warpLabel: (row) => {
        const r = passOfDraw[trace.warps.draw[row]!] ?? -1;
        return r < 0 ? 'outside passes' : trace.regions[r]!.label;
      },
    };
  });
}
