// warptrace_variants.glsl: the WT_VARIANT values of warptrace.glsl (cost-breakdown
// experiments for bench/; the default is WT_VARIANT_RECORD). Included by it.
#ifndef WARPTRACE_VARIANTS_GLSL
#define WARPTRACE_VARIANTS_GLSL

// Variants, cheapest first: each adds one cost to the previous one (bench only).
#define WT_VARIANT_CLOCK 1      // SM clock at start and end, kept alive, no memory traffic
#define WT_VARIANT_CLOCKS 2     // + device clock
#define WT_VARIANT_BALLOT 3     // + ballot and leader election
#define WT_VARIANT_ATOMIC 4     // + the atomic slot allocation
#define WT_VARIANT_RECORD 5     // + the 32-byte record as two 16-byte stores (the default)
#define WT_VARIANT_SCALAR 6     // the record as eight 4-byte stores
#define WT_VARIANT_RECORD16 7   // a 16-byte record, one vector store (the 2016 tool's size)
#define WT_VARIANT_NAIVE48 8    // 48 bytes: 64-bit clocks read at start and end, broadcast, 12 stores
#define WT_VARIANT_EARLY 9      // the record, with the slot allocated in wtBegin (latency hidden)
#define WT_VARIANT_BALLOT_ANY 10   // BALLOT electing any active lane (helper lanes too)
#define WT_VARIANT_BALLOT_NOSM 11  // BALLOT without reading the SM builtins
#define WT_VARIANT_RECORD_ANY 12   // RECORD electing any active lane (a helper's record would be lost)
#define WT_VARIANT_SHARDED 13      // RECORD with one counter per SM (another buffer layout; cost only)
#define WT_VARIANT_SAMPLED 14      // RECORD for one warp in eight (hash of the start clock); clocks always
#define WT_VARIANT_HELPER 15       // CLOCKS + the helper-lane test
#define WT_VARIANT_SMID 16         // CLOCKS + reading gl_SMIDNV / gl_WarpIDNV
#define WT_VARIANT_LEAN 17         // RECORD with the device clock, ids and draw id read by the leader only
#define WT_VARIANT_DEP 18          // RECORD whose atomic operand depends on both clocks (no clock read after it)
#define WT_VARIANT_DEVFIRST 19     // RECORD reading the device clock before the SM end clock
#define WT_VARIANT_DEVFIRST_DEP 20 // both
#define WT_VARIANT_HDRCAP 21       // RECORD bounded by the header's capacity word instead of the array length
#define WT_VARIANT_NOCHECK 22      // RECORD without a capacity test (unsafe; cost only)
#define WT_VARIANT_NODRAW 23       // RECORD without the draw-id uniform load (cost only)
#define WT_VARIANT_FRONT 24        // RECORD with ballot, election, position and slot in wtBegin (warptrace_front.glsl)
#define WT_VARIANT_FRONT_STORE 25  // FRONT, the second half stored in wtBegin: one store at the end
#define WT_VARIANT_QUADPOS 26      // RECORD whose position box takes helper lanes too (no per-lane select)
#define WT_VARIANT_RECORD_ANY_POS 27  // RECORD_ANY with the position (of every active lane)
#define WT_VARIANT_STORE_ONLY 29   // CLOCKS + one 16-byte store per lane to record 0 (no atomic, no subgroup operation)
#define WT_VARIANT_FRONT_LATE 28
#define WT_VARIANT_NOATOMIC 31     // RECORD at a slot from the start clock instead of the atomic (records collide; cost only)
#define WT_VARIANT_UBOCAP 30
#define WT_VARIANT_RED_ONLY 32     // NOATOMIC plus the atomic with its result unused (a reduction: contention without the wait)
#define WT_VARIANT_SLOT_ATOMIC 33  // RECORD with one counter per hardware warp slot (SM x warp id: no contention; cost only)       // RECORD bounded by a draw-id block word (uniform) instead of the array length   // FRONT with the atomic in wtEnd: no subgroup operation after the shader

#endif // WARPTRACE_VARIANTS_GLSL
