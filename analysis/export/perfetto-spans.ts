/**
 * Draw and region spans for the Perfetto protobuf export, and their lanes:
 * slices on one Perfetto track must nest properly (a begin/end stack), so
 * overlapping draws go to separate lanes, and regions share a lane only with
 * regions they contain or are contained by.
 */
import type { Trace } from '../../shared-schema/model.js';

export interface Span {
  /** Integer ns (rounded like the warps). */
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/** Each draw's span: first warp start to last warp end (rounded ns); null for draws without warps. */
export function drawSpans(trace: Trace): (Span | null)[] {
  const n = trace.draws.length;
  const first = new Float64Array(n).fill(Infinity);
  const last = new Float64Array(n).fill(-Infinity);
  const { startNs, durationNs, draw, count } = trace.warps;
  // One pass over the columns: no per-warp objects.
  for (let i = 0; i < count; i++) {
    const d = draw[i]!;
    const s = startNs[i]!;
    const e = s + durationNs[i]!;
    if (s < first[d]!) first[d] = s;
    if (e > last[d]!) last[d] = e;
  }
  return trace.draws.map((d, i) =>
    first[i] === Infinity ? null : { start: Math.round(first[i]!), end: Math.round(last[i]!), name: d.label === '' ? `draw ${d.index}` : d.label },
  );
}

/**
 * Each region's span: the union of its draws' spans and its sub-regions'
 * (parents come before their children, so one backward pass carries spans up);
 * null for regions without warps.
 */
export function regionSpans(trace: Trace, draws: readonly (Span | null)[]): (Span | null)[] {
  const n = trace.regions.length;
  const start = new Float64Array(n).fill(Infinity);
  const end = new Float64Array(n).fill(-Infinity);
  trace.draws.forEach((d, i) => {
    const span = draws[i];
    if (d.region === null || span === null || span === undefined || d.region >= n) return;
    start[d.region] = Math.min(start[d.region]!, span.start);
    end[d.region] = Math.max(end[d.region]!, span.end);
  });
  for (let r = n - 1; r >= 0; r--) {
    const parent = trace.regions[r]!.parent;
    if (parent === null || start[r] === Infinity) continue;
    start[parent] = Math.min(start[parent]!, start[r]!);
    end[parent] = Math.max(end[parent]!, end[r]!);
  }
  return trace.regions.map((r, i) => (start[i] === Infinity ? null : { start: start[i]!, end: end[i]!, name: r.label === '' ? `region ${r.index}` : r.label }));
}

/**
 * Lanes of spans, each lane listed in start order. A span joins a lane when
 * the lane has no span open at its start, or (with `ancestors`) when the
 * lane's innermost open span is an ancestor of it that contains it: a region
 * nests only inside its own parents, never inside a sibling it happens to
 * overlap in time. Spans are taken by start, longest first (so a parent comes
 * before the child it contains), and go to the lowest lane that takes them.
 */
export function spanLanes(spans: readonly (Span | null)[], ancestors: ((outer: number, inner: number) => boolean) | null): number[][] {
  const order = spans.flatMap((s, i) => (s === null ? [] : [i]));
  order.sort((a, b) => spans[a]!.start - spans[b]!.start || spans[b]!.end - spans[a]!.end || a - b);
  const lanes: number[][] = [];
  const stacks: number[][] = []; // per lane, its open spans, innermost last
  for (const i of order) {
    const { start, end } = spans[i]!;
    let lane = 0;
    for (; lane < lanes.length; lane++) {
      const stack = stacks[lane]!;
      while (stack.length > 0 && spans[stack[stack.length - 1]!]!.end <= start) stack.pop();
      if (stack.length === 0) break;
      const top = stack[stack.length - 1]!;
      if (ancestors !== null && end <= spans[top]!.end && ancestors(top, i)) break;
    }
    if (lane === lanes.length) {
      lanes.push([]);
      stacks.push([]);
    }
    lanes[lane]!.push(i);
    stacks[lane]!.push(i);
  }
  return lanes;
}

/** Whether region `outer` is an ancestor of region `inner` (parents always come first: the walk ends). */
export function isAncestor(trace: Trace, outer: number, inner: number): boolean {
  for (let r = trace.regions[inner]!.parent; r !== null; r = trace.regions[r]!.parent) if (r === outer) return true;
  return false;
}

/**
 * A lane's begin/end events in time order, ends of inner spans first: calls
 * `event(index, begin)` for each. Spans were placed so they nest.
 */
export function laneEvents(spans: readonly (Span | null)[], lane: readonly number[], event: (index: number, begin: boolean) => void): void {
  const open: number[] = [];
  for (const i of lane) {
    const start = spans[i]!.start;
    while (open.length > 0 && spans[open[open.length - 1]!]!.end <= start) event(open.pop()!, false);
    event(i, true);
    open.push(i);
  }
  while (open.length > 0) event(open.pop()!, false);
}
