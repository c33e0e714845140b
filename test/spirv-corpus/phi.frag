#version 450
// Discard inside a value-returning function used in short-circuit conditions:
// the calls sit in blocks that OpPhi nodes name as predecessors.
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
bool keep(float x) {
  if (x < 0.0) discard;
  return x > 0.5;
}
void main() {
  if (keep(v.x) && keep(v.y) || keep(v.z)) color = v;
  else color = vec4(0.0);
}
