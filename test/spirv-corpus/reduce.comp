#version 450
// targets: vulkan1.1 vulkan1.2 vulkan1.3 spirv1.4
#extension GL_KHR_shader_subgroup_arithmetic : require
// Compute: shared memory, barriers, subgroup ops of its own, gl_WorkGroupID
// and gl_NumWorkGroups used by the shader, an SSBO of uvec4[] (like the trace
// buffer's records array).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer Data { uvec4 cells[]; } data;
layout(set = 0, binding = 1, std430) buffer Sums { uint sums[]; } sums;
shared uint partial[64];
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint v = data.cells[i].x + data.cells[i].w;
  partial[gl_LocalInvocationIndex] = subgroupAdd(v);
  barrier();
  for (uint stride = 32u; stride > 0u; stride >>= 1u) {
    if (gl_LocalInvocationIndex < stride) partial[gl_LocalInvocationIndex] += partial[gl_LocalInvocationIndex + stride];
    barrier();
  }
  if (gl_LocalInvocationIndex == 0u) sums.sums[gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x] = partial[0];
}
