/**
 * Occupancy caps: a stage that never ran more than a small share of an SM's
 * warp slots, and sat at that ceiling for a good part of its time (the 2016
 * Big Guy trace: "no more than 12 TCS warps can [run in parallel]", while TES
 * reached 30). An observation, not a cost: the cause may be registers, shared
 * memory, the hardware, or simply not enough work arriving.
 */
import type { OccupancyCap, StageSummary } from './summary.js';
import type { Thresholds } from './thresholds.js';

export function findOccupancyCaps(stages: readonly StageSummary[], warpsPerSm: number | null, thresholds: Thresholds): OccupancyCap[] {
  if (warpsPerSm === null) return [];
  const caps: OccupancyCap[] = [];
  for (const s of stages) {
    const per = s.occupancy.perSm;
    if (per === null || s.warps < thresholds.capMinWarps || per.peak < 2) continue;
    if (per.peak > thresholds.capMaxShareOfSm * warpsPerSm) continue;
    if (per.timeAtPeakShare < thresholds.capMinTimeAtPeak) continue;
    caps.push({
      stage: s.stage,
      peakPerSm: per.peak,
      warpsPerSm,
      timeAtPeakShare: per.timeAtPeakShare,
      peakSm: per.peakSm,
      peakAtNs: per.peakAtNs,
    });
  }
  return caps;
}
