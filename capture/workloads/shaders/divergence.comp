#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Block profiles' known answer (the divergence workload): in every subgroup exactly
// half the lanes take the branch, since subgroups are runs of consecutive local
// invocation indices and the odd ones loop knobs.csWork times; the even ones skip it.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Values { float values[]; };

void main() {
  wtBegin();
  uint i = gl_GlobalInvocationID.x;
  float x = float(i) * 1e-3;
  if ((gl_LocalInvocationIndex & 1u) != 0u) {
    for (uint k = 0u; k < knobs.csWork; ++k) x = fract(x * 1.6180339 + 0.1234567);
  }
  if (i < uint(values.length())) values[i] = x;
  uvec3 g = gl_WorkGroupID, n = gl_NumWorkGroups;
  wtEnd(WT_STAGE_CS, g.x + n.x * (g.y + n.y * g.z));
}
