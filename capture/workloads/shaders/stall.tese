#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Tessellation stall: bilinear quad, light work; expensive patches show red.
layout(quads, equal_spacing, ccw) in;
layout(location = 0) in vec3 cPos[];
layout(location = 1) patch in float pCost;
layout(location = 0) out vec3 oNormal;
layout(location = 1) out vec3 oColor;

void main() {
  wtBegin();
  vec2 uv = gl_TessCoord.xy;
  vec3 p = mix(mix(cPos[0], cPos[1], uv.x), mix(cPos[2], cPos[3], uv.x), uv.y);
  float extra = burn(knobs.tesWork, p.z + uv.y);
  oNormal = normalize(vec3(-0.3 * cos(p.x * 7.0), 0.2 * sin(p.y * 5.0), 1.0) + 1e-6 * extra);
  oColor = pCost > 1.0 ? vec3(0.95, 0.2, 0.15) : knobs.color.rgb;
  gl_Position = vec4(p.xy, clamp(0.5 - p.z, 0.0, 1.0), 1.0);
  wtEnd(WT_STAGE_TES, uint(gl_PrimitiveID));
}
