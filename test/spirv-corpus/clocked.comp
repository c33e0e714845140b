#version 450
// targets: vulkan1.1 vulkan1.2 vulkan1.3
#extension GL_ARB_shader_clock : require
#extension GL_EXT_shader_realtime_clock : require
#extension GL_KHR_shader_subgroup_ballot : require
// Already uses the shader clock and ballots: capabilities and extensions must not be duplicated.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer Out { uvec4 ballots[]; } outData;
void main() {
  uvec2 t0 = clock2x32ARB();
  uvec4 b = subgroupBallot(gl_LocalInvocationIndex % 3u == 0u);
  uvec2 t1 = clockRealtime2x32EXT();
  if (subgroupElect()) outData.ballots[gl_WorkGroupID.x] = uvec4(b.x, t0.x, t1.x, 0u);
}
