#version 450
// Plain vertex shader: matrices, outputs, a uniform block at set 0.
layout(set = 0, binding = 0) uniform Camera { mat4 viewProj; vec4 tint; } camera;
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec3 vNormal;
layout(location = 1) out vec4 vColor;
void main() {
  vNormal = normal;
  vColor = camera.tint;
  gl_Position = camera.viewProj * vec4(position, 1.0);
}
