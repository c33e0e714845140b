// A pipeline's instrumented twin: how it is made (pipeline_twins.cpp), for the
// pipeline hooks of pipelines.cpp. Twins of graphics pipeline libraries are
// libraries too, linked into the twins of the pipelines that link the app's.
#pragma once

#include "state.hpp"

namespace wtl {

/** Records a pipeline the app created: its twin's recipe (made at first bind), its twin at once, or why it has none (reported). */
void registerPipeline(DeviceState *device, const VkGraphicsPipelineCreateInfo &info, VkPipeline pipeline);
void registerPipeline(DeviceState *device, const VkComputePipelineCreateInfo &info, VkPipeline pipeline);

/** Makes the twins still to be made that link this library (before the app destroys it). */
void buildTwinsLinking(DeviceState *device, VkPipeline library);

/** A padded layout is destroyed: library twins made for it are no longer found by its handle. */
void forgetTwinLayout(DeviceState *device, VkPipelineLayout traced);

/** Destroys a pipeline's twins (a library's: one per layout of the links that linked it). */
void destroyTwins(DeviceState *device, const PipelineInfo &info);

}  // namespace wtl
