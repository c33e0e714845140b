// targets: vulkan1.0 vulkan1.1
// (glslang 12 decorates HLSL buffers BufferBlock, which SPIR-V 1.4+ rejects)
// HLSL compute shader with SV_GroupID (an existing WorkgroupId variable).
RWStructuredBuffer<uint> counts : register(u0);
[numthreads(32, 2, 1)]
void main(uint3 group : SV_GroupID, uint index : SV_GroupIndex) {
  if (index == 0) InterlockedAdd(counts[group.x], 1u);
}
