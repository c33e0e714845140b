/**
 * Time-axis ticks: a 1-2-5 step with at least `minSpacingPx` between ticks,
 * and labels in ns, µs or ms as the zoom requires, with just enough decimals
 * to tell neighbouring ticks apart.
 */
import type { TimeWindow } from './time-scale.js';

export interface AxisTicks {
  /** Tick spacing, ns. */
  readonly stepNs: number;
  /** Tick times, ns, ascending. */
  readonly ticksNs: readonly number[];
  /** Unit used for the labels. */
  readonly unit: TimeUnit;
}

export interface TimeUnit {
  readonly name: 'ns' | 'µs' | 'ms' | 's';
  readonly ns: number;
}

const UNITS: readonly TimeUnit[] = [
  { name: 'ns', ns: 1 },
  { name: 'µs', ns: 1e3 },
  { name: 'ms', ns: 1e6 },
  { name: 's', ns: 1e9 },
];

export function niceStep(minStepNs: number): number {
  const exp = 10 ** Math.floor(Math.log10(minStepNs));
  for (const m of [1, 2, 5, 10]) if (m * exp >= minStepNs) return m * exp;
  return 10 * exp;
}

/** Unit for labels in a window: the largest unit not above the window's largest time ("37.512 ms"). */
export function unitForWindow(w: TimeWindow): TimeUnit {
  const magnitude = Math.max(Math.abs(w.startNs), Math.abs(w.endNs));
  let unit = UNITS[0]!;
  for (const u of UNITS) if (u.ns <= magnitude) unit = u;
  return unit;
}

export function axisTicks(w: TimeWindow, widthPx: number, minSpacingPx = 90): AxisTicks {
  const span = w.endNs - w.startNs;
  const stepNs = niceStep(Math.max(span / Math.max(1, widthPx / minSpacingPx), 1e-3));
  const first = Math.ceil(w.startNs / stepNs) * stepNs;
  const ticksNs: number[] = [];
  for (let t = first, k = 0; t <= w.endNs && k < 1000; k++, t = first + k * stepNs) ticksNs.push(t);
  return { stepNs, ticksNs, unit: unitForWindow(w) };
}

/** Decimals needed to show multiples of stepNs in `unit`. */
export function decimalsFor(stepNs: number, unit: TimeUnit): number {
  const ratio = stepNs / unit.ns;
  return ratio >= 1 ? 0 : Math.min(9, Math.ceil(-Math.log10(ratio) - 1e-9));
}

/** Label of one tick, e.g. "37.5124 ms" or "812 ns". */
export function formatTick(ns: number, ticks: AxisTicks): string {
  const { unit } = ticks;
  const decimals = decimalsFor(ticks.stepNs, unit);
  return `${(ns / unit.ns).toFixed(decimals)} ${unit.name}`;
}
