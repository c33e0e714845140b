// Ray-tracing pipelines instrumented in place (ray_tracing.cpp): the app's own
// pipeline carries the instrumented stages, so its shader group handles and
// binding tables stay valid.
#pragma once

#include "state.hpp"

namespace wtl {

/** The ray-tracing stage bits, if the app enabled ray-tracing pipelines (VkPhysicalDeviceRayTracingPipelineFeaturesKHR). */
VkShaderStageFlags rayTracingStagesEnabled(const VkDeviceCreateInfo *info);

/** Before a launch in the app's own command buffer: the trace set with the no-draw slot, where the bound pipeline is instrumented. */
void bindTraceSetForAppLaunch(CommandState *cs, VkCommandBuffer cb);

/** Takes the last draw slot for launches outside a capture and writes the no-draw id into it; false if it cannot. */
bool reserveOffSlot(DeviceState *device);

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRayTracingPipelinesKHR(VkDevice device, VkDeferredOperationKHR deferred, VkPipelineCache cache,
                                                                 uint32_t count, const VkRayTracingPipelineCreateInfoKHR *infos,
                                                                 const VkAllocationCallbacks *allocator, VkPipeline *out);

/**
 * In the captured frame's shadow, before an indirect launch: copies its {width, height, depth} at `at` into the
 * layer's launch-size buffer (launch_sizes.cpp); the copy's index, or -1 when the address lies in no buffer the app
 * asked an address for (or the frame's launch sizes are used up).
 */
int32_t copyLaunchSize(CommandState *cs, VkDeviceAddress at);
/** After the captured frame: launch size `index`, false when not read or empty. */
bool launchSizeAt(DeviceState *device, int32_t index, VkExtent3D &out);
/** At device creation: vkGetBufferDeviceAddress below the layer, by its core, KHR or EXT name. */
void loadBufferAddressFunction(DeviceState *device, PFN_vkGetDeviceProcAddr gdpa);
/** vkCreateBuffer, vkDestroyBuffer and vkGetBufferDeviceAddress(KHR, EXT): the buffers behind device addresses. */
PFN_vkVoidFunction findLaunchSizeHook(const char *name);

}  // namespace wtl
