#pragma once

#include "state.hpp"

namespace wtl {

static const uint32_t kNoSlot = UINT32_MAX;

/** A free slot of the draw-id table (and its timestamp queries), or kNoSlot when all are taken. */
uint32_t allocateSlot(DeviceState *device);

/** A primary command buffer of the layer's from pool, begun for one submit; null on failure. */
VkCommandBuffer beginLayerCommandBuffer(DeviceState *device, VkCommandPool pool);

PipelineInfo *findPipeline(DeviceState *device, VkPipeline pipeline);
/** Makes a pipeline's twin if it is still a recipe (at its first bind in a shadow); a no-op otherwise. */
void ensureTwin(DeviceState *device, PipelineInfo *info);
/** Makes the twins still to be made that refer to this render pass or layout (before the app destroys it). */
void buildTwinsUsing(DeviceState *device, VkRenderPass pass, VkPipelineLayout layout);

}  // namespace wtl
