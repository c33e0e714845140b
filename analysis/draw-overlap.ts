/**
 * Draw spans against each other: how long each draw overlapped others, the
 * gap (or overlap) before each draw in GPU start order, and the time some
 * draw was running. A draw's span runs from its first warp's start to its
 * last warp's end, across SMs. O(D log D) over D draws.
 */
import { argsortNonNegative } from './radix.js';

export interface DrawSpans {
  /** First warp start per draw; NaN for a draw without warps. */
  readonly firstStart: Float64Array;
  /** Last warp end per draw; NaN for a draw without warps. */
  readonly lastEnd: Float64Array;
}

export interface DrawOverlap {
  /** Draws with warps, in order of their first warp's start. */
  readonly startOrder: Uint32Array;
  /** Draws with warps, in order of their last warp's end. */
  readonly endOrder: Uint32Array;
  /** Position of each draw in startOrder; -1 for draws without warps. */
  readonly rank: Int32Array;
  /** Time each draw's span overlapped at least one other draw's span, ns (NaN without warps). */
  readonly overlapNs: Float64Array;
  /** First start minus the time all earlier-starting draws had drained, ns (NaN for the first and empty draws). */
  readonly gapBeforeNs: Float64Array;
  /** For each draw, the earlier-starting draw that finished last before it started (-1 for the first). */
  readonly drainedBy: Int32Array;
  /** Union of the draw spans, ns. */
  readonly busyNs: number;
  /** Measure of the part of [a, b] during which at least two draw spans were open. */
  coveredByTwo(a: number, b: number): number;
}

export function drawOverlap(spans: DrawSpans): DrawOverlap {
  const { firstStart, lastEnd } = spans;
  const D = firstStart.length;
  const withWarps: number[] = [];
  for (let d = 0; d < D; d++) if (!Number.isNaN(firstStart[d]!)) withWarps.push(d);
  const m = withWarps.length;
  const starts = new Float64Array(m);
  const ends = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    starts[j] = firstStart[withWarps[j]!]!;
    ends[j] = lastEnd[withWarps[j]!]!;
  }
  const byStart = argsortNonNegative(starts);
  const byEnd = argsortNonNegative(ends);
  const startOrder = new Uint32Array(m);
  const endOrder = new Uint32Array(m);
  for (let j = 0; j < m; j++) endOrder[j] = withWarps[byEnd[j]!]!;
  const rank = new Int32Array(D).fill(-1);
  for (let j = 0; j < m; j++) {
    startOrder[j] = withWarps[byStart[j]!]!;
    rank[startOrder[j]!] = j;
  }

  // Gaps in start order against everything that started earlier.
  const gapBeforeNs = new Float64Array(D).fill(NaN);
  const drainedBy = new Int32Array(D).fill(-1);
  let drained = -Infinity;
  let drainer = -1;
  for (let j = 0; j < m; j++) {
    const d = startOrder[j]!;
    if (j > 0) {
      gapBeforeNs[d] = firstStart[d]! - drained;
      drainedBy[d] = drainer;
    }
    if (lastEnd[d]! > drained) {
      drained = lastEnd[d]!;
      drainer = d;
    }
  }

  // Sweep span endpoints (ends before starts at equal times: touching spans do not overlap),
  // recording the cumulative time with ≥ 2 spans open after every event.
  const evTime = new Float64Array(2 * m);
  const evCovered2 = new Float64Array(2 * m);
  const evOpen = new Uint32Array(2 * m);
  const overlapNs = new Float64Array(D).fill(NaN);
  const atStart = new Float64Array(D);
  let open = 0;
  let covered1 = 0;
  let covered2 = 0;
  let lastT = 0;
  let si = 0;
  let ei = 0;
  let ev = 0;
  while (ei < m) {
    const takeStart = si < m && starts[byStart[si]!]! < ends[byEnd[ei]!]!;
    const j = takeStart ? byStart[si++]! : byEnd[ei++]!;
    const t = takeStart ? starts[j]! : ends[j]!;
    if (open >= 1) covered1 += t - lastT;
    if (open >= 2) covered2 += t - lastT;
    lastT = t;
    const d = withWarps[j]!;
    if (ends[j]! === starts[j]!) {
      // A zero-length span (one zero-length warp) overlaps nothing and opens nothing.
      overlapNs[d] = 0;
      continue;
    }
    if (takeStart) {
      atStart[d] = covered2;
      open++;
    } else {
      overlapNs[d] = covered2 - atStart[d]!;
      open--;
    }
    evTime[ev] = t;
    evCovered2[ev] = covered2;
    evOpen[ev] = open;
    ev++;
  }
  const events = ev;

  const covered2At = (t: number): number => {
    // Last event at or before t.
    let lo = 0;
    let hi = events;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (evTime[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return 0;
    const k = lo - 1;
    return evCovered2[k]! + (evOpen[k]! >= 2 ? t - evTime[k]! : 0);
  };
  return {
    startOrder,
    endOrder,
    rank,
    overlapNs,
    gapBeforeNs,
    drainedBy,
    busyNs: covered1,
    coveredByTwo: (a, b) => Math.max(0, covered2At(b) - covered2At(a)),
  };
}
