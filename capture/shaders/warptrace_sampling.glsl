// warptrace_sampling.glsl: which warps record (part of warptrace.glsl, which
// includes it after its switches and buffer declarations; not for including on
// its own). The layout and the CPU reference are shared-schema/sample-layout.ts.
//
// The host writes each stage's log2 sampling rate k (4 bits) into the draw-id
// block (wtSetSampling in capture/host/warptrace.h; 0, every warp, until it
// does). wtBegin decides once per warp, before any clock, ballot or position
// work, so a warp that does not record pays this test and a branch:
//
//   sampled = k == 0 || lowbias32(key ^ lowbias32(drawId * 16 + stage)) <= 0xffffffff >> k
//
// key is one value the whole warp agrees on: the first active lane's pixel
// (fragment; ray-tracing stages: launch cell), vertex and instance, patch and
// invocation, primitive and tessellation coordinate, or the workgroup and
// subgroup (compute, task, mesh: uniform already). The decision is therefore
// deterministic (the same frame samples the same warps) and, through the full
// finalizer, spread over the screen and the frame with no pattern that aliases
// with tiles, SMs or draws. WT_SAMPLING 0 leaves the test out (every warp of
// every draw records; a full trace then pays nothing for sampling).
#ifndef WARPTRACE_SAMPLING_GLSL
#define WARPTRACE_SAMPLING_GLSL

// This shader's stage code (the sampling rate's nibble); glslang names the stage.
#if defined(GL_FRAGMENT_SHADER)
#define WT_SHADER_STAGE_ WT_STAGE_FS
#elif defined(GL_VERTEX_SHADER)
#define WT_SHADER_STAGE_ WT_STAGE_VS
#elif defined(GL_TESSELLATION_CONTROL_SHADER)
#define WT_SHADER_STAGE_ WT_STAGE_TCS
#elif defined(GL_TESSELLATION_EVALUATION_SHADER)
#define WT_SHADER_STAGE_ WT_STAGE_TES
#elif defined(GL_GEOMETRY_SHADER)
#define WT_SHADER_STAGE_ WT_STAGE_GS
#elif defined(GL_TASK_SHADER_NV) || defined(GL_TASK_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_TASK
#define WT_WORKGROUP_STAGE_ 1
#elif defined(GL_MESH_SHADER_NV) || defined(GL_MESH_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_MESH
#define WT_WORKGROUP_STAGE_ 1
#elif defined(GL_COMPUTE_SHADER)
#define WT_SHADER_STAGE_ WT_STAGE_CS
#define WT_WORKGROUP_STAGE_ 1
#elif defined(GL_RAY_GENERATION_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_RAYGEN
#elif defined(GL_ANY_HIT_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_ANY_HIT
#elif defined(GL_CLOSEST_HIT_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_CLOSEST_HIT
#elif defined(GL_MISS_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_MISS
#elif defined(GL_INTERSECTION_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_INTERSECTION
#elif defined(GL_CALLABLE_SHADER_EXT)
#define WT_SHADER_STAGE_ WT_STAGE_CALLABLE
#else
#error "warptrace_sampling.glsl: unknown shader stage"
#endif
#ifndef WT_WORKGROUP_STAGE_
#define WT_WORKGROUP_STAGE_ 0
#endif

#if WT_SAMPLING
uint wtLowbias32_(uint h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

// lowbias32 without its last step, which leaves the top 16 bits as they are: the decision reads only the top k
// bits (the host's rates: k <= 15), so it picks the warps the full hash picks, two instructions cheaper per warp.
uint wtLowbias32Top_(uint h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  return h;
}

// This lane's key (sample-layout.ts: pixelKey, workgroupKey and the stage keys of the instrumenter).
uint wtLaneKey_() {
#if defined(GL_FRAGMENT_SHADER)
  uvec2 p = uvec2(gl_FragCoord.xy);
  return p.x | (p.y << 16);
#elif defined(GL_VERTEX_SHADER)
  return uint(gl_VertexIndex) ^ (uint(gl_InstanceIndex) * WT_SAMPLE_KEY_GOLDEN);
#elif defined(GL_TESSELLATION_CONTROL_SHADER)
  return uint(gl_PrimitiveID) * 32u + uint(gl_InvocationID);
#elif defined(GL_TESSELLATION_EVALUATION_SHADER)
  return uint(gl_PrimitiveID) ^ (floatBitsToUint(gl_TessCoord.x) * WT_SAMPLE_KEY_GOLDEN) ^ floatBitsToUint(gl_TessCoord.y);
#elif defined(GL_GEOMETRY_SHADER)
  return uint(gl_PrimitiveIDIn) ^ (uint(gl_InvocationID) << 24);
#elif WT_WORKGROUP_STAGE_
#if defined(GL_MESH_SHADER_NV) || defined(GL_TASK_SHADER_NV)
  uint group = gl_WorkGroupID.x;
#else
  uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
#endif
#if WT_SUBGROUP
  return group * 64u + gl_SubgroupID;
#else
  return group * 1024u + gl_LocalInvocationIndex;
#endif
#else  // ray-tracing stages: the launch cell
  uvec3 l = gl_LaunchIDEXT;
  return (l.x | (l.y << 16)) ^ (l.z * WT_SAMPLE_KEY_GOLDEN);
#endif
}

// The warp's key: the first active lane's (compute, task and mesh keys are uniform already).
uint wtWarpKey_() {
#if WT_SUBGROUP && !WT_WORKGROUP_STAGE_
  return subgroupBroadcastFirst(wtLaneKey_());
#else
  return wtLaneKey_();
#endif
}
#endif

// The stage's log2 rate from the draw-id block. WT_SAMPLE_LOG2 (bench) adds to the host's rate.
#if WT_SAMPLING
uint wtSampleRate_() { return ((wtSampleLog2_[WT_SHADER_STAGE_ >> 3] >> (WT_SAMPLE_LOG2_BITS * (WT_SHADER_STAGE_ & 7u))) & 15u) + uint(WT_SAMPLE_LOG2); }
#endif

// Bench (WT_SAMPLE_BY_CLOCK): the decision from the start clock (uniform in the warp, not deterministic).
bool wtSampledAt_(uint start) {
#if WT_SAMPLING
  uint k = wtSampleRate_();
  if (k == 0u) return true;
  return wtLowbias32_(start ^ (wtDrawId * 16u + WT_SHADER_STAGE_)) <= (0xffffffffu >> min(k, 31u));
#else
  return true;
#endif
}

// Whether this warp records (see the header).
bool wtSampledWarp_() {
#if WT_SAMPLING == 2
  return wtSampleRate_() == 0u;  // bench: the rate's load and test alone
#elif WT_SAMPLING
  uint k = wtSampleRate_();
  if (k == 0u) return true;
  uint h = wtLowbias32Top_(wtWarpKey_() ^ wtLowbias32_(wtDrawId * 16u + WT_SHADER_STAGE_));
  return h <= (0xffffffffu >> min(k, 31u));
#else
  return true;
#endif
}

#endif // WARPTRACE_SAMPLING_GLSL
