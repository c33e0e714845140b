#version 450
// One triangle, moved by the frame number: each presented frame differs, and
// the same frame is the same image in every run.
layout(push_constant) uniform Frame { float offset; } frame;
layout(location = 0) out vec3 colour;

void main() {
  vec2 corners[3] = vec2[](vec2(-0.6, 0.6), vec2(0.6, 0.6), vec2(0.0, -0.6));
  gl_Position = vec4(corners[gl_VertexIndex] + vec2(frame.offset, 0.0), 0.0, 1.0);
  colour = vec3(gl_VertexIndex == 0, gl_VertexIndex == 1, gl_VertexIndex == 2);
}
