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
  type CaptureInfo,
  type DeviceInfo,
  type DrawInfo,
  type Trace,
} from './model.js';
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
}

export interface TraceInput {
  readonly device: DeviceInfo;
  readonly capture: CaptureInfo;
  readonly draws: readonly DrawInfo[];
  readonly warps: WarpInput;
}

const U32 = 0x100000000;
/** Largest time accepted: 2^53 ticks, so every tick stays exact in float64 (about 6.5 days). */
const MAX_TIME_NS = Number.MAX_SAFE_INTEGER / TICKS_PER_NS;

function bad(field: string, row: number, detail: string): never {
  fail('bad-value', `warps.${field}[${row}]`, detail);
}

function checkLength(name: string, column: ArrayLike<number> | null | undefined, count: number): void {
  if (column === null || column === undefined) return;
  if (column.length !== count) {
    fail('size-mismatch', `warps.${name}`, `has ${column.length} rows but warps.startNs has ${count}`);
  }
}

export function buildTrace(input: TraceInput): Trace {
  const { device, capture, draws, warps: w } = input;
  const count = w.startNs.length;
  if (count > MAX_WARPS) fail('too-large', 'warps.startNs', `${count} warps exceed the limit of ${MAX_WARPS}`);
  for (const name of ['endNs', 'sm', 'warpSlot', 'stage', 'draw', 'customId', 'activeMask'] as const) {
    checkLength(name, w[name], count);
  }
  checkLength('activeMaskHi', w.activeMaskHi, count);
  checkLength('smCycleStart', w.smCycleStart, count);
  checkLength('smCycleDuration', w.smCycleDuration, count);
  if ((w.smCycleStart == null) !== (w.smCycleDuration == null)) {
    fail('bad-value', 'warps.smCycleStart', 'smCycleStart and smCycleDuration come together');
  }
  for (let i = 0; i < draws.length; i++) {
    if (draws[i]!.index !== i) fail('bad-value', `draws[${i}].index`, `expected ${i}`);
  }
  if (capture.recordsKept !== count) {
    fail('bad-value', 'capture.recordsKept', `is ${capture.recordsKept} but the trace holds ${count} warps`);
  }
  const wide = device.subgroupSize > 32;
  if (wide && w.activeMaskHi == null) fail('bad-value', 'warps.activeMaskHi', `required for subgroupSize ${device.subgroupSize}`);
  const { lo: laneMaskLo, hi: laneMaskHi } = laneMasks(device.subgroupSize);

  const startTicks = new Float64Array(count);
  const durationTicks = new Float64Array(count);
  const sm = new Uint16Array(count);
  let maxCustom = 0;
  for (let i = 0; i < count; i++) {
    const s = w.startNs[i] as number;
    const e = w.endNs[i] as number;
    if (!(s >= 0 && s <= MAX_TIME_NS)) bad('startNs', i, `expected ns in [0, ${MAX_TIME_NS}], got ${describeValue(s)}`);
    if (!(e >= s && e <= MAX_TIME_NS)) bad('endNs', i, `expected ns ≥ startNs (${s}), got ${describeValue(e)}`);
    const st = Math.round(s * TICKS_PER_NS);
    startTicks[i] = st;
    durationTicks[i] = Math.round(e * TICKS_PER_NS) - st;

    const smId = w.sm[i] as number;
    if (!(Number.isInteger(smId) && smId >= 0 && (smId === UNKNOWN_SM || device.smCount === null || smId < device.smCount) && smId <= UNKNOWN_SM)) {
      bad('sm', i, `expected an SM id below smCount (${device.smCount}) or ${UNKNOWN_SM} (unknown), got ${describeValue(smId)}`);
    }
    sm[i] = smId;
    const slot = w.warpSlot[i] as number;
    if (!(Number.isInteger(slot) && slot >= 0 && (slot === UNKNOWN_SLOT || device.warpsPerSm === null || slot < device.warpsPerSm) && slot <= UNKNOWN_SLOT)) {
      bad('warpSlot', i, `expected a slot below warpsPerSm (${device.warpsPerSm}) or ${UNKNOWN_SLOT} (unknown), got ${describeValue(slot)}`);
    }
    const stage = w.stage[i] as number;
    if (!(Number.isInteger(stage) && stage >= 0 && stage < STAGE_COUNT)) bad('stage', i, `expected a stage code, got ${describeValue(stage)}`);
    const draw = w.draw[i] as number;
    if (!(Number.isInteger(draw) && draw >= 0 && draw < draws.length)) {
      bad('draw', i, `expected a draw index below ${draws.length}, got ${describeValue(draw)}`);
    }
    const custom = w.customId[i] as number;
    if (!(Number.isInteger(custom) && custom >= 0 && custom < U32)) bad('customId', i, `expected a uint32, got ${describeValue(custom)}`);
    if (custom > maxCustom) maxCustom = custom;
    const lo = w.activeMask[i] as number;
    const hi = wide ? (w.activeMaskHi![i] as number) : 0;
    if (!(Number.isInteger(lo) && lo >= 0 && lo < U32) || (lo & ~laneMaskLo) !== 0) {
      bad('activeMask', i, `expected lanes within a ${device.subgroupSize}-lane subgroup, got ${describeValue(lo)}`);
    }
    if (wide && (!(Number.isInteger(hi) && hi >= 0 && hi < U32) || (hi & ~laneMaskHi) !== 0)) {
      bad('activeMaskHi', i, `expected lanes within a ${device.subgroupSize}-lane subgroup, got ${describeValue(hi)}`);
    }
    if (lo === 0 && hi === 0) bad('activeMask', i, 'a warp has at least one active lane');
  }
  const cyclesStart = w.smCycleStart ?? null;
  const cyclesDuration = w.smCycleDuration ?? null;
  if (cyclesStart !== null && cyclesDuration !== null) {
    for (let i = 0; i < count; i++) {
      const c = cyclesStart[i] as number;
      if (!(Number.isInteger(c) && c >= 0 && c <= Number.MAX_SAFE_INTEGER)) bad('smCycleStart', i, `expected a cycle count, got ${describeValue(c)}`);
      const d = cyclesDuration[i] as number;
      if (!(Number.isInteger(d) && d >= 0 && d < U32)) bad('smCycleDuration', i, `expected a uint32 cycle count, got ${describeValue(d)}`);
    }
  }

  const { order, groupKeys, offsets } = groupedOrder(sm, startTicks);
  const row = order === null ? (k: number) => k : (k: number) => order[k] as number;

  const startNs = new Float64Array(count);
  const durationNs = new Float32Array(count);
  const warpSlot = new Uint8Array(count);
  const stage = new Uint8Array(count);
  const draw = allocUintColumn(count, Math.max(0, draws.length - 1));
  const customId = allocUintColumn(count, maxCustom);
  const activeMask = allocUintColumn(count, laneMaskLo);
  const activeMaskHi = wide ? new Uint32Array(count) : null;
  for (let k = 0; k < count; k++) {
    const i = row(k);
    startNs[k] = (startTicks[i] as number) / TICKS_PER_NS;
    durationNs[k] = (durationTicks[i] as number) / TICKS_PER_NS;
    warpSlot[k] = w.warpSlot[i] as number;
    stage[k] = w.stage[i] as number;
    draw[k] = w.draw[i] as number;
    customId[k] = w.customId[i] as number;
    activeMask[k] = w.activeMask[i] as number;
    if (activeMaskHi !== null) activeMaskHi[k] = w.activeMaskHi![i] as number;
  }
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
        smCycleStart[k] = (cyclesStart[row(k)] as number) - base;
        smCycleDuration[k] = cyclesDuration[row(k)] as number;
      }
    }
  }
  return {
    formatVersion: FORMAT_VERSION,
    device,
    capture,
    draws,
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
    },
  };
}
