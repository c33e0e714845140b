#pragma once

#include "state.hpp"

namespace wtl {

static const uint32_t kNoSlot = UINT32_MAX;

/** A free slot of the draw-id table (and its timestamp queries), or kNoSlot when all are taken. */
uint32_t allocateSlot(DeviceState *device);

const PipelineInfo *findPipeline(DeviceState *device, VkPipeline pipeline);

}  // namespace wtl
