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

}  // namespace wtl
