/**
 * How the rows of SM-major records are cut into work for a pool: slices of
 * one SM group's rows (a busy SM is split over several workers; on the H100
 * four SMs run all graphics warps), and tasks spread over workers by size.
 * Slice boundaries are multiples of SLICE_BLOCK rows from the group's start,
 * so sums kept per block (rough clock rates) come out the same however many
 * workers there are.
 */

/** Rows per block: the unit slices are made of and per-block sums are kept in. */
export const SLICE_BLOCK = 16384;

/** A range of one SM group's rows. */
export interface RowSlice {
  readonly g: number;
  readonly begin: number;
  readonly end: number;
}

/**
 * Each group's rows in slices of about count / (workers · 3) rows (whole
 * blocks), so the slices spread evenly; one slice per group for one worker.
 */
export function sliceGroups(offsets: Uint32Array, workers: number): RowSlice[] {
  const groups = offsets.length - 1;
  const count = offsets[groups] as number;
  const blocks = workers <= 1 ? Infinity : Math.max(1, Math.ceil(count / (workers * 3) / SLICE_BLOCK));
  const out: RowSlice[] = [];
  for (let g = 0; g < groups; g++) {
    const begin = offsets[g] as number;
    const end = offsets[g + 1] as number;
    for (let at = begin; at < end; at += blocks * SLICE_BLOCK) out.push({ g, begin: at, end: Math.min(end, at + blocks * SLICE_BLOCK) });
  }
  return out;
}

/** A sliced group is sorted in place when the slice is the whole group, else merged after. */
export interface SliceTask {
  readonly slice: RowSlice;
  readonly whole: boolean;
}

/** Tasks every worker gets, claimed one by one in this order (task indices) as workers get free. */
export interface ClaimedTasks {
  readonly claimOrder: readonly number[];
}

/** Claimed tasks, biggest first (by weight), so the last ones to go are small. */
export function claimBySize(weights: ArrayLike<number>): ClaimedTasks {
  return { claimOrder: Array.from({ length: weights.length }, (_, k) => k).sort((a, b) => (weights[b] as number) - (weights[a] as number) || a - b) };
}

/** The slices of every group, the task of each and the order workers claim them in. */
export interface SlicePlan {
  readonly slices: readonly RowSlice[];
  /** Slice indices of each group, in row order. */
  readonly slicesOf: readonly (readonly number[])[];
  readonly tasks: readonly SliceTask[];
  /** Biggest slices first. */
  readonly claim: ClaimedTasks;
}

export function planSlices(offsets: Uint32Array, workers: number): SlicePlan {
  const slices = sliceGroups(offsets, workers);
  const slicesOf: number[][] = Array.from({ length: offsets.length - 1 }, () => []);
  slices.forEach((s, k) => (slicesOf[s.g] as number[]).push(k));
  return {
    slices,
    slicesOf,
    tasks: slices.map((slice) => ({ slice, whole: (slicesOf[slice.g] as number[]).length === 1 })),
    claim: claimBySize(slices.map((s) => s.end - s.begin)),
  };
}

/** Per group, the smallest of a value each of its slices reported (value(k) for slice k). */
export function minPerGroup(plan: SlicePlan, value: (slice: number) => number): number[] {
  return plan.slicesOf.map((list) => list.reduce((min, k) => Math.min(min, value(k)), Infinity));
}

/** Per group, the largest of a value each of its slices reported. */
export function maxPerGroup(plan: SlicePlan, value: (slice: number) => number): number[] {
  return plan.slicesOf.map((list) => list.reduce((max, k) => Math.max(max, value(k)), -Infinity));
}

/** Tasks (by weight) spread over workers, biggest first to the least loaded: assignment[w] lists worker w's task indices. */
export function assignTasks(weights: ArrayLike<number>, workers: number): number[][] {
  const order = Array.from({ length: weights.length }, (_, k) => k).sort((a, b) => (weights[b] as number) - (weights[a] as number) || a - b);
  const load = new Float64Array(workers);
  const out: number[][] = Array.from({ length: workers }, () => []);
  for (const k of order) {
    let best = 0;
    for (let w = 1; w < workers; w++) if ((load[w] as number) < (load[best] as number)) best = w;
    (out[best] as number[]).push(k);
    load[best] = (load[best] as number) + (weights[k] as number);
  }
  for (const list of out) list.sort((a, b) => a - b);
  return out;
}

/** Rows [0, count) in `parts` contiguous ranges of near-equal size. */
export function splitRows(count: number, parts: number): [number, number][] {
  return Array.from({ length: parts }, (_, k) => [Math.floor((count * k) / parts), Math.floor((count * (k + 1)) / parts)] as [number, number]);
}

/**
 * Consecutive items (runs, segments) of one group batched into tasks of
 * about `target` rows: [first, last) item indices per task. bounds[k] is
 * the first row of item k, bounds[items] the end of the last.
 */
export function batchItems(bounds: ArrayLike<number>, items: number, target: number): [number, number][] {
  const out: [number, number][] = [];
  let first = 0;
  for (let k = 1; k <= items; k++) {
    if (k === items || (bounds[k] as number) - (bounds[first] as number) >= target) {
      out.push([first, k]);
      first = k;
    }
  }
  return out;
}
