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

/** A tick label placed on the axis: its text and left edge, px. */
export interface PlacedTickLabel {
  readonly text: string;
  readonly x: number;
}

/**
 * Where the tick labels go: each `padPx` right of its tick, except one that
 * would run past `right`, which moves left to end there (the last tick's label
 * stays whole). A label that would then overlap its left neighbour (closer
 * than `gapPx`) hides that neighbour: the label nearer the edge is the one
 * that was moved to stay readable.
 */
export function placeTickLabels(tickXs: readonly number[], texts: readonly string[], widths: readonly number[], right: number, padPx = 3, gapPx = 6): PlacedTickLabel[] {
  const placed: PlacedTickLabel[] = [];
  const ends: number[] = [];
  for (let k = 0; k < tickXs.length; k++) {
    const w = widths[k]!;
    const x = Math.min(tickXs[k]! + padPx, right - w);
    while (placed.length > 0 && x < ends[ends.length - 1]! + gapPx) {
      placed.pop();
      ends.pop();
    }
    placed.push({ text: texts[k]!, x });
    ends.push(x + w);
  }
  return placed;
}
