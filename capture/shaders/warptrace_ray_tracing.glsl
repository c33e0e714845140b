// warptrace_ray_tracing.glsl: what records mean in ray-tracing stages, and the
// records around a shader-execution-reordering point (part of warptrace.glsl,
// which includes it after wtBegin and wtEnd; not for including on its own).
//
// Ray-tracing stages (ray generation, closest-hit, any-hit, miss, intersection,
// callable): the driver re-forms warps at every trace call, and hit, miss and
// intersection shaders run in warps gathered from many rays. A record is the
// invocations that reach wtEnd together: its mask is those lanes, its clocks
// and custom id the lowest one's (start = that lane's wtBegin). Every
// invocation is in exactly one record, so a launch of W x H rays gives ray
// generation records whose lanes sum to W x H; one launch warp may end as
// several records. A ray-generation record spans the whole invocation, the
// time its rays spent in hit, miss and intersection shaders included.
// ignoreIntersectionEXT and terminateRayEXT end the invocation, and so does
// reportIntersectionEXT when it accepts a hit of a terminate-on-first-hit ray:
// call wtEnd before them, as before `discard`.
//
// Shader execution reordering (GL_NV_shader_invocation_reorder, ray generation
// only): the driver re-forms the launch's warps at reorderThreadNV, so one warp's
// lanes before it are not its lanes after it. Bracket each reorder:
//   wtBeforeReorder(customId); reorderThreadNV(hitObject); wtAfterReorder();
// wtBeforeReorder records the lanes that reach it together (a RAYGEN record from
// wtBegin to the reorder); wtAfterReorder restarts the clock, and the next record
// (wtEnd, or the next wtBeforeReorder) is WT_STAGE_RAYGEN_REORDERED: the warp the
// lanes joined, from the reorder to its end. Each invocation is then in one
// RAYGEN record and one RAYGEN_REORDERED record per reorder it passed.
#ifndef WARPTRACE_RAY_TRACING_GLSL
#define WARPTRACE_RAY_TRACING_GLSL

#ifdef GL_RAY_GENERATION_SHADER_EXT
// The record of the lanes arriving at a reorder point (see the header).
void wtBeforeReorder(uint customId) { wtEnd(WT_STAGE_RAYGEN, customId); }
// After the reorder: the warp the lanes joined starts here.
void wtAfterReorder() {
  wtReordered_ = true;
  wtBegin();
}
#endif

#endif // WARPTRACE_RAY_TRACING_GLSL
