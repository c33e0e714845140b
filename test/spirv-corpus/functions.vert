#version 450
// Several functions, a loop with an early return inside a helper, gl_VertexIndex
// and gl_InstanceIndex already used by the shader (the wrapper must reuse them).
layout(push_constant) uniform Push { int waves; float amplitude; } push;
layout(location = 0) out float vHeight;
float wave(float x, int n) {
  float h = 0.0;
  for (int i = 0; i < n; ++i) {
    if (h > 4.0) return h;
    h += sin(x * float(i + 1)) * push.amplitude;
  }
  return h;
}
vec2 grid(int index) { return vec2(index % 64, index / 64) / 64.0; }
void main() {
  vec2 p = grid(gl_VertexIndex + gl_InstanceIndex * 4096);
  vHeight = wave(p.x + p.y, push.waves);
  gl_Position = vec4(p * 2.0 - 1.0, vHeight, 1.0);
}
