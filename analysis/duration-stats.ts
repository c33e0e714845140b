/**
 * Warp-duration statistics per stage and per draw × stage: counts, warp-time,
 * mean, exact nearest-rank percentiles, stddev, a log-binned histogram,
 * active lanes and SMs used. Built from the shared row pass (moments and
 * durations grouped by key) with radix selection: O(n), no full sort.
 */
import type { Trace } from '../shared-schema/model.js';
import { STAGE_COUNT } from '../shared-schema/stages.js';
import type { DrawStageKeys } from './draw-stage-keys.js';
import { floatOfBits, SegmentSelector, type SelectedStatistics } from './order-statistics.js';
import type { RowPass } from './sweep.js';
import type { DurationStats } from './summary.js';

export interface DurationStatsResult {
  /** One per draw × stage key (see DrawStageKeys). */
  readonly byKey: DurationStats[];
  /** One per stage code; null when the stage has no warps. */
  readonly byStage: (DurationStats | null)[];
  /** Per stage code: warps per active-lane count (index = lanes). */
  readonly activeLaneCounts: number[][];
  /** Per stage code: SM ids that ran it, ascending. */
  readonly stageSms: number[][];
}

export function durationStats(trace: Trace, keys: DrawStageKeys, rows: RowPass): DurationStatsResult {
  const K = keys.count;
  const { keyStage, warps: count } = keys;
  const { ref, shifted, shifted2, lanes, firstStart, lastEnd, smsUsed } = rows;
  const sub = trace.device.subgroupSize;
  const selector = new SegmentSelector(rows.grouped, rows.keyBegin);
  const stageUnion = Array.from({ length: STAGE_COUNT }, () => new Float64Array(1 << 11));

  const byKey: DurationStats[] = new Array(K);
  for (let k = 0; k < K; k++) {
    const c = count[k]!;
    const mean = ref[k]! + shifted[k]! / c;
    const variance = Math.max(0, (shifted2[k]! - (shifted[k]! * shifted[k]!) / c) / c);
    const selected = selector.ofSegment(k, ranksOf(c), stageUnion[keyStage[k]!]!);
    byKey[k] = {
      warps: c,
      totalNs: mean * c,
      meanNs: mean,
      ...orderStats(selected),
      stddevNs: Math.sqrt(variance),
      meanActiveLanes: lanes[k]! / c,
      simtEfficiency: lanes[k]! / c / sub,
      smsUsed: smsUsed[k]!,
      firstStartNs: firstStart[k]!,
      lastEndNs: lastEnd[k]!,
    };
  }

  // Per stage: merge the keys' moments (Chan et al.); order statistics over the stage's key segments.
  const byStage: (DurationStats | null)[] = [];
  const activeLaneCounts: number[][] = [];
  const laneSlots = sub + 1;
  for (let s = 0; s < STAGE_COUNT; s++) {
    activeLaneCounts.push(Array.from(rows.laneCounts.subarray(s * laneSlots, (s + 1) * laneSlots)));
    const stageKeys: number[] = [];
    let c = 0;
    let mean = 0;
    let m2 = 0;
    let laneSum = 0;
    let first = Infinity;
    let last = -Infinity;
    let minNs = Infinity;
    let maxNs = -Infinity;
    for (let k = 0; k < K; k++) {
      if (keyStage[k] !== s) continue;
      stageKeys.push(k);
      const key = byKey[k]!;
      const ck = count[k]!;
      const total = c + ck;
      const delta = key.meanNs - mean;
      mean += (delta * ck) / total;
      m2 += key.stddevNs * key.stddevNs * ck + (delta * delta * c * ck) / total;
      c = total;
      laneSum += lanes[k]!;
      first = Math.min(first, firstStart[k]!);
      last = Math.max(last, lastEnd[k]!);
      minNs = Math.min(minNs, key.minNs);
      maxNs = Math.max(maxNs, key.maxNs);
    }
    if (c === 0) {
      byStage.push(null);
      continue;
    }
    const selected = selector.ofUnion(stageKeys, stageUnion[s]!, ranksOf(c), bitsOf(minNs), bitsOf(maxNs));
    byStage.push({
      warps: c,
      totalNs: mean * c,
      meanNs: mean,
      ...orderStats(selected),
      stddevNs: Math.sqrt(m2 / c),
      meanActiveLanes: laneSum / c,
      simtEfficiency: laneSum / c / sub,
      smsUsed: rows.stageSms[s]!.length,
      firstStartNs: first,
      lastEndNs: last,
    });
  }
  return { byKey, byStage, activeLaneCounts, stageSms: rows.stageSms };
}

/** 0-based nearest ranks (1-based ceil(p·n)) of the median, p90 and p99. */
function ranksOf(n: number): number[] {
  return [0.5, 0.9, 0.99].map((p) => Math.min(n, Math.max(1, Math.ceil(p * n))) - 1);
}

const bitsView = new Uint32Array(1);
const floatView = new Float32Array(bitsView.buffer);
function bitsOf(value: number): number {
  floatView[0] = value;
  return bitsView[0]!;
}

function orderStats(s: SelectedStatistics): Pick<DurationStats, 'medianNs' | 'p90Ns' | 'p99Ns' | 'minNs' | 'maxNs' | 'histogram'> {
  return {
    minNs: floatOfBits(s.minBits),
    medianNs: floatOfBits(s.rankBits[0]!),
    p90Ns: floatOfBits(s.rankBits[1]!),
    p99Ns: floatOfBits(s.rankBits[2]!),
    maxNs: floatOfBits(s.maxBits),
    histogram: s.histogram,
  };
}
