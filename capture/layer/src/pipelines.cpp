// Shader modules, pipeline layouts and pipelines: every pipeline the app
// creates gets an instrumented twin (same state, instrumented shaders, its
// layout padded up to the trace set), which only the captured frame binds
// (made in pipeline_twins.cpp).
#include <cstring>

#include "command_buffers.hpp"
#include "hooks.hpp"
#include "descriptor_buffers.hpp"
#include "pipeline_twins.hpp"
#include "tracer_glue.hpp"

namespace wtl {

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateShaderModule(VkDevice handle, const VkShaderModuleCreateInfo *info,
                                                       const VkAllocationCallbacks *allocator, VkShaderModule *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateShaderModule(handle, info, allocator, out);
  if (r == VK_SUCCESS && device->traceable && info->codeSize >= 20) {
    // Kept until the module is destroyed: twins are created from it when pipelines are.
    auto code = std::make_shared<std::vector<uint32_t>>(info->pCode, info->pCode + info->codeSize / 4);
    std::lock_guard<std::mutex> guard(device->lock);
    device->modules[*out] = std::move(code);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyShaderModule(VkDevice handle, VkShaderModule module, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  {
    std::lock_guard<std::mutex> guard(device->lock);
    device->modules.erase(module);
  }
  device->d.DestroyShaderModule(handle, module, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreatePipelineLayout(VkDevice handle, const VkPipelineLayoutCreateInfo *info,
                                                         const VkAllocationCallbacks *allocator, VkPipelineLayout *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreatePipelineLayout(handle, info, allocator, out);
  if (r != VK_SUCCESS || !device->traceable) return r;
  LayoutInfo layout;
  layout.appSetCount = info->setLayoutCount;
  if (info->setLayoutCount > device->traceSet) {
    layout.untracedWhy = "its layout uses " + std::to_string(info->setLayoutCount) + " descriptor sets, including set " +
                         std::to_string(device->traceSet) + " that the trace buffer needs";
  } else {
    // Made now, while the app's set layouts surely exist: the app may destroy them once its layout is made.
    // Its own null sets (independent-set layouts of graphics pipeline libraries) stay null. A layout of
    // descriptor-buffer sets gets descriptor-buffer padding; one without sets may serve either kind of pipeline.
    bool descriptorBufferSets = usesDescriptorBuffers(device, info->pSetLayouts, info->setLayoutCount);
    auto pad = [&](bool descriptorBuffer, VkPipelineLayout &out) {
      std::vector<VkDescriptorSetLayout> sets = paddedSetLayouts(device, info->pSetLayouts, info->setLayoutCount, descriptorBuffer);
      VkPipelineLayoutCreateInfo padded = *info;
      padded.setLayoutCount = (uint32_t)sets.size();
      padded.pSetLayouts = sets.data();
      VkResult pr = device->d.CreatePipelineLayout(handle, &padded, nullptr, &out);
      if (pr == VK_SUCCESS) return std::string();
      out = VK_NULL_HANDLE;
      return "the driver refused its layout with the trace set added (VkResult " + std::to_string((int)pr) +
             "; e.g. one dynamic uniform buffer over maxDescriptorSetUniformBuffersDynamic)";
    };
    if (!descriptorBufferSets) layout.untracedWhy = pad(false, layout.traced);
    else layout.untracedWhy = "its descriptor sets are descriptor-buffer ones, which only descriptor-buffer pipelines use";
    const DescriptorBufferTracing &db = device->descriptorBuffers;
    if (!db.enabled) layout.descriptorBufferWhy = "descriptor buffers are not enabled on this device";
    else if (!db.buffer) layout.descriptorBufferWhy = db.why;
    else if (descriptorBufferSets || info->setLayoutCount == 0) layout.descriptorBufferWhy = pad(true, layout.tracedDescriptorBuffer);
    else layout.descriptorBufferWhy = "it uses descriptor buffers with a layout of classic descriptor sets";
  }
  std::lock_guard<std::mutex> guard(device->lock);
  device->layouts[*out] = std::move(layout);
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyPipelineLayout(VkDevice handle, VkPipelineLayout layout, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  // Twins still to be made refer to this layout's padded twin: made now, while it exists.
  buildTwinsUsing(device, VK_NULL_HANDLE, layout);
  VkPipelineLayout traced = VK_NULL_HANDLE, tracedDescriptorBuffer = VK_NULL_HANDLE;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->layouts.find(layout);
    if (it != device->layouts.end())
      traced = it->second.traced, tracedDescriptorBuffer = it->second.tracedDescriptorBuffer, device->layouts.erase(it);
  }
  // Twins made with it keep working: a pipeline does not need its layout to outlive it.
  for (VkPipelineLayout padded : {traced, tracedDescriptorBuffer})
    if (padded) forgetTwinLayout(device, padded), device->d.DestroyPipelineLayout(handle, padded, nullptr);
  device->d.DestroyPipelineLayout(handle, layout, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateGraphicsPipelines(VkDevice handle, VkPipelineCache cache, uint32_t count,
                                                            const VkGraphicsPipelineCreateInfo *infos,
                                                            const VkAllocationCallbacks *allocator, VkPipeline *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateGraphicsPipelines(handle, cache, count, infos, allocator, out);
  if (device->traceable && (r == VK_SUCCESS || r == VK_PIPELINE_COMPILE_REQUIRED))
    for (uint32_t i = 0; i < count; i++)
      if (out[i]) registerPipeline(device, infos[i], out[i]);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateComputePipelines(VkDevice handle, VkPipelineCache cache, uint32_t count,
                                                           const VkComputePipelineCreateInfo *infos, const VkAllocationCallbacks *allocator,
                                                           VkPipeline *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateComputePipelines(handle, cache, count, infos, allocator, out);
  if (device->traceable && (r == VK_SUCCESS || r == VK_PIPELINE_COMPILE_REQUIRED))
    for (uint32_t i = 0; i < count; i++)
      if (out[i]) registerPipeline(device, infos[i], out[i]);
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyPipeline(VkDevice handle, VkPipeline pipeline, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  // Twins still to be made that link this library link its twin, made from its recipe: made now, while it exists.
  PipelineInfo *info = findPipeline(device, pipeline);
  if (info && info->library) buildTwinsLinking(device, pipeline);
  std::unique_ptr<PipelineInfo> gone;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->pipelines.find(pipeline);
    if (it != device->pipelines.end()) gone = std::move(it->second), device->pipelines.erase(it);
  }
  // A command buffer still holding the twin cannot run any more: the app's own one is invalid too.
  if (gone) destroyTwins(device, *gone);
  device->d.DestroyPipeline(handle, pipeline, allocator);
}

}  // namespace wtl
