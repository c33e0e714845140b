#version 450
// Alpha test: discard inside a called function (OpKill), texture sampling
// (implicit derivatives, so helper invocations exist).
layout(set = 0, binding = 1) uniform sampler2D albedo;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void alphaTest(float alpha) {
  if (alpha < 0.5) discard;
}
void main() {
  vec4 c = texture(albedo, uv);
  alphaTest(c.a);
  color = c;
}
