/**
 * Leftover warps: a draw whose last stretch is spent on a handful of warps
 * (the 2016 Big Guy trace: "the first draw has its cost increased by a single
 * leftover TCS warp").
 *
 * With the draw's warp end times sorted descending E1 ≥ E2 ≥ ..., after
 * E(K+1) at most K warps of the draw are still running, for E1 − E(K+1).
 * The row pass keeps the K+1 latest ends per draw (O(n·K)); we report the smallest
 * K ≤ leftoverMaxWarps whose tail passes both thresholds.
 */
import { smOfWarp } from '../shared-schema/columns.js';
import type { Trace } from '../shared-schema/model.js';
import { stageInfo } from '../shared-schema/stages.js';
import type { DrawOverlap, DrawSpans } from './draw-overlap.js';
import type { RowPass } from './sweep.js';
import type { Leftover, LeftoverWarp } from './summary.js';
import type { Thresholds } from './thresholds.js';

export function findLeftovers(
  trace: Trace,
  spans: DrawSpans,
  rows: RowPass,
  overlap: DrawOverlap,
  thresholds: Thresholds,
  /** Whether a cross-SM effect of this many ns stands (reliability.ts standsAcrossSms). */
  standsAcrossSms: (ns: number) => boolean,
): Leftover[] {
  const maxK = thresholds.leftoverMaxWarps;
  const keep = maxK + 1;
  const D = trace.draws.length;
  const { tailSlot: slot, tailEnd: topEnd, tailRow: topRow } = rows;
  const out: Leftover[] = [];
  const w = trace.warps;
  for (let d = 0; d < D; d++) {
    const s = slot[d]!;
    if (s < 0) continue;
    const base = s * keep;
    const last = topEnd[base]!;
    const span = last - spans.firstStart[d]!;
    if (!(span > 0)) continue;
    for (let k = 1; k <= maxK; k++) {
      const tailStart = topEnd[base + k]!;
      const tail = last - tailStart;
      if (tail < thresholds.leftoverMinNs || tail < thresholds.leftoverMinShare * span || tail <= 0) continue;
      const tailWarps: LeftoverWarp[] = [];
      const smsInvolved = new Set<number>();
      for (let j = 0; j <= k; j++) smsInvolved.add(smOfWarp(w.smGroups, topRow[base + j]!));
      for (let j = 0; j < k; j++) {
        const row = topRow[base + j]!;
        tailWarps.push({
          row,
          sm: smOfWarp(w.smGroups, row),
          warpSlot: w.warpSlot[row]!,
          stage: stageInfo(w.stage[row]!).name,
          customId: w.customId[row]!,
          startNs: w.startNs[row]!,
          durationNs: w.durationNs[row]!,
        });
      }
      out.push({
        draw: d,
        warps: k,
        startNs: tailStart,
        endNs: last,
        tailNs: tail,
        shareOfDraw: tail / span,
        overlappedNs: overlap.coveredByTwo(tailStart, last),
        tailWarps,
        reliable: smsInvolved.size === 1 || standsAcrossSms(tail),
      });
      break;
    }
  }
  return out;
}
