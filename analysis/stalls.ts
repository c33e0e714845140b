/**
 * Long-warp stalls: a warp much longer than its stage's median during which
 * the SMs that run its stage held far fewer warps than its own draw reaches
 * there (the 2016 Stirling trace: one long TCS warp held back rasterization,
 * which must stay in patch order, and the whole GPU went idle around it).
 *
 * Reference: the highest occupancy of the candidate's own draw on those SMs
 * (its warps of every stage), binned. Measured: every warp on those SMs
 * (other draws and compute included: SMs kept busy by other work are not
 * stalled). So work that never ran beside the draw, such as a dispatch after
 * it, changes nothing, and a long warp while its draw's occupancy stayed
 * normal is no stall. Bins are at most 1/64 of the shortest candidate of the
 * SM set; per draw, prefix sums of the time below its threshold make each
 * candidate O(1). O(n) overall.
 */
import { smOfWarp } from '../shared-schema/columns.js';
import type { Trace } from '../shared-schema/model.js';
import { Stage, STAGE_COUNT, stageInfo, type StageName } from '../shared-schema/stages.js';
import type { DrawSpans } from './draw-overlap.js';
import { binGrid, binOf, drawPeaks, integrateBins, occupancyProfile } from './occupancy-profile.js';
import type { DurationStats, Stall } from './summary.js';
import type { Thresholds } from './thresholds.js';

/** Most bins of the all-warps profile of one SM set. */
const MAX_BINS = 1 << 20;
/** Most bins summed over the spans of the draws with candidates in one SM set (the per-draw profiles). */
const MAX_DRAW_BINS = 1 << 23;
/** Most candidate warps evaluated; beyond, the ones longest relative to their median win. */
const MAX_CANDIDATES = 20000;
const BINS_PER_SHORTEST_CANDIDATE = 64;
/** One time tick (1/16 ns): the floor for medians in factors and for bins. */
const TICK_NS = 1 / 16;

export interface StallResult {
  readonly stalls: Stall[];
  /** Warps long enough to be candidates (before any cap). */
  readonly candidates: number;
}

/** Duration statistics the candidates are judged by: per stage, and per draw × stage key. */
export interface StallDurations {
  readonly byStage: readonly (DurationStats | null)[];
  readonly byKey: readonly DurationStats[];
  readonly keyOfRow: Uint32Array;
  readonly keyStage: Uint8Array;
  /** Per stage: the SMs that ran it, ascending. */
  readonly stageSms: readonly number[][];
}

export function findStalls(
  trace: Trace,
  durations: StallDurations,
  spans: DrawSpans,
  frame: { readonly startNs: number; readonly endNs: number },
  thresholds: Thresholds,
  /** Whether a cross-SM effect of this many ns stands (reliability.ts standsAcrossSms). */
  standsAcrossSms: (ns: number) => boolean,
): StallResult {
  const w = trace.warps;
  const { durationNs, stage, draw } = w;
  const { byStage, byKey, keyOfRow, stageSms } = durations;
  const candidates = findCandidates(trace, durations, thresholds);
  if (candidates.rows.length === 0) return { stalls: [], candidates: candidates.found };

  // Candidates by the set of SMs their stage ran on (typically: graphics SMs, all SMs).
  const bySet = new Map<string, { sms: number[]; rows: number[] }>();
  for (const row of candidates.rows) {
    const sms = stageSms[stage[row]!]!;
    const key = sms.join(',');
    let entry = bySet.get(key);
    if (!entry) bySet.set(key, (entry = { sms, rows: [] }));
    entry.rows.push(row);
  }
  const frameSpan = frame.endNs - frame.startNs;
  const stalls: Stall[] = [];
  for (const { sms, rows } of bySet.values()) {
    const wanted = new Set(sms);
    const groups: number[] = [];
    w.smGroups.sm.forEach((sm, g) => wanted.has(sm) && groups.push(g));
    // The candidates' draws, each with its candidates.
    rows.sort((a, b) => draw[a]! - draw[b]! || a - b);
    const draws: number[] = [];
    const drawBegin: number[] = [];
    rows.forEach((row, k) => {
      if (k === 0 || draw[row] !== draw[rows[k - 1]!]) {
        draws.push(draw[row]!);
        drawBegin.push(k);
      }
    });
    drawBegin.push(rows.length);
    let origin = Infinity;
    let end = -Infinity;
    let drawSpanSum = 0;
    for (const d of draws) {
      origin = Math.min(origin, spans.firstStart[d]!);
      end = Math.max(end, spans.lastEnd[d]!);
      drawSpanSum += spans.lastEnd[d]! - spans.firstStart[d]!;
    }
    let shortest = Infinity;
    for (const row of rows) shortest = Math.min(shortest, durationNs[row]!);
    const binNs = Math.max((end - origin) / MAX_BINS, drawSpanSum / MAX_DRAW_BINS, shortest / BINS_PER_SHORTEST_CANDIDATE, TICK_NS);
    const grid = binGrid(origin, end, binNs);
    const profile = occupancyProfile(trace, groups, grid);
    const peaks = drawPeaks(trace, groups, grid, draws, spans);
    const lowTime = new Float64Array(grid.bins + 1); // per draw: prefix sums of time below its threshold
    for (let j = 0; j < draws.length; j++) {
      const d = draws[j]!;
      const low = thresholds.stallOccupancyShare * peaks[j]!;
      const first = binOf(grid, spans.firstStart[d]!);
      const last = binOf(grid, spans.lastEnd[d]!);
      lowTime[first] = 0;
      for (let b = first; b <= last; b++) lowTime[b + 1] = lowTime[b]! + (profile.occupancy[b]! < low ? profile.width[b]! : 0);
      const below = (b: number) => (profile.occupancy[b]! < low ? 1 : 0);
      for (let k = drawBegin[j]!; k < drawBegin[j + 1]!; k++) {
        const row = rows[k]!;
        const start = w.startNs[row]!;
        const duration = durationNs[row]!;
        const stallNs = integrateBins(grid, start, start + duration, lowTime, below);
        if (stallNs < thresholds.stallMinNs || stallNs < thresholds.stallMinShareOfWarp * duration) continue;
        const warpTime = integrateBins(grid, start, start + duration, profile.warpTime, (b) => profile.occupancy[b]!);
        const median = byStage[stage[row]!]!.medianNs;
        const drawMedian = byKey[keyOfRow[row]!]!.medianNs;
        stalls.push({
          row,
          sm: smOfWarp(w.smGroups, row),
          warpSlot: w.warpSlot[row]!,
          stage: stageInfo(stage[row]!).name,
          draw: d,
          customId: w.customId[row]!,
          startNs: start,
          durationNs: duration,
          stageMedianNs: median,
          drawStageMedianNs: drawMedian,
          factor: duration / Math.max(median, drawMedian, TICK_NS),
          stallNs,
          shareOfFrame: frameSpan > 0 ? stallNs / frameSpan : 0,
          meanOccupancyDuring: duration > 0 ? warpTime / duration : 0,
          peakOccupancy: peaks[j]!,
          sms,
          binNs,
          reliable: sms.length === 1 || standsAcrossSms(stallNs),
        });
      }
    }
  }
  stalls.sort((a, b) => b.stallNs - a.stallNs || a.startNs - b.startNs);
  return { stalls, candidates: candidates.found };
}

/**
 * Warps ≥ stallMinWarpNs and ≥ stallMinFactor × the larger of their stage's median and
 * their draw's median for that stage: a warp is long against its siblings, not only
 * against other draws' warps of its stage (a dispatch of long warps is not a stall of
 * itself). At most MAX_CANDIDATES of them: the longest relative to that median.
 */
function findCandidates(trace: Trace, durations: StallDurations, thresholds: Thresholds): { rows: Uint32Array; found: number } {
  const { durationNs, count } = trace.warps;
  const { byStage, byKey, keyOfRow, keyStage } = durations;
  const medianOf = (k: number) => Math.max(byKey[k]!.medianNs, byStage[keyStage[k]!]!.medianNs);
  const minDuration = new Float64Array(byKey.length);
  for (let k = 0; k < byKey.length; k++) minDuration[k] = Math.max(thresholds.stallMinWarpNs, thresholds.stallMinFactor * medianOf(k));
  let rows = new Uint32Array(1024);
  let found = 0;
  for (let i = 0; i < count; i++) {
    if (durationNs[i]! < minDuration[keyOfRow[i]!]!) continue;
    if (found === rows.length) {
      const bigger = new Uint32Array(rows.length * 2);
      bigger.set(rows);
      rows = bigger;
    }
    rows[found++] = i;
  }
  const all = rows.subarray(0, found);
  if (found <= MAX_CANDIDATES) return { rows: all, found };
  // Relative to the median, floored at one time tick (a stage of zero-length warps has median 0).
  const factorOf = (row: number) => durationNs[row]! / Math.max(medianOf(keyOfRow[row]!), TICK_NS);
  const factors = Float64Array.from(all, factorOf).sort();
  const cutoff = factors[found - MAX_CANDIDATES]!;
  return { rows: all.filter((row) => factorOf(row) >= cutoff).subarray(0, MAX_CANDIDATES), found };
}

export interface StallGroup {
  readonly lead: Stall;
  readonly members: Stall[];
  /** Members per stage, most first (ties in stage order). */
  readonly stages: { readonly stage: StageName; readonly warps: number }[];
  readonly startNs: number;
  readonly endNs: number;
  /** The largest stalled time of the group (the members' stalls overlap). */
  readonly costNs: number;
}

/**
 * Stall warps of one draw on one SM set whose lifetimes overlap form one
 * finding, led by the longest stall; the group counts its warps per stage.
 */
export function groupStalls(stalls: readonly Stall[]): StallGroup[] {
  const byKey = new Map<string, Stall[]>();
  for (const s of stalls) {
    const key = `${s.draw}|${s.sms.join(',')}`;
    const list = byKey.get(key) ?? [];
    list.push(s);
    byKey.set(key, list);
  }
  const groups: StallGroup[] = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => a.startNs - b.startNs);
    let members: Stall[] = [];
    let end = -Infinity;
    const flush = () => {
      if (members.length === 0) return;
      const lead = members.reduce((a, b) => (b.stallNs > a.stallNs ? b : a));
      groups.push({ lead, members, stages: stageCounts(members), startNs: members[0]!.startNs, endNs: end, costNs: lead.stallNs });
    };
    for (const s of list) {
      if (s.startNs >= end) {
        flush();
        members = [];
      }
      members.push(s);
      end = Math.max(end, s.startNs + s.durationNs);
    }
    flush();
  }
  return groups;
}

function stageCounts(members: readonly Stall[]): { stage: StageName; warps: number }[] {
  const counts = new Map<StageName, number>();
  for (const m of members) counts.set(m.stage, (counts.get(m.stage) ?? 0) + 1);
  return [...counts].map(([stage, warps]) => ({ stage, warps })).sort((a, b) => b.warps - a.warps || Stage[a.stage] - Stage[b.stage]);
}
