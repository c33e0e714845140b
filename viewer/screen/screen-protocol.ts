/**
 * Messages between the screen panel (screen-client.ts) and its worker
 * (screen-worker.ts). The warp columns the screen view reads go over once per
 * trace (copied: the page keeps its own for the timeline); each image or
 * brush query after that is a small request, and an image comes back as
 * transferred RGBA bytes.
 */
import type { ScreenLegend, ScreenMetric } from '../../analysis/screen-metric.js';
import type { PixelRect } from '../../analysis/screen-query.js';
import type { TargetSize } from '../../analysis/screen-columns.js';
import type { SmGroups, UintColumn } from '../../shared-schema/model.js';

/** The columns of ScreenColumns, as structured-clonable data. */
export interface ScreenColumnsMessage {
  readonly count: number;
  readonly startNs: Float64Array;
  readonly durationNs: Float32Array;
  readonly smGroups: SmGroups;
  readonly draw: UintColumn;
  readonly activeMask: UintColumn;
  readonly activeMaskHi: Uint32Array | null;
  readonly position: Uint32Array;
}

/** What an image or a brush shows: the draws, the time cutoff and the timeline's range. */
export interface ScreenView {
  /** Mask over draw indices (1: shown); null: every draw. */
  readonly draws: Uint8Array | null;
  readonly untilNs: number;
  readonly window: { readonly startNs: number; readonly endNs: number } | null;
}

export type ScreenRequest =
  | {
      readonly kind: 'trace';
      readonly traceId: number;
      readonly columns: ScreenColumnsMessage;
      /** Render-target size per draw (null: unknown). */
      readonly targets: readonly (TargetSize | null)[];
      readonly subgroupSize: number;
    }
  | { readonly kind: 'image'; readonly seq: number; readonly traceId: number; readonly view: ScreenView; readonly metric: ScreenMetric }
  | { readonly kind: 'brush'; readonly seq: number; readonly traceId: number; readonly view: ScreenView; readonly rect: PixelRect };

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
  readonly ms: number;
}

export type ScreenReply =
  | ScreenImageReply
  | { readonly kind: 'brush'; readonly seq: number; readonly rows: Uint32Array<ArrayBuffer> }
  | { readonly kind: 'error'; readonly seq: number; readonly message: string };
