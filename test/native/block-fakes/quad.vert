#version 460
#extension GL_GOOGLE_include_directive : require
#include "fake_blocks.glsl"
#include "common.glsl"
// Stand-in for quad.vert with one block, counted per invocation (no subgroups in lavapipe's VS).
layout(location = 0) out vec3 oNormal;
layout(location = 1) out vec3 oColor;

void main() {
  debugPrintfEXT("warptrace-blocks=1 per=invocation clock=sm");
  countCell(0u, 1u, 1u);
  const vec2 corners[6] = vec2[6](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 0), vec2(1, 1), vec2(0, 1));
  vec2 c = corners[gl_VertexIndex % 6];
  oNormal = vec3(0.0, 0.0, 1.0);
  oColor = knobs.color.rgb;
  gl_Position = vec4(mix(knobs.rect.xy, knobs.rect.zw, c), knobs.depth, 1.0);
}
