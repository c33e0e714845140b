// Generated from shared-schema/raw-layout.ts and stages.ts by `npm run gen:layout`.
// Do not edit: this file must match the decoder (a test checks it).

#ifndef WARPTRACE_LAYOUT_GLSL
#define WARPTRACE_LAYOUT_GLSL

#define WT_BUFFER_HEADER_WORDS 4u
#define WT_BUFFER_WORD_COUNT 0u // atomic: records attempted
#define WT_BUFFER_WORD_CAPACITY 1u // records that fit
#define WT_RECORD_WORDS 8u
#define WT_RECORD_BYTES 32u
#define WT_WORD_CLOCK_START 0u
#define WT_WORD_CLOCK_END 1u
#define WT_WORD_DEVICE_CLOCK 2u
#define WT_WORD_ACTIVE_MASK_HI 0x3u
#define WT_WORD_POSITION 3u
#define WT_WORD_PACKED_IDS 4u
#define WT_WORD_DRAW_ID 5u
#define WT_WORD_CUSTOM_ID 6u
#define WT_WORD_ACTIVE_MASK_LO 0x7u
#define WT_IDS_SM_SHIFT 0u
#define WT_IDS_SM_MASK 0xffffu
#define WT_IDS_SLOT_SHIFT 16u
#define WT_IDS_SLOT_MASK 0xffu
#define WT_IDS_STAGE_SHIFT 24u
#define WT_IDS_STAGE_MASK 0xfu
#define WT_IDS_FLAGS_SHIFT 28u
#define WT_IDS_FLAGS_MASK 0xfu
#define WT_FLAG_SM_CLOCK 1u
#define WT_FLAG_DEVICE_CLOCK 2u
#define WT_FLAG_PER_INVOCATION 4u
#define WT_FLAG_POSITION 8u
#define WT_POS_X_SHIFT 0u
#define WT_POS_X_MASK 0x1fffu
#define WT_POS_Y_SHIFT 13u
#define WT_POS_Y_MASK 0x1fffu
#define WT_POS_LOG2_WIDTH_SHIFT 26u
#define WT_POS_LOG2_HEIGHT_SHIFT 29u
#define WT_POS_LOG2_MASK 0x7u
#define WT_NO_POSITION 0xffffffffu // no position (x0 = y0 = 8191)
#define WT_MAX_POSITION_COORD 8190u // largest x0 / y0
#define WT_MAX_POSITION_LOG2 7u // footprints up to 128 px
#define WT_UNKNOWN_SM 0xffffu
#define WT_UNKNOWN_SLOT 0xffu
#define WT_STAGE_VS 0u // vertex
#define WT_STAGE_TCS 1u // tessellation control
#define WT_STAGE_TES 2u // tessellation evaluation
#define WT_STAGE_GS 3u // geometry
#define WT_STAGE_FS 4u // fragment
#define WT_STAGE_CS 5u // compute
#define WT_STAGE_TASK 6u // task
#define WT_STAGE_MESH 7u // mesh
#define WT_STAGE_RAYGEN 8u // ray generation
#define WT_STAGE_ANY_HIT 9u // any-hit
#define WT_STAGE_CLOSEST_HIT 10u // closest-hit
#define WT_STAGE_MISS 11u // miss
#define WT_STAGE_INTERSECTION 12u // intersection
#define WT_STAGE_CALLABLE 13u // callable
#define WT_STAGE_RAYGEN_REORDERED 14u // ray generation after reorder
#define WT_STAGE_MARK 15u // a mark record, not a shader stage
#define WT_MARK_WORD_CLOCK 0u
#define WT_MARK_WORD_WARP_START 1u
#define WT_MARK_WORD_ID 2u
#define WT_MARK_WORD_ACTIVE_MASK_HI 0x3u
#define WT_MARK_WORD_PACKED_IDS 4u
#define WT_MARK_WORD_DRAW_ID 5u
#define WT_MARK_WORD_SEQUENCE 6u
#define WT_MARK_WORD_ACTIVE_MASK_LO 0x7u
#define WT_MAX_MARKS 16u // marks per invocation at most
#define WT_MARK_KIND_SHIFT 24u
#define WT_MARK_SITE_MASK 0xffffffu
#define WT_MARK_KIND_USER 0u
#define WT_MARK_KIND_BEFORE_TRACE 1u
#define WT_MARK_KIND_AFTER_TRACE 2u
#define WT_MARK_KIND_LOOP_HEAD 3u
#define WT_MARK_KIND_LOOP_EXIT 4u
#define WT_BLOCK_BINDING_OFFSET 2u // block table at the trace binding + this
#define WT_BLOCK_HEADER_WORDS 4u
#define WT_BLOCK_WORD_DROPPED 0u
#define WT_BLOCK_WORD_CELLS 1u
#define WT_BLOCK_WORD_COPY_MASK 0x2u
#define WT_BLOCK_CELL_WORDS 8u
#define WT_CELL_EXECUTIONS_LO 0u
#define WT_CELL_EXECUTIONS_HI 1u
#define WT_CELL_LANES_LO 2u
#define WT_CELL_LANES_HI 3u
#define WT_CELL_TICKS_LO 4u
#define WT_CELL_TICKS_HI 5u
#define WT_DRAW_BLOCK_ROW_WORD 1u // draw-id block word: the draw's first cell
#define WT_NO_BLOCK_ROW 0xffffffffu // a draw without a row
#define WT_BLOCK_BASE_SPEC_ID 0x57540001u // SpecId: the module's first cell within the row
#define WT_DRAW_BLOCK_STAGE_WORD 3u // draw-id block word of WT_BLOCK_STAGE_VS: + WT_BLOCK_STAGE_x is stage x's offset in the row
#define WT_BLOCK_STAGE_COUNT 7u // graphics stages with a draw-id stage word
#define WT_BLOCK_STAGE_VS 0u
#define WT_BLOCK_STAGE_TCS 1u
#define WT_BLOCK_STAGE_TES 2u
#define WT_BLOCK_STAGE_GS 3u
#define WT_BLOCK_STAGE_FS 4u
#define WT_BLOCK_STAGE_TASK 5u
#define WT_BLOCK_STAGE_MESH 6u
#define WT_DRAW_ID_BLOCK_BYTES 64u // a draw's draw-id block: the descriptor's range, the stride's least
#define WT_RAY_EVENT_BINDING_OFFSET 3u // ray-event table at the trace binding + this
#define WT_RAY_EVENT_HEADER_WORDS 16u
#define WT_RAY_WORD_DROPPED 0u
#define WT_RAY_WORD_CELLS 1u
#define WT_RAY_WORD_ROWS 2u
#define WT_RAY_WORD_SCRATCH_PIXELS 3u
#define WT_RAY_WORD_UNCOUNTED_TRAVERSALS 4u
#define WT_RAY_ROW_HEADER_WORDS 8u
#define WT_RAY_ROW_LAUNCHES 0u
#define WT_RAY_ROW_MAX_WIDTH 1u
#define WT_RAY_ROW_MAX_HEIGHT 2u
#define WT_RAY_ROW_MAX_DEPTH 3u
#define WT_RAY_ROW_MIN_WIDTH 4u
#define WT_RAY_ROW_MIN_HEIGHT 5u
#define WT_RAY_ROW_MIN_DEPTH 6u
#define WT_RAY_CELL_WORDS 8u
#define WT_RAY_CELL_TRACE_CALLS 0u
#define WT_RAY_CELL_INTERSECTIONS 1u
#define WT_RAY_CELL_ANY_HITS 2u
#define WT_RAY_CELL_ANY_HITS_IGNORED 3u
#define WT_RAY_CELL_USELESS_ANY_HITS 4u
#define WT_RAY_CELL_CLOSEST_HITS 5u
#define WT_RAY_CELL_MISSES 6u
#define WT_RAY_CELL_CALLABLES 7u
#define WT_RAY_SCRATCH_WORDS 2u
#define WT_RAY_SCRATCH_STATE 0u
#define WT_RAY_SCRATCH_LAST_ACCEPTED_T 0x1u
#define WT_RAY_SCRATCH_ACCEPTED_MASK 0x3fffffffu
#define WT_RAY_SCRATCH_CLOSEST_HIT_RAN 0x40000000u
#define WT_RAY_SCRATCH_FINAL_ACCEPTED 0x80000000u
#define WT_MAX_RAY_SCALE 7u // largest binning: 2^this launch pixels per cell side
#define WT_DRAW_RAY_ROW_WORD 2u // draw-id block word: the trace-rays call's ray-event row
#define WT_NO_RAY_ROW 0xffffffffu // a draw without a ray-event row
#define WT_DRAW_SAMPLE_WORD 10u // draw-id block word of stage codes 0-7's log2 sampling rates (4 bits each); + 1: codes 8-15
#define WT_SAMPLE_WORDS 2u
#define WT_SAMPLE_LOG2_BITS 4u
#define WT_MAX_SAMPLE_LOG2 15u // one warp in 32,768
#define WT_SAMPLE_KEY_GOLDEN 0x9e3779b1u // spreads a second warp-key component

#endif // WARPTRACE_LAYOUT_GLSL
