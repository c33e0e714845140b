#version 450
// Tessellation evaluation: bilinear patch, uses gl_TessCoord.
layout(quads, equal_spacing, ccw) in;
layout(location = 0) in vec3 inPos[];
layout(location = 0) out vec2 uv;
void main() {
  vec3 a = mix(inPos[0], inPos[1], gl_TessCoord.x);
  vec3 b = mix(inPos[3], inPos[2], gl_TessCoord.x);
  uv = gl_TessCoord.xy;
  gl_Position = vec4(mix(a, b, gl_TessCoord.y), 1.0);
}
