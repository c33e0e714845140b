#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// AQT-like irregular patches: the hull shader is amplified to 32 invocations
// per patch (one warp on NVIDIA), and each patch walks a "subdivision tree"
// whose depth varies per patch: the heaviest stage of the frame.
layout(vertices = 32) out;
layout(location = 0) in vec3 vPos[];
layout(location = 0) out vec3 cPos[];

void main() {
  wtBegin();
  uint id = uint(gl_InvocationID);
  uint depth = 1u + (hash32(uint(gl_PrimitiveID) + knobs.patchBase) & 3u);
  float walk = burn(knobs.tcsWork * depth, vPos[id & 15u].z + float(id) * 0.01);
  cPos[gl_InvocationID] = vPos[id & 15u] + vec3(0.0, 0.0, 1e-6 * walk);
  if (id == 0u) {
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
