#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require
#include "warptrace.glsl"
#include "rt_common.glsl"
// Closest hit on triangles: the checkered ground (geometry 0) or the fence (geometry 1).
layout(location = 0) rayPayloadInEXT PrimaryPayload primary;
hitAttributeEXT vec2 barycentrics;

void main() {
  wtBegin();
  vec3 p = gl_WorldRayOriginEXT + gl_WorldRayDirectionEXT * gl_HitTEXT;
  bool ground = gl_GeometryIndexEXT == RT_GEOMETRY_GROUND;
  vec3 normal = ground ? vec3(0.0, 1.0, 0.0) : vec3(0.0, 0.0, -1.0);
  if (dot(normal, gl_WorldRayDirectionEXT) > 0.0) normal = -normal;
  vec3 base = ground ? mix(vec3(0.35), vec3(0.6), float((int(floor(p.x)) + int(floor(p.z))) & 1))
                     : vec3(0.75, 0.5, 0.25) * (0.8 + 0.2 * barycentrics.x);
  float light = max(dot(normal, normalize(vec3(-0.45, 1.0, -0.35))), 0.0) * 0.75 + 0.25;
  float work = rtBurn(knobs.shading, p.x * 0.01 + p.z * 0.007);
  primary.color = base * light + 1e-3 * work;
  primary.hitT = gl_HitTEXT;
  primary.normal = normal;
  wtEnd(WT_STAGE_CLOSEST_HIT, uint(gl_PrimitiveID));
}
