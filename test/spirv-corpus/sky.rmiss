#version 460
// targets: spirv1.4 vulkan1.2 vulkan1.3
// Miss: a sky gradient from the ray direction.
#extension GL_EXT_ray_tracing : require
layout(location = 0) rayPayloadInEXT vec4 payload;
void main() {
  float t = 0.5 * (gl_WorldRayDirectionEXT.y + 1.0);
  payload = vec4(mix(vec3(1.0), vec3(0.5, 0.7, 1.0), t), 0.0);
}
