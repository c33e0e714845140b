/**
 * Which Perfetto thread (lane) of its SM each warp goes on, shared by the
 * JSON and protobuf exports: its warp slot's lane while that slot's previous
 * warp has ended, else an extra lane (warps that overlap their slot's
 * previous one: re-formed ray-tracing warps, or slots without ids), and the
 * last lane, shared, when an SM runs out of lanes.
 */
import { UNKNOWN_SLOT } from '../../shared-schema/model.js';

/** Lanes per SM: thread ids are (group + 1) × MAX_LANES + lane, unique and below 2^32. */
export const MAX_LANES = 4096;
/** First lane for warps that cannot use their slot's lane. */
export const EXTRA_LANES = 256;

/** The lane planner of one export: call startSm() at each SM, then assign() its warps in start order. */
export class WarpLanes {
  /** Warps moved to an extra lane because they overlapped their slot's previous warp. */
  slotOverlaps = 0;
  /** Warps put on the shared last lane (more than MAX_LANES in flight on one SM). */
  forcedOverlaps = 0;
  /** Whether the last assign() put its warp on the shared last lane (its events may overlap). */
  forced = false;
  private readonly laneEnd = new Float64Array(MAX_LANES);
  private readonly pool = new LanePool();

  startSm(): void {
    this.laneEnd.fill(-Infinity);
    this.pool.reset(EXTRA_LANES, MAX_LANES);
  }

  /** The lane of a warp of this slot running [start, end) (ns, rounded). */
  assign(slot: number, start: number, end: number): number {
    let lane: number;
    this.forced = false;
    if (slot !== UNKNOWN_SLOT && this.laneEnd[slot]! <= start) {
      lane = slot;
    } else {
      if (slot !== UNKNOWN_SLOT) this.slotOverlaps++;
      lane = this.pool.take(start, end);
      if (lane < 0) {
        lane = MAX_LANES - 1;
        this.forced = true;
        this.forcedOverlaps++;
      }
    }
    this.laneEnd[lane] = Math.max(this.laneEnd[lane]!, end);
    return lane;
  }
}

/** A lane's thread name: "SM 3 / slot 12", "SM 3 / extra 4", or "SM unknown / lane 0" without slot ids. */
export function laneName(smName: string, lane: number, slot: number): string {
  return lane < EXTRA_LANES ? `${smName} / slot ${lane}` : slot === UNKNOWN_SLOT ? `${smName} / lane ${lane - EXTRA_LANES}` : `${smName} / extra ${lane - EXTRA_LANES}`;
}

/** Extra lanes of one SM: reuse the lane that frees up first (min-heap on lane end). */
export class LanePool {
  private ends = new Float64Array(64);
  private ids = new Uint32Array(64);
  private size = 0;
  private next = 0;
  private limit = 0;

  reset(firstLane: number, limit: number): void {
    this.size = 0;
    this.next = firstLane;
    this.limit = limit;
  }

  /** A lane free at `start` (reserved until `end`), or -1 when out of lanes. */
  take(start: number, end: number): number {
    if (this.size > 0 && this.ends[0]! <= start) {
      const lane = this.ids[0]!;
      this.replaceTop(end, lane);
      return lane;
    }
    if (this.next >= this.limit - 1) return -1;
    const lane = this.next++;
    this.push(end, lane);
    return lane;
  }

  private push(end: number, id: number): void {
    if (this.size === this.ends.length) {
      const ends = new Float64Array(this.size * 2);
      ends.set(this.ends);
      const ids = new Uint32Array(this.size * 2);
      ids.set(this.ids);
      this.ends = ends;
      this.ids = ids;
    }
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.ends[p]! <= end) break;
      this.ends[i] = this.ends[p]!;
      this.ids[i] = this.ids[p]!;
      i = p;
    }
    this.ends[i] = end;
    this.ids[i] = id;
  }

  private replaceTop(end: number, id: number): void {
    const n = this.size;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.ends[c + 1]! < this.ends[c]!) c++;
      if (this.ends[c]! >= end) break;
      this.ends[i] = this.ends[c]!;
      this.ids[i] = this.ids[c]!;
      i = c;
    }
    this.ends[i] = end;
    this.ids[i] = id;
  }
}
