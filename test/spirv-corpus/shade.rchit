#version 460
// targets: spirv1.4 vulkan1.2 vulkan1.3
// Closest hit: reads gl_PrimitiveID and the instance's custom index itself,
// calls a callable shader.
#extension GL_EXT_ray_tracing : require
layout(location = 0) rayPayloadInEXT vec4 payload;
layout(location = 1) callableDataEXT vec3 shaded;
hitAttributeEXT vec2 barycentrics;
void main() {
  shaded = vec3(barycentrics, float(gl_PrimitiveID % 16) / 16.0);
  executeCallableEXT(gl_InstanceCustomIndexEXT & 3, 1);
  payload = vec4(shaded, gl_HitTEXT);
}
