/**
 * GPU idle time: windows in which no warp ran on any SM. The union of every
 * warp's [start, end) across SMs is the GPU's busy time; its gaps are idle
 * windows. A gap lies either inside the span of some draw (first warp to last
 * warp) or outside every draw span: no warp begins or ends inside a gap, and
 * draw spans begin and end with warps. Outside every span it is the gap
 * before a draw that started after all earlier draws had drained: a sync
 * (syncs.ts reports it). Inside an open draw it is reported here.
 *
 * Per SM, rows are sorted by start, so the sweep's row loop collects that
 * SM's busy intervals with a running end (busy-intervals.ts); a heap over SMs
 * merges them in start order: O(intervals × log SMs) here. Gaps overlapping
 * an untraced draw's timestamps (untraced-spans.ts) are not idle time.
 */
import { smOfWarp } from '../shared-schema/columns.js';
import type { Trace } from '../shared-schema/model.js';
import { stageInfo } from '../shared-schema/stages.js';
import type { DrawOverlap, DrawSpans } from './draw-overlap.js';
import type { BusyIntervals } from './busy-intervals.js';
import type { IdleEdgeWarp, IdleWindow } from './summary.js';
import { overlapsUntraced, type UntracedSpans } from './untraced-spans.js';

/** Open draws listed per window; openDrawCount stays exact. */
const MAX_LISTED_OPEN_DRAWS = 8;

export interface GpuIdleResult {
  /** Union of all warp intervals across SMs, ns. */
  readonly busyNs: number;
  /** Windows inside open draws lasting ≥ minNs: how many, and their total, ns. */
  readonly count: number;
  readonly totalNs: number;
  /** The longest of them (at most `keep`), longest first. */
  readonly windows: IdleWindow[];
  /** Per draw: time within its span when no warp ran on any SM, ns (every window, no threshold). */
  readonly drawIdleNs: Float64Array;
}

export function findGpuIdle(
  trace: Trace,
  busy: BusyIntervals,
  spans: DrawSpans,
  overlap: DrawOverlap,
  frame: { readonly startNs: number; readonly endNs: number },
  minNs: number,
  keep: number,
  untraced?: UntracedSpans,
): GpuIdleResult {
  const w = trace.warps;
  const G = busy.groupBegin.length - 1;
  const frameSpan = frame.endNs - frame.startNs;

  // Each SM's next busy interval (an index into `busy`), and its start.
  const cursor = busy.groupBegin.slice(0, G);
  const pendStart = new Float64Array(G);
  const advance = (g: number): boolean => {
    if (cursor[g]! >= busy.groupBegin[g + 1]!) return false;
    pendStart[g] = busy.startNs[cursor[g]!]!;
    return true;
  };

  // Min-heap of SM groups by their pending interval's start.
  const heap = new Int32Array(G);
  let size = 0;
  const push = (g: number) => {
    let j = size++;
    while (j > 0) {
      const parent = (j - 1) >> 1;
      if (pendStart[heap[parent]!]! <= pendStart[g]!) break;
      heap[j] = heap[parent]!;
      j = parent;
    }
    heap[j] = g;
  };
  const pop = (): number => {
    const top = heap[0]!;
    const moved = heap[--size]!;
    let j = 0;
    for (;;) {
      let child = 2 * j + 1;
      if (child >= size) break;
      if (child + 1 < size && pendStart[heap[child + 1]!]! < pendStart[heap[child]!]!) child++;
      if (pendStart[heap[child]!]! >= pendStart[moved]!) break;
      heap[j] = heap[child]!;
      j = child;
    }
    if (size > 0) heap[j] = moved;
    return top;
  };
  for (let g = 0; g < G; g++) if (advance(g)) push(g);

  // Draw spans opening and closing, in time order, against the idle time so far.
  const { startOrder, endOrder } = overlap;
  const open = new Set<number>();
  const idleAtOpen = new Float64Array(spans.firstStart.length);
  const drawIdleNs = new Float64Array(spans.firstStart.length);
  let nextStart = 0;
  let nextEnd = 0;
  let idleSoFar = 0;
  const advanceDrawsTo = (t: number) => {
    // Starts first: a draw that both opens and closes by t must be open before it closes.
    while (nextStart < startOrder.length && spans.firstStart[startOrder[nextStart]!]! <= t) {
      const d = startOrder[nextStart++]!;
      open.add(d);
      idleAtOpen[d] = idleSoFar;
    }
    while (nextEnd < endOrder.length && spans.lastEnd[endOrder[nextEnd]!]! <= t) {
      const d = endOrder[nextEnd++]!;
      open.delete(d);
      drawIdleNs[d] = idleSoFar - idleAtOpen[d]!;
    }
  };

  let busyNs = 0;
  let count = 0;
  let totalNs = 0;
  let windows: IdleWindow[] = [];
  // Once `keep` windows are listed, shorter ones (or as long but later) cannot make the list: no object for them.
  let cutoff = -Infinity;
  const edge = (row: number): IdleEdgeWarp => ({
    row,
    sm: smOfWarp(w.smGroups, row),
    warpSlot: w.warpSlot[row]!,
    stage: stageInfo(w.stage[row]!).name,
    draw: w.draw[row]!,
    customId: w.customId[row]!,
  });
  const onGap = (a: number, b: number, beforeRow: number, afterRow: number) => {
    advanceDrawsTo(a);
    // An untraced draw may have kept the GPU busy then: not idle time anyone can vouch for.
    if (untraced !== undefined && overlapsUntraced(untraced, a, b)) return;
    idleSoFar += b - a;
    const gap = b - a;
    if (open.size === 0 || !(gap >= minNs)) return; // between draws: a sync, or too short
    count++;
    totalNs += gap;
    if (gap <= cutoff || keep === 0) return;
    const listed: number[] = [];
    for (const d of open) {
      if (listed.length === MAX_LISTED_OPEN_DRAWS) break;
      listed.push(d);
    }
    const next = w.draw[afterRow]!;
    windows.push({
      startNs: a,
      endNs: b,
      durationNs: gap,
      shareOfFrame: frameSpan > 0 ? gap / frameSpan : 0,
      draw: open.has(next) ? next : listed[0]!,
      openDraws: listed,
      openDrawCount: open.size,
      before: edge(beforeRow),
      after: edge(afterRow),
    });
    if (windows.length >= 2 * keep) {
      windows = longestFirst(windows, keep);
      cutoff = windows[keep - 1]!.durationNs;
    }
  };

  let unionStart = NaN;
  let unionEnd = -Infinity;
  let unionEndRow = 0;
  while (size > 0) {
    const g = pop();
    const j = cursor[g]!++;
    const s = busy.startNs[j]!;
    const e = busy.endNs[j]!;
    if (unionEnd === -Infinity) {
      unionStart = s;
      unionEnd = e;
      unionEndRow = busy.endRow[j]!;
    } else if (s > unionEnd) {
      busyNs += unionEnd - unionStart;
      onGap(unionEnd, s, unionEndRow, busy.firstRow[j]!);
      unionStart = s;
      unionEnd = e;
      unionEndRow = busy.endRow[j]!;
    } else if (e > unionEnd) {
      unionEnd = e;
      unionEndRow = busy.endRow[j]!;
    }
    if (advance(g)) push(g);
  }
  if (unionEnd !== -Infinity) busyNs += unionEnd - unionStart;
  advanceDrawsTo(Infinity);
  return { busyNs, count, totalNs, windows: longestFirst(windows, keep), drawIdleNs };
}

function longestFirst(windows: IdleWindow[], keep: number): IdleWindow[] {
  return windows.sort((a, b) => b.durationNs - a.durationNs || a.startNs - b.startNs).slice(0, keep);
}
