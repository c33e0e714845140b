#version 450
// Early return, a loop with break/continue, and gl_PrimitiveID used by the
// shader (the wrapper reuses the variable and its Flat decoration).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Shading { int iterations; } shading;
void main() {
  if (uv.x > 0.99) { color = vec4(1.0); return; }
  float acc = 0.0;
  for (int i = 0; i < shading.iterations; ++i) {
    if (i == 7) continue;
    acc += sin(uv.x * float(i));
    if (acc > 100.0) break;
  }
  color = vec4(acc, float(gl_PrimitiveID & 255) / 255.0, 0.0, 1.0);
}
