#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// AQT-like frame, vertex stage: emits the 16 B-spline control points of each
// patch from gl_VertexIndex (no vertex buffer). Deliberately short.
layout(location = 0) out vec3 vPos;

void main() {
  wtBegin();
  uint patchIndex = uint(gl_VertexIndex) / 16u;
  uint cp = uint(gl_VertexIndex) % 16u;
  // flavor 1 (regular quartets): one patch covers 2 x 2 cells.
  float span = knobs.flavor == 1u ? 2.0 : 1.0;
  vec2 cell = vec2(patchIndex % knobs.gridW, patchIndex / knobs.gridW) * span;
  vec2 lattice = cell + vec2(float(cp % 4u) - 1.0, float(cp / 4u) - 1.0) * span;
  vec2 cellsPerDraw = vec2(knobs.gridW, knobs.gridH) * span;
  vec2 uv = lattice / cellsPerDraw;
  vec2 ndc = mix(knobs.rect.xy, knobs.rect.zw, uv);
  float h = heightAt(ndc) + 1e-6 * burn(knobs.vsWork, uv.x);
  vPos = vec3(ndc, h);
  wtEnd(WT_STAGE_VS, uint(gl_VertexIndex));
}
