// Ray-tracing shaders the corpus lacks: a closest hit and a miss that trace rays of their own (nested
// traversals) and a closest hit that calls a callable shader, for the ray-event tests.
export const REFLECT_RCHIT = `#version 460
#extension GL_EXT_ray_tracing : require
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(location = 0) rayPayloadInEXT vec4 payload;
layout(location = 1) rayPayloadEXT vec4 bounce;
layout(location = 2) callableDataEXT vec3 shaded;
hitAttributeEXT vec2 barycentrics;
void main() {
  shaded = vec3(barycentrics, 1.0);
  executeCallableEXT(0, 2);
  bounce = vec4(0.0);
  if (payload.w < 1.0) {
    vec3 at = gl_WorldRayOriginEXT + gl_WorldRayDirectionEXT * gl_HitTEXT;
    traceRayEXT(scene, gl_RayFlagsNoneEXT, 0xff, 0, 1, 0, at, 0.001, reflect(gl_WorldRayDirectionEXT, vec3(0.0, 1.0, 0.0)), 100.0, 1);
  }
  payload = vec4(shaded, gl_HitTEXT) + bounce;
}
`;

export const FOG_RMISS = `#version 460
#extension GL_EXT_ray_tracing : require
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(location = 0) rayPayloadInEXT vec4 payload;
layout(location = 1) rayPayloadEXT vec4 behind;
void main() {
  behind = vec4(0.0);
  traceRayEXT(scene, gl_RayFlagsOpaqueEXT, 0xff, 0, 1, 0, gl_WorldRayOriginEXT, 0.001, -gl_WorldRayDirectionEXT, 10.0, 1);
  payload = behind * 0.5;
}
`;
