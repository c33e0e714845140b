// Device features beyond the base set (ray-tracing pipelines, mesh shaders, graphics pipeline libraries): checked before the
// device is created, so a device without them fails with one line, "unsupported: <feature> (...)".
#include <cstring>
#include <string>

#include "gpu.hpp"

namespace {

bool hasExtension(const std::vector<VkExtensionProperties> &available, const char *name) {
  for (const auto &e : available)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

}  // namespace

VkShaderStageFlags optionalStages(uint32_t needs) {
  VkShaderStageFlags stages = 0;
  if (needs & kNeedsRayTracing)
    stages |= VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_ANY_HIT_BIT_KHR | VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR |
              VK_SHADER_STAGE_MISS_BIT_KHR | VK_SHADER_STAGE_INTERSECTION_BIT_KHR | VK_SHADER_STAGE_CALLABLE_BIT_KHR;
  if (needs & kNeedsMeshShader) stages |= VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT;
  return stages;
}

void requireOptionalFeatures(VkPhysicalDevice physical, uint32_t needs, OptionalFeatures &f, void **chain) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical, &props);
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> available(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, available.data());

  auto requireExtensions = [&](const char *feature, std::initializer_list<const char *> names) {
    for (const char *name : names) {
      if (!hasExtension(available, name)) fatal("unsupported: %s (%s lacks %s)", feature, props.deviceName, name);
      f.extensions.push_back(name);
    }
  };
  if (needs & kNeedsRayTracing)
    requireExtensions("ray-tracing pipelines",
                      {VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME,
                       VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME});
  if (needs & kNeedsMeshShader) requireExtensions("mesh shaders", {VK_EXT_MESH_SHADER_EXTENSION_NAME});
  if (needs & kNeedsInvocationReorder)
    requireExtensions("shader execution reordering", {VK_NV_RAY_TRACING_INVOCATION_REORDER_EXTENSION_NAME});
  if (needs & kNeedsTraceRaysIndirect2) requireExtensions("vkCmdTraceRaysIndirect2KHR", {VK_KHR_RAY_TRACING_MAINTENANCE_1_EXTENSION_NAME});
  if (needs & kNeedsPipelineLibrary)
    requireExtensions("graphics pipeline libraries", {VK_KHR_PIPELINE_LIBRARY_EXTENSION_NAME, VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME});

  // Query the feature structs the extensions exist for, then ask for exactly what the workload uses.
  VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  void *next = nullptr;
  if (needs & kNeedsRayTracing) {
    f.address.pNext = next, next = &f.address;
    f.accel.pNext = next, next = &f.accel;
    f.rayTracing.pNext = next, next = &f.rayTracing;
  }
  if (needs & kNeedsMeshShader) f.mesh.pNext = next, next = &f.mesh;
  if (needs & kNeedsPipelineLibrary) f.library.pNext = next, next = &f.library;
  if (needs & kNeedsInvocationReorder) f.reorder.pNext = next, next = &f.reorder;
  if (needs & kNeedsTraceRaysIndirect2) f.maintenance1.pNext = next, next = &f.maintenance1;
  query.pNext = next;
  vkGetPhysicalDeviceFeatures2(physical, &query);
  if (needs & kNeedsRayTracing) {
    if (!f.address.bufferDeviceAddress) fatal("unsupported: ray-tracing pipelines (%s lacks bufferDeviceAddress)", props.deviceName);
    if (!f.accel.accelerationStructure) fatal("unsupported: ray-tracing pipelines (%s lacks accelerationStructure)", props.deviceName);
    if (!f.rayTracing.rayTracingPipeline) fatal("unsupported: ray-tracing pipelines (%s lacks rayTracingPipeline)", props.deviceName);
    f.address = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    f.address.bufferDeviceAddress = VK_TRUE;
    f.accel = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    f.accel.accelerationStructure = VK_TRUE;
    VkBool32 indirect = f.rayTracing.rayTracingPipelineTraceRaysIndirect;  // the ray-tracing workload's indirect=1
    f.rayTracing = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    f.rayTracing.rayTracingPipeline = VK_TRUE;
    f.rayTracing.rayTracingPipelineTraceRaysIndirect = indirect;
    f.address.pNext = *chain, *chain = &f.address;
    f.accel.pNext = *chain, *chain = &f.accel;
    f.rayTracing.pNext = *chain, *chain = &f.rayTracing;
  }
  if (needs & kNeedsMeshShader) {
    if (!f.mesh.meshShader || !f.mesh.taskShader) fatal("unsupported: mesh shaders (%s lacks the meshShader or taskShader feature)", props.deviceName);
    f.mesh = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
    f.mesh.meshShader = VK_TRUE;
    f.mesh.taskShader = VK_TRUE;
    f.mesh.pNext = *chain, *chain = &f.mesh;
  }
  if (needs & kNeedsInvocationReorder) {
    if (!f.reorder.rayTracingInvocationReorder) fatal("unsupported: shader execution reordering (%s lacks rayTracingInvocationReorder)", props.deviceName);
    f.reorder = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_FEATURES_NV};
    f.reorder.rayTracingInvocationReorder = VK_TRUE;
    f.reorder.pNext = *chain, *chain = &f.reorder;
  }
  if (needs & kNeedsTraceRaysIndirect2) {
    if (!f.maintenance1.rayTracingPipelineTraceRaysIndirect2) fatal("unsupported: vkCmdTraceRaysIndirect2KHR (%s lacks rayTracingPipelineTraceRaysIndirect2)", props.deviceName);
    f.maintenance1 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_MAINTENANCE_1_FEATURES_KHR};
    f.maintenance1.rayTracingPipelineTraceRaysIndirect2 = VK_TRUE;
    f.maintenance1.pNext = *chain, *chain = &f.maintenance1;
  }
  if (needs & kNeedsPipelineLibrary) {
    if (!f.library.graphicsPipelineLibrary) fatal("unsupported: graphics pipeline libraries (%s lacks the graphicsPipelineLibrary feature)", props.deviceName);
    f.library = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT};
    f.library.graphicsPipelineLibrary = VK_TRUE;
    f.library.pNext = *chain, *chain = &f.library;
  }
}
