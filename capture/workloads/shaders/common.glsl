// Shared by the reference workloads: per-draw knobs and a busy loop.
#ifndef WT_DEMO_COMMON_GLSL
#define WT_DEMO_COMMON_GLSL

// Per-draw knobs (push constants, 80 bytes), written by capture/demo/src/workloads.cpp.
layout(push_constant) uniform Knobs {
  vec4 rect;        // the draw's area in NDC: x0, y0, x1, y1
  uint gridW;       // patches / cells across
  uint gridH;       // patches / cells down
  uint patchBase;   // this draw's first entry in the patch table
  uint vsWork;      // busy-loop iterations per stage
  uint tcsWork;
  uint tesWork;
  uint gsWork;
  uint fsWork;
  uint csWork;
  float tessLevel;
  uint flavor;      // per-draw variation (e.g. irregular vs regular patches)
  float depth;
  vec4 color;
} knobs;

// Dependent multiply-add chain: cost grows linearly with n, and the result
// feeds the shader's output so the compiler cannot drop or move it.
float burn(uint n, float x) {
  for (uint i = 0u; i < n; ++i) x = fract(x * 1.6180339 + 0.1234567);
  return x;
}

uint hash32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// A rolling height field the tessellated workloads sample.
float heightAt(vec2 p) {
  return 0.15 * sin(p.x * 7.0) * cos(p.y * 5.0) + 0.05 * sin(p.x * 23.0 + p.y * 17.0);
}

#endif
