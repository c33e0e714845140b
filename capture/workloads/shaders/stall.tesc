#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Tessellation stall: 32 invocations per patch (one warp on NVIDIA); a few
// patches cost far more than the rest. Tessellated primitives are emitted in
// order, so one long TCS warp holds up the TES work of every later patch.
layout(vertices = 32) out;
layout(std430, set = 0, binding = 0) readonly buffer PatchTable { uvec2 patches[]; };
layout(location = 0) in vec3 vPos[];
layout(location = 0) out vec3 cPos[];
layout(location = 1) patch out float pCost;

void main() {
  wtBegin();
  uint id = uint(gl_InvocationID);
  uint cost = patches[knobs.patchBase + uint(gl_PrimitiveID)].y;
  float work = burn(knobs.tcsWork * cost, vPos[id & 3u].z + float(id) * 0.01);
  cPos[gl_InvocationID] = vPos[id & 3u] + vec3(0.0, 0.0, 1e-6 * work);
  if (id == 0u) {
    pCost = float(cost);
    float level = knobs.tessLevel;
    gl_TessLevelOuter[0] = level;
    gl_TessLevelOuter[1] = level;
    gl_TessLevelOuter[2] = level;
    gl_TessLevelOuter[3] = level;
    gl_TessLevelInner[0] = level;
    gl_TessLevelInner[1] = level;
  }
  wtEnd(WT_STAGE_TCS, uint(gl_PrimitiveID));
}
