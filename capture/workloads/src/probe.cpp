// wt-capture-vk --probe: what the device offers and how to compile the shaders for it.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "modes.hpp"

namespace {

std::string stageList(VkShaderStageFlags stages) {
  static const std::pair<VkShaderStageFlagBits, const char *> names[] = {
      {VK_SHADER_STAGE_VERTEX_BIT, "VS"},   {VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, "TCS"},
      {VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, "TES"}, {VK_SHADER_STAGE_GEOMETRY_BIT, "GS"},
      {VK_SHADER_STAGE_FRAGMENT_BIT, "FS"}, {VK_SHADER_STAGE_COMPUTE_BIT, "CS"},
      {VK_SHADER_STAGE_TASK_BIT_EXT, "TASK"}, {VK_SHADER_STAGE_MESH_BIT_EXT, "MESH"},
      {VK_SHADER_STAGE_RAYGEN_BIT_KHR, "RAYGEN"}, {VK_SHADER_STAGE_ANY_HIT_BIT_KHR, "ANY_HIT"},
      {VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR, "CLOSEST_HIT"}, {VK_SHADER_STAGE_MISS_BIT_KHR, "MISS"},
      {VK_SHADER_STAGE_INTERSECTION_BIT_KHR, "INTERSECTION"}, {VK_SHADER_STAGE_CALLABLE_BIT_KHR, "CALLABLE"}};
  std::string out = "[";
  for (auto &n : names)
    if (stages & n.first) out += std::string(out.size() > 1 ? ", " : "") + "\"" + n.second + "\"";
  return out + "]";
}

const char *deviceType(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

/* Stages with basic + ballot subgroup operations, the ray-tracing, task and mesh stages included (wtCaps keeps the first six). */
VkShaderStageFlags subgroupStages(VkPhysicalDevice physical) {
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical, &props);
  VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;
  return (subgroup.supportedOperations & needed) == needed ? subgroup.supportedStages : 0;
}

/* VK_NV_ray_tracing_invocation_reorder's own word on whether reorderThreadNV reorders ("reorder"), or not ("none");
   "unsupported" without the extension. */
const char *invocationReorder(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  bool offered = false;
  for (const auto &e : extensions) offered = offered || std::string(e.extensionName) == VK_NV_RAY_TRACING_INVOCATION_REORDER_EXTENSION_NAME;
  if (!offered) return "unsupported";
  VkPhysicalDeviceRayTracingInvocationReorderPropertiesNV reorder{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_PROPERTIES_NV};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &reorder;
  vkGetPhysicalDeviceProperties2(physical, &props);
  return reorder.rayTracingInvocationReorderReorderingHint == VK_RAY_TRACING_INVOCATION_REORDER_MODE_REORDER_NV ? "reorder" : "none";
}

}  // namespace

int probe(int device) {
  Gpu gpu = createGpu(device);
  const wtCaps &c = gpu.caps;
  std::printf("{\n  \"devices\": [");
  std::vector<VkPhysicalDevice> all = physicalDevices(gpu.instance);
  for (size_t i = 0; i < all.size(); i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(all[i], &p);
    std::printf("%s{\"index\": %zu, \"name\": %s, \"type\": \"%s\", \"selected\": %s}", i ? ", " : "", i,
                jsonEscape(p.deviceName).c_str(), deviceType(p.deviceType), all[i] == gpu.physical ? "true" : "false");
  }
  std::printf("],\n  \"name\": %s, \"vendor\": %s, \"driverName\": %s, \"driverVersion\": %s,\n", jsonEscape(c.deviceName).c_str(),
              jsonEscape(c.vendor).c_str(), jsonEscape(c.driverName).c_str(), jsonEscape(c.driverVersionText).c_str());
  std::printf("  \"apiVersion\": \"%u.%u.%u\", \"subgroupClock\": %s, \"deviceClock\": %s, \"smBuiltins\": %s,\n",
              VK_API_VERSION_MAJOR(c.apiVersion), VK_API_VERSION_MINOR(c.apiVersion), VK_API_VERSION_PATCH(c.apiVersion),
              c.subgroupClock ? "true" : "false", c.deviceClock ? "true" : "false", c.smBuiltins ? "true" : "false");
  std::printf("  \"smCount\": %u, \"warpsPerSm\": %u, \"subgroupSize\": %u, \"subgroupStages\": %s, \"subgroupArithmetic\": %s,\n",
              c.smCount, c.warpsPerSm, c.subgroupSize, stageList(subgroupStages(gpu.physical)).c_str(), c.subgroupArithmetic ? "true" : "false");
  std::printf("  \"timestampPeriod\": %.9g, \"timestampValidBits\": %u, \"maxBoundDescriptorSets\": %u, \"invocationReorder\": \"%s\",\n",
              c.timestampPeriod, c.timestampValidBits, c.maxBoundDescriptorSets, invocationReorder(gpu.physical));
  static const std::pair<VkShaderStageFlagBits, const char *> stages[] = {
      {VK_SHADER_STAGE_VERTEX_BIT, "vert"}, {VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, "tesc"},
      {VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, "tese"}, {VK_SHADER_STAGE_GEOMETRY_BIT, "geom"},
      {VK_SHADER_STAGE_FRAGMENT_BIT, "frag"}, {VK_SHADER_STAGE_COMPUTE_BIT, "comp"}};
  std::printf("  \"defines\": {");
  for (size_t i = 0; i < 6; i++) {
    char defines[256];
    wtShaderDefines(&c, stages[i].first, defines, sizeof defines);
    std::printf("%s\"%s\": \"%s\"", i ? ", " : "", stages[i].second, defines);
  }
  std::printf("}\n}\n");
  destroyGpu(gpu);
  return 0;
}
