/**
 * Builds a Trace from plain per-warp columns: validates every row, quantizes
 * times, puts rows in canonical order and narrows the integer columns.
 * Every producer (raw decoder, JSON import, synthetic generators, tests) goes
 * through here, so every Trace obeys the same invariants.
 */
import { allocUintColumn, laneMasks } from './columns.js';
import { MAX_WARPS, describeValue, fail } from './errors.js';
import {
  FORMAT_VERSION,
  TICKS_PER_NS,
  UNKNOWN_SLOT,
  UNKNOWN_SM,
  type CaptureInput,
  type DeviceInfo,
  type DrawInput,
  type RegionInput,
  type Trace,
} from './model.js';
import { readRegions } from './draw-details.js';
import { MAX_CYCLE_START, MAX_TIME_NS, MAX_TIME_TICKS, storedDurationTicks } from './limits.js';
import { readCaptureInfo, readDeviceInfo, readDraws } from './metadata.js';
import { NO_POSITION, positionProblem } from './position.js';
import { groupedOrder } from './sort.js';
import { STAGE_COUNT } from './stages.js';

export interface WarpInput {
  /** ns since the capture origin, ≥ 0. */
  readonly startNs: ArrayLike<number>;
  /** ns since the capture origin, ≥ startNs. */
  readonly endNs: ArrayLike<number>;
  /** SM id or UNKNOWN_SM. */
  readonly sm: ArrayLike<number>;
  /** Warp slot or UNKNOWN_SLOT. */
  readonly warpSlot: ArrayLike<number>;
  /** StageCode. */
  readonly stage: ArrayLike<number>;
  /** Index into draws. */
  readonly draw: ArrayLike<number>;
  readonly customId: ArrayLike<number>;
  /** Lanes 0..31. */
  readonly activeMask: ArrayLike<number>;
  /** Lanes 32..63 (subgroupSize > 32 only). */
  readonly activeMaskHi?: ArrayLike<number> | null;
  /** Raw SM cycles at start, relative to any per-SM base (rebased to the SM's first warp). */
  readonly smCycleStart?: ArrayLike<number> | null;
  readonly smCycleDuration?: ArrayLike<number> | null;
  /** Screen position words (position.ts), NO_POSITION for warps without one; left out or null: none has one. */
  readonly position?: ArrayLike<number> | null;
}

export interface TraceInput {
  readonly device: DeviceInfo;
  readonly capture: CaptureInput;
  readonly draws: readonly DrawInput[];
  /** Labelled regions the draws lie in (left out: none). */
  readonly regions?: readonly RegionInput[];
  readonly warps: WarpInput;
}

const U32 = 0x100000000;

function bad(field: string, row: number, detail: string): never {
  fail('bad-value', `warps.${field}[${row}]`, detail);
}

/** out[k] = values[order[k]] (or values[k] when order is null). */
function permute<T extends Uint8Array | Uint16Array | Uint32Array>(values: ArrayLike<number>, order: Uint32Array | null, out: T): T {
  if (order === null) {
    for (let k = 0; k < out.length; k++) out[k] = values[k] as number;
  } else {
    for (let k = 0; k < out.length; k++) out[k] = values[order[k] as number] as number;
  }
  return out;
}

/** Checks every value is an integer in [0, limit) or equal to `sentinel`; returns the largest. */
function checkUints(column: ArrayLike<number>, name: string, limit: number, sentinel: number, expected: string): number {
  let max = 0;
  for (let i = 0; i < column.length; i++) {
    const v = column[i] as number;
    if (!(v >>> 0 === v && (v < limit || v === sentinel))) bad(name, i, `expected ${expected}, got ${describeValue(v)}`);
    if (v > max) max = v;
  }
  return max;
}

function checkMasks(column: ArrayLike<number>, name: string, laneMask: number, lanes: number): void {
  for (let i = 0; i < column.length; i++) {
    const v = column[i] as number;
    if (!(v >>> 0 === v && (v & ~laneMask) === 0)) bad(name, i, `expected lanes within a ${lanes}-lane subgroup, got ${describeValue(v)}`);
  }
}

function checkLength(name: string, column: ArrayLike<number> | null | undefined, count: number): void {
  if (column === null || column === undefined) return;
  if (column.length !== count) {
    fail('size-mismatch', `warps.${name}`, `has ${column.length} rows but warps.startNs has ${count}`);
  }
}

export function buildTrace(input: TraceInput): Trace {
  // The metadata as a reader would see it: what .wtrace and JSON cannot hold is refused here, not by the reader.
  const device = readDeviceInfo(input.device);
  const capture = readCaptureInfo(input.capture);
  const regions = readRegions(input.regions);
  const draws = readDraws(input.draws, regions.length);
  const w = input.warps;
  const count = w.startNs.length;
  if (count > MAX_WARPS) fail('too-large', 'warps.startNs', `${count} warps exceed the limit of ${MAX_WARPS}`);
  for (const name of ['endNs', 'sm', 'warpSlot', 'stage', 'draw', 'customId', 'activeMask'] as const) {
    checkLength(name, w[name], count);
  }
  checkLength('activeMaskHi', w.activeMaskHi, count);
  checkLength('smCycleStart', w.smCycleStart, count);
  checkLength('smCycleDuration', w.smCycleDuration, count);
  checkLength('position', w.position, count);
  if ((w.smCycleStart == null) !== (w.smCycleDuration == null)) {
    fail('bad-value', 'warps.smCycleStart', 'smCycleStart and smCycleDuration come together');
  }
  if (capture.recordsKept !== count) {
    fail('bad-value', 'capture.recordsKept', `is ${capture.recordsKept} but the trace holds ${count} warps`);
  }
  const wide = device.subgroupSize > 32;
  if (wide && w.activeMaskHi == null) fail('bad-value', 'warps.activeMaskHi', `required for subgroupSize ${device.subgroupSize}`);
  const { lo: laneMaskLo, hi: laneMaskHi } = laneMasks(device.subgroupSize);

  // One tight loop per column: monomorphic element access keeps V8 fast on 10 M rows.
  const startTicks = new Float64Array(count);
  const durationTicks = new Float64Array(count);
  const startIn = w.startNs;
  const endIn = w.endNs;
  for (let i = 0; i < count; i++) {
    const s = startIn[i] as number;
    const e = endIn[i] as number;
    if (!(s >= 0 && s <= MAX_TIME_NS)) bad('startNs', i, `expected ns in [0, ${MAX_TIME_NS}], got ${describeValue(s)}`);
    if (!(e >= s && e <= MAX_TIME_NS)) bad('endNs', i, `expected ns in [startNs (${s}), ${MAX_TIME_NS}], got ${describeValue(e)}`);
    // + 0: -0 would not survive JSON.
    const st = Math.round(s * TICKS_PER_NS) + 0;
    const dt = Math.round(e * TICKS_PER_NS) - st + 0;
    if (st + storedDurationTicks(dt) > MAX_TIME_TICKS) {
      bad('endNs', i, `${e} ns: the duration rounds up to ${storedDurationTicks(dt) / TICKS_PER_NS} ns as a float32, which ends after ${MAX_TIME_NS} ns`);
    }
    startTicks[i] = st;
    durationTicks[i] = dt;
  }
  const sm = new Uint16Array(count);
  const smIn = w.sm;
  const smLimit = device.smCount ?? UNKNOWN_SM;
  for (let i = 0; i < count; i++) {
    const v = smIn[i] as number;
    if (!((v & 0xffff) === v && (v < smLimit || v === UNKNOWN_SM))) {
      bad('sm', i, `expected an SM id below smCount (${device.smCount}) or ${UNKNOWN_SM} (unknown), got ${describeValue(v)}`);
    }
    sm[i] = v;
  }
  checkUints(w.warpSlot, 'warpSlot', device.warpsPerSm ?? UNKNOWN_SLOT, UNKNOWN_SLOT, `a slot below warpsPerSm (${device.warpsPerSm}) or ${UNKNOWN_SLOT} (unknown)`);
  checkUints(w.stage, 'stage', STAGE_COUNT, -1, 'a stage code');
  checkUints(w.draw, 'draw', draws.length, -1, `a draw index below ${draws.length}`);
  const maxCustom = checkUints(w.customId, 'customId', U32, -1, 'a uint32');
  checkMasks(w.activeMask, 'activeMask', laneMaskLo, device.subgroupSize);
  if (wide) checkMasks(w.activeMaskHi!, 'activeMaskHi', laneMaskHi, device.subgroupSize);
  const maskIn = w.activeMask;
  const maskHiIn = wide ? w.activeMaskHi! : null;
  for (let i = 0; i < count; i++) {
    if (maskIn[i] === 0 && (maskHiIn === null || maskHiIn[i] === 0)) bad('activeMask', i, 'a warp has at least one active lane');
  }
  const cyclesStart = w.smCycleStart ?? null;
  const cyclesDuration = w.smCycleDuration ?? null;
  if (cyclesStart !== null && cyclesDuration !== null) {
    for (let i = 0; i < count; i++) {
      const c = cyclesStart[i] as number;
      if (!(Number.isInteger(c) && c >= 0 && c <= Number.MAX_SAFE_INTEGER)) bad('smCycleStart', i, `expected a cycle count, got ${describeValue(c)}`);
    }
    checkUints(cyclesDuration, 'smCycleDuration', U32, -1, 'a uint32 cycle count');
  }

  const positionIn = w.position == null ? null : checkPositions(w.position);

  const { order, groupKeys, offsets } = groupedOrder(sm, startTicks);
  const row = order === null ? (k: number) => k : (k: number) => order[k] as number;

  const startNs = new Float64Array(count);
  const durationNs = new Float32Array(count);
  for (let k = 0; k < count; k++) {
    const i = order === null ? k : (order[k] as number);
    startNs[k] = (startTicks[i] as number) / TICKS_PER_NS;
    durationNs[k] = (durationTicks[i] as number) / TICKS_PER_NS;
  }
  const warpSlot = permute(w.warpSlot, order, new Uint8Array(count));
  const stage = permute(w.stage, order, new Uint8Array(count));
  const draw = permute(w.draw, order, allocUintColumn(count, Math.max(0, draws.length - 1)));
  const customId = permute(w.customId, order, allocUintColumn(count, maxCustom));
  const activeMask = permute(w.activeMask, order, allocUintColumn(count, laneMaskLo));
  const activeMaskHi = wide ? permute(w.activeMaskHi!, order, new Uint32Array(count)) : null;
  const position = positionIn === null ? null : permute(positionIn, order, new Uint32Array(count));
  let smCycleStart: Float64Array | null = null;
  let smCycleDuration: Uint32Array | null = null;
  if (cyclesStart !== null && cyclesDuration !== null) {
    smCycleStart = new Float64Array(count);
    smCycleDuration = new Uint32Array(count);
    for (let g = 0; g < groupKeys.length; g++) {
      // Rebase each SM's cycles to its first warp so the column stays small and exact.
      let base = Infinity;
      for (let k = offsets[g] as number; k < (offsets[g + 1] as number); k++) base = Math.min(base, cyclesStart[row(k)] as number);
      for (let k = offsets[g] as number; k < (offsets[g + 1] as number); k++) {
        const cycles = (cyclesStart[row(k)] as number) - base;
        if (cycles > MAX_CYCLE_START) {
          bad('smCycleStart', row(k), `${cycles} cycles after the first warp of its SM (${groupKeys[g]}); at most ${MAX_CYCLE_START} are accepted`);
        }
        smCycleStart[k] = cycles;
        smCycleDuration[k] = cyclesDuration[row(k)] as number;
      }
    }
  }
  return {
    formatVersion: FORMAT_VERSION,
    device,
    capture,
    draws,
    regions,
    warps: {
      count,
      startNs,
      durationNs,
      smGroups: { sm: groupKeys, offsets },
      warpSlot,
      stage,
      draw,
      customId,
      activeMask,
      activeMaskHi,
      smCycleStart,
      smCycleDuration,
      position,
    },
  };
}

/** Checks every position word; returns the column, or null when no row has a position (the model's form for "none"). */
function checkPositions(column: ArrayLike<number>): ArrayLike<number> | null {
  let any = false;
  for (let i = 0; i < column.length; i++) {
    const v = column[i] as number;
    const problem = positionProblem(v);
    if (problem !== null) bad('position', i, `${problem}, got ${describeValue(v)}`);
    if (v !== NO_POSITION) any = true;
  }
  return any ? column : null;
}
