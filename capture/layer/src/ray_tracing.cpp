// Ray-tracing pipelines (VK_KHR_ray_tracing_pipeline, VK_KHR_pipeline_library).
// Unlike graphics and compute pipelines they get no twin: the app's shader
// group handles belong to the pipeline that made them, and the shader binding
// tables the app built from them must stay valid. So, as the validation
// layer's GPU-assisted mode does, the app's own pipeline is created with its
// stages instrumented and its layout padded to the trace set. Every launch then
// needs the trace set bound: in the app's command buffers it is bound with a
// reserved slot whose draw id is the no-draw id (the instrumented shaders write
// no record), in the captured frame's shadows with the launch's own slot. What
// an untraced frame pays for that is measured in bench/RESULTS.md.
#include <chrono>
#include <cstring>

#include "command_buffers.hpp"
#include "hooks.hpp"
#include "pipeline_chain.hpp"
#include "ray_tracing.hpp"
#include "tracer_glue.hpp"
#include "twin_stages.hpp"

namespace wtl {

VkShaderStageFlags rayTracingStagesEnabled(const VkDeviceCreateInfo *info) {
  auto *f = (const VkPhysicalDeviceRayTracingPipelineFeaturesKHR *)findInChain(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR);
  return f && f->rayTracingPipeline ? kRayTracingStageBits : 0;
}

/**
 * The create info with its stages instrumented and its layout padded (into `traced`, whose modules `stages` holds
 * until the pipeline is made), or why it is created as the app asked.
 */
static std::string planInstrumented(DeviceState *device, const VkRayTracingPipelineCreateInfoKHR &info, VkRayTracingPipelineCreateInfoKHR &traced,
                                    TwinStages &stages, PipelineInfo &out) {
  if (!(settings().stageMask & kRayTracingStageCodes)) return "--stages leaves out every ray-tracing stage";
  if (info.flags & VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT) return "it uses descriptor buffers (not traced with ray tracing yet)";
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->layouts.find(info.layout);
    if (it == device->layouts.end()) return "its pipeline layout is unknown to the layer";
    if (!it->second.untracedWhy.empty()) return it->second.untracedWhy;
    out.twinLayout = it->second.traced;
    out.appSetCount = it->second.appSetCount;
  }
  // Libraries are linked as the app made them: instrumented when their own creation was, with the same padding.
  if (info.pLibraryInfo)
    for (uint32_t i = 0; i < info.pLibraryInfo->libraryCount; i++) {
      PipelineInfo *library = findPipeline(device, info.pLibraryInfo->pLibraries[i]);
      if (!library || !library->inPlace)
        return "it links the ray-tracing pipeline library " + hexHandle((uint64_t)info.pLibraryInfo->pLibraries[i]) +
               (library ? ", not traced (" + library->untracedWhy + ")" : ", unknown to the layer");
    }
  std::string why;
  // Block profiles lay a row out per pipeline: not across linked libraries.
  bool blocks = !(info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) && !(info.pLibraryInfo && info.pLibraryInfo->libraryCount);
  // Ray events count per trace-rays call, not per pipeline: libraries too; not with descriptor buffers (the layer's
  // descriptor-buffer trace set has no ray-event table).
  bool rayEvents = !(info.flags & VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT);
  if (!twinStages(device, info.pStages, info.stageCount, kAllParts, stages, why, blocks, rayEvents)) return why;
  if (!stages.blockRow.empty()) out.blockRow = std::make_shared<const std::vector<wtBlockRowModule>>(stages.blockRow);
  // A library is never bound: the pipelines linking it carry the reason to their launches.
  if (!blocks && device->blocks && !(info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR)) out.unprofiledWhy = kNoBlocksRayTracingLibraries;
  traced = info;
  traced.pStages = stages.stages.data();
  traced.stageCount = (uint32_t)stages.stages.size();
  traced.layout = out.twinLayout;
  return "";
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRayTracingPipelinesKHR(VkDevice handle, VkDeferredOperationKHR deferred, VkPipelineCache cache,
                                                                 uint32_t count, const VkRayTracingPipelineCreateInfoKHR *infos,
                                                                 const VkAllocationCallbacks *allocator, VkPipeline *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  if (!device->traceable || !device->rayTracingStages) return device->createRayTracingPipelines(handle, deferred, cache, count, infos, allocator, out);
  auto started = std::chrono::steady_clock::now();
  std::vector<VkRayTracingPipelineCreateInfoKHR> traced(infos, infos + count);
  std::vector<TwinStages> stages(count);
  std::vector<PipelineInfo> made(count);
  std::vector<std::string> why(count);
  bool anyInstrumented = false;
  for (uint32_t i = 0; i < count; i++) {
    why[i] = planInstrumented(device, infos[i], traced[i], stages[i], made[i]);
    if (!why[i].empty()) traced[i] = infos[i];
    else anyInstrumented = true;
  }
  auto planned = std::chrono::steady_clock::now();
  // Made at once, even where the app asked for a deferred operation: the instrumented create infos are the layer's
  // and live only for this call. VK_OPERATION_NOT_DEFERRED_KHR tells the app its pipelines are ready.
  VkResult r = device->createRayTracingPipelines(handle, VK_NULL_HANDLE, cache, count, traced.data(), allocator, out);
  if (r < 0 && anyInstrumented) {
    r = device->createRayTracingPipelines(handle, VK_NULL_HANDLE, cache, count, infos, allocator, out);
    for (uint32_t i = 0; i < count; i++)
      if (why[i].empty()) why[i] = "the driver refused its instrumented stages";
  }
  auto done = std::chrono::steady_clock::now();
  if (anyInstrumented)
    logLine("ray tracing: %u pipeline(s) created instrumented: %.1f ms instrumenting, %.1f ms in the driver", count,
            std::chrono::duration<double, std::milli>(planned - started).count(), std::chrono::duration<double, std::milli>(done - planned).count());
  for (uint32_t i = 0; i < count; i++) {
    if (!out[i]) continue;
    auto info = std::make_unique<PipelineInfo>(std::move(made[i]));
    info->bindPoint = VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR;
    info->library = (infos[i].flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) != 0;
    info->name = hexHandle((uint64_t)out[i]);
    if (why[i].empty()) {
      info->inPlace = true;
      info->twin = out[i];
      info->instrumented = stages[i].instrumented;
    } else {
      info->twinLayout = VK_NULL_HANDLE;
      info->untracedWhy = why[i];
      reportSkipped(device, std::string(info->library ? "ray-tracing pipeline library " : "ray-tracing pipeline ") + info->name, why[i]);
    }
    std::lock_guard<std::mutex> guard(device->lock);
    device->pipelines[out[i]] = std::move(info);
  }
  return deferred && r == VK_SUCCESS ? VK_OPERATION_NOT_DEFERRED_KHR : r;
}

void bindTraceSetForAppLaunch(CommandState *cs, VkCommandBuffer cb) {
  DeviceState *device = cs->device;
  BindPointState &a = cs->rayTracingApp;
  const PipelineInfo *p = a.pipeline;
  if (!p || !p->inPlace || device->offSlot == kNoSlot) return;
  if (a.disturbedFrom < p->appSetCount) {
    replayAppBinds(cs, cb, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, a);
    a.disturbedFrom = UINT32_MAX;
  }
  VkDescriptorSet set = tracerSet(device->tracer);
  uint32_t offset = (uint32_t)(device->offSlot * tracerDrawStride(device->tracer));
  device->cmd.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, p->twinLayout, device->traceSet, 1, &set, 1, &offset);
  if (p->appSetCount < a.disturbedFrom) a.disturbedFrom = p->appSetCount;
}

bool reserveOffSlot(DeviceState *device) {
  if (device->slotCapacity == 0) return false;
  uint32_t slot = --device->slotCapacity;  // the last slot: never handed to a draw
  uint32_t none = kNoDrawId;
  if (!setDrawIdValues(device, &slot, &none, 1)) return ++device->slotCapacity, false;
  device->offSlot = slot;
  return true;
}

}  // namespace wtl
