#version 450
// Tessellation control with barrier(): per-vertex work, a barrier, then patch
// levels computed from every vertex's output (reads other invocations' data).
layout(vertices = 4) out;
layout(location = 0) in vec3 inPos[];
layout(location = 0) out vec3 outPos[];
layout(location = 1) out float outWeight[];
layout(set = 0, binding = 0) uniform Params { float level; int iterations; } params;
float heavy(vec3 p) {
  float acc = 0.0;
  for (int i = 0; i < params.iterations; ++i) acc += sin(dot(p, vec3(i)));
  return acc;
}
void main() {
  outPos[gl_InvocationID] = inPos[gl_InvocationID];
  outWeight[gl_InvocationID] = heavy(inPos[gl_InvocationID]);
  barrier();
  if (gl_InvocationID == 0) {
    float w = outWeight[0] + outWeight[1] + outWeight[2] + outWeight[3];
    gl_TessLevelOuter[0] = params.level + w * 0.0;
    gl_TessLevelOuter[1] = params.level;
    gl_TessLevelOuter[2] = params.level;
    gl_TessLevelOuter[3] = params.level;
    gl_TessLevelInner[0] = params.level;
    gl_TessLevelInner[1] = params.level;
  }
}
