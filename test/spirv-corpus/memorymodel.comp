#version 450
// targets: vulkan1.1 vulkan1.2 vulkan1.3
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
// Vulkan memory model module: the wrapper's atomic must use QueueFamily scope.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer Counter { uint value; } counter;
void main() {
  atomicAdd(counter.value, 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
