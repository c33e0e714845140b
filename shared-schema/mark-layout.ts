/**
 * Marks inside a warp (`wtMark(id)` in the GLSL library, `warptrace instrument
 * --marks`): the record layout of a mark, the single source of truth for the
 * GLSL library (warptrace_layout.glsl is generated from it), the instrumenter
 * and the decoder. shared-schema/README.md ("Marks") is the prose.
 *
 * A mark is a 32-byte record in the trace buffer, written by the warp's
 * elected lane (per invocation without subgroup operations) when the warp
 * passes the mark: PACKED_IDS' stage field holds MARK_STAGE (the 4-bit code
 * no shader stage uses), so a reader that knows no marks refuses the file
 * rather than taking marks for warps. Its warp is the record with the same
 * SM, warp slot and draw id whose CLOCK_START is the mark's WARP_START.
 */

/** The stage code of a mark record (PACKED_IDS bits 24-27): not a shader stage. */
export const MARK_STAGE = 15;

/** Word indices within a mark record (the same PACKED_IDS, DRAW_ID and mask words as a warp's record). */
export const MarkWord = {
  /** Low 32 bits of the clock at the mark (the warp's record clock: SM cycles with RecordFlag.SM_CLOCK). */
  CLOCK: 0,
  /** The warp's CLOCK_START: which warp record the mark belongs to. */
  WARP_START: 1,
  /** The mark's id: the shader's (wtMark), or the instrumenter's (MarkKind << MARK_KIND_SHIFT | site). */
  ID: 2,
  /** Lanes 32..63 live at the mark (subgroups wider than 32), else 0. */
  ACTIVE_MASK_HI: 3,
  /** SM id, warp slot, MARK_STAGE, flags: as a warp record's. */
  PACKED_IDS: 4,
  DRAW_ID: 5,
  /** The mark's number within its invocation's marks, from 0 (the bound: at most MAX_MARKS per invocation). */
  SEQUENCE: 6,
  /** Lanes 0..31 live at the mark. */
  ACTIVE_MASK_LO: 7,
} as const;

/** Marks an invocation writes at most; later ones are skipped (and not counted). */
export const MAX_MARKS = 16;

/** Ids of the instrumenter's marks: kind in the top byte, the site's index in the module below. */
export const MARK_KIND_SHIFT = 24;
export const MARK_SITE_MASK = 0xffffff;
export const MarkKind = {
  /** wtMark(id): the shader's own ids stay below 2^24. */
  USER: 0,
  /** Right before a trace call (OpTraceRayKHR, OpTraceNV, OpTraceRayMotionNV, the hit-object traces). */
  BEFORE_TRACE: 1,
  /** Right after it returns. */
  AFTER_TRACE: 2,
  /** At a loop's header, each iteration (--marks loops). */
  LOOP_HEAD: 3,
  /** At a loop's merge block: the loop is done (--marks loops). */
  LOOP_EXIT: 4,
} as const;
