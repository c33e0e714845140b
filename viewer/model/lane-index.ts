/**
 * Per-SM-lane index that lets every frame cost follow pixels, not warps.
 * Built once per trace (in the decode worker), a few bytes per 64 warps plus
 * the occupancy pyramid (about 1 byte per warp on graphics lanes):
 *
 * - blockMaxEnd: the latest end time of each block of BLOCK rows. Rows are
 *   sorted by start, not end, so finding the warps still running at time t
 *   means looking back; the block maxima let that look-back skip blocks.
 * - occupancy: per lane and stage, average warps in flight per time bin, as
 *   a mip pyramid (each level halves the resolution). Zoomed out, a pixel
 *   column sums a few bins; zoomed in (column narrower than a bin) the
 *   renderer reads the warps themselves, which are then few per column.
 * - drawSpans: first warp start and last warp end of each draw.
 */
import { UNKNOWN_SLOT, type Trace } from '../../shared-schema/index.js';
import { OccupancyAccumulator } from './occupancy-build.js';

/** Rows per block of blockMaxEnd. */
export const BLOCK = 64;
export { WARPS_PER_BIN } from './occupancy-build.js';

export interface OccupancyPyramid {
  /** Time of bin 0's left edge, ns. */
  readonly originNs: number;
  /** Width of a level-0 bin, ns (a power of two). */
  readonly binNs: number;
  /** Stage codes with warps on this lane, ascending (class codes in a class pyramid); `levels[k]` belongs to stages[k]. */
  readonly stages: Uint8Array;
  /** levels[k][l]: bins of level l for stages[k]; level l bins are binNs·2^l wide. */
  readonly levels: readonly (readonly Uint16Array[])[];
  /** Warps in flight per unit of a stored bin value. */
  readonly unit: number;
}

export interface LaneIndex {
  /** Per SM group (same order as trace.warps.smGroups). */
  readonly lanes: readonly LaneInfo[];
  /** Largest average warps-in-flight of one lane in one level-0 bin (all stages). */
  readonly peakOccupancy: number;
  /** Per draw: [first warp start, last warp end] in ns, NaN when the draw has no warps. */
  readonly drawSpans: Float64Array;
  /** Earliest warp start and latest warp end of the trace (0, 0 when empty). */
  readonly startNs: number;
  readonly endNs: number;
}

export interface LaneInfo {
  readonly group: number;
  readonly sm: number;
  readonly rowBegin: number;
  readonly rowEnd: number;
  readonly blockMaxEnd: Float64Array;
  readonly maxDurationNs: number;
  readonly firstStartNs: number;
  readonly lastEndNs: number;
  /** Bit s set when stage s has warps on this lane. */
  readonly stageMask: number;
  /** Warp slots in use: 0..slotCount-1 (UNKNOWN_SLOT excluded). */
  readonly slotCount: number;
  readonly hasUnknownSlot: boolean;
  /**
   * Warps without a recorded slot (devices without SM builtins) are packed
   * into display rows so they do not overlap: unknownRows rows, and the row
   * of each such warp at packedRow[i - rowBegin] (null when there are none).
   */
  readonly unknownRows: number;
  readonly packedRow: Uint8Array | null;
  readonly occupancy: OccupancyPyramid;
}

export function buildLaneIndex(trace: Trace): LaneIndex {
  const w = trace.warps;
  const { sm, offsets } = w.smGroups;
  const lanes: LaneInfo[] = [];
  let peak = 0;
  let traceStart = Infinity;
  let traceEnd = -Infinity;
  for (let g = 0; g < sm.length; g++) {
    const lane = buildLane(trace, g, sm[g]!, offsets[g]!, offsets[g + 1]!);
    lanes.push(lane.info);
    if (lane.peak > peak) peak = lane.peak;
    if (lane.info.firstStartNs < traceStart) traceStart = lane.info.firstStartNs;
    if (lane.info.lastEndNs > traceEnd) traceEnd = lane.info.lastEndNs;
  }
  return {
    lanes,
    peakOccupancy: peak,
    drawSpans: buildDrawSpans(trace),
    startNs: Number.isFinite(traceStart) ? traceStart : 0,
    endNs: Number.isFinite(traceEnd) ? traceEnd : 0,
  };
}

function buildLane(trace: Trace, group: number, smId: number, begin: number, end: number): { info: LaneInfo; peak: number } {
  const { startNs, durationNs, stage, warpSlot } = trace.warps;
  const n = end - begin;
  const blocks = Math.ceil(n / BLOCK);
  const blockMaxEnd = new Float64Array(blocks);
  let maxDur = 0;
  let lastEnd = -Infinity;
  let stageMask = 0;
  let slotCount = 0;
  let hasUnknownSlot = false;
  for (let b = 0; b < blocks; b++) {
    let m = -Infinity;
    const rEnd = Math.min(end, begin + (b + 1) * BLOCK);
    for (let i = begin + b * BLOCK; i < rEnd; i++) {
      const d = durationNs[i]!;
      const e = startNs[i]! + d;
      if (e > m) m = e;
      if (d > maxDur) maxDur = d;
      stageMask |= 1 << stage[i]!;
      const slot = warpSlot[i]!;
      if (slot === UNKNOWN_SLOT) hasUnknownSlot = true;
      else if (slot >= slotCount) slotCount = slot + 1;
    }
    blockMaxEnd[b] = m;
    if (m > lastEnd) lastEnd = m;
  }
  const firstStart = n > 0 ? startNs[begin]! : 0;
  if (n === 0) lastEnd = 0;
  const packed = hasUnknownSlot ? packUnknownSlots(trace, begin, end) : null;
  const { pyramid, peak } = new OccupancyAccumulator(trace, begin, end, firstStart, lastEnd, stage).add(begin, end).finish();
  return {
    info: {
      group,
      sm: smId,
      rowBegin: begin,
      rowEnd: end,
      blockMaxEnd,
      maxDurationNs: maxDur,
      firstStartNs: firstStart,
      lastEndNs: lastEnd,
      stageMask,
      slotCount,
      hasUnknownSlot,
      unknownRows: packed?.rows ?? 0,
      packedRow: packed?.row ?? null,
      occupancy: pyramid,
    },
    peak,
  };
}

/** Display rows for warps of unknown slot; beyond this many, warps share the row that frees up first. */
export const MAX_PACKED_ROWS = 64;

/** Greedy interval packing (rows are in start order): each warp takes the first row free at its start. */
function packUnknownSlots(trace: Trace, begin: number, end: number): { rows: number; row: Uint8Array } {
  const { startNs, durationNs, warpSlot } = trace.warps;
  const row = new Uint8Array(end - begin);
  const rowEnd: number[] = [];
  for (let i = begin; i < end; i++) {
    if (warpSlot[i] !== UNKNOWN_SLOT) continue;
    const s = startNs[i]!;
    let r = 0;
    while (r < rowEnd.length && rowEnd[r]! > s) r++;
    if (r === rowEnd.length) {
      if (rowEnd.length < MAX_PACKED_ROWS) rowEnd.push(0);
      else r = rowEnd.indexOf(Math.min(...rowEnd));
    }
    rowEnd[r] = Math.max(rowEnd[r]!, s + durationNs[i]!);
    row[i - begin] = r;
  }
  return { rows: rowEnd.length, row };
}

function buildDrawSpans(trace: Trace): Float64Array {
  const { startNs, durationNs, draw, count } = trace.warps;
  const spans = new Float64Array(trace.draws.length * 2).fill(NaN);
  for (let i = 0; i < count; i++) {
    const d = draw[i]! * 2;
    const s = startNs[i]!;
    const e = s + durationNs[i]!;
    const s0 = spans[d]!;
    if (!(s >= s0)) spans[d] = s; // NaN-safe min
    if (!(e <= spans[d + 1]!)) spans[d + 1] = e;
  }
  return spans;
}

/** Every ArrayBuffer inside an index, for zero-copy postMessage. */
export function laneIndexBuffers(index: LaneIndex): ArrayBuffer[] {
  const out: ArrayBuffer[] = [index.drawSpans.buffer as ArrayBuffer];
  for (const lane of index.lanes) {
    out.push(lane.blockMaxEnd.buffer as ArrayBuffer, lane.occupancy.stages.buffer as ArrayBuffer);
    if (lane.packedRow !== null) out.push(lane.packedRow.buffer as ArrayBuffer);
    for (const levels of lane.occupancy.levels) for (const l of levels) out.push(l.buffer as ArrayBuffer);
  }
  return out;
}

/** First row of the lane whose start is ≥ t (rowEnd when none). */
export function lowerBoundStart(startNs: Float64Array, lane: LaneInfo, t: number): number {
  let lo = lane.rowBegin;
  let hi = lane.rowEnd;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (startNs[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Rows of the lane that start before t and are still running after t
 * (end > t), in row order: the warps a window beginning at t cuts into.
 * Cost: the blocks within one max warp duration before t, skipping blocks
 * that all end before t.
 */
export function rowsRunningAt(trace: Trace, lane: LaneInfo, t: number, firstAtOrAfter: number, out: number[]): void {
  out.length = 0;
  const { startNs, durationNs } = trace.warps;
  const limit = t - lane.maxDurationNs;
  const lastBlock = Math.floor((firstAtOrAfter - 1 - lane.rowBegin) / BLOCK);
  let b = lastBlock;
  // Walk back to the earliest block that may still hold a running warp.
  for (; b >= 0; b--) {
    const blockFirstRow = lane.rowBegin + b * BLOCK;
    if (startNs[blockFirstRow]! < limit) break;
  }
  for (b = Math.max(0, b); b <= lastBlock; b++) {
    if (lane.blockMaxEnd[b]! <= t) continue;
    const r0 = lane.rowBegin + b * BLOCK;
    const r1 = Math.min(firstAtOrAfter, r0 + BLOCK);
    for (let i = r0; i < r1; i++) if (startNs[i]! + durationNs[i]! > t) out.push(i);
  }
}
