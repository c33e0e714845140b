// The host library (capture/host/warptrace.h) inside the layer: its Vulkan
// calls go to the next layer through the device being served, not through the
// loader (which would route them back into this layer).
#include "tracer_glue.hpp"

#include "state.hpp"

namespace wtl {
thread_local DeviceState *tlDevice = nullptr;
thread_local InstanceDispatch *tlInstance = nullptr;

/** Command buffers the host library allocates are the layer's: the loader's dispatch pointer must be written into them. */
static VkResult allocateOwnCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info, VkCommandBuffer *out) {
  VkResult r = tlDevice->d.AllocateCommandBuffers(device, info, out);
  if (r == VK_SUCCESS && tlDevice->setLoaderData)
    for (uint32_t i = 0; i < info->commandBufferCount; i++) tlDevice->setLoaderData(device, out[i]);
  return r;
}
}  // namespace wtl

#define vkGetPhysicalDeviceProperties wtl::tlInstance->GetPhysicalDeviceProperties
#define vkGetPhysicalDeviceProperties2 wtl::tlInstance->GetPhysicalDeviceProperties2
#define vkGetPhysicalDeviceFeatures2 wtl::tlInstance->GetPhysicalDeviceFeatures2
#define vkGetPhysicalDeviceMemoryProperties wtl::tlInstance->GetPhysicalDeviceMemoryProperties
#define vkGetPhysicalDeviceQueueFamilyProperties wtl::tlInstance->GetPhysicalDeviceQueueFamilyProperties
#define vkEnumerateDeviceExtensionProperties wtl::tlInstance->EnumerateDeviceExtensionProperties
#define vkAllocateCommandBuffers wtl::allocateOwnCommandBuffers
#define vkAllocateDescriptorSets wtl::tlDevice->d.AllocateDescriptorSets
#define vkAllocateMemory wtl::tlDevice->d.AllocateMemory
#define vkBeginCommandBuffer wtl::tlDevice->d.BeginCommandBuffer
#define vkEndCommandBuffer wtl::tlDevice->d.EndCommandBuffer
#define vkBindBufferMemory wtl::tlDevice->d.BindBufferMemory
#define vkCreateBuffer wtl::tlDevice->d.CreateBuffer
#define vkCreateCommandPool wtl::tlDevice->d.CreateCommandPool
#define vkCreateComputePipelines wtl::tlDevice->d.CreateComputePipelines
#define vkCreateDescriptorPool wtl::tlDevice->d.CreateDescriptorPool
#define vkCreateDescriptorSetLayout wtl::tlDevice->d.CreateDescriptorSetLayout
#define vkCreateFence wtl::tlDevice->d.CreateFence
#define vkCreatePipelineLayout wtl::tlDevice->d.CreatePipelineLayout
#define vkCreateQueryPool wtl::tlDevice->d.CreateQueryPool
#define vkCreateShaderModule wtl::tlDevice->d.CreateShaderModule
#define vkDestroyBuffer wtl::tlDevice->d.DestroyBuffer
#define vkDestroyCommandPool wtl::tlDevice->d.DestroyCommandPool
#define vkDestroyDescriptorPool wtl::tlDevice->d.DestroyDescriptorPool
#define vkDestroyDescriptorSetLayout wtl::tlDevice->d.DestroyDescriptorSetLayout
#define vkDestroyFence wtl::tlDevice->d.DestroyFence
#define vkDestroyPipeline wtl::tlDevice->d.DestroyPipeline
#define vkDestroyPipelineLayout wtl::tlDevice->d.DestroyPipelineLayout
#define vkDestroyQueryPool wtl::tlDevice->d.DestroyQueryPool
#define vkDestroyShaderModule wtl::tlDevice->d.DestroyShaderModule
#define vkFreeMemory wtl::tlDevice->d.FreeMemory
#define vkGetBufferMemoryRequirements wtl::tlDevice->d.GetBufferMemoryRequirements
#define vkGetQueryPoolResults wtl::tlDevice->d.GetQueryPoolResults
#define vkInvalidateMappedMemoryRanges wtl::tlDevice->d.InvalidateMappedMemoryRanges
#define vkMapMemory wtl::tlDevice->d.MapMemory
#define vkUnmapMemory wtl::tlDevice->d.UnmapMemory
#define vkQueueSubmit wtl::tlDevice->d.QueueSubmit
#define vkResetFences wtl::tlDevice->d.ResetFences
#define vkWaitForFences wtl::tlDevice->d.WaitForFences
#define vkUpdateDescriptorSets wtl::tlDevice->d.UpdateDescriptorSets
#define vkCmdBindDescriptorSets wtl::tlDevice->cmd.CmdBindDescriptorSets
#define vkCmdBindPipeline wtl::tlDevice->cmd.CmdBindPipeline
#define vkCmdCopyBuffer wtl::tlDevice->cmd.CmdCopyBuffer
#define vkCmdDispatch wtl::tlDevice->cmd.CmdDispatch
#define vkCmdFillBuffer wtl::tlDevice->cmd.CmdFillBuffer
#define vkCmdPipelineBarrier wtl::tlDevice->cmd.CmdPipelineBarrier
#define vkCmdPushConstants wtl::tlDevice->cmd.CmdPushConstants
#define vkCmdResetQueryPool wtl::tlDevice->cmd.CmdResetQueryPool
#define vkCmdUpdateBuffer wtl::tlDevice->cmd.CmdUpdateBuffer
#define vkCmdWriteTimestamp wtl::tlDevice->cmd.CmdWriteTimestamp

#define WARPTRACE_IMPLEMENTATION
#include "warptrace.h"

namespace wtl {

DeviceScope::DeviceScope(DeviceState *device) : previousDevice_(tlDevice), previousInstance_(tlInstance) {
  tlDevice = device;
  tlInstance = &device->instance->d;
}

DeviceScope::~DeviceScope() {
  tlDevice = previousDevice_;
  tlInstance = previousInstance_;
}

void queryCaps(InstanceState *instance, VkPhysicalDevice physical, wtCaps *caps) {
  InstanceDispatch *previous = tlInstance;
  tlInstance = &instance->d;
  wtQueryCaps(physical, caps);
  tlInstance = previous;
}

VkDescriptorSet tracerSet(const wtTracer *t) { return t->set; }
VkDeviceSize tracerDrawStride(const wtTracer *t) { return t->uboStride; }
VkQueryPool tracerQueries(const wtTracer *t) { return t->queries; }
uint32_t tracerMaxDraws(const wtTracer *t) { return t->maxDraws; }
VkBuffer tracerTraceBuffer(const wtTracer *t) { return t->traceBuffer; }
VkDeviceSize tracerTraceBytes(const wtTracer *t) { return t->traceBytes; }
VkBuffer tracerDrawIdBuffer(const wtTracer *t) { return t->drawIdBuffer; }

bool setDrawIdValues(DeviceState *device, const uint32_t *slots, const uint32_t *values, size_t count) {
  wtTracer *t = device->tracer;
  void *map = nullptr;
  if (device->d.MapMemory(device->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map) != VK_SUCCESS) return false;
  for (size_t i = 0; i < count; i++) *(uint32_t *)((char *)map + slots[i] * t->uboStride) = values[i];
  device->d.UnmapMemory(device->device, t->drawIdMemory);  // host-coherent: visible to the next submit
  return true;
}

void giveBlockRow(DeviceState *device, uint32_t slot, const std::vector<wtBlockRowModule> &row, uint64_t shareKey,
                  const std::array<uint32_t, WT_BLOCK_STAGE_COUNT> *stageOffsets) {
  DeviceScope scope(device);
  if (wtSetDrawBlockRow(device->tracer, slot, row.data(), (uint32_t)row.size(), shareKey) != WT_NO_BLOCK_ROW && stageOffsets)
    wtSetDrawBlockStageOffsets(device->tracer, slot, stageOffsets->data());
}

void giveRayRow(DeviceState *device, uint32_t slot) {
  DeviceScope scope(device);
  // Keyed by the slot: a command buffer submitted in several captured frames reads one word, so it keeps one row.
  wtSetDrawRayRow(device->tracer, slot, (uint64_t)slot + 1);
}

bool makeHostBuffer(DeviceState *device, VkDeviceSize bytes, HostBuffer &out, VkBufferUsageFlags usage) {
  // wtMakeBuffer_ needs a tracer only for its device and allocator, and its calls the device's dispatch.
  DeviceScope scope(device);
  wtTracer probe{};
  probe.device = device->device;
  VkMemoryPropertyFlags got = 0;
  if (wtMakeBuffer_(&probe, device->physical, bytes, usage, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                    VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &out.buffer, &out.memory, &got) != VK_SUCCESS)
    return false;
  out.coherent = (got & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  return device->d.MapMemory(device->device, out.memory, 0, VK_WHOLE_SIZE, 0, &out.map) == VK_SUCCESS;
}

bool readHostBuffer(DeviceState *device, HostBuffer &buffer) {
  if (buffer.coherent) return true;
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  range.memory = buffer.memory;
  range.size = VK_WHOLE_SIZE;
  return device->d.InvalidateMappedMemoryRanges(device->device, 1, &range) == VK_SUCCESS;
}

void destroyHostBuffer(DeviceState *device, HostBuffer &buffer) {
  if (buffer.buffer) device->d.DestroyBuffer(device->device, buffer.buffer, nullptr);
  if (buffer.memory) device->d.FreeMemory(device->device, buffer.memory, nullptr);
  buffer = HostBuffer();
}

}  // namespace wtl
