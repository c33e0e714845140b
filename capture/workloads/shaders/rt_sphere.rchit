#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require
#include "warptrace.glsl"
#include "rt_common.glsl"
// Closest hit on a procedural sphere: the normal comes from the intersection shader.
layout(location = 0) rayPayloadInEXT PrimaryPayload primary;
hitAttributeEXT vec3 sphereNormal;

void main() {
  wtBegin();
  vec3 normal = normalize(sphereNormal);
  float hue = float(gl_PrimitiveID % 6) / 6.0;
  vec3 base = 0.55 + 0.4 * cos(6.2831 * (hue + vec3(0.0, 0.33, 0.67)));
  float light = max(dot(normal, normalize(vec3(-0.45, 1.0, -0.35))), 0.0) * 0.75 + 0.25;
  float work = rtBurn(knobs.shading, normal.x * 0.01 + normal.y * 0.007);
  primary.color = base * light + 1e-3 * work;
  primary.hitT = gl_HitTEXT;
  primary.normal = normal;
  wtEnd(WT_STAGE_CLOSEST_HIT, uint(gl_PrimitiveID));
}
