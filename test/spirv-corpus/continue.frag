#version 450
// A discarding call in a loop's continue clause and in nested loops; a
// discarding function that returns a value.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Params { int n; float cut; } params;
int advance(int i) {
  if (float(i) * uv.x > params.cut) discard;
  return i + 1;
}
float march(vec2 p) {
  float d = 0.0;
  for (int y = 0; y < params.n; ++y) {
    for (int x = 0; x < params.n; ++x) {
      d += length(p - vec2(x, y));
      if (d > 1000.0) discard;
    }
  }
  return d;
}
void main() {
  float acc = 0.0;
  for (int i = 0; i < params.n; i = advance(i)) acc += sin(float(i));
  color = vec4(acc, march(uv), 0.0, 1.0);
}
