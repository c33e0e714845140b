// Vulkan device, resources and pipelines for the headless reference workloads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "warptrace.h"

[[noreturn]] void fatal(const char *format, ...);
void check(VkResult result, const char *what);

/* Device features beyond the base set that a workload needs (Workload::needs); createGpu fails with "unsupported: ..." without them. */
enum WorkloadNeeds : uint32_t { kNeedsRayTracing = 1u, kNeedsMeshShader = 2u, kNeedsPipelineLibrary = 4u, kNeedsInvocationReorder = 8u, kNeedsTraceRaysIndirect2 = 16u };

struct Gpu {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  wtCaps caps{};
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  /* VK_KHR_pipeline_executable_properties enabled (register counts etc., --stats). */
  bool executableStats = false;
  /* WorkloadNeeds bits enabled on the device. */
  uint32_t needs = 0;
  /* A Vulkan 1.0 application (--vulkan-1.0): render passes instead of dynamic rendering, no 1.1+ call or struct. */
  bool vulkan10 = false;
};

/*
 * The instance: Vulkan 1.3, or with `vulkan10` exactly what a Vulkan 1.0 app asks for
 * (apiVersion 1.0, no instance extension, so no VK_KHR_get_physical_device_properties2).
 */
VkInstance createInstance(bool vulkan10 = false);
std::vector<VkPhysicalDevice> physicalDevices(VkInstance instance);
/*
 * Picks device `index` (-1: the first one with graphics + compute, preferring discrete GPUs).
 * `tracing` false: an ordinary device (no warptrace caps, extensions or features; `caps` stays empty).
 */
Gpu createGpu(int index, bool wantExecutableStats = false, bool tracing = true, uint32_t needs = 0, bool vulkan10 = false);

/* The extensions and feature structs of WorkloadNeeds (features.cpp); keep alive until vkCreateDevice returns. */
struct OptionalFeatures {
  VkPhysicalDeviceBufferDeviceAddressFeatures address{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  VkPhysicalDeviceAccelerationStructureFeaturesKHR accel{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
  VkPhysicalDeviceRayTracingPipelineFeaturesKHR rayTracing{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
  VkPhysicalDeviceMeshShaderFeaturesEXT mesh{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
  VkPhysicalDeviceGraphicsPipelineLibraryFeaturesEXT library{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT};
  VkPhysicalDeviceRayTracingInvocationReorderFeaturesNV reorder{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_FEATURES_NV};
  VkPhysicalDeviceRayTracingMaintenance1FeaturesKHR maintenance1{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_MAINTENANCE_1_FEATURES_KHR};
  std::vector<const char *> extensions;
};
/* Fails with "unsupported: <feature> (...)" unless the device offers all of `needs`; links the structs in front of *chain. */
void requireOptionalFeatures(VkPhysicalDevice physical, uint32_t needs, OptionalFeatures &features, void **chain);
/* The shader stages of WorkloadNeeds (ray-tracing, task and mesh), for the trace set's layout. */
VkShaderStageFlags optionalStages(uint32_t needs);
void destroyGpu(Gpu &gpu);

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void *map = nullptr;
};
/* With VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT in usage the memory is allocated for device addresses. */
Buffer createBuffer(Gpu &gpu, VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible);
void destroyBuffer(Gpu &gpu, Buffer &buffer);

struct Image {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
};
Image createImage(Gpu &gpu, uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect);
void destroyImage(Gpu &gpu, Image &image);

VkCommandBuffer beginCommands(Gpu &gpu);
/* Submits, waits for the fence, frees the command buffer. */
void submitAndWait(Gpu &gpu, VkCommandBuffer cmd);

/* A full execution + memory barrier: the "forced GPU sync" between draws. */
void fullBarrier(VkCommandBuffer cmd);

/* The words of a SPIR-V file (fails on a missing file or one that is not SPIR-V). */
std::vector<uint32_t> readSpirv(const std::string &path);
VkShaderModule loadShaderModule(Gpu &gpu, const std::string &path);

std::string jsonEscape(const std::string &text);

/*
 * Writes WT_NO_DRAW (0xFFFFFFFF) into draw `draw`'s entry of the tracer's draw-id table, as the
 * capture layer does for draws outside --draws A..B: auto-instrumented shaders then write no
 * record for that draw (hand-instrumented ones would record draw id 0xFFFFFFFF). Between
 * submits only (the table is host-coherent). For --skip-draw N.
 */
void markDrawUntraced(Gpu &gpu, wtTracer *tracer, uint32_t draw);
