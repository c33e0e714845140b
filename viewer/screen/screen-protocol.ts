/**
 * Messages between the screen panel (screen-client.ts) and its worker
 * (screen-worker.ts). The warp columns the screen view reads go over once per
 * trace, copied (the page keeps its own for the timeline) a slice per page
 * task and each slice transferred, so no task of the page copies a whole
 * 10 M-warp column; each image or brush query after that is a small request,
 * and an image comes back as transferred RGBA bytes. A ray-event row's counts
 * of one event go over the same way, once per trace, the first time a ray
 * image of them is asked for.
 */
import type { ScreenLegend, ScreenMetric } from '../../analysis/screen-metric.js';
import type { RayEventStat, RayGridSource, RayScreenMetric } from '../../analysis/ray-events.js';
import type { RayEvent } from '../../shared-schema/ray-event-model.js';
import type { PixelRect } from '../../analysis/screen-query.js';
import type { TargetSize } from '../../analysis/screen-columns.js';
import type { SmGroups, UintColumn } from '../../shared-schema/model.js';

/** The per-warp columns of ScreenColumns, sent in slices. */
export const SCREEN_COLUMNS = ['startNs', 'durationNs', 'draw', 'activeMask', 'activeMaskHi', 'stage', 'position'] as const;
export type ScreenColumnName = (typeof SCREEN_COLUMNS)[number];
export type ScreenColumnArray = Float64Array | Float32Array | UintColumn;
/** Bytes per element and kind of a column: 'f' float, 'u' unsigned. */
export interface ScreenColumnShape {
  readonly kind: 'f' | 'u';
  readonly bytes: 1 | 2 | 4 | 8;
}

/** What an image or a brush shows: the draws, the stages, the time cutoff and the timeline's range. */
export interface ScreenView {
  /** Mask over draw indices (1: shown); null: every draw. */
  readonly draws: Uint8Array | null;
  /** Mask over stage codes (1: shown); null: every stage. */
  readonly stages: Uint8Array | null;
  readonly untilNs: number;
  readonly window: { readonly startNs: number; readonly endNs: number } | null;
}

export type ScreenRequest =
  | {
      readonly kind: 'trace';
      readonly traceId: number;
      readonly count: number;
      readonly smGroups: SmGroups;
      /** Shape of each column (null: absent); the data follows in 'slice' messages. */
      readonly columns: Readonly<Record<ScreenColumnName, ScreenColumnShape | null>>;
      /** Render-target size per draw (null: unknown). */
      readonly targets: readonly (TargetSize | null)[];
      readonly subgroupSize: number;
    }
  | { readonly kind: 'slice'; readonly traceId: number; readonly column: ScreenColumnName; readonly offset: number; readonly data: ScreenColumnArray }
  | { readonly kind: 'image'; readonly seq: number; readonly traceId: number; readonly view: ScreenView; readonly metric: ScreenMetric }
  | { readonly kind: 'brush'; readonly seq: number; readonly traceId: number; readonly view: ScreenView; readonly rect: PixelRect }
  /** A ray-event row's counts of one event (`key`: row index and event) and the row's total of it; `length` counts follow in 'ray-slice' messages. */
  | {
      readonly kind: 'ray-counts';
      readonly traceId: number;
      readonly key: string;
      readonly source: RayGridSource;
      readonly event: RayEvent;
      readonly total: number;
      readonly length: number;
    }
  | { readonly kind: 'ray-slice'; readonly traceId: number; readonly key: string; readonly offset: number; readonly data: Uint32Array }
  | { readonly kind: 'ray-image'; readonly seq: number; readonly traceId: number; readonly key: string; readonly metric: RayScreenMetric; readonly layer: number };

/** A ray metric's heat map (analysis/ray-screen.ts) at the launch's size. */
export interface RayImageReply {
  readonly kind: 'ray-image';
  readonly seq: number;
  readonly width: number;
  readonly height: number;
  readonly rgba: Uint8ClampedArray<ArrayBuffer>;
  readonly legend: ScreenLegend;
  /** The heat grid: cells across and down, 2^scale pixels a side, launches summed. */
  readonly cellsWide: number;
  readonly cellsHigh: number;
  readonly scale: number;
  readonly launches: number;
  /** The event over the row: total, mean per pixel, largest cell, share of pixels with any. */
  readonly stat: RayEventStat;
  readonly ms: number;
}

export interface ScreenImageReply {
  readonly kind: 'image';
  readonly seq: number;
  readonly width: number;
  readonly height: number;
  readonly rgba: Uint8ClampedArray<ArrayBuffer>;
  readonly legend: ScreenLegend;
  /** Warps painted. */
  readonly shown: number;
  /** Warps of the selected draws with a position. */
  readonly positioned: number;
  /** First start and last end of the selected draws' positioned warps (null: none), for the time slider. */
  readonly span: { readonly startNs: number; readonly endNs: number } | null;
  /** What to keep in mind reading the image: stages whose lanes fill little of their footprints (analysis/screen-spread.ts). */
  readonly notes: readonly string[];
  readonly ms: number;
}

export type ScreenReply =
  | ScreenImageReply
  | RayImageReply
  /** rows: under the rectangle; shownRow: the row its top-left pixel shows (-1: none). */
  | { readonly kind: 'brush'; readonly seq: number; readonly rows: Uint32Array<ArrayBuffer>; readonly shownRow: number }
  | { readonly kind: 'error'; readonly seq: number; readonly message: string };

export function columnShape(a: ScreenColumnArray): ScreenColumnShape {
  return { kind: a instanceof Float64Array || a instanceof Float32Array ? 'f' : 'u', bytes: a.BYTES_PER_ELEMENT as ScreenColumnShape['bytes'] };
}

export function allocScreenColumn(shape: ScreenColumnShape, length: number): ScreenColumnArray {
  if (shape.kind === 'f') return shape.bytes === 8 ? new Float64Array(length) : new Float32Array(length);
  return shape.bytes === 1 ? new Uint8Array(length) : shape.bytes === 2 ? new Uint16Array(length) : new Uint32Array(length);
}
