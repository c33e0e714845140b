#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// AQT-like regular patches (and regular quartets): 16 control points, a fixed
// amount of work per patch, lighter than the irregular hull shader.
layout(vertices = 16) out;
layout(location = 0) in vec3 vPos[];
layout(location = 0) out vec3 cPos[];

void main() {
  wtBegin();
  uint id = uint(gl_InvocationID);
  float work = burn(knobs.tcsWork, vPos[id].z + float(id) * 0.01);
  cPos[gl_InvocationID] = vPos[id] + vec3(0.0, 0.0, 1e-6 * work);
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
