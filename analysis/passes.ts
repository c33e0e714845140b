/**
 * Cost per pass: for each region of a trace (a debug label or render pass,
 * nested), what its draws cost: span (first warp start to last warp end),
 * busy time (the union of its warps' intervals over all SMs: time some warp
 * of the pass was running somewhere), warp-time (summed durations), warps,
 * warp-time per stage and shares of the frame. A region holds the draws of
 * its whole subtree. Draws in no region are summed in `outside`.
 *
 * Busy time is exact: at each nesting depth a warp belongs to at most one
 * region, so one pass over the rows (grouped by SM, in start order) merges
 * each region's warps into per-SM intervals, every depth at once; a region's
 * intervals over all SMs are then measured from its sorted starts and sorted
 * ends (coverage at t is #starts ≤ t − #ends ≤ t), typed-array sorts without
 * a comparator. O(n × depths) plus the sort of the merged intervals; depths
 * from PASS_BUSY_MAX_DEPTH on get `busyNs` null (a pathological nesting would
 * cost that much more per warp).
 */
import type { RegionSource, Trace } from '../shared-schema/model.js';
import type { StageName } from '../shared-schema/stages.js';
import type { DrawSummary } from './summary.js';

/** Region depths (0 = top level) whose busy time is measured. */
export const PASS_BUSY_MAX_DEPTH = 8;

export interface PassCost {
  /** Draws in the subtree, those that ran untraced among them, and their warps. */
  readonly draws: number;
  readonly untracedDraws: number;
  readonly warps: number;
  /** First warp start and last warp end of its draws, ns; null without warps. */
  readonly firstStartNs: number | null;
  readonly lastEndNs: number | null;
  readonly spanNs: number | null;
  /** Time some warp of its draws was running on some SM, ns; null when not measured (too deep). */
  readonly busyNs: number | null;
  /** Summed warp durations, ns. */
  readonly warpTimeNs: number;
  /** busyNs / the frame span (the cost of the pass in frame time); null with busyNs. */
  readonly shareOfFrame: number | null;
  /** warpTimeNs / the frame's warp-time. */
  readonly shareOfWarpTime: number;
  /** Warp-time per stage, ns (stages without warps left out). */
  readonly stageWarpTimeNs: Partial<Record<StageName, number>>;
}

export interface PassStat extends PassCost {
  /** Index into Trace.regions; the list is in region order (the order they opened: parents before children). */
  readonly region: number;
  readonly label: string;
  readonly parent: number | null;
  readonly depth: number;
  readonly source: RegionSource;
  /** Lowest and highest draw index in the subtree; null without draws. */
  readonly firstDraw: number | null;
  readonly lastDraw: number | null;
}

export interface PassSection {
  readonly frameSpanNs: number;
  readonly frameWarpTimeNs: number;
  /** One per region, in region order. */
  readonly passes: PassStat[];
  /** The draws that lie in no region. */
  readonly outside: PassCost;
}

/** A region's parent when valid (an earlier region), else null. */
function parentOf(trace: Trace, r: number): number | null {
  const p = trace.regions[r]!.parent;
  return p !== null && p >= 0 && p < r ? p : null;
}

/** Region depths (0 at the top). */
export function regionDepths(trace: Trace): Uint16Array {
  const depth = new Uint16Array(trace.regions.length);
  for (let r = 0; r < depth.length; r++) {
    const p = parentOf(trace, r);
    depth[r] = p === null ? 0 : Math.min(65535, depth[p]! + 1);
  }
  return depth;
}

/** Draw d's region when valid, else null. */
function regionOfDraw(trace: Trace, d: number): number | null {
  const r = trace.draws[d]?.region ?? null;
  return r !== null && r >= 0 && r < trace.regions.length ? r : null;
}

/**
 * The section of a trace with regions (undefined without). `draws` are the
 * summary's draw summaries (spans, warps, warp-time and stages per draw);
 * `frame` the frame's span and warp-time.
 */
export function passSection(trace: Trace, draws: readonly DrawSummary[], frame: { readonly spanNs: number; readonly warpTimeNs: number }): PassSection | undefined {
  const R = trace.regions.length;
  if (R === 0) return undefined;
  const depth = regionDepths(trace);
  const busy = passBusyNs(trace, depth);
  // Slot R collects the draws in no region.
  const acc = Array.from({ length: R + 1 }, () => ({
    draws: 0,
    untraced: 0,
    warps: 0,
    first: Infinity,
    last: -Infinity,
    warpTime: 0,
    firstDraw: Infinity,
    lastDraw: -Infinity,
    stages: new Map<StageName, number>(),
  }));
  for (let d = 0; d < trace.draws.length; d++) {
    const s = draws[d];
    const home = regionOfDraw(trace, d);
    for (let r: number | null = home ?? R; r !== null; r = r === R ? null : parentOf(trace, r)) {
      const a = acc[r]!;
      a.draws++;
      if (trace.draws[d]!.untraced != null) a.untraced++;
      a.firstDraw = Math.min(a.firstDraw, d);
      a.lastDraw = Math.max(a.lastDraw, d);
      if (s === undefined) continue;
      a.warps += s.warps;
      a.warpTime += s.warpTimeNs;
      if (s.firstStartNs !== null && s.firstStartNs < a.first) a.first = s.firstStartNs;
      if (s.lastEndNs !== null && s.lastEndNs > a.last) a.last = s.lastEndNs;
      for (const st of s.stages) a.stages.set(st.stage, (a.stages.get(st.stage) ?? 0) + st.totalNs);
    }
  }
  const cost = (r: number): PassCost => {
    const a = acc[r]!;
    const has = a.first <= a.last;
    const busyNs = r === R || depth[r]! < PASS_BUSY_MAX_DEPTH ? busy[r]! : null;
    const stageWarpTimeNs: Partial<Record<StageName, number>> = {};
    for (const [stage, ns] of a.stages) stageWarpTimeNs[stage] = ns;
    return {
      draws: a.draws,
      untracedDraws: a.untraced,
      warps: a.warps,
      firstStartNs: has ? a.first : null,
      lastEndNs: has ? a.last : null,
      spanNs: has ? a.last - a.first : null,
      busyNs,
      warpTimeNs: a.warpTime,
      shareOfFrame: busyNs === null ? null : frame.spanNs > 0 ? busyNs / frame.spanNs : 0,
      shareOfWarpTime: frame.warpTimeNs > 0 ? a.warpTime / frame.warpTimeNs : 0,
      stageWarpTimeNs,
    };
  };
  const passes: PassStat[] = trace.regions.map((info, r) => {
    const a = acc[r]!;
    return {
      region: r,
      label: info.label,
      parent: parentOf(trace, r),
      depth: depth[r]!,
      source: info.source,
      firstDraw: a.draws > 0 ? a.firstDraw : null,
      lastDraw: a.draws > 0 ? a.lastDraw : null,
      ...cost(r),
    };
  });
  return { frameSpanNs: frame.spanNs, frameWarpTimeNs: frame.warpTimeNs, passes, outside: cost(R) };
}

/**
 * Busy time per region (index R: the draws in no region), ns. Regions at
 * depth PASS_BUSY_MAX_DEPTH or deeper are left at 0.
 */
export function passBusyNs(trace: Trace, depth: Uint16Array = regionDepths(trace)): Float64Array {
  const R = trace.regions.length;
  const D = trace.draws.length;
  let maxDepth = 0;
  for (let r = 0; r < R; r++) maxDepth = Math.max(maxDepth, depth[r]!);
  const levels = Math.min(maxDepth + 1, PASS_BUSY_MAX_DEPTH);
  // regionAt[level * D + d]: the region draw d lies in at that depth (-1: none there); level 0 also
  // holds the draws in no region, as region R. Regions of different depths are different indices,
  // so one pass over the rows serves every level.
  const regionAt = new Int32Array(levels * D).fill(-1);
  for (let d = 0; d < D; d++) {
    let r = regionOfDraw(trace, d);
    if (r === null) regionAt[d] = R;
    for (; r !== null; r = parentOf(trace, r)) if (depth[r]! < levels) regionAt[depth[r]! * D + d] = r;
  }
  return measure(trace, regionAt, levels, R + 1);
}

/** Merges each region's warps per SM in one pass over the rows, then measures each region's union over SMs. */
function measure(trace: Trace, regionAt: Int32Array, levels: number, regions: number): Float64Array {
  const w = trace.warps;
  const { offsets } = w.smGroups;
  const D = regionAt.length / levels;
  const openStart = new Float64Array(regions);
  const openEnd = new Float64Array(regions).fill(-Infinity);
  const touched: number[] = [];
  const iv = new IntervalList();
  for (let g = 0; g + 1 < offsets.length; g++) {
    for (let i = offsets[g]!; i < offsets[g + 1]!; i++) {
      const d = w.draw[i]!;
      if (d >= D) continue;
      const s = w.startNs[i]!;
      const e = s + w.durationNs[i]!;
      for (let at = d; at < regionAt.length; at += D) {
        const r = regionAt[at]!;
        if (r < 0) continue;
        const end = openEnd[r]!;
        if (s > end) {
          // Rows are in start order within the SM: a start past the open interval's end closes it.
          if (end === -Infinity) touched.push(r);
          else iv.push(openStart[r]!, end, r);
          openStart[r] = s;
          openEnd[r] = e;
        } else if (e > end) {
          openEnd[r] = e;
        }
      }
    }
    for (const r of touched) {
      iv.push(openStart[r]!, openEnd[r]!, r);
      openEnd[r] = -Infinity;
    }
    touched.length = 0;
  }
  // Bucket the intervals by region (a counting sort), then measure each bucket.
  const begin = new Uint32Array(regions + 1);
  for (let k = 0; k < iv.count; k++) begin[iv.region[k]! + 1]!++;
  for (let r = 0; r < regions; r++) begin[r + 1]! += begin[r]!;
  const fill = begin.slice(0, regions);
  const starts = new Float64Array(iv.count);
  const ends = new Float64Array(iv.count);
  for (let k = 0; k < iv.count; k++) {
    const at = fill[iv.region[k]!]!++;
    starts[at] = iv.start[k]!;
    ends[at] = iv.end[k]!;
  }
  const busy = new Float64Array(regions);
  for (let r = 0; r < regions; r++) {
    if (begin[r + 1]! > begin[r]!) busy[r] = unionLength(starts.subarray(begin[r]!, begin[r + 1]!).sort(), ends.subarray(begin[r]!, begin[r + 1]!).sort());
  }
  return busy;
}

/** The length of the union of intervals given as sorted starts and sorted ends (equal counts). */
export function unionLength(starts: Float64Array, ends: Float64Array): number {
  let open = 0;
  let from = 0;
  let total = 0;
  let j = 0;
  for (let i = 0; i < starts.length; ) {
    // Starts first at a tie: touching intervals merge (a zero-length gap adds nothing either way).
    if (starts[i]! <= ends[j]!) {
      if (open++ === 0) from = starts[i]!;
      i++;
    } else {
      if (--open === 0) total += ends[j]! - from;
      j++;
    }
  }
  // Every start is in: the last end closes what is still open.
  if (open > 0) total += ends[ends.length - 1]! - from;
  return total;
}

/** Growable columns of intervals tagged with a region. */
class IntervalList {
  start = new Float64Array(1024);
  end = new Float64Array(1024);
  region = new Int32Array(1024);
  count = 0;

  push(start: number, end: number, region: number): void {
    if (this.count === this.start.length) {
      const n = this.count * 2;
      const s = new Float64Array(n);
      s.set(this.start);
      const e = new Float64Array(n);
      e.set(this.end);
      const r = new Int32Array(n);
      r.set(this.region);
      [this.start, this.end, this.region] = [s, e, r];
    }
    this.start[this.count] = start;
    this.end[this.count] = end;
    this.region[this.count++] = region;
  }
}
