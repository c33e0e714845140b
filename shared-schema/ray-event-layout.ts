/**
 * Ray events (`warptrace instrument --ray-events`, issue 23 part 3): per
 * launch pixel of each profiled trace-rays call, the trace calls, intersection,
 * any-hit, closest-hit, miss and callable invocations, the any-hits that
 * ignored their hit and the accepted any-hits a closer hit made useless.
 * The single source of truth for the instrumenter, the host library
 * (warptrace_layout.h is generated from it) and the decoder;
 * shared-schema/README.md ("Ray events") is the prose.
 *
 * The ray-event table is a storage buffer at the trace binding +
 * RAY_EVENT_BINDING_OFFSET: a header of RAY_EVENT_HEADER_WORDS u32 words,
 * ROWS row headers, ROWS rows of CELLS cells, then SCRATCH_PIXELS scratch
 * entries. A row holds its cells' counters as RAY_CELL_WORDS planes of CELLS
 * words (counter w of cell c at row × CELLS × RAY_CELL_WORDS + w × CELLS + c,
 * after the row headers), so a warp of neighbouring pixels adds into one
 * line; the .wtraw section interleaves them per cell. A trace-rays call owns a row: the host writes its index into word
 * DRAW_RAY_ROW_WORD of the draw-id block (NO_RAY_ROW: not profiled).
 *
 * A row is the launch's pixels binned 2^scale × 2^scale: `scale` is the
 * smallest 0..MAX_RAY_SCALE with ceil(w / 2^scale) × ceil(h / 2^scale) × d ≤
 * CELLS (w, h, d: LaunchSizeKHR); pixel (x, y, z) counts in cell
 * ((z × ch) + (y >> scale)) × cw + (x >> scale) of the row, cw and ch the
 * binned width and height (rayCellGrid below computes the same on the host).
 * A launch that does not fit even at MAX_RAY_SCALE counts nothing and adds
 * its events to DROPPED.
 */

/** The ray-event table's binding: the trace buffer's binding + this (the block table is + 2). */
export const RAY_EVENT_BINDING_OFFSET = 3;

/** The table's header: u32 words. */
export const RAY_EVENT_HEADER_WORDS = 16;
export const RayEventHeaderWord = {
  /** Atomic: events not counted (the row index was ROWS or more, or the launch did not fit a row). */
  DROPPED: 0,
  /** Cells per row (written by the host). */
  CELLS: 1,
  /** Rows (written by the host). */
  ROWS: 2,
  /** Scratch entries (written by the host): launch pixels x + w × (y + h × z) below it can tell useless any-hits. */
  SCRATCH_PIXELS: 3,
  /** Atomic: OpTraceRayKHR calls whose pixel had no scratch entry, and traversals of other trace instructions: their useless any-hits were not counted. */
  UNCOUNTED_TRAVERSALS: 4,
} as const;

/** A row's header: u32 words, at word RAY_EVENT_HEADER_WORDS + row × RAY_ROW_HEADER_WORDS. */
export const RAY_ROW_HEADER_WORDS = 8;
export const RayRowHeaderWord = {
  /** Atomic: launches that counted into the row (the invocation at launch id 0,0,0 of each adds 1). */
  LAUNCHES: 0,
  /** Atomic max of LaunchSizeKHR x, y, z over those launches (the host writes 0). */
  MAX_WIDTH: 1,
  MAX_HEIGHT: 2,
  MAX_DEPTH: 3,
  /** Atomic min of the same (the host writes 0xffffffff): max ≠ min means launches of different sizes shared the row. */
  MIN_WIDTH: 4,
  MIN_HEIGHT: 5,
  MIN_DEPTH: 6,
} as const;

/** One cell: eight u32 counters, summed over the launches of the row (atomic adds); on the GPU each in its row's plane of the counter. */
export const RAY_CELL_WORDS = 8;
export const RAY_CELL_BYTES = RAY_CELL_WORDS * 4;
/** Word indices within a cell; the order is the model's RAY_EVENTS. */
export const RayCellWord = {
  /** Trace instructions executed (OpTraceRayKHR, OpTraceNV, the motion and hit-object traces). */
  TRACE_CALLS: 0,
  /** Intersection-shader invocations. */
  INTERSECTIONS: 1,
  /** Any-hit-shader invocations. */
  ANY_HITS: 2,
  /** Any-hit invocations that ended in OpIgnoreIntersection (the alpha test said no). */
  ANY_HITS_IGNORED: 3,
  /**
   * Any-hit invocations that accepted their hit but whose hit was not the traversal's closest: a closer
   * one replaced it. Exact when the closest-hit shader ran; when it did not (skipped, none in the hit
   * group), every accepted any-hit but the last is counted, a lower bound.
   */
  USELESS_ANY_HITS: 4,
  /** Closest-hit-shader invocations. */
  CLOSEST_HITS: 5,
  /** Miss-shader invocations. */
  MISSES: 6,
  /** Callable-shader invocations. */
  CALLABLES: 7,
} as const;

/**
 * A scratch entry: two u32 words per launch pixel, after the rows (word
 * RAY_EVENT_HEADER_WORDS + ROWS × RAY_ROW_HEADER_WORDS + ROWS × CELLS ×
 * RAY_CELL_WORDS + pixel × 2). Only the pixel's own invocation touches it
 * (no atomics): an OpTraceRayKHR call saves it, zeroes it, and after the call
 * reads it and restores it, so nested traces (from closest-hit or miss) keep
 * the outer traversal's state.
 */
export const RAY_SCRATCH_WORDS = 2;
export const RayScratchWord = {
  /** Bits 0-29: any-hits that accepted their hit in this traversal; bit 30: the closest-hit shader ran; bit 31: its hit was the last accepted one. */
  STATE: 0,
  /** The last accepted any-hit's hit t (RayTmaxKHR in the any-hit shader), as float bits. */
  LAST_ACCEPTED_T: 1,
} as const;
export const RAY_SCRATCH_ACCEPTED_MASK = 0x3fffffff;
export const RAY_SCRATCH_CLOSEST_HIT_RAN = 0x40000000;
export const RAY_SCRATCH_FINAL_ACCEPTED = 0x80000000;

/** Largest binning: 128 × 128 launch pixels per cell. */
export const MAX_RAY_SCALE = 7;

/** Word 2 of the draw-id block (binding + 1): the trace-rays call's row (word 1 is the block row). */
export const DRAW_RAY_ROW_WORD = 2;
/** RAY_ROW of a draw without a row (not profiled, no room, or not a trace-rays call). */
export const NO_RAY_ROW = 0xffffffff;
/** The OpString that marks a module with ray events. */
export const RAY_EVENT_MARK = 'warptrace-ray-events';

/** The binned grid of a launch: `scale` and cw × ch × depth cells, or null when it fits no row of `cellsPerRow`. */
export interface RayCellGrid {
  readonly scale: number;
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly cells: number;
}

/** The host's copy of the shaders' binning (the instrumenter emits the same arithmetic, in u32). */
export function rayCellGrid(launchWidth: number, launchHeight: number, launchDepth: number, cellsPerRow: number): RayCellGrid | null {
  if (launchWidth < 1 || launchHeight < 1 || launchDepth < 1) return null;
  for (let scale = 0; scale <= MAX_RAY_SCALE; scale++) {
    const width = Math.ceil(launchWidth / 2 ** scale);
    const height = Math.ceil(launchHeight / 2 ** scale);
    const cells = width * height * launchDepth;
    if (cells <= cellsPerRow) return { scale, width, height, depth: launchDepth, cells };
  }
  return null;
}
