#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require
#include "warptrace.glsl"
#include "rt_common.glsl"
// Miss of a shadow ray: the light is visible.
layout(location = 1) rayPayloadInEXT float shadowed;

void main() {
  wtBegin();
  shadowed = 0.0;
  wtEnd(WT_STAGE_MISS, gl_LaunchIDEXT.y * gl_LaunchSizeEXT.x + gl_LaunchIDEXT.x);
}
