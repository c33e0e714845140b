#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// Shared fragment shader: Lambert lighting plus knobs.fsWork iterations of
// busy work (the "shading" knob of every workload).
layout(location = 0) in vec3 oNormal;
layout(location = 1) in vec3 oColor;
layout(location = 0) out vec4 outColor;

void main() {
  wtBegin();
  vec3 n = normalize(oNormal);
  float light = max(dot(n, normalize(vec3(0.4, 0.5, 0.75))), 0.0) * 0.8 + 0.2;
  float work = burn(knobs.fsWork, gl_FragCoord.x * 0.001 + gl_FragCoord.y * 0.0007);
  outColor = vec4(oColor * light + 1e-3 * work, 1.0);
  wtEnd(WT_STAGE_FS, uint(gl_PrimitiveID));
}
