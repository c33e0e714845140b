/** Messages between the page and the decode worker. */
import type { Trace, WarpColumns } from '../../shared-schema/index.js';
import type { LaneIndex } from '../model/lane-index.js';
import type { CalibrationSummary } from '../../analysis/calibration-quality.js';

export type DecodeRequest =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'blob'; readonly blob: Blob }
  | { readonly kind: 'synthetic'; readonly warps: number; readonly seed: number };

export type LoadPhase = 'read' | 'decode' | 'index';

export interface DecodeTimings {
  readonly readMs: number;
  readonly decodeMs: number;
  readonly indexMs: number;
}

export type DecodeResponse =
  | { readonly kind: 'progress'; readonly phase: LoadPhase; readonly loaded: number; readonly total: number | null }
  /**
   * `calibration`: summarizeCalibration's figures (~170 ms at 10 M warps: computed here, not on the page);
   * `analysisCopy`: a copy of the warp columns for the analysis worker (analysis-copies.ts).
   */
  | { readonly kind: 'done'; readonly trace: Trace; readonly index: LaneIndex; readonly calibration: CalibrationSummary; readonly analysisCopy: WarpColumns; readonly bytes: number; readonly timings: DecodeTimings }
  /** After 'done', for files only: the hash of the file's bytes (content-hash.ts). */
  | { readonly kind: 'hash'; readonly contentHash: string }
  | { readonly kind: 'error'; readonly message: string; readonly field: string | null };
