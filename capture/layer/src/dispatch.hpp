// Function tables of the next layer (or driver) for the instance and device
// calls the layer makes itself. vkCmd* live in CommandTable
// (generated_commands.inc); everything else the layer calls is listed here.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define WTL_INSTANCE_FUNCTIONS(X)                 \
  X(DestroyInstance)                              \
  X(EnumerateDeviceExtensionProperties)           \
  X(GetPhysicalDeviceProperties)                  \
  X(GetPhysicalDeviceProperties2)                 \
  X(GetPhysicalDeviceFeatures)                    \
  X(GetPhysicalDeviceFeatures2)                   \
  X(GetPhysicalDeviceMemoryProperties)            \
  X(GetPhysicalDeviceQueueFamilyProperties)

#define WTL_DEVICE_FUNCTIONS(X)      \
  X(DestroyDevice)                   \
  X(GetDeviceQueue)                  \
  X(GetDeviceQueue2)                 \
  X(QueueSubmit)                     \
  X(QueueSubmit2)                    \
  X(QueueSubmit2KHR)                 \
  X(QueuePresentKHR)                 \
  X(CreateSwapchainKHR)              \
  X(CreateRenderPass)                \
  X(CreateRenderPass2)               \
  X(CreateRenderPass2KHR)            \
  X(DestroyRenderPass)               \
  X(DestroySwapchainKHR)             \
  X(GetSwapchainImagesKHR)           \
  X(QueueWaitIdle)                   \
  X(DeviceWaitIdle)                  \
  X(CreateShaderModule)              \
  X(DestroyShaderModule)             \
  X(CreateDescriptorSetLayout)       \
  X(DestroyDescriptorSetLayout)      \
  X(CreatePipelineLayout)            \
  X(DestroyPipelineLayout)           \
  X(CreateGraphicsPipelines)         \
  X(CreateComputePipelines)          \
  X(DestroyPipeline)                 \
  X(CreateCommandPool)               \
  X(DestroyCommandPool)              \
  X(ResetCommandPool)                \
  X(AllocateCommandBuffers)          \
  X(FreeCommandBuffers)              \
  X(BeginCommandBuffer)              \
  X(EndCommandBuffer)                \
  X(ResetCommandBuffer)              \
  X(SetDebugUtilsObjectNameEXT)      \
  X(DebugMarkerSetObjectNameEXT)     \
  X(QueueBeginDebugUtilsLabelEXT)    \
  X(QueueEndDebugUtilsLabelEXT)      \
  X(QueueInsertDebugUtilsLabelEXT)   \
  X(CreateBuffer)                    \
  X(DestroyBuffer)                   \
  X(GetBufferMemoryRequirements)     \
  X(AllocateMemory)                  \
  X(FreeMemory)                      \
  X(BindBufferMemory)                \
  X(MapMemory)                       \
  X(UnmapMemory)                     \
  X(InvalidateMappedMemoryRanges)    \
  X(FlushMappedMemoryRanges)         \
  X(CreateDescriptorPool)            \
  X(DestroyDescriptorPool)           \
  X(AllocateDescriptorSets)          \
  X(UpdateDescriptorSets)            \
  X(CreateQueryPool)                 \
  X(DestroyQueryPool)                \
  X(GetQueryPoolResults)             \
  X(CreateFence)                     \
  X(DestroyFence)                    \
  X(ResetFences)                     \
  X(WaitForFences)

namespace wtl {

struct InstanceDispatch {
  PFN_vkGetInstanceProcAddr GetInstanceProcAddr = nullptr;
#define WTL_MEMBER(name) PFN_vk##name name = nullptr;
  WTL_INSTANCE_FUNCTIONS(WTL_MEMBER)
#undef WTL_MEMBER
};

struct DeviceDispatch {
  PFN_vkGetDeviceProcAddr GetDeviceProcAddr = nullptr;
#define WTL_MEMBER(name) PFN_vk##name name = nullptr;
  WTL_DEVICE_FUNCTIONS(WTL_MEMBER)
#undef WTL_MEMBER
};

inline void loadInstanceDispatch(InstanceDispatch &d, PFN_vkGetInstanceProcAddr gipa, VkInstance instance) {
  d.GetInstanceProcAddr = gipa;
#define WTL_LOAD(name) d.name = (PFN_vk##name)gipa(instance, "vk" #name);
  WTL_INSTANCE_FUNCTIONS(WTL_LOAD)
#undef WTL_LOAD
  if (!d.GetPhysicalDeviceProperties2) d.GetPhysicalDeviceProperties2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(instance, "vkGetPhysicalDeviceProperties2KHR");
  if (!d.GetPhysicalDeviceFeatures2) d.GetPhysicalDeviceFeatures2 = (PFN_vkGetPhysicalDeviceFeatures2)gipa(instance, "vkGetPhysicalDeviceFeatures2KHR");
}

inline void loadDeviceDispatch(DeviceDispatch &d, PFN_vkGetDeviceProcAddr gdpa, VkDevice device) {
  d.GetDeviceProcAddr = gdpa;
#define WTL_LOAD(name) d.name = (PFN_vk##name)gdpa(device, "vk" #name);
  WTL_DEVICE_FUNCTIONS(WTL_LOAD)
#undef WTL_LOAD
}

}  // namespace wtl
