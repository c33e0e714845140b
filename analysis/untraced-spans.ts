/**
 * When draws that ran untraced (their pipeline skipped by the capture layer:
 * DrawInfo.untraced) occupied the GPU, by their timestamps. They have no
 * warps, so the GPU looks idle while they ran: a gap that overlaps one is no
 * idle window or sync the analyses can vouch for, and is not reported.
 */
import type { DrawInfo } from '../shared-schema/model.js';

/** Disjoint [begin, end] spans (ns), ascending. */
export interface UntracedSpans {
  readonly begin: Float64Array;
  readonly end: Float64Array;
}

/** The timestamp spans of the untraced draws, merged (draws without timestamps give none). */
export function untracedSpansOf(draws: readonly DrawInfo[]): UntracedSpans {
  const spans = draws
    .filter((d) => d.untraced != null && d.gpuBeginNs !== null && d.gpuEndNs !== null)
    .map((d) => [d.gpuBeginNs as number, d.gpuEndNs as number] as const)
    .sort((a, b) => a[0] - b[0]);
  const begin: number[] = [];
  const end: number[] = [];
  for (const [b, e] of spans) {
    if (end.length > 0 && b <= (end[end.length - 1] as number)) end[end.length - 1] = Math.max(end[end.length - 1] as number, e);
    else begin.push(b), end.push(e);
  }
  return { begin: Float64Array.from(begin), end: Float64Array.from(end) };
}

/** Whether (a, b) overlaps an untraced draw's span. */
export function overlapsUntraced(spans: UntracedSpans, a: number, b: number): boolean {
  // The first span ending after a (ends ascend, as the spans are disjoint and sorted).
  let lo = 0;
  let hi = spans.end.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((spans.end[mid] as number) <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo < spans.begin.length && (spans.begin[lo] as number) < b;
}
