/**
 * The one pass over every row that the analyses share: reading the columns
 * once is most of their cost at 10 M warps. Per SM, in time order:
 *
 * - per draw × stage key: duration moments, lanes, time extremes, SMs used;
 *   each duration's bit pattern scattered into its key's segment (for the
 *   order statistics);
 * - each draw's latest warp ends (for leftover tails);
 * - each SM's busy intervals (the union of its warps, for GPU idle time);
 * - the in-flight sweep: a min-heap of the ends of the warps in flight,
 *   O(n log w) with w warps in flight on one SM (a bucket sort of the ends
 *   and a merge measured no faster). A warp ending exactly when another
 *   starts does not overlap it.
 */
import { laneMasks, popcount32 } from '../shared-schema/columns.js';
import { UNKNOWN_SM, type Trace } from '../shared-schema/model.js';
import { STAGE_COUNT } from '../shared-schema/stages.js';
import { BusyIntervals } from './busy-intervals.js';
import type { DrawStageKeys } from './draw-stage-keys.js';
import { newSide, occupancyResult, widenLevels, type OccupancyResult, type SideAccumulator, type SmOccupancy } from './occupancy.js';

export interface SweepOptions {
  /** Keep the latest `tailWarps + 1` ends of draws with at least `tailMinWarps` warps. */
  readonly tailWarps: number;
  readonly tailMinWarps: number;
}

export interface RowPass {
  /** Key k's duration bit patterns are grouped[keyBegin[k] .. keyBegin[k+1]). */
  readonly grouped: Uint32Array;
  readonly keyBegin: Uint32Array;
  /** Per key: first duration (moments are shifted by it for precision), Σ(d − ref), Σ(d − ref)². */
  readonly ref: Float64Array;
  readonly shifted: Float64Array;
  readonly shifted2: Float64Array;
  /** Per key: Σ active lanes, earliest start, latest end, SMs used. */
  readonly lanes: Float64Array;
  readonly firstStart: Float64Array;
  readonly lastEnd: Float64Array;
  readonly smsUsed: Uint32Array;
  /** laneCounts[stage * (subgroupSize + 1) + lanes] = warps. */
  readonly laneCounts: Float64Array;
  /** Per stage: SM ids that ran it, ascending. */
  readonly stageSms: number[][];
  /** Draw d's latest ends, descending, at tailEnd[tailSlot[d] * (tailWarps+1) ...] (slot -1: not tracked). */
  readonly tailSlot: Int32Array;
  readonly tailEnd: Float64Array;
  readonly tailRow: Uint32Array;
}

export interface Sweep {
  readonly rows: RowPass;
  readonly occupancy: OccupancyResult;
  readonly busy: BusyIntervals;
}

export function sweep(trace: Trace, keys: DrawStageKeys, options: SweepOptions): Sweep {
  const w = trace.warps;
  const n = w.count;
  const K = keys.count;
  const D = trace.draws.length;
  const laneSlots = trace.device.subgroupSize + 1;
  const { keyOfRow, keyStage, keyDraw, warps: keyWarps } = keys;

  const keyBegin = new Uint32Array(K + 1);
  for (let k = 0; k < K; k++) keyBegin[k + 1] = keyBegin[k]! + keyWarps[k]!;
  const cursor = keyBegin.slice(0, K);
  const grouped = new Uint32Array(n);
  const durationBits = new Uint32Array(w.durationNs.buffer, w.durationNs.byteOffset, n);

  // Leftover tails: slots for the draws big enough to check.
  const keep = options.tailWarps + 1;
  const drawWarps = new Float64Array(D);
  for (let k = 0; k < K; k++) drawWarps[keyDraw[k]!]! += keyWarps[k]!;
  const tailSlot = new Int32Array(D).fill(-1);
  let slots = 0;
  for (let d = 0; d < D; d++) if (drawWarps[d]! >= options.tailMinWarps && drawWarps[d]! > options.tailWarps) tailSlot[d] = slots++;
  const tailEnd = new Float64Array(slots * keep).fill(-Infinity);
  const tailRow = new Uint32Array(slots * keep);
  // Per key: its draw's tail slot base, or -1.
  const keyTail = new Int32Array(K);
  for (let k = 0; k < K; k++) {
    const s = tailSlot[keyDraw[k]!]!;
    keyTail[k] = s < 0 ? -1 : s * keep;
  }

  const ref = new Float64Array(K).fill(NaN);
  const shifted = new Float64Array(K);
  const shifted2 = new Float64Array(K);
  const lanes = new Float64Array(K);
  const firstStart = new Float64Array(K).fill(Infinity);
  const lastEnd = new Float64Array(K).fill(-Infinity);
  const smsUsed = new Uint32Array(K);
  const lastGroupOfKey = new Int32Array(K).fill(-1);
  const laneCounts = new Float64Array(STAGE_COUNT * laneSlots);
  const stageSms: number[][] = Array.from({ length: STAGE_COUNT }, () => []);
  const { startNs, durationNs, activeMask, activeMaskHi } = w;
  const fullLo = laneMasks(trace.device.subgroupSize).lo;
  const fullLanes = Math.min(32, trace.device.subgroupSize);
  const { sm: groupSm, offsets } = w.smGroups;

  // In-flight counters: entity s < STAGE_COUNT is a stage, STAGE_COUNT + k is key k.
  const keyBase = STAGE_COUNT;
  const entities = keyBase + K;
  const sides: (SideAccumulator | undefined)[] = [undefined, undefined];
  const sms: SmOccupancy[] = [];
  let heapEnd = new Float64Array(256);
  let heapKey = new Uint32Array(256);
  const lastChange = new Float64Array(STAGE_COUNT);
  const busyIntervals = new BusyIntervals(groupSm.length);

  for (let g = 0; g < groupSm.length; g++) {
    const smId = groupSm[g]!;
    const sideIndex = smId === UNKNOWN_SM ? 1 : 0;
    const side = (sides[sideIndex] ??= newSide(entities, trace.device.warpsPerSm));
    const { count, since, activeNs, peak, peakSm, peakAt } = side.counters;
    let levels = side.levels;
    let L = side.levelCount;
    const stagePeaks = new Uint32Array(STAGE_COUNT);
    let size = 0;
    let inFlight = 0;
    let smPeak = 0;
    let busy = 0;
    let busySince = 0;
    let warpTime = 0;
    const first = offsets[g]!;
    const last = offsets[g + 1]!;
    let runStart = 0;
    let runEnd = -Infinity;
    let runFirst = first;
    let runEndRow = first;
    for (let i = first; i <= last; i++) {
      // Row `last` is a sentinel: drain the heap at +∞.
      const t = i < last ? startNs[i]! : Infinity;
      while (size > 0 && heapEnd[0]! <= t) {
        // Pop the earliest end.
        const e = heapEnd[0]!;
        const k = heapKey[0]!;
        const m = --size;
        if (m > 0) {
          const movedEnd = heapEnd[m]!;
          const movedKey = heapKey[m]!;
          let j = 0;
          for (;;) {
            let child = 2 * j + 1;
            if (child >= m) break;
            if (child + 1 < m && heapEnd[child + 1]! < heapEnd[child]!) child++;
            if (heapEnd[child]! >= movedEnd) break;
            heapEnd[j] = heapEnd[child]!;
            heapKey[j] = heapKey[child]!;
            j = child;
          }
          heapEnd[j] = movedEnd;
          heapKey[j] = movedKey;
        }
        // End event at e for its stage and key.
        const s = keyStage[k]!;
        let c = count[s]! - 1;
        levels[s * L + c + 1]! += e - lastChange[s]!;
        lastChange[s] = e;
        count[s] = c;
        if (c === 0) activeNs[s]! += e - since[s]!;
        const ke = keyBase + k;
        c = count[ke]! - 1;
        count[ke] = c;
        if (c === 0) activeNs[ke]! += e - since[ke]!;
        if (--inFlight === 0) busy += e - busySince;
      }
      if (i === last) break;

      const k = keyOfRow[i]!;
      const d = durationNs[i]!;
      const st = keyStage[k]!;
      const e = t + d;

      // This SM's busy interval (warps touching end to start share one).
      if (t > runEnd) {
        if (i > first) busyIntervals.push(runStart, runEnd, runFirst, runEndRow);
        runStart = t;
        runEnd = e;
        runFirst = runEndRow = i;
      } else if (e > runEnd) {
        runEnd = e;
        runEndRow = i;
      }

      // Per-key accumulations.
      grouped[cursor[k]!++] = durationBits[i]!;
      let r = ref[k]!;
      if (r !== r) r = ref[k] = d; // the key's first duration (ref starts as NaN)
      const x = d - r;
      shifted[k]! += x;
      shifted2[k]! += x * x;
      const mask = activeMask[i]!;
      let l = mask === fullLo ? fullLanes : popcount32(mask);
      if (activeMaskHi !== null) l += popcount32(activeMaskHi[i]!);
      lanes[k]! += l;
      laneCounts[st * laneSlots + l]!++;
      if (t < firstStart[k]!) firstStart[k] = t;
      if (e > lastEnd[k]!) lastEnd[k] = e;
      if (lastGroupOfKey[k] !== g) {
        lastGroupOfKey[k] = g;
        smsUsed[k]!++;
      }
      const base = keyTail[k]!;
      if (base >= 0) {
        // Insert e among the draw's `keep` latest ends (descending).
        let j = base + keep - 1;
        if (e > tailEnd[j]!) {
          while (j > base && tailEnd[j - 1]! < e) {
            tailEnd[j] = tailEnd[j - 1]!;
            tailRow[j] = tailRow[j - 1]!;
            j--;
          }
          tailEnd[j] = e;
          tailRow[j] = i;
        }
      }

      // Start event at t for stage st and key k.
      let c = count[st]!;
      if (c > 0) levels[st * L + c]! += t - lastChange[st]!;
      lastChange[st] = t;
      c++;
      count[st] = c;
      if (c === 1) since[st] = t;
      if (c > peak[st]!) {
        peak[st] = c;
        peakSm[st] = smId;
        peakAt[st] = t;
      }
      if (c > stagePeaks[st]!) {
        if (stagePeaks[st] === 0) stageSms[st]!.push(smId);
        stagePeaks[st] = c;
      }
      if (c + 1 >= L) {
        widenLevels(side);
        levels = side.levels;
        L = side.levelCount;
      }
      const ke = keyBase + k;
      c = count[ke]! + 1;
      count[ke] = c;
      if (c === 1) since[ke] = t;
      if (c > peak[ke]!) {
        peak[ke] = c;
        peakSm[ke] = smId;
        peakAt[ke] = t;
      }
      if (inFlight++ === 0) busySince = t;
      if (inFlight > smPeak) smPeak = inFlight;
      warpTime += d;

      // Push the warp's end.
      if (size === heapEnd.length) {
        const biggerEnd = new Float64Array(size * 2);
        biggerEnd.set(heapEnd);
        heapEnd = biggerEnd;
        const biggerKey = new Uint32Array(size * 2);
        biggerKey.set(heapKey);
        heapKey = biggerKey;
      }
      let j = size++;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        const pe = heapEnd[parent]!;
        if (pe <= e) break;
        heapEnd[j] = pe;
        heapKey[j] = heapKey[parent]!;
        j = parent;
      }
      heapEnd[j] = e;
      heapKey[j] = k;
    }
    if (last > first) busyIntervals.push(runStart, runEnd, runFirst, runEndRow);
    busyIntervals.endGroup();
    sms.push({ sm: smId, warps: last - first, warpTimeNs: warpTime, busyNs: busy, peakInFlight: smPeak, stagePeaks });
  }

  const keyWarpTimeNs = new Float64Array(K);
  for (let k = 0; k < K; k++) keyWarpTimeNs[k] = ref[k]! * keyWarps[k]! + shifted[k]!;
  return {
    rows: { grouped, keyBegin, ref, shifted, shifted2, lanes, firstStart, lastEnd, smsUsed, laneCounts, stageSms, tailSlot, tailEnd, tailRow },
    occupancy: occupancyResult(trace, keys, sides, sms, keyWarpTimeNs),
    busy: busyIntervals,
  };
}
