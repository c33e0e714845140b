#version 450
// targets: vulkan1.0 vulkan1.1 vulkan1.2 vulkan1.3
#extension GL_EXT_terminate_invocation : require
// terminateInvocation (OpTerminateInvocation) in the entry function itself.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  if (length(uv - 0.5) > 0.5) terminateInvocation;
  color = vec4(uv, 0.0, 1.0);
}
