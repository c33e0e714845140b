// warptrace_position.glsl: the screen position a warp records in word 3 (part of
// warptrace.glsl, which includes it after its switches and wtLive_(); not for
// including on its own). Packed as shared-schema/position.ts packPosition does.
//
// Fragment warps and the warps of every ray-tracing stage (compute warps with
// WT_POSITION_COMPUTE) record where their lanes were, in record word 3 with
// the flag WT_FLAG_POSITION: the smallest x and y over the active lanes and
// the bounding box's width and height rounded up to powers of two (up to 128
// px), packed as shared-schema/position.ts says (WT_POS_*). A lane's pixel is
// floor(gl_FragCoord.xy) (fragment: non-helper lanes only), gl_LaunchIDEXT.xy
// (ray generation, intersection, any-hit, closest-hit, miss, callable: the
// launch pixel the lane works for) or gl_GlobalInvocationID.xy (compute); the
// min and max come from GL_KHR_shader_subgroup_arithmetic, or, per invocation
// (WT_SUBGROUP 0), the record's own lane. A warp of a subgroup wider than 32
// lanes (word 3 then holds lanes 32..63) or with a lane past 8190 records
// none. The custom id stays the shader's to choose. Only the default record
// (WT_VARIANT) has it. Hit, miss and callable warps gather lanes from many
// rays: their box may be wide, and past 128 px it is cut to 128 from its
// smallest x or y.
#ifndef WARPTRACE_POSITION_GLSL
#define WARPTRACE_POSITION_GLSL

#if WT_POSITION_STAGE_
// This invocation's pixel (ray tracing: launch cell; compute: grid cell).
uvec2 wtPixel_() {
#if defined(GL_FRAGMENT_SHADER)
  return uvec2(gl_FragCoord.xy);
#elif WT_RAY_TRACING_STAGE_
  return gl_LaunchIDEXT.xy;
#else
  return gl_GlobalInvocationID.xy;
#endif
}

// The box lo..hi (inclusive) packed as shared-schema/position.ts packPosition does.
uint wtPackPosition_(uvec2 lo, uvec2 hi) {
  if (lo.x > WT_MAX_POSITION_COORD || lo.y > WT_MAX_POSITION_COORD || hi.x < lo.x || hi.y < lo.y) return WT_NO_POSITION;
  // The smallest e with 2^e >= span = hi - lo + 1 is findMSB(hi - lo) + 1 (0 for a span of 1).
  uvec2 e = min(uvec2(findMSB(hi - lo) + ivec2(1)), uvec2(WT_MAX_POSITION_LOG2));
  return (lo.x << WT_POS_X_SHIFT) | (lo.y << WT_POS_Y_SHIFT) | (e.x << WT_POS_LOG2_WIDTH_SHIFT) | (e.y << WT_POS_LOG2_HEIGHT_SHIFT);
}

// Word 3 holds the position instead of lanes 32..63 (none at 32 lanes or fewer), flagged in the ids; a warp with
// no position keeps word 3 as it was. A macro, not a function: the record's code stays what it was written as (an
// inout argument of a vector component is a copy in and out that only the driver's compiler folds).
#define wtPutPosition_(position, ids, word3) \
  {                                            \
    uint wtPosition = (position);              \
    if (wtPosition != WT_NO_POSITION) {        \
      ids |= WT_FLAG_POSITION << WT_IDS_FLAGS_SHIFT; \
      word3 = wtPosition;                      \
    }                                          \
  }

// The warp's position word; every lane calls it (subgroup operations), helper lanes do not count.
uint wtPosition_() {
  uvec2 pixel = wtPixel_();
#if WT_SUBGROUP
  // Subgroup-uniform: a wide subgroup's word 3 holds lanes 32..63.
  if (gl_SubgroupSize > 32u) return WT_NO_POSITION;
  bool live = wtLive_();
  return wtPackPosition_(subgroupMin(live ? pixel : uvec2(0xffffffffu)), subgroupMax(live ? pixel : uvec2(0u)));
#else
  return wtPackPosition_(pixel, pixel);
#endif
}

// Bench (WT_VARIANT_QUADPOS): the box of every active lane, helper lanes too (they sit in their
// quad beside a live lane: at most one pixel more on a side), without the per-lane select.
uint wtPositionAllLanes_() {
  uvec2 pixel = wtPixel_();
#if WT_SUBGROUP
  if (gl_SubgroupSize > 32u) return WT_NO_POSITION;
  return wtPackPosition_(subgroupMin(pixel), subgroupMax(pixel));
#else
  return wtPackPosition_(pixel, pixel);
#endif
}
#endif

#endif // WARPTRACE_POSITION_GLSL
