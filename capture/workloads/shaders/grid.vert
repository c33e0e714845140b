#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// A grid of gridW x gridH cells, two triangles each, over knobs.rect.
layout(location = 0) out vec3 gPos;

void main() {
  wtBegin();
  const uvec2 corners[6] = uvec2[6](uvec2(0, 0), uvec2(1, 0), uvec2(0, 1), uvec2(1, 0), uvec2(1, 1), uvec2(0, 1));
  uint cell = uint(gl_VertexIndex) / 6u;
  vec2 lattice = vec2(cell % knobs.gridW, cell / knobs.gridW) + vec2(corners[gl_VertexIndex % 6]);
  vec2 ndc = mix(knobs.rect.xy, knobs.rect.zw, lattice / vec2(knobs.gridW, knobs.gridH));
  gPos = vec3(ndc, heightAt(ndc) + 1e-6 * burn(knobs.vsWork, ndc.y));
  wtEnd(WT_STAGE_VS, uint(gl_VertexIndex));
}
