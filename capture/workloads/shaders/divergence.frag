#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Block profiles' known answer (the divergence workload): pixels in odd columns
// loop knobs.fsWork times, the others skip the branch: over the full-screen draw,
// the branch's live lanes are exactly half the pixels.
layout(location = 0) out vec4 outColor;

void main() {
  wtBegin();
  float x = gl_FragCoord.y * 1e-3;
  if ((uint(gl_FragCoord.x) & 1u) != 0u) {
    for (uint k = 0u; k < knobs.fsWork; ++k) x = fract(x * 1.6180339 + 0.1234567);
  }
  outColor = vec4(x, 0.5, 0.25, 1.0);
  wtEnd(WT_STAGE_FS, uint(gl_PrimitiveID));
}
