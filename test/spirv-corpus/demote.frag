#version 450
// targets: vulkan1.0 vulkan1.1 vulkan1.2 vulkan1.3
#extension GL_EXT_demote_to_helper_invocation : require
// demote: demoted lanes become helpers (the wrapper must ask with OpIsHelperInvocationEXT).
layout(set = 0, binding = 1) uniform sampler2D albedo;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  vec4 c = texture(albedo, uv);
  if (c.a < 0.1) demote;
  color = helperInvocationEXT() ? vec4(0.0) : c;
}
