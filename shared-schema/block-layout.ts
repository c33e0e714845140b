/**
 * Block profiles (`warptrace instrument --blocks`): the GPU table, the draw-id
 * block's row word, the specialization constant and the .wtraw section.
 * The single source of truth for the instrumenter, the host library
 * (capture/host/warptrace_layout.h is generated from it) and the decoder;
 * shared-schema/README.md ("Block profiles") is the prose.
 *
 * Each instrumented module numbers its basic blocks 0..N-1 (N is in its
 * `OpString "warptrace-blocks=N ..."`). A draw owns a row of cells in the
 * table: the host writes the row's first cell into the draw-id block's word
 * BLOCK_ROW (or NO_BLOCK_ROW: not profiled), and gives each module of the
 * pipeline its first cell within the row through the specialization constant
 * BLOCK_BASE_SPEC_ID (default 0). A module of a graphics stage also adds the
 * draw-id block's word for its stage (DRAW_BLOCK_STAGE_WORD + its index in
 * BLOCK_STAGES): a host that specializes whole pipelines writes 0 there; one
 * whose modules are specialized before it knows the row they will share
 * (graphics pipeline libraries) leaves the constant at 0 and writes each
 * stage's offset there per draw. Block b of a module then counts in cell
 * row + base + stageOffset + b (compute and ray-tracing modules: row + base + b).
 */
import type { StageName } from './stages.js';

/** The block table's binding: the trace buffer's binding + this. */
export const BLOCK_BINDING_OFFSET = 2;
/** The block table: a 16-byte header of u32 words, then cells. */
export const BLOCK_HEADER_BYTES = 16;
export const BlockHeaderWord = {
  /** Atomic: block executions whose cell lay past the table (a host that sized its rows wrong). */
  DROPPED: 0,
  /** Cells of one copy of the table: a cell at or past it is not counted (dropped). */
  CELLS: 1,
  /**
   * The table holds COPY_MASK + 1 copies of CELLS cells (a power of two; cell c of copy k at k × CELLS + c): each
   * block entry counts into the copy its clock's low bits pick, so warps running one block at once do not all
   * hit one address; the host sums the copies into the file's cells.
   */
  COPY_MASK: 2,
} as const;
/** One cell per (draw, block): eight u32 words. */
export const BLOCK_CELL_WORDS = 8;
export const BLOCK_CELL_BYTES = BLOCK_CELL_WORDS * 4;
/** Word indices within a cell: 64-bit counters as (low, high) pairs, summed with carry. */
export const BlockCellWord = {
  /** Warp executions of the block (per invocation without subgroup operations). */
  EXECUTIONS_LO: 0,
  EXECUTIONS_HI: 1,
  /** Live lanes summed over those executions. */
  LANES_LO: 2,
  LANES_HI: 3,
  /** Clock ticks from the block's entry to the next block entry (or the warp's end), summed. */
  TICKS_LO: 4,
  TICKS_HI: 5,
} as const;

/** Word 1 of the draw-id block (binding + 1): the draw's first cell. */
export const DRAW_BLOCK_ROW_WORD = 1;
/** BLOCK_ROW of a draw without a row (the host had no room, or profiles are off). */
export const NO_BLOCK_ROW = 0xffffffff;
/**
 * The graphics stages whose modules read a stage word, in the order of their words: the module of
 * BLOCK_STAGES[k] adds word DRAW_BLOCK_STAGE_WORD + k to its first cell. Word 2 is the ray-event row.
 */
export const BLOCK_STAGES = ['VS', 'TCS', 'TES', 'GS', 'FS', 'TASK', 'MESH'] as const satisfies readonly StageName[];
export type BlockStage = (typeof BLOCK_STAGES)[number];
/** Word of the draw-id block holding the first cell, within the draw's row, of the module of BLOCK_STAGES[0]. */
export const DRAW_BLOCK_STAGE_WORD = 3;
/** The draw-id block's words: the draw id, the block row, the ray-event row, the stage words. */
export const DRAW_ID_WORDS = DRAW_BLOCK_STAGE_WORD + BLOCK_STAGES.length;
/** Bytes of one draw's draw-id block as the host binds it (its descriptor range; the per-draw stride is at least this). */
export const DRAW_ID_BLOCK_BYTES = 64;

/** The draw-id word a module of `stage` adds to its first cell, or null (compute and ray-tracing stages read none). */
export function drawBlockStageWord(stage: string): number | null {
  const k = (BLOCK_STAGES as readonly string[]).indexOf(stage);
  return k < 0 ? null : DRAW_BLOCK_STAGE_WORD + k;
}

/** SpecId of the module's first cell within the draw's row (`"WT"` then 1). */
export const BLOCK_BASE_SPEC_ID = 0x57540001;
/** The OpString that marks a module with block profiles: `warptrace-blocks=N per=warp|invocation clock=sm|device`. */
export const BLOCK_MARK_PREFIX = 'warptrace-blocks=';
/** Name (OpName) of the function each block calls with its index. */
export const BLOCK_ENTER_FUNCTION = 'warptrace_block_enter';
