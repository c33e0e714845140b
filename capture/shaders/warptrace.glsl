// warptrace.glsl: per-warp trace records for any shader stage.
//
// Include it right after #version (it declares the extensions it needs):
//
//   #version 460
//   #extension GL_GOOGLE_include_directive : require
//   #include "warptrace.glsl"
//   void main() {
//     wtBegin();
//     ... the shader ...
//     wtEnd(WT_STAGE_FS, uint(gl_PrimitiveID));
//   }
//
// wtBegin() reads the start clock; wtEnd(stage, customId) reads the end clock,
// then the device clock, and one lane per warp appends a 32-byte record (see
// shared-schema/README.md). Without WT_ENABLE every wt* call compiles to
// nothing: the same source builds the plain shader.
//
// Compile-time switches (glslangValidator -DNAME=VALUE); the capture tool sets
// them from what the device reports:
//   WT_ENABLE          define to trace
//   WT_SET, WT_BINDING trace buffer at (set, binding), draw id at binding + 1 (7, 0)
//   WT_SUBGROUP_CLOCK  1: VK_KHR_shader_clock shaderSubgroupClock (SM cycles)      (1)
//   WT_DEVICE_CLOCK    1: VK_KHR_shader_clock shaderDeviceClock (global time)       (1)
//   WT_SM_BUILTINS     1: VK_NV_shader_sm_builtins (gl_SMIDNV, gl_WarpIDNV)        (0)
//   WT_SUBGROUP        1: basic + ballot subgroup ops work in this stage           (1)
//                      0: every invocation writes its own record (PER_INVOCATION)
//   WT_VARIANT         cost-breakdown experiments for bench/ (default: the record)
//   WT_EARLY_FRAGMENT_TESTS  1: declare layout(early_fragment_tests) in the fragment
//                      stage. The record's stores are side effects, which make
//                      drivers run depth tests after the shader; set this when the
//                      shader neither discards nor writes depth, so tracing keeps
//                      early depth testing as in the plain twin.                 (0)
//   WT_POSITION        0: record no screen position                               (1)
//                      The capture tool sets 0 where subgroups are wider than 32.
//   WT_POSITION_COMPUTE 1: compute warps record one too (gl_GlobalInvocationID.xy) (0)
//   WT_SAMPLING        0: no sampling test; every warp records                    (1)
//                      1: wtBegin decides whether the warp records, from the
//                      stage's rate the host sets (wtSetSampling), before any
//                      clock: see warptrace_sampling.glsl
//   WT_SAMPLE_LOG2     bench only: added to the host's log2 rate                 (0)
//
// Screen position: fragment warps and the warps of every ray-tracing stage
// (compute warps with WT_POSITION_COMPUTE) record where their lanes were, in
// record word 3: see warptrace_position.glsl.
//
// Discard: lanes that discard before wtEnd are missing from the record's mask;
// a warp whose lanes all discard writes no record and is not counted. Call
// wtEnd before `discard` (wtEnd(...); if (kill) discard;) to keep such warps.
// Fragment helper invocations never write and are left out of the mask.
//
// Ray-tracing stages, and shader execution reordering (wtBeforeReorder,
// wtAfterReorder around reorderThreadNV): see warptrace_ray_tracing.glsl.
// wtMark(id) between wtBegin and wtEnd: a mark record, the moment the warp
// passed that point (at most 16 per invocation): see warptrace_marks.glsl.
// Task and mesh stages: one record per warp of the workgroup, as in compute;
// EmitMeshTasksEXT ends a task invocation, so wtEnd comes before it.
#ifndef WARPTRACE_GLSL
#define WARPTRACE_GLSL

#include "warptrace_layout.glsl"

// WT_VARIANT_* (bench variants, cheapest first).
#include "warptrace_variants.glsl"

#ifndef WT_ENABLE

#define wtBegin()
#define wtEnd(stage, customId)
#define wtBeforeReorder(customId)
#define wtAfterReorder()

#else // WT_ENABLE

#ifndef WT_SET
#define WT_SET 7
#endif
#ifndef WT_BINDING
#define WT_BINDING 0
#endif
#ifndef WT_SUBGROUP_CLOCK
#define WT_SUBGROUP_CLOCK 1
#endif
#ifndef WT_DEVICE_CLOCK
#define WT_DEVICE_CLOCK 1
#endif
#ifndef WT_SM_BUILTINS
#define WT_SM_BUILTINS 0
#endif
#ifndef WT_SUBGROUP
#define WT_SUBGROUP 1
#endif
#ifndef WT_VARIANT
#define WT_VARIANT WT_VARIANT_RECORD
#endif
#if !WT_SUBGROUP_CLOCK && !WT_DEVICE_CLOCK
#error "warptrace needs a shader clock (VK_KHR_shader_clock: shaderSubgroupClock or shaderDeviceClock)"
#endif

#if WT_SUBGROUP_CLOCK
#extension GL_ARB_shader_clock : require
#endif
#if WT_DEVICE_CLOCK
#extension GL_EXT_shader_realtime_clock : require
#endif
#if WT_SM_BUILTINS
#extension GL_NV_shader_sm_builtins : require
#endif
#if WT_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#if WT_VARIANT == WT_VARIANT_NAIVE48
#extension GL_ARB_gpu_shader_int64 : require
#endif
#ifndef WT_POSITION
#define WT_POSITION 1
#endif
#ifndef WT_SAMPLING
#define WT_SAMPLING 1
#endif
#ifndef WT_SAMPLE_LOG2
#define WT_SAMPLE_LOG2 0
#endif
// The prologue-heavy bench variants: ballot, election, slot and position in wtBegin.
#if WT_VARIANT == WT_VARIANT_FRONT || WT_VARIANT == WT_VARIANT_FRONT_STORE || WT_VARIANT == WT_VARIANT_FRONT_LATE
#define WT_FRONT_ 1
#else
#define WT_FRONT_ 0
#endif
#ifndef WT_POSITION_COMPUTE
#define WT_POSITION_COMPUTE 0
#endif
// The ray-tracing stages (glslang defines one of these per stage): their lanes' pixel is the launch id.
#if defined(GL_RAY_GENERATION_SHADER_EXT) || defined(GL_INTERSECTION_SHADER_EXT) || defined(GL_ANY_HIT_SHADER_EXT) || \
    defined(GL_CLOSEST_HIT_SHADER_EXT) || defined(GL_MISS_SHADER_EXT) || defined(GL_CALLABLE_SHADER_EXT)
#define WT_RAY_TRACING_STAGE_ 1
#else
#define WT_RAY_TRACING_STAGE_ 0
#endif
// The stages that record a screen position (the default record only).
#if WT_POSITION && (WT_VARIANT == WT_VARIANT_RECORD || WT_VARIANT == WT_VARIANT_EARLY || WT_VARIANT == WT_VARIANT_QUADPOS || WT_VARIANT == WT_VARIANT_RECORD_ANY_POS || WT_VARIANT == WT_VARIANT_UBOCAP || WT_VARIANT == WT_VARIANT_NOCHECK || WT_VARIANT == WT_VARIANT_NOATOMIC || WT_VARIANT == WT_VARIANT_DEVFIRST || WT_VARIANT == WT_VARIANT_RED_ONLY || WT_VARIANT == WT_VARIANT_SLOT_ATOMIC || WT_FRONT_) && \
    (defined(GL_FRAGMENT_SHADER) || WT_RAY_TRACING_STAGE_ || (WT_POSITION_COMPUTE && defined(GL_COMPUTE_SHADER)))
#define WT_POSITION_STAGE_ 1
#else
#define WT_POSITION_STAGE_ 0
#endif
#if WT_POSITION_STAGE_ && WT_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#if WT_POSITION_STAGE_ && WT_RAY_TRACING_STAGE_
#extension GL_EXT_ray_tracing : require
#endif
#if defined(GL_FRAGMENT_SHADER) && defined(WT_EARLY_FRAGMENT_TESTS) && WT_EARLY_FRAGMENT_TESTS
layout(early_fragment_tests) in;
#endif

layout(std430, set = WT_SET, binding = WT_BINDING) buffer WarpTraceBuffer {
  uint wtCount;     // every record a shader tried to write
  uint wtCapacity;  // records that fit (the host writes it; shaders use the array length)
  uint wtFlags;
  uint wtReserved;
  uvec4 wtRecords[];  // record k = wtRecords[2k], wtRecords[2k + 1]
};

layout(std140, set = WT_SET, binding = WT_BINDING + 1) uniform WarpTraceDraw {
  uint wtDrawId;
  uint wtDrawWord1_, wtDrawWord2_, wtDrawWord3_, wtDrawWord4_, wtDrawWord5_, wtDrawWord6_, wtDrawWord7_, wtDrawWord8_, wtDrawWord9_;
  uvec2 wtSampleLog2_;  // words WT_DRAW_SAMPLE_WORD, + 1: the stages' log2 sampling rates
};

// The clock of CLOCK_START/CLOCK_END: SM cycles when available, else device ticks.
#if WT_SUBGROUP_CLOCK
#define wtClock_() clock2x32ARB().x
#define WT_CLOCK_FLAGS_ (WT_FLAG_SM_CLOCK | (WT_DEVICE_CLOCK != 0 ? WT_FLAG_DEVICE_CLOCK : 0u))
#else
#define wtClock_() clockRealtime2x32EXT().x
#define WT_CLOCK_FLAGS_ WT_FLAG_DEVICE_CLOCK
#endif
// The device-clock sample a record carries beside SM clocks; 0 where CLOCK_START/END are device ticks already.
#if WT_SUBGROUP_CLOCK && WT_DEVICE_CLOCK
#define wtDeviceClock_() clockRealtime2x32EXT().x
#else
#define wtDeviceClock_() 0u
#endif

#if WT_SM_BUILTINS
#define wtSmSlot_() ((uint(gl_SMIDNV) & WT_IDS_SM_MASK) | ((uint(gl_WarpIDNV) & WT_IDS_SLOT_MASK) << WT_IDS_SLOT_SHIFT))
#else
#define wtSmSlot_() (WT_UNKNOWN_SM | (WT_UNKNOWN_SLOT << WT_IDS_SLOT_SHIFT))
#endif

#if WT_SUBGROUP
#define WT_RECORD_FLAGS_ WT_CLOCK_FLAGS_
#else
#define WT_RECORD_FLAGS_ (WT_CLOCK_FLAGS_ | WT_FLAG_PER_INVOCATION)
#endif

// Helper invocations' stores are discarded: they neither write nor count as lanes.
#ifdef GL_FRAGMENT_SHADER
#define wtLive_() (!gl_HelperInvocation)
#else
#define wtLive_() true
#endif

uint wtStart_;
bool wtOn_ = false;  // this warp records (wtBegin's sampling decision)

// Never true: keeps a value alive without a store in the common path.
#define wtKeep_(value) if ((value) == 0x9e3779b9u) wtFlags = (value)

// The live lanes' mask (helper lanes left out) and whether this lane is the lowest live one: the record's writer.
// Per invocation (WT_SUBGROUP 0) each live lane is its own record.
uvec2 wtLiveMask_(out bool leader) {
#if WT_SUBGROUP
  uvec4 ballot = subgroupBallot(wtLive_());
  leader = wtLive_() && subgroupBallotFindLSB(ballot) == gl_SubgroupInvocationID;
  return ballot.xy;
#else
  leader = wtLive_();
  return uvec2(1u, 0u);
#endif
}

#include "warptrace_sampling.glsl"
#include "warptrace_position.glsl"

// Stores record `slot` (two 16-byte stores) unless it is past the buffer's end.
void wtStore_(uint slot, uvec4 first, uvec4 second) {
  if (slot < uint(wtRecords.length()) >> 1) {
    wtRecords[2u * slot] = first;
    wtRecords[2u * slot + 1u] = second;
  }
}

#include "warptrace_front.glsl"
#include "warptrace_bench.glsl"

void wtBegin() {
#if defined(WT_SAMPLE_BY_CLOCK) && WT_SAMPLE_BY_CLOCK
  wtStart_ = wtClock_();
  wtOn_ = wtSampledAt_(wtStart_);
  if (!wtOn_) return;
#else
  wtOn_ = wtSampledWarp_();
  if (!wtOn_) return;
  wtStart_ = wtClock_();
#endif
#if WT_VARIANT != WT_VARIANT_RECORD
  wtBenchBegin_();
#endif
}

#ifdef GL_RAY_GENERATION_SHADER_EXT
bool wtReordered_ = false;  // true once this invocation passed a reorder (wtAfterReorder)
#endif

void wtEnd(uint stage, uint customId) {
  // Lanes of warps that do not record leave here (ray tracing: the lanes ending together may mix both).
  if (!wtOn_) return;
#if defined(WT_DROP_CUSTOM_ID) && WT_DROP_CUSTOM_ID
  customId = 0u;  // bench: the shader's custom id (e.g. gl_PrimitiveID) not read
#endif
#ifdef GL_RAY_GENERATION_SHADER_EXT
  if (wtReordered_ && stage == WT_STAGE_RAYGEN) stage = WT_STAGE_RAYGEN_REORDERED;
#endif
#if WT_VARIANT != WT_VARIANT_RECORD
  wtBenchEnd_(stage, customId);
#else
  uint end = wtClock_();
  uint device = wtDeviceClock_();
  uint ids = wtSmSlot_() | (stage << WT_IDS_STAGE_SHIFT) | (WT_RECORD_FLAGS_ << WT_IDS_FLAGS_SHIFT);
  bool leader;
  uvec2 mask = wtLiveMask_(leader);
#if WT_POSITION_STAGE_
  wtPutPosition_(wtPosition_(), ids, mask.y);
#endif
  if (leader) {
    uint slot = atomicAdd(wtCount, 1u);
    wtStore_(slot, uvec4(wtStart_, end, device, mask.y), uvec4(ids, wtDrawId, customId, mask.x));
  }
#endif
}

#include "warptrace_ray_tracing.glsl"

#endif // WT_ENABLE
#include "warptrace_marks.glsl"
#endif // WARPTRACE_GLSL
