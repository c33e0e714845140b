#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Tessellation stall: four corners per patch. The patch table maps this
// draw's patch order to the patch's place on the grid and its TCS cost.
layout(std430, set = 0, binding = 0) readonly buffer PatchTable { uvec2 patches[]; };  // (grid index, cost)
layout(location = 0) out vec3 vPos;

void main() {
  wtBegin();
  uint patchIndex = uint(gl_VertexIndex) / 4u;
  uint corner = uint(gl_VertexIndex) % 4u;
  uint cell = patches[knobs.patchBase + patchIndex].x;
  vec2 lattice = vec2(cell % knobs.gridW, cell / knobs.gridW) + vec2(corner & 1u, corner >> 1u);
  vec2 ndc = mix(knobs.rect.xy, knobs.rect.zw, lattice / vec2(knobs.gridW, knobs.gridH));
  vPos = vec3(ndc, heightAt(ndc) + 1e-6 * burn(knobs.vsWork, ndc.x));
  wtEnd(WT_STAGE_VS, uint(gl_VertexIndex));
}
