/**
 * What a screen pixel's colour stands for: a metric of the warp shown there,
 * its value per entry of a ScreenOrder, the domain the colormap spans, and
 * the legend that says so.
 */
import { UNKNOWN_SM } from '../shared-schema/model.js';
import { formatNs } from '../shared-schema/units.js';
import { popcount32 } from '../shared-schema/columns.js';
import { COLORMAP_NAME } from './screen-colormap.js';
import type { ScreenColumns } from './screen-columns.js';
import { endsFor, filterBounds, type ScreenFilter, type ScreenOrder } from './screen-order.js';
import type { RayScreenMetric } from './ray-events.js';

export const SCREEN_METRICS = ['start', 'duration', 'sm', 'lanes', 'draw'] as const;
export type ScreenMetric = (typeof SCREEN_METRICS)[number];

export const SCREEN_METRIC_LABELS: Readonly<Record<ScreenMetric, string>> = {
  start: 'start time (execution order)',
  duration: 'duration',
  sm: 'SM id',
  lanes: 'active lanes (SIMT efficiency)',
  draw: 'draw',
};

export function isScreenMetric(value: string): value is ScreenMetric {
  return (SCREEN_METRICS as readonly string[]).includes(value);
}

/**
 * The metric of every entry of `order`: start ns, duration ns, SM id (NaN
 * for warps without one: drawn grey), active lanes / subgroupSize (0..1),
 * draw index.
 */
export function metricValues(cols: ScreenColumns, order: ScreenOrder, metric: ScreenMetric, subgroupSize: number): Float64Array {
  const n = order.rows.length;
  const rows = order.rows;
  const out = new Float64Array(n);
  switch (metric) {
    case 'start':
      out.set(order.startNs);
      break;
    case 'duration':
      for (let k = 0; k < n; k++) out[k] = cols.durationNs[rows[k]!]!;
      break;
    case 'draw':
      for (let k = 0; k < n; k++) out[k] = cols.draw[rows[k]!]!;
      break;
    case 'lanes': {
      const { activeMask, activeMaskHi } = cols;
      const size = Math.max(1, subgroupSize);
      for (let k = 0; k < n; k++) {
        const row = rows[k]!;
        const lanes = popcount32(activeMask[row]!) + (activeMaskHi === null ? 0 : popcount32(activeMaskHi[row]!));
        out[k] = lanes / size;
      }
      break;
    }
    case 'sm': {
      const smOfRow = new Uint16Array(cols.count);
      const { sm, offsets } = cols.smGroups;
      for (let g = 0; g < sm.length; g++) smOfRow.fill(sm[g]!, offsets[g], offsets[g + 1]);
      for (let k = 0; k < n; k++) {
        const id = smOfRow[rows[k]!]!;
        out[k] = id === UNKNOWN_SM ? NaN : id;
      }
      break;
    }
  }
  return out;
}

/** The values the colormap spans: [min, max]. */
export interface MetricDomain {
  readonly min: number;
  readonly max: number;
}

/**
 * The domain of `values` over the warps `filter.window` admits (the time
 * cutoff is left out, so colours hold still while the slider scrubs).
 * Active lanes always span 0..1; NaN values are left out; null when none remain.
 */
export function metricDomain(order: ScreenOrder, values: Float64Array, metric: ScreenMetric, filter: ScreenFilter = {}): MetricDomain | null {
  const { end, windowStartNs } = filterBounds(order, { window: filter.window ?? null });
  const ends = endsFor(order, windowStartNs);
  let min = Infinity;
  let max = -Infinity;
  for (let k = 0; k < end; k++) {
    if (ends !== null && ends[k]! < windowStartNs) continue;
    const v = values[k]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (metric === 'lanes') return { min: 0, max: 1 };
  return min <= max ? { min, max } : null;
}

export interface ScreenLegend {
  /** A warp metric, or a ray metric (analysis/ray-screen.ts: a heat map of a trace-rays draw's ray events). */
  readonly metric: ScreenMetric | RayScreenMetric;
  readonly label: string;
  readonly colormap: string;
  /** Domain ends, in the metric's unit (ns; a 0..1 share of the subgroup's lanes; SM id; draw index; events per launch pixel); null when nothing is shown. */
  readonly min: number | null;
  readonly max: number | null;
  readonly unit: 'ns' | 'share' | 'sm' | 'draw' | 'per pixel';
  /** The ends as people read them ("1.20 µs", "25%", "SM 3", "draw 7"). */
  readonly minText: string;
  readonly maxText: string;
  /** One line: "start time (execution order): 12.0 µs (dark purple) → 80.5 µs (yellow), viridis; grey: no warp". */
  readonly text: string;
}

export function formatMetricValue(metric: ScreenMetric, value: number, subgroupSize: number): string {
  switch (metric) {
    case 'start':
    case 'duration':
      return formatNs(value);
    case 'lanes':
      return `${Math.round(value * 100)}% (${Math.round(value * subgroupSize)} of ${subgroupSize} lanes)`;
    case 'sm':
      return Number.isNaN(value) ? 'no SM id' : `SM ${value}`;
    case 'draw':
      return `draw ${value}`;
  }
}

export function screenLegend(metric: ScreenMetric, domain: MetricDomain | null, subgroupSize: number): ScreenLegend {
  const label = SCREEN_METRIC_LABELS[metric];
  const unit = metric === 'start' || metric === 'duration' ? 'ns' : metric === 'lanes' ? 'share' : metric;
  // Warps without an SM id (devices without SM builtins, e.g. lavapipe) are grey too.
  const grey = metric === 'sm' ? 'grey: no warp or no SM id' : 'grey: no warp';
  if (domain === null) {
    const none = metric === 'sm' ? 'no shown warp has an SM id' : 'no warp shown';
    return { metric, label, colormap: COLORMAP_NAME, min: null, max: null, unit, minText: '–', maxText: '–', text: `${label}: ${none} (${grey})` };
  }
  const minText = formatMetricValue(metric, domain.min, subgroupSize);
  const maxText = formatMetricValue(metric, domain.max, subgroupSize);
  const text = `${label}: ${minText} (dark purple) → ${maxText} (yellow), ${COLORMAP_NAME}; ${grey}`;
  return { metric, label, colormap: COLORMAP_NAME, min: domain.min, max: domain.max, unit, minText, maxText, text };
}
