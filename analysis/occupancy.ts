/**
 * Occupancy results: warps in flight per SM, per stage and per draw × stage,
 * as accumulated by the sweep (sweep.ts): peaks (most warps in flight at
 * once on one SM), time-weighted means while active, and per stage the
 * SM-time spent at each in-flight level. Warps on the unknown SM (devices
 * without SM builtins) form one device-wide lane, reported apart: per-SM
 * numbers and capacities do not apply there.
 */
import { UNKNOWN_SM, type Trace } from '../shared-schema/model.js';
import { STAGE_COUNT } from '../shared-schema/stages.js';
import type { DrawStageKeys } from './draw-stage-keys.js';
import type { PerSmOccupancy } from './summary.js';

/** Per-entity counters accumulated over SMs: stages first, then draw × stage keys. */
export class Counters {
  readonly count: Int32Array;
  /** When the entity's current active period began on the SM being swept. */
  readonly since: Float64Array;
  /** SM-time with ≥ 1 warp in flight, summed over SMs. */
  readonly activeNs: Float64Array;
  /** Warp-time (integral of warps in flight). */
  readonly warpNs: Float64Array;
  readonly peak: Int32Array;
  readonly peakSm: Uint16Array;
  readonly peakAt: Float64Array;

  constructor(size: number) {
    this.count = new Int32Array(size);
    this.since = new Float64Array(size);
    this.activeNs = new Float64Array(size);
    this.warpNs = new Float64Array(size);
    this.peak = new Int32Array(size);
    this.peakSm = new Uint16Array(size);
    this.peakAt = new Float64Array(size);
  }
}

/** A view of a range of entities (all stages or all keys). */
export class InFlight {
  constructor(
    private readonly counters: Counters,
    private readonly base: number,
    readonly size: number,
  ) {}

  /** The summary view of entity i; null when it never had a warp in flight. */
  result(i: number): PerSmOccupancy | null {
    const c = this.counters;
    const e = this.base + i;
    const peak = c.peak[e]!;
    if (peak === 0) return null;
    const active = c.activeNs[e]!;
    return {
      peak,
      peakSm: c.peakSm[e]!,
      peakAtNs: c.peakAt[e]!,
      meanWhileActive: active > 0 ? c.warpNs[e]! / active : peak,
      activeSmTimeNs: active,
    };
  }
}

/** SM-time spent at each in-flight level, per stage. */
export class LevelTime {
  constructor(
    private readonly flat: Float64Array,
    private readonly levels: number,
  ) {}

  /** levelTimeNs[k] for k = 0..highest level reached ([0] is 0). */
  of(stage: number): number[] {
    const row = this.flat.subarray(stage * this.levels, (stage + 1) * this.levels);
    let top = row.length - 1;
    while (top > 0 && row[top] === 0) top--;
    return Array.from(row.subarray(0, top + 1));
  }
}

export interface SmOccupancy {
  readonly sm: number;
  readonly warps: number;
  readonly warpTimeNs: number;
  readonly busyNs: number;
  readonly peakInFlight: number;
  /** Per stage code: most warps of that stage in flight at once on this SM. */
  readonly stagePeaks: Uint32Array;
}

export interface OccupancySide {
  readonly stages: InFlight;
  readonly keys: InFlight;
  readonly levels: LevelTime;
}

export interface OccupancyResult {
  /** Over SMs with a known id. */
  readonly known: OccupancySide;
  /** Over the unknown-SM lane (device-wide); empty when there is none. */
  readonly unknown: OccupancySide;
  readonly sms: SmOccupancy[];
}

/** Counters and level tables of one side (known SMs or the unknown-SM lane). */
export interface SideAccumulator {
  readonly counters: Counters;
  levels: Float64Array;
  levelCount: number;
}

export function newSide(entities: number, warpsPerSm: number | null): SideAccumulator {
  const levelCount = (warpsPerSm ?? 64) + 1;
  return { counters: new Counters(entities), levels: new Float64Array(STAGE_COUNT * levelCount), levelCount };
}

/** Doubles a side's level table (more warps of one stage in flight than slots were expected). */
export function widenLevels(side: SideAccumulator): void {
  const L = side.levelCount;
  const grown = new Float64Array(STAGE_COUNT * 2 * L);
  for (let st = 0; st < STAGE_COUNT; st++) grown.set(side.levels.subarray(st * L, (st + 1) * L), st * 2 * L);
  side.levels = grown;
  side.levelCount = 2 * L;
}

/**
 * The results of a sweep: warp-time per entity comes from the per-key sums
 * (`keyWarpTimeNs`, all SMs) minus the unknown-SM lane's own sums.
 */
export function occupancyResult(
  trace: Trace,
  keys: DrawStageKeys,
  sides: readonly (SideAccumulator | undefined)[],
  sms: SmOccupancy[],
  keyWarpTimeNs: Float64Array,
): OccupancyResult {
  const keyBase = STAGE_COUNT;
  const entities = keyBase + keys.count;
  const w = trace.warps;
  const { sm: groupSm, offsets } = w.smGroups;
  const unknownWarpNs = new Float64Array(keys.count);
  if (groupSm.length > 0 && groupSm[groupSm.length - 1] === UNKNOWN_SM) {
    for (let i = offsets[groupSm.length - 1]!; i < w.count; i++) unknownWarpNs[keys.keyOfRow[i]!]! += w.durationNs[i]!;
  }
  for (const [side, warpNsOf] of [
    [sides[0], (k: number) => keyWarpTimeNs[k]! - unknownWarpNs[k]!],
    [sides[1], (k: number) => unknownWarpNs[k]!],
  ] as const) {
    if (side === undefined) continue;
    const warpNs = side.counters.warpNs;
    for (let k = 0; k < keys.count; k++) {
      const v = warpNsOf(k);
      warpNs[keyBase + k] = v;
      warpNs[keys.keyStage[k]!]! += v;
    }
  }
  const view = (side: SideAccumulator | undefined): OccupancySide => {
    const s = side ?? newSide(entities, 0);
    return {
      stages: new InFlight(s.counters, 0, STAGE_COUNT),
      keys: new InFlight(s.counters, keyBase, keys.count),
      levels: new LevelTime(s.levels, s.levelCount),
    };
  };
  return { known: view(sides[0]), unknown: view(sides[1]), sms };
}
