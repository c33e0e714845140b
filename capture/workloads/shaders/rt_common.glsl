// Shared by the ray-traced workload's shaders (capture/demo/src/raytrace.cpp).
#ifndef WT_DEMO_RT_GLSL
#define WT_DEMO_RT_GLSL

// Push constants (RtKnobs in raytrace.cpp).
layout(push_constant) uniform RtKnobs {
  uint shading;      // closest-hit busy-loop iterations
  uint sphereCount;
} knobs;

layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(set = 0, binding = 2, std430) readonly buffer Spheres {
  vec4 spheres[];    // center xyz, radius w
};

// What a primary ray brings back to ray generation.
struct PrimaryPayload {
  vec3 color;
  float hitT;        // < 0: missed
  vec3 normal;
};

// Hit groups of the binding table (hit group = instance offset + geometry index).
#define RT_GEOMETRY_GROUND 0u
#define RT_GEOMETRY_FENCE 1u

// Dependent multiply-add chain: cost grows linearly with n (as burn() in common.glsl).
float rtBurn(uint n, float x) {
  for (uint i = 0u; i < n; ++i) x = fract(x * 1.6180339 + 0.1234567);
  return x;
}

// The fence's alpha test: round holes on a 0.3-unit grid (the any-hit shader ignores hits in them).
bool fenceHole(vec3 p) {
  vec2 cell = fract(p.xy / 0.3) - 0.5;
  return dot(cell, cell) < 0.12;
}

#endif
