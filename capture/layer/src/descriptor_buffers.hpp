// Descriptor buffers (VK_EXT_descriptor_buffer): the trace set of draws whose
// pipelines use them lives in a descriptor buffer of the layer's
// (descriptor_buffers.cpp).
#pragma once

#include <string>
#include <vector>

#include "state.hpp"

namespace wtl {

/**
 * At device creation, before the tracer: whether the app enabled descriptor buffers and, if so, whether their draws
 * can be traced (the tracer's buffers then need device addresses: the app must have enabled bufferDeviceAddress).
 */
void checkDescriptorBuffers(DeviceState *device, const VkDeviceCreateInfo *info);

/** After the tracer: the descriptor-buffer trace-set layouts and the layer's descriptor buffer, one trace set per slot. */
void createDescriptorBufferTracing(DeviceState *device);
void destroyDescriptorBufferTracing(DeviceState *device);

/** Whether any of these set layouts was made for descriptor buffers. */
bool usesDescriptorBuffers(DeviceState *device, const VkDescriptorSetLayout *sets, uint32_t count);

/** The app's set layouts, empty ones up to the trace set, and the trace set's layout (descriptor-buffer ones where asked). */
std::vector<VkDescriptorSetLayout> paddedSetLayouts(DeviceState *device, const VkDescriptorSetLayout *sets, uint32_t count, bool descriptorBuffer);

/** Why a descriptor-buffer draw recorded now in this command buffer's shadow cannot find the trace set, or "". */
std::string traceBufferProblem(const CommandState *cs);

/** In the shadow: the trace set of `slot` from the layer's descriptor buffer (bound after the app's), with the twin's layout. */
void bindTraceDescriptorBuffer(CommandState *cs, VkPipelineBindPoint bp, VkPipelineLayout twinLayout, uint32_t slot);

/** The layer's vkCmdBindDescriptorBuffersEXT, vkCmdSetDescriptorBufferOffsetsEXT or vkCmdBindDescriptorBufferEmbeddedSamplersEXT, or null. */
PFN_vkVoidFunction findDescriptorBufferCommand(const char *name);

}  // namespace wtl
