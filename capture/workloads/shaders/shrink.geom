#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Geometry stage: shrinks each triangle toward its centroid and gives it a
// face normal, with knobs.gsWork iterations of extra work.
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec3 gPos[];
layout(location = 0) out vec3 oNormal;
layout(location = 1) out vec3 oColor;

void main() {
  wtBegin();
  vec3 center = (gPos[0] + gPos[1] + gPos[2]) / 3.0;
  vec3 n = normalize(cross(gPos[1] - gPos[0], gPos[2] - gPos[0]));
  float extra = burn(knobs.gsWork, center.x + center.y);
  for (int i = 0; i < 3; ++i) {
    vec3 p = mix(center, gPos[i], 0.85);
    oNormal = n * sign(n.z + 1e-6) + vec3(0.0, 0.0, 1e-6 * extra);
    oColor = knobs.color.rgb;
    gl_PrimitiveID = gl_PrimitiveIDIn;
    gl_Position = vec4(p.xy, clamp(0.5 - p.z, 0.0, 1.0), 1.0);
    EmitVertex();
  }
  EndPrimitive();
  wtEnd(WT_STAGE_GS, uint(gl_PrimitiveIDIn));
}
