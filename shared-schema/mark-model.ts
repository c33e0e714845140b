/**
 * Marks in the trace model (shared-schema/mark-layout.ts, README "Marks"):
 * the points a warp passed between its start and its end, as columns (one
 * row per mark, never an object per mark), sorted by warp row, then sequence.
 */

export interface MarkColumns {
  readonly count: number;
  /** The mark's warp: its row in Trace.warps (canonical order). */
  readonly warp: Uint32Array;
  /** The mark's id (mark-layout.ts MarkKind for the instrumenter's, below 2^24 the shader's own). */
  readonly id: Uint32Array;
  /** Its number within its invocation's marks (0..MAX_MARKS-1). */
  readonly sequence: Uint8Array;
  /** ns from its warp's start (0 ≤ offset ≤ the warp's duration). */
  readonly offsetNs: Float32Array;
  /** Lanes 0..31 live at the mark. */
  readonly activeMask: Uint32Array;
  /** Lanes 32..63 (subgroups wider than 32), else null. */
  readonly activeMaskHi: Uint32Array | null;
  /** Mark records whose warp is not in the trace (dropped, or the invocation ended without its record): not placed. */
  readonly orphans: number;
}
