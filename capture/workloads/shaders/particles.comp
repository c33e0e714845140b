#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Compute stage: each invocation updates one "particle" with knobs.csWork
// iterations of work; also the busy loop of the tests.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Particles { vec4 particles[]; };

void main() {
  wtBegin();
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(particles.length())) {
    vec4 p = particles[i];
    float w = burn(knobs.csWork, p.x + float(i) * 1e-4);
    particles[i] = vec4(p.xyz + vec3(0.001, -0.002, 0.0005) * (w + 0.5), w);
  }
  uvec3 g = gl_WorkGroupID, n = gl_NumWorkGroups;
  wtEnd(WT_STAGE_CS, g.x + n.x * (g.y + n.y * g.z));
}
