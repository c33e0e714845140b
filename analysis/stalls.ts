/**
 * Long-warp stalls: a warp much longer than its stage's median during which
 * occupancy on the SMs that run its stage fell well below its peak (the 2016
 * Stirling trace: one long TCS warp held back rasterization, which must stay
 * in patch order, and the whole GPU went idle around it).
 *
 * Occupancy here is all warps in flight on the stage's SMs, binned: each bin
 * holds the exact integral of warps in flight over it, so a bin's value is
 * the time-weighted mean occupancy within it. The bins are at most 1/64 of
 * the shortest candidate warp (and at most 2^20 bins), and prefix sums make
 * each candidate O(1). O(n) overall.
 */
import { smOfWarp } from '../shared-schema/columns.js';
import type { Trace } from '../shared-schema/model.js';
import { STAGE_COUNT, stageInfo } from '../shared-schema/stages.js';
import type { DurationStats, Stall } from './summary.js';
import type { Thresholds } from './thresholds.js';

const MAX_BINS = 1 << 20;
/** Most candidate warps evaluated; beyond, the ones longest relative to their median win. */
const MAX_CANDIDATES = 20000;
const BINS_PER_SHORTEST_CANDIDATE = 64;
/** One time tick (1/16 ns): the floor for medians in factors. */
const MIN_MEDIAN_NS = 1 / 16;

export interface StallResult {
  readonly stalls: Stall[];
  /** Warps long enough to be candidates (before any cap). */
  readonly candidates: number;
}

export function findStalls(
  trace: Trace,
  byStage: readonly (DurationStats | null)[],
  stageSms: readonly number[][],
  frame: { readonly startNs: number; readonly endNs: number },
  thresholds: Thresholds,
  alignedAcrossSms: boolean,
): StallResult {
  const w = trace.warps;
  const minDuration = new Float64Array(STAGE_COUNT).fill(Infinity);
  for (let s = 0; s < STAGE_COUNT; s++) {
    const st = byStage[s];
    if (st) minDuration[s] = Math.max(thresholds.stallMinWarpNs, thresholds.stallMinFactor * st.medianNs);
  }
  let rows = new Uint32Array(1024);
  let found = 0;
  const { durationNs, stage } = w;
  for (let i = 0, n = w.count; i < n; i++) {
    if (durationNs[i]! < minDuration[stage[i]!]!) continue;
    if (found === rows.length) {
      const bigger = new Uint32Array(rows.length * 2);
      bigger.set(rows);
      rows = bigger;
    }
    rows[found++] = i;
  }
  if (found === 0) return { stalls: [], candidates: 0 };
  let candidates = rows.subarray(0, found);
  // Relative to the median, floored at one time tick (a stage of zero-length warps has median 0).
  const factorOf = (row: number) => durationNs[row]! / Math.max(byStage[stage[row]!]!.medianNs, MIN_MEDIAN_NS);
  if (found > MAX_CANDIDATES) {
    const factors = Float64Array.from(candidates, factorOf).sort();
    const cutoff = factors[found - MAX_CANDIDATES]!;
    candidates = candidates.filter((row) => factorOf(row) >= cutoff).subarray(0, MAX_CANDIDATES);
  }

  // One occupancy profile per distinct set of SMs (typically: graphics SMs, all SMs).
  const bySet = new Map<string, { sms: number[]; rows: number[] }>();
  for (const row of candidates) {
    const sms = stageSms[stage[row]!]!;
    const key = sms.join(',');
    let entry = bySet.get(key);
    if (!entry) bySet.set(key, (entry = { sms, rows: [] }));
    entry.rows.push(row);
  }
  const span = frame.endNs - frame.startNs;
  const stalls: Stall[] = [];
  for (const { sms, rows: setRows } of bySet.values()) {
    let shortest = Infinity;
    for (const row of setRows) shortest = Math.min(shortest, durationNs[row]!);
    const binNs = Math.max(span / MAX_BINS, shortest / BINS_PER_SHORTEST_CANDIDATE, 1 / 16);
    const profile = occupancyProfile(trace, sms, frame.startNs, frame.endNs, binNs);
    const low = thresholds.stallOccupancyShare * profile.peak;
    const lowTime = new Float64Array(profile.bins + 1); // prefix sums of time spent below `low`
    for (let b = 0; b < profile.bins; b++) {
      lowTime[b + 1] = lowTime[b]! + (profile.occupancy[b]! < low ? profile.width[b]! : 0);
    }
    const reliable = alignedAcrossSms || sms.length === 1;
    for (const row of setRows) {
      const start = w.startNs[row]!;
      const duration = durationNs[row]!;
      const stallNs = profile.integrate(start, start + duration, lowTime, (b) => (profile.occupancy[b]! < low ? 1 : 0));
      if (stallNs < thresholds.stallMinNs || stallNs < thresholds.stallMinShareOfWarp * duration) continue;
      const warpTime = profile.integrate(start, start + duration, profile.warpTime, (b) => profile.occupancy[b]!);
      const median = byStage[stage[row]!]!.medianNs;
      stalls.push({
        row,
        sm: smOfWarp(w.smGroups, row),
        warpSlot: w.warpSlot[row]!,
        stage: stageInfo(stage[row]!).name,
        draw: w.draw[row]!,
        customId: w.customId[row]!,
        startNs: start,
        durationNs: duration,
        stageMedianNs: median,
        factor: duration / Math.max(median, MIN_MEDIAN_NS),
        stallNs,
        shareOfFrame: span > 0 ? stallNs / span : 0,
        meanOccupancyDuring: duration > 0 ? warpTime / duration : 0,
        peakOccupancy: profile.peak,
        sms,
        binNs,
        reliable,
      });
    }
  }
  stalls.sort((a, b) => b.stallNs - a.stallNs || a.startNs - b.startNs);
  return { stalls, candidates: found };
}

interface OccupancyProfile {
  readonly bins: number;
  /** Time-weighted mean warps in flight per bin. */
  readonly occupancy: Float64Array;
  /** Width of each bin, ns (the last one is cut at the frame end). */
  readonly width: Float64Array;
  /** Prefix sums of warp-time: warpTime[b] = warp-time in bins 0..b-1. */
  readonly warpTime: Float64Array;
  /** Highest bin occupancy. */
  readonly peak: number;
  /** ∫ over [a, b) of the per-bin rate `rate(bin)`, given its prefix sums over whole bins. */
  integrate(a: number, b: number, prefix: Float64Array, rate: (bin: number) => number): number;
}

/** Binned warps-in-flight on a set of SMs, from the exact overlap of every warp with every bin. */
function occupancyProfile(trace: Trace, sms: readonly number[], origin: number, end: number, binNs: number): OccupancyProfile {
  const bins = Math.max(1, Math.ceil((end - origin) / binNs));
  // Two spare bins take warps ending at (or rounding past) the frame end; folded back below.
  const partial = new Float64Array(bins + 2);
  const fullDiff = new Float64Array(bins + 2);
  const perNs = 1 / binNs;
  const { startNs, durationNs } = trace.warps;
  const { sm: groupSm, offsets } = trace.warps.smGroups;
  const wanted = new Set(sms);
  for (let g = 0; g < groupSm.length; g++) {
    if (!wanted.has(groupSm[g]!)) continue;
    for (let i = offsets[g]!, last = offsets[g + 1]!; i < last; i++) {
      const a = startNs[i]! - origin;
      const b = a + durationNs[i]!;
      const ba = Math.floor(a * perNs);
      const bb = Math.floor(b * perNs);
      if (ba === bb) {
        partial[ba]! += b - a;
      } else {
        partial[ba]! += (ba + 1) * binNs - a;
        partial[bb]! += b - bb * binNs;
        fullDiff[ba + 1]! += 1;
        fullDiff[bb]! -= 1;
      }
    }
  }
  partial[bins - 1]! += partial[bins]! + partial[bins + 1]!;
  const width = new Float64Array(bins).fill(binNs);
  width[bins - 1] = Math.max(1e-9, end - origin - (bins - 1) * binNs);
  const occupancy = new Float64Array(bins);
  const warpTime = new Float64Array(bins + 1);
  let full = 0;
  let peak = 0;
  for (let b = 0; b < bins; b++) {
    full += fullDiff[b]!;
    const time = partial[b]! + full * binNs;
    occupancy[b] = time / width[b]!;
    warpTime[b + 1] = warpTime[b]! + time;
    if (occupancy[b]! > peak) peak = occupancy[b]!;
  }
  const integrate = (a: number, b: number, prefix: Float64Array, rate: (bin: number) => number): number => {
    const ra = a - origin;
    const rb = b - origin;
    const ba = Math.min(bins - 1, Math.max(0, Math.floor(ra / binNs)));
    const bb = Math.min(bins - 1, Math.max(0, Math.floor(rb / binNs)));
    if (ba === bb) return rate(ba) * (rb - ra);
    const head = rate(ba) * ((ba + 1) * binNs - ra);
    const tail = rate(bb) * (rb - bb * binNs);
    return head + (prefix[bb]! - prefix[ba + 1]!) + tail;
  };
  return { bins, occupancy, width, warpTime, peak, integrate };
}

export interface StallGroup {
  readonly lead: Stall;
  readonly members: Stall[];
  readonly startNs: number;
  readonly endNs: number;
  /** The largest stalled time of the group (the members' stalls overlap). */
  readonly costNs: number;
}

/** Long warps of one SM set whose lifetimes overlap form one finding, led by the longest stall. */
export function groupStalls(stalls: readonly Stall[]): StallGroup[] {
  const bySet = new Map<string, Stall[]>();
  for (const s of stalls) {
    const key = s.sms.join(',');
    const list = bySet.get(key) ?? [];
    list.push(s);
    bySet.set(key, list);
  }
  const groups: StallGroup[] = [];
  for (const list of bySet.values()) {
    list.sort((a, b) => a.startNs - b.startNs);
    let members: Stall[] = [];
    let end = -Infinity;
    const flush = () => {
      if (members.length === 0) return;
      const lead = members.reduce((a, b) => (b.stallNs > a.stallNs ? b : a));
      groups.push({ lead, members, startNs: members[0]!.startNs, endNs: end, costNs: lead.stallNs });
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
