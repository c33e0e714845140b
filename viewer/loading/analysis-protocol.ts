/**
 * Messages between the page and the analysis worker (analysis-worker.ts).
 * The warp columns travel as copied slices, each transferred, a few MB per
 * message and one message per task, so the page never copies a whole
 * 10 M-warp column in one task; everything else of the trace is small.
 */
import type { AnalysisSummary } from '../../analysis/summary.js';
import type { PhaseTable } from '../../analysis/marks.js';
import type { Trace } from '../../shared-schema/index.js';

export type ColumnArray = Float64Array | Float32Array | Uint32Array | Uint16Array | Uint8Array;
export type ColumnType = 'f64' | 'f32' | 'u32' | 'u16' | 'u8';

export const COLUMN_NAMES = [
  'startNs', 'durationNs', 'smSm', 'smOffsets', 'warpSlot', 'stage', 'draw', 'customId',
  'activeMask', 'activeMaskHi', 'smCycleStart', 'smCycleDuration', 'position',
] as const;
export type ColumnName = (typeof COLUMN_NAMES)[number];

export interface ColumnShape {
  readonly type: ColumnType;
  readonly length: number;
}

export type AnalysisRequest =
  /** First: the trace without its warp columns, and the shape of each column (null: absent). */
  | {
      readonly kind: 'begin';
      readonly meta: Omit<Trace, 'warps'>;
      readonly count: number;
      readonly columns: Readonly<Record<ColumnName, ColumnShape | null>>;
      /** Detector thresholds changed from their defaults (the findings' threshold editor); checked again in the worker. */
      readonly thresholds?: Readonly<Record<string, number>>;
    }
  | { readonly kind: 'chunk'; readonly column: ColumnName; readonly offset: number; readonly data: ColumnArray }
  | { readonly kind: 'run' };

/**
 * The summary comes back in parts: everything but the draws, then the draws a
 * few hundred at a time (5,040 draws at 10 M warps are ~8 MB of JSON, ~200 ms
 * to deserialize in one message), then 'done'.
 */
export type AnalysisResponse =
  | { readonly kind: 'head'; readonly summary: AnalysisSummary }
  | { readonly kind: 'draws'; readonly draws: AnalysisSummary['draws'] }
  /** For a trace with marks, before 'done': analysis/marks.ts's phase table of every draw and stage (the phases panel filters it). */
  | { readonly kind: 'phases'; readonly table: PhaseTable }
  | { readonly kind: 'done'; readonly ms: number }
  | { readonly kind: 'error'; readonly message: string };

/** Draw summaries per 'draws' message. */
export const DRAWS_PER_MESSAGE = 256;

export function columnType(a: ColumnArray): ColumnType {
  if (a instanceof Float64Array) return 'f64';
  if (a instanceof Float32Array) return 'f32';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Uint16Array) return 'u16';
  return 'u8';
}

export function allocColumn(shape: ColumnShape): ColumnArray {
  switch (shape.type) {
    case 'f64':
      return new Float64Array(shape.length);
    case 'f32':
      return new Float32Array(shape.length);
    case 'u32':
      return new Uint32Array(shape.length);
    case 'u16':
      return new Uint16Array(shape.length);
    case 'u8':
      return new Uint8Array(shape.length);
  }
}
