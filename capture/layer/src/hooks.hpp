// The Vulkan functions the layer intercepts (besides the vkCmd* of commands.cpp).
#pragma once

#include "ray_tracing.hpp"
#include "state.hpp"

#define WTL_DEVICE_HOOKS(X)          \
  X(vkDestroyDevice)                 \
  X(vkGetDeviceQueue)                \
  X(vkGetDeviceQueue2)               \
  X(vkQueueSubmit)                   \
  X(vkQueueSubmit2)                  \
  X(vkQueueSubmit2KHR)               \
  X(vkQueuePresentKHR)               \
  X(vkCreateSwapchainKHR)            \
  X(vkCreateRenderPass)              \
  X(vkCreateRenderPass2)             \
  X(vkCreateRenderPass2KHR)          \
  X(vkDestroyRenderPass)             \
  X(vkDestroySwapchainKHR)           \
  X(vkGetSwapchainImagesKHR)         \
  X(vkCreateShaderModule)            \
  X(vkDestroyShaderModule)           \
  X(vkCreateDescriptorSetLayout)     \
  X(vkDestroyDescriptorSetLayout)    \
  X(vkCreatePipelineLayout)          \
  X(vkDestroyPipelineLayout)         \
  X(vkCreateGraphicsPipelines)       \
  X(vkCreateComputePipelines)        \
  X(vkCreateRayTracingPipelinesKHR)  \
  X(vkDestroyPipeline)               \
  X(vkCreateCommandPool)             \
  X(vkDestroyCommandPool)            \
  X(vkResetCommandPool)              \
  X(vkAllocateCommandBuffers)        \
  X(vkFreeCommandBuffers)            \
  X(vkBeginCommandBuffer)            \
  X(vkEndCommandBuffer)              \
  X(vkResetCommandBuffer)            \
  X(vkSetDebugUtilsObjectNameEXT)    \
  X(vkQueueBeginDebugUtilsLabelEXT)  \
  X(vkQueueEndDebugUtilsLabelEXT)    \
  X(vkQueueInsertDebugUtilsLabelEXT)

namespace wtl {

void registerDevice(DeviceState *device);
void unregisterDevice(DeviceState *device);

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                 const VkAllocationCallbacks *allocator, VkDevice *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator);
VKAPI_ATTR void VKAPI_CALL wl_vkGetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *queue);
VKAPI_ATTR void VKAPI_CALL wl_vkGetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *queue);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueueSubmit2KHR(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *info,
                                                       const VkAllocationCallbacks *allocator, VkShaderModule *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroyShaderModule(VkDevice device, VkShaderModule module, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateDescriptorSetLayout(VkDevice device, const VkDescriptorSetLayoutCreateInfo *info,
                                                              const VkAllocationCallbacks *allocator, VkDescriptorSetLayout *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroyDescriptorSetLayout(VkDevice device, VkDescriptorSetLayout layout, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreatePipelineLayout(VkDevice device, const VkPipelineLayoutCreateInfo *info,
                                                         const VkAllocationCallbacks *allocator, VkPipelineLayout *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroyPipelineLayout(VkDevice device, VkPipelineLayout layout, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateGraphicsPipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                            const VkGraphicsPipelineCreateInfo *infos,
                                                            const VkAllocationCallbacks *allocator, VkPipeline *out);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                           const VkComputePipelineCreateInfo *infos, const VkAllocationCallbacks *allocator,
                                                           VkPipeline *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroyPipeline(VkDevice device, VkPipeline pipeline, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
                                                      const VkAllocationCallbacks *allocator, VkCommandPool *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkAllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info, VkCommandBuffer *out);
VKAPI_ATTR void VKAPI_CALL wl_vkFreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count, const VkCommandBuffer *buffers);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkBeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkEndCommandBuffer(VkCommandBuffer cb);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkSetDebugUtilsObjectNameEXT(VkDevice device, const VkDebugUtilsObjectNameInfoEXT *info);
VKAPI_ATTR void VKAPI_CALL wl_vkQueueBeginDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label);
VKAPI_ATTR void VKAPI_CALL wl_vkQueueEndDebugUtilsLabelEXT(VkQueue queue);
VKAPI_ATTR void VKAPI_CALL wl_vkQueueInsertDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label);

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *info,
                                                       const VkAllocationCallbacks *allocator, VkSwapchainKHR *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain, const VkAllocationCallbacks *allocator);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetSwapchainImagesKHR(VkDevice device, VkSwapchainKHR swapchain, uint32_t *count, VkImage *images);

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRenderPass(VkDevice device, const VkRenderPassCreateInfo *info, const VkAllocationCallbacks *allocator,
                                                     VkRenderPass *out);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRenderPass2(VkDevice device, const VkRenderPassCreateInfo2 *info,
                                                      const VkAllocationCallbacks *allocator, VkRenderPass *out);
VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRenderPass2KHR(VkDevice device, const VkRenderPassCreateInfo2 *info,
                                                         const VkAllocationCallbacks *allocator, VkRenderPass *out);
VKAPI_ATTR void VKAPI_CALL wl_vkDestroyRenderPass(VkDevice device, VkRenderPass pass, const VkAllocationCallbacks *allocator);

/** Views of a multiview view mask (its bits), 1 without multiview (mask 0). */
inline uint32_t viewsOfMask(uint32_t viewMask) {
  uint32_t views = (uint32_t)__builtin_popcount(viewMask);
  return views < 1 ? 1 : views;
}

/** A render pass the app created: its first subpass's colour attachments and depth, its most views; false if unknown. */
bool findRenderPass(DeviceState *device, VkRenderPass pass, DeviceState::RenderPassInfo &out);

/** Copies the image a present shows into WARPTRACE_IMAGE (waiting for the present's semaphores); false with why. */
bool writePresentedImage(DeviceState *device, VkQueue queue, const VkPresentInfoKHR *info, std::string &why);

/** The layer's wrapper of a render-pass or label vkCmd* (commands_regions.cpp), or null. */
PFN_vkVoidFunction findRegionCommand(const char *name);

/** The layer's vkCmdPipelineBarrier* / vkCmdWaitEvents* (barriers.cpp), or null. */
PFN_vkVoidFunction findBarrierCommand(const char *name);

/** The layer's wrapper of a vkCmd* (hand-written or generated), or null. */
PFN_vkVoidFunction findCommandHook(const char *name);

/** At device destruction: writes a capture that started and has not finished (the app ended inside its window). */
void finishCaptureAtDeviceEnd(DeviceState *device);

/** Reports something the capture leaves out: stderr, the CLI, and the trace's metadata. */
void reportSkipped(DeviceState *device, const std::string &what, const std::string &why);
/** Something the layer changed or could not learn, with every draw still traced: a `note` event and layer.notes. */
void reportNote(DeviceState *device, const std::string &what, const std::string &why);

}  // namespace wtl
