#version 460
#extension GL_GOOGLE_include_directive : require
#include "fake_blocks.glsl"
#include "common.glsl"
// Stand-in for divergence.frag with blocks: block 0 the entry, block 1 the branch of odd columns.
layout(location = 0) out vec4 outColor;

void main() {
  debugPrintfEXT("warptrace-blocks=2 per=warp clock=sm");
  enterPerWarp(0u, !gl_HelperInvocation);
  float x = gl_FragCoord.y * 1e-3;
  if ((uint(gl_FragCoord.x) & 1u) != 0u) {
    enterPerWarp(1u, !gl_HelperInvocation);
    for (uint k = 0u; k < knobs.fsWork; ++k) x = fract(x * 1.6180339 + 0.1234567);
  }
  outColor = vec4(x, 0.5, 0.25, 1.0);
}
