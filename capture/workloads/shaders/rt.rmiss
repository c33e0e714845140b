#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require
#include "warptrace.glsl"
#include "rt_common.glsl"
// Miss of a primary ray: the sky.
layout(location = 0) rayPayloadInEXT PrimaryPayload primary;

void main() {
  wtBegin();
  float up = clamp(gl_WorldRayDirectionEXT.y * 2.0 + 0.3, 0.0, 1.0);
  primary.color = mix(vec3(0.8, 0.85, 0.9), vec3(0.3, 0.5, 0.85), up);
  primary.hitT = -1.0;
  wtEnd(WT_STAGE_MISS, gl_LaunchIDEXT.y * gl_LaunchSizeEXT.x + gl_LaunchIDEXT.x);
}
