/**
 * Driver syncs / serialization: a draw that starts only after every earlier
 * draw has drained, with the GPU idle (no warp in flight anywhere) for at
 * least `syncMinGapNs`. The 2016 Big Guy trace showed such gaps between its
 * three draws: a driver-initiated wait-for-idle.
 */
import type { DrawOverlap, DrawSpans } from './draw-overlap.js';
import type { SyncGap } from './summary.js';
import { overlapsUntraced, type UntracedSpans } from './untraced-spans.js';

export interface SyncResult {
  /** Every gap at or above the threshold, in GPU order. */
  readonly gaps: SyncGap[];
  readonly totalNs: number;
}

/** Gaps overlapping an untraced draw (`untraced`: no warps, yet the GPU ran it) are left out. */
export function findSyncs(spans: DrawSpans, overlap: DrawOverlap, minGapNs: number, untraced?: UntracedSpans): SyncResult {
  const gaps: SyncGap[] = [];
  let totalNs = 0;
  for (let j = 1; j < overlap.startOrder.length; j++) {
    const d = overlap.startOrder[j]!;
    const gap = overlap.gapBeforeNs[d]!;
    // A zero threshold still needs a real gap: touching draws are not a sync.
    if (!(gap >= minGapNs && gap > 0)) continue;
    const start = spans.firstStart[d]! - gap;
    if (untraced !== undefined && overlapsUntraced(untraced, start, spans.firstStart[d]!)) continue;
    gaps.push({ afterDraw: overlap.drainedBy[d]!, beforeDraw: d, startNs: start, endNs: spans.firstStart[d]!, gapNs: gap });
    totalNs += gap;
  }
  return { gaps, totalNs };
}
