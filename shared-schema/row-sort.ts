/**
 * A stable sort of one SM group's rows by a key, spread over workers: each
 * slice of the group is sorted on its own (sortSlice), splitters picked from
 * the slices' samples cut the key range into parts, and each part is merged
 * from every slice (mergePart) straight to its final place. GPU records
 * arrive nearly in order, so a part usually draws on one or two slices.
 * The result is the group's unique stable order, however it was split.
 */
import type { RowSlice, SlicePlan } from './row-tasks.js';
import { sortRowsInto } from './sort.js';

/** Keys each sorted slice reports for choosing splitters. */
const SAMPLES_PER_SLICE = 64;

/**
 * Sorts rows [begin, end) by key[row], stably: sortedRows[begin + k] is the
 * row of rank k, sortedKeys[begin + k] its key. Returns evenly spaced keys of
 * the sorted slice (for splittersOf).
 */
export function sortSlice(key: Float64Array, begin: number, end: number, sortedRows: Uint32Array, sortedKeys: Float64Array): Float64Array {
  sortRowsInto(key, begin, end, sortedRows, sortedKeys);
  const samples = new Float64Array(Math.min(SAMPLES_PER_SLICE, end - begin));
  for (let s = 0; s < samples.length; s++) samples[s] = sortedKeys[begin + Math.floor(((s + 0.5) * (end - begin)) / samples.length)] as number;
  return samples;
}

/** `parts` − 1 keys cutting the slices' samples into parts of equal size. */
export function splittersOf(samples: readonly Float64Array[], parts: number): Float64Array {
  let length = 0;
  for (const s of samples) length += s.length;
  const all = new Float64Array(length);
  let at = 0;
  for (const s of samples) {
    all.set(s, at);
    at += s.length;
  }
  all.sort();
  return Float64Array.from({ length: Math.max(0, parts - 1) }, (_, k) => all[Math.floor(((k + 1) * length) / parts)] as number);
}

/** Part [lo, hi) of one group's keys, merged from its sorted slices. */
export interface MergeTask {
  readonly g: number;
  readonly slices: readonly (readonly [number, number])[];
  readonly lo: number;
  readonly hi: number;
}

/** For each group sorted in several slices: one merge part per slice, cut at splitters of their samples (null for whole groups). */
export function mergeTasks(plan: SlicePlan, samples: readonly (Float64Array | null)[]): { tasks: MergeTask[]; weights: number[] } {
  const tasks: MergeTask[] = [];
  const weights: number[] = [];
  plan.slicesOf.forEach((list, g) => {
    if (list.length < 2) return;
    const ranges = list.map((k) => [(plan.slices[k] as RowSlice).begin, (plan.slices[k] as RowSlice).end] as const);
    const cuts = splittersOf(
      list.map((k) => samples[k] as Float64Array),
      list.length,
    );
    const rowsOfGroup = (ranges[ranges.length - 1] as readonly [number, number])[1] - (ranges[0] as readonly [number, number])[0];
    for (let p = 0; p < list.length; p++) {
      tasks.push({ g, slices: ranges, lo: p === 0 ? -Infinity : (cuts[p - 1] as number), hi: p === list.length - 1 ? Infinity : (cuts[p] as number) });
      weights.push(rowsOfGroup / list.length);
    }
  });
  return { tasks, weights };
}

/** First index in [begin, end) whose key is ≥ value (keys sorted). */
function lowerBound(keys: Float64Array, begin: number, end: number, value: number): number {
  let lo = begin;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Merges the rows whose keys lie in [lo, hi) from every sorted slice (in
 * row order: ties go to the earlier slice) into rowsOut/keysOut, at the
 * place they take in the group. Returns the output range.
 */
export function mergePart(
  slices: readonly (readonly [number, number])[],
  rowsIn: Uint32Array,
  keysIn: Float64Array,
  lo: number,
  hi: number,
  rowsOut: Uint32Array,
  keysOut: Float64Array,
): [number, number] {
  const heads: number[] = [];
  const stops: number[] = [];
  let out = (slices[0] as readonly [number, number])[0];
  for (const [begin, end] of slices) {
    const from = lowerBound(keysIn, begin, end, lo);
    const to = lowerBound(keysIn, from, end, hi);
    out += from - begin;
    if (from < to) {
      heads.push(from);
      stops.push(to);
    }
  }
  const first = out;
  while (heads.length > 1) {
    // The smallest head (the earliest slice on ties), then the runner-up it may run up to.
    let best = 0;
    for (let j = 1; j < heads.length; j++) if ((keysIn[heads[j] as number] as number) < (keysIn[heads[best] as number] as number)) best = j;
    let next = best === 0 ? 1 : 0;
    for (let j = next + 1; j < heads.length; j++) if (j !== best && (keysIn[heads[j] as number] as number) < (keysIn[heads[next] as number] as number)) next = j;
    const limit = keysIn[heads[next] as number] as number;
    const takesTies = best < next;
    let p = heads[best] as number;
    const stop = stops[best] as number;
    do {
      rowsOut[out] = rowsIn[p] as number;
      keysOut[out++] = keysIn[p] as number;
      p++;
    } while (p < stop && ((keysIn[p] as number) < limit || (takesTies && keysIn[p] === limit)));
    if (p === stop) {
      heads.splice(best, 1);
      stops.splice(best, 1);
    } else {
      heads[best] = p;
    }
  }
  if (heads.length === 1) {
    for (let p = heads[0] as number, stop = stops[0] as number; p < stop; p++) {
      rowsOut[out] = rowsIn[p] as number;
      keysOut[out++] = keysIn[p] as number;
    }
  }
  return [first, out];
}
