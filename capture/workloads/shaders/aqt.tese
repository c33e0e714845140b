#version 460
#extension GL_GOOGLE_include_directive : require
#include "warptrace.glsl"
#include "common.glsl"
// AQT-like domain shader: evaluates the bicubic uniform B-spline patch of the
// first 16 control points (irregular patches carry 32), with a moderate,
// per-draw amount of extra work (knobs.tesWork).
layout(quads, fractional_even_spacing, ccw) in;
layout(location = 0) in vec3 cPos[];
layout(location = 0) out vec3 oNormal;
layout(location = 1) out vec3 oColor;

vec4 bspline(float t) {
  float s = 1.0 - t;
  return vec4(s * s * s, 3.0 * t * t * t - 6.0 * t * t + 4.0, -3.0 * t * t * t + 3.0 * t * t + 3.0 * t + 1.0, t * t * t) / 6.0;
}

vec4 bsplineDerivative(float t) {
  float s = 1.0 - t;
  return vec4(-0.5 * s * s, 1.5 * t * t - 2.0 * t, -1.5 * t * t + t + 0.5, 0.5 * t * t);
}

void main() {
  wtBegin();
  vec2 uv = gl_TessCoord.xy;
  vec4 bu = bspline(uv.x), bv = bspline(uv.y);
  vec4 du = bsplineDerivative(uv.x), dv = bsplineDerivative(uv.y);
  vec3 p = vec3(0.0), pu = vec3(0.0), pv = vec3(0.0);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i) {
      vec3 c = cPos[j * 4 + i];
      p += bu[i] * bv[j] * c;
      pu += du[i] * bv[j] * c;
      pv += bu[i] * dv[j] * c;
    }
  float extra = burn(knobs.tesWork, p.z + uv.x);
  oNormal = normalize(cross(pu, pv) + vec3(0.0, 0.0, 1e-6 * extra));
  oColor = knobs.color.rgb;
  gl_Position = vec4(p.xy, clamp(0.5 - p.z, 0.0, 1.0), 1.0);
  wtEnd(WT_STAGE_TES, uint(gl_PrimitiveID));
}
