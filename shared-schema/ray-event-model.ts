/**
 * Ray events in the trace model (shared-schema/ray-event-layout.ts, README
 * "Ray events"): per profiled trace-rays call, the launch's pixels binned into
 * a grid of cells, one Uint32Array per event (never an object per pixel).
 */
import type { RayCellGrid } from './ray-event-layout.js';

/** The events of a cell, in RayCellWord order. */
export const RAY_EVENTS = [
  'traceCalls',
  'intersections',
  'anyHits',
  'anyHitsIgnored',
  'uselessAnyHits',
  'closestHits',
  'misses',
  'callables',
] as const;
export type RayEvent = (typeof RAY_EVENTS)[number];

export const RAY_EVENT_LABELS: Readonly<Record<RayEvent, string>> = {
  traceCalls: 'trace calls',
  intersections: 'intersection invocations',
  anyHits: 'any-hit invocations',
  anyHitsIgnored: 'any-hits ignored',
  uselessAnyHits: 'useless any-hits',
  closestHits: 'closest hits',
  misses: 'misses',
  callables: 'callable invocations',
};

/** A profiled trace-rays call (or the calls of one draw across captured frames). */
export interface RayEventRow {
  /** Index into Trace.draws: the trace-rays call. */
  readonly draw: number;
  /** Launches that counted into the row (one per captured frame for a call traced in each). */
  readonly launches: number;
  /** LaunchSizeKHR of those launches (the largest when they differed). */
  readonly launchWidth: number;
  readonly launchHeight: number;
  readonly launchDepth: number;
  /** Launches of different sizes shared the row: the totals hold, the cells are no picture (grid null). */
  readonly mixedSizes: boolean;
  /** How the launch's pixels were binned; null with mixed sizes or when no launch counted. */
  readonly grid: RayCellGrid | null;
  /** Per event, per cell (grid.cells long, row-major, layer after layer; empty when grid is null): summed over the launches. */
  readonly counts: Readonly<Record<RayEvent, Uint32Array>>;
  /** Per event, over all the row's cells (exact). */
  readonly totals: Readonly<Record<RayEvent, number>>;
}

export interface RayEventProfile {
  /** Cells per row the capture sized its table for. */
  readonly cellsPerRow: number;
  /** Events the GPU could not count (a row index past the table, a launch too large for a row). */
  readonly dropped: number;
  /** Traversals whose useless any-hits were not counted (no scratch entry for the pixel, or a trace instruction other than OpTraceRayKHR). */
  readonly uncountedTraversals: number;
  /** Traced trace-rays calls that got no row (the table was full). */
  readonly unprofiledLaunches: number;
  /** One per profiled trace-rays call, in ascending draw order. */
  readonly rows: readonly RayEventRow[];
}
