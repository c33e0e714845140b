#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// A screen-aligned rectangle (two triangles, six vertices) covering knobs.rect.
layout(location = 0) out vec3 oNormal;
layout(location = 1) out vec3 oColor;

void main() {
  wtBegin();
  const vec2 corners[6] = vec2[6](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 0), vec2(1, 1), vec2(0, 1));
  vec2 c = corners[gl_VertexIndex % 6];
  vec2 ndc = mix(knobs.rect.xy, knobs.rect.zw, c);
  oNormal = vec3(0.0, 0.0, 1.0 + 1e-6 * burn(knobs.vsWork, c.x));
  oColor = knobs.color.rgb;
  gl_Position = vec4(ndc, knobs.depth, 1.0);
  wtEnd(WT_STAGE_VS, uint(gl_VertexIndex));
}
