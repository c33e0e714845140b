#version 460
#extension GL_GOOGLE_include_directive : require
#include "fake_blocks.glsl"
#include "common.glsl"
// Stand-in for divergence.comp with blocks: block 0 the entry, block 1 the branch odd lanes take.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Values { float values[]; };

void main() {
  debugPrintfEXT("warptrace-blocks=2 per=warp clock=sm");
  enterPerWarp(0u, true);
  uint i = gl_GlobalInvocationID.x;
  float x = float(i) * 1e-3;
  if ((gl_LocalInvocationIndex & 1u) != 0u) {
    enterPerWarp(1u, true);
    for (uint k = 0u; k < knobs.csWork; ++k) x = fract(x * 1.6180339 + 0.1234567);
  }
  if (i < uint(values.length())) values[i] = x;
}
