#pragma once

#include "state.hpp"

namespace wtl {

static const uint32_t kNoSlot = UINT32_MAX;

/** A free slot of the draw-id table (and its timestamp queries), or kNoSlot when all are taken. */
uint32_t allocateSlot(DeviceState *device);

/** A primary command buffer of the layer's from pool, begun for one submit; null on failure. */
VkCommandBuffer beginLayerCommandBuffer(DeviceState *device, VkCommandPool pool);

const PipelineInfo *findPipeline(DeviceState *device, VkPipeline pipeline);

}  // namespace wtl
