// Descriptor buffers (VK_EXT_descriptor_buffer). A pipeline made for them has
// only descriptor-buffer set layouts, so its twin's padded layout takes
// descriptor-buffer versions of the empty and trace set layouts, and its draws
// find the trace set in a descriptor buffer of the layer's: one trace set per
// draw slot (the record buffer and the slot's draw-id entry; descriptor
// buffers have no dynamic offsets), written once when the device is created.
// In the shadow, every vkCmdBindDescriptorBuffersEXT binds the layer's buffer
// after the app's (it takes one of the device's binding points, as the
// validation layer's GPU-assisted mode does), and each traced draw points the
// trace set at its slot with vkCmdSetDescriptorBufferOffsetsEXT; the app's
// offsets that this disturbs are replayed like its descriptor sets.
#include "descriptor_buffers.hpp"

#include <cstring>

#include "command_buffers.hpp"
#include "hooks.hpp"
#include "pipeline_chain.hpp"
#include "stages.hpp"
#include "tracer_glue.hpp"

namespace wtl {

void checkDescriptorBuffers(DeviceState *device, const VkDeviceCreateInfo *info) {
  DescriptorBufferTracing &db = device->descriptorBuffers;
  auto *features = (const VkPhysicalDeviceDescriptorBufferFeaturesEXT *)findInChain(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT);
  db.enabled = features && features->descriptorBuffer;
  if (!db.enabled) return;
  auto *bda = (const VkPhysicalDeviceBufferDeviceAddressFeatures *)findInChain(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES);
  auto *v12 = (const VkPhysicalDeviceVulkan12Features *)findInChain(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  if (!(bda && bda->bufferDeviceAddress) && !(v12 && v12->bufferDeviceAddress))
    db.why = "it uses descriptor buffers, and the app did not enable bufferDeviceAddress, which the layer's descriptor buffer needs";
}

/** Descriptor-buffer layouts for the trace set (the tracer's bindings, the draw id a plain uniform buffer) and the empty sets. */
static bool createLayouts(DeviceState *device, DescriptorBufferTracing &db) {
  VkShaderStageFlags stages = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT | device->meshStages | device->rayTracingStages;
  VkDescriptorSetLayoutBinding bindings[2]{};
  bindings[0] = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, nullptr};
  bindings[1] = {1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, stages, nullptr};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_DESCRIPTOR_BUFFER_BIT_EXT;
  info.bindingCount = 2;
  info.pBindings = bindings;
  if (device->d.CreateDescriptorSetLayout(device->device, &info, nullptr, &db.traceLayout) != VK_SUCCESS) return false;
  info.bindingCount = 0;
  info.pBindings = nullptr;
  return device->d.CreateDescriptorSetLayout(device->device, &info, nullptr, &db.emptyLayout) == VK_SUCCESS;
}

/** The layer's descriptor buffer, filled: slot s's trace set at s * setStride. */
static std::string createBuffer(DeviceState *device, DescriptorBufferTracing &db, const VkPhysicalDeviceDescriptorBufferPropertiesEXT &props) {
  auto gdpa = device->d.GetDeviceProcAddr;
  auto layoutSize = (PFN_vkGetDescriptorSetLayoutSizeEXT)gdpa(device->device, "vkGetDescriptorSetLayoutSizeEXT");
  auto bindingOffset = (PFN_vkGetDescriptorSetLayoutBindingOffsetEXT)gdpa(device->device, "vkGetDescriptorSetLayoutBindingOffsetEXT");
  auto getDescriptor = (PFN_vkGetDescriptorEXT)gdpa(device->device, "vkGetDescriptorEXT");
  auto address = (PFN_vkGetBufferDeviceAddress)gdpa(device->device, "vkGetBufferDeviceAddress");
  if (!address) address = (PFN_vkGetBufferDeviceAddress)gdpa(device->device, "vkGetBufferDeviceAddressKHR");
  if (!layoutSize || !bindingOffset || !getDescriptor || !address) return "the driver lacks a VK_EXT_descriptor_buffer or device-address function";
  VkDeviceSize size = 0, recordsAt = 0, drawIdAt = 0;
  layoutSize(device->device, db.traceLayout, &size);
  bindingOffset(device->device, db.traceLayout, 0, &recordsAt);
  bindingOffset(device->device, db.traceLayout, 1, &drawIdAt);
  VkDeviceSize align = props.descriptorBufferOffsetAlignment ? props.descriptorBufferOffsetAlignment : 1;
  db.setStride = (size + align - 1) / align * align;
  HostBuffer buffer;
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_RESOURCE_DESCRIPTOR_BUFFER_BIT_EXT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  if (!makeHostBuffer(device, db.setStride * device->slotCapacity, buffer, usage)) {
    destroyHostBuffer(device, buffer);
    return "cannot create the layer's descriptor buffer";
  }
  db.buffer = buffer.buffer;
  db.memory = buffer.memory;
  VkBufferDeviceAddressInfo at{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  at.buffer = db.buffer;
  db.address = address(device->device, &at);
  at.buffer = tracerTraceBuffer(device->tracer);
  VkDeviceAddress records = address(device->device, &at);
  at.buffer = tracerDrawIdBuffer(device->tracer);
  VkDeviceAddress drawIds = address(device->device, &at);
  for (uint32_t slot = 0; slot < device->slotCapacity; slot++) {
    char *set = (char *)buffer.map + slot * db.setStride;
    VkDescriptorAddressInfoEXT recordInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_ADDRESS_INFO_EXT, nullptr, records, tracerTraceBytes(device->tracer)};
    VkDescriptorGetInfoEXT get{VK_STRUCTURE_TYPE_DESCRIPTOR_GET_INFO_EXT};
    get.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    get.data.pStorageBuffer = &recordInfo;
    getDescriptor(device->device, &get, props.storageBufferDescriptorSize, set + recordsAt);
    // The slot's draw-id entry, as the classic trace set's dynamic offset selects it (the host library's range).
    VkDescriptorAddressInfoEXT drawIdInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_ADDRESS_INFO_EXT, nullptr,
                                          drawIds + slot * tracerDrawStride(device->tracer), WT_DRAW_ID_BLOCK_BYTES};
    get.type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    get.data.pUniformBuffer = &drawIdInfo;
    getDescriptor(device->device, &get, props.uniformBufferDescriptorSize, set + drawIdAt);
  }
  if (!buffer.coherent) {
    VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, buffer.memory, 0, VK_WHOLE_SIZE};
    device->d.FlushMappedMemoryRanges(device->device, 1, &range);
  }
  device->d.UnmapMemory(device->device, buffer.memory);
  return "";
}

void createDescriptorBufferTracing(DeviceState *device) {
  DescriptorBufferTracing &db = device->descriptorBuffers;
  if (!db.enabled || !db.why.empty() || !device->tracer) return;
  VkPhysicalDeviceDescriptorBufferPropertiesEXT props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &props};
  device->instance->d.GetPhysicalDeviceProperties2(device->physical, &properties);
  db.maxBindings = props.maxDescriptorBufferBindings;
  db.maxResourceBindings = props.maxResourceDescriptorBufferBindings;
  if (!createLayouts(device, db)) db.why = "the driver refused the layer's descriptor-buffer set layouts";
  else db.why = createBuffer(device, db, props);
  if (!db.why.empty()) destroyDescriptorBufferTracing(device), db.why = "its descriptor buffers cannot be traced: " + db.why;
}

void destroyDescriptorBufferTracing(DeviceState *device) {
  DescriptorBufferTracing &db = device->descriptorBuffers;
  if (db.traceLayout) device->d.DestroyDescriptorSetLayout(device->device, db.traceLayout, nullptr);
  if (db.emptyLayout) device->d.DestroyDescriptorSetLayout(device->device, db.emptyLayout, nullptr);
  if (db.buffer) device->d.DestroyBuffer(device->device, db.buffer, nullptr);
  if (db.memory) device->d.FreeMemory(device->device, db.memory, nullptr);
  db.traceLayout = db.emptyLayout = VK_NULL_HANDLE;
  db.buffer = VK_NULL_HANDLE;
  db.memory = VK_NULL_HANDLE;
}

bool usesDescriptorBuffers(DeviceState *device, const VkDescriptorSetLayout *sets, uint32_t count) {
  if (!device->descriptorBuffers.enabled) return false;
  std::lock_guard<std::mutex> guard(device->lock);
  for (uint32_t i = 0; i < count; i++)
    if (sets[i] && device->descriptorBuffers.appLayouts.count(sets[i])) return true;
  return false;
}

std::vector<VkDescriptorSetLayout> paddedSetLayouts(DeviceState *device, const VkDescriptorSetLayout *sets, uint32_t count, bool descriptorBuffer) {
  const DescriptorBufferTracing &db = device->descriptorBuffers;
  std::vector<VkDescriptorSetLayout> padded(sets, sets + count);
  padded.resize(device->traceSet, descriptorBuffer ? db.emptyLayout : device->emptySetLayout);
  padded.push_back(descriptorBuffer ? db.traceLayout : wtTracerSetLayout(device->tracer));
  return padded;
}

std::string traceBufferProblem(const CommandState *cs) {
  const DescriptorBufferTracing &db = cs->device->descriptorBuffers;
  if (!db.buffer) return db.why.empty() ? "descriptor buffers are not traced on this device" : db.why;
  if (cs->traceBufferIndex == kTraceBufferNoRoom)
    return "the app binds as many descriptor buffers as the device allows (" + std::to_string(db.maxBindings) + ", " +
           std::to_string(db.maxResourceBindings) + " of resources): none is left for the trace set";
  return "";
}

static VkDescriptorBufferBindingInfoEXT layerBinding(const DescriptorBufferTracing &db) {
  VkDescriptorBufferBindingInfoEXT ours{VK_STRUCTURE_TYPE_DESCRIPTOR_BUFFER_BINDING_INFO_EXT};
  ours.address = db.address;
  ours.usage = VK_BUFFER_USAGE_RESOURCE_DESCRIPTOR_BUFFER_BIT_EXT;
  return ours;
}

void bindTraceDescriptorBuffer(CommandState *cs, VkPipelineBindPoint bp, VkPipelineLayout twinLayout, uint32_t slot) {
  DeviceState *device = cs->device;
  const DescriptorBufferTracing &db = device->descriptorBuffers;
  if (cs->traceBufferIndex == kTraceBufferUnbound) {
    // The app bound no descriptor buffer in this recording yet: the layer's alone (the app's next bind keeps it, after its own).
    VkDescriptorBufferBindingInfoEXT ours = layerBinding(db);
    device->cmd.CmdBindDescriptorBuffersEXT(cs->shadow, 1, &ours);
    cs->traceBufferIndex = 0;
  }
  uint32_t index = cs->traceBufferIndex;
  VkDeviceSize offset = slot * db.setStride;
  device->cmd.CmdSetDescriptorBufferOffsetsEXT(cs->shadow, bp, twinLayout, device->traceSet, 1, &index, &offset);
}

static bool tracedBindPoint(VkPipelineBindPoint bp) { return bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == VK_PIPELINE_BIND_POINT_COMPUTE; }

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdBindDescriptorBuffersEXT(VkCommandBuffer cb, uint32_t count, const VkDescriptorBufferBindingInfoEXT *infos) {
  CommandState *cs = findCommandState(cb);
  DeviceState *device = cs->device;
  device->cmd.CmdBindDescriptorBuffersEXT(cb, count, infos);
  if (!cs->shadow) return;
  const DescriptorBufferTracing &db = device->descriptorBuffers;
  uint32_t resources = 0;
  for (uint32_t i = 0; i < count; i++)
    if (infos[i].usage & VK_BUFFER_USAGE_RESOURCE_DESCRIPTOR_BUFFER_BIT_EXT) resources++;
  if (!db.buffer || count + 1 > db.maxBindings || resources + 1 > db.maxResourceBindings) {
    device->cmd.CmdBindDescriptorBuffersEXT(cs->shadow, count, infos);
    cs->traceBufferIndex = db.buffer ? kTraceBufferNoRoom : kTraceBufferUnbound;
    return;
  }
  std::vector<VkDescriptorBufferBindingInfoEXT> all(infos, infos + count);
  all.push_back(layerBinding(db));
  device->cmd.CmdBindDescriptorBuffersEXT(cs->shadow, count + 1, all.data());
  cs->traceBufferIndex = count;
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdSetDescriptorBufferOffsetsEXT(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout layout,
                                                                        uint32_t firstSet, uint32_t setCount, const uint32_t *bufferIndices,
                                                                        const VkDeviceSize *offsets) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdSetDescriptorBufferOffsetsEXT(cb, bp, layout, firstSet, setCount, bufferIndices, offsets);
  if (!cs->shadow) return;
  cs->device->cmd.CmdSetDescriptorBufferOffsetsEXT(cs->shadow, bp, layout, firstSet, setCount, bufferIndices, offsets);
  if (!tracedBindPoint(bp)) return;
  BindPointState::Bind bind;
  bind.kind = BindPointState::Bind::BufferOffsets;
  bind.layout = layout;
  bind.firstSet = firstSet;
  bind.setCount = setCount;
  bind.bufferIndices.assign(bufferIndices, bufferIndices + setCount);
  bind.offsets.assign(offsets, offsets + setCount);
  recordAppBind(bindPoint(cs, bp), std::move(bind));
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdBindDescriptorBufferEmbeddedSamplersEXT(VkCommandBuffer cb, VkPipelineBindPoint bp,
                                                                                  VkPipelineLayout layout, uint32_t set) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdBindDescriptorBufferEmbeddedSamplersEXT(cb, bp, layout, set);
  if (!cs->shadow) return;
  cs->device->cmd.CmdBindDescriptorBufferEmbeddedSamplersEXT(cs->shadow, bp, layout, set);
  if (!tracedBindPoint(bp)) return;
  BindPointState::Bind bind;
  bind.kind = BindPointState::Bind::EmbeddedSamplers;
  bind.layout = layout;
  bind.firstSet = set;
  bind.setCount = 1;
  recordAppBind(bindPoint(cs, bp), std::move(bind));
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateDescriptorSetLayout(VkDevice handle, const VkDescriptorSetLayoutCreateInfo *info,
                                                              const VkAllocationCallbacks *allocator, VkDescriptorSetLayout *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateDescriptorSetLayout(handle, info, allocator, out);
  if (r == VK_SUCCESS && (info->flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_DESCRIPTOR_BUFFER_BIT_EXT)) {
    std::lock_guard<std::mutex> guard(device->lock);
    device->descriptorBuffers.appLayouts.insert(*out);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyDescriptorSetLayout(VkDevice handle, VkDescriptorSetLayout layout, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  {
    std::lock_guard<std::mutex> guard(device->lock);
    device->descriptorBuffers.appLayouts.erase(layout);
  }
  device->d.DestroyDescriptorSetLayout(handle, layout, allocator);
}

PFN_vkVoidFunction findDescriptorBufferCommand(const char *name) {
  if (!strcmp(name, "vkCmdBindDescriptorBuffersEXT")) return (PFN_vkVoidFunction)wl_vkCmdBindDescriptorBuffersEXT;
  if (!strcmp(name, "vkCmdSetDescriptorBufferOffsetsEXT")) return (PFN_vkVoidFunction)wl_vkCmdSetDescriptorBufferOffsetsEXT;
  if (!strcmp(name, "vkCmdBindDescriptorBufferEmbeddedSamplersEXT")) return (PFN_vkVoidFunction)wl_vkCmdBindDescriptorBufferEmbeddedSamplersEXT;
  return nullptr;
}

}  // namespace wtl
