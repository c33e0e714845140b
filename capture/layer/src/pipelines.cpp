// Shader modules, pipeline layouts and pipelines: every pipeline the app
// creates gets an instrumented twin (same state, instrumented shaders, its
// layout padded up to the trace set), which only the captured frame binds.
#include <cstring>

#include "command_buffers.hpp"
#include "hooks.hpp"
#include "pipeline_recipe.hpp"
#include "stages.hpp"
#include "tracer_glue.hpp"

namespace wtl {

/** Stage code (VS 0 .. CS 5, TASK 6, MESH 7) of a graphics, mesh or compute stage, or -1 (ray tracing). */
static int stageCode(VkShaderStageFlagBits stage) {
  for (int i = 0; i < kTracedStageCount; i++)
    if (stage == kTracedStageBits[i]) return i;  // the NV mesh and task bits equal the EXT ones
  return -1;
}

static std::string hexHandle(uint64_t handle) {
  char text[32];
  snprintf(text, sizeof text, "0x%llx", (unsigned long long)handle);
  return text;
}

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
    std::vector<VkDescriptorSetLayout> sets(info->pSetLayouts, info->pSetLayouts + info->setLayoutCount);
    sets.resize(device->traceSet, device->emptySetLayout);
    sets.push_back(wtTracerSetLayout(device->tracer));
    VkPipelineLayoutCreateInfo padded = *info;
    padded.setLayoutCount = (uint32_t)sets.size();
    padded.pSetLayouts = sets.data();
    VkResult pr = device->d.CreatePipelineLayout(handle, &padded, nullptr, &layout.traced);
    if (pr != VK_SUCCESS) {
      layout.traced = VK_NULL_HANDLE;
      layout.untracedWhy = "the driver refused its layout with the trace set added (VkResult " + std::to_string((int)pr) +
                           "; e.g. one dynamic uniform buffer over maxDescriptorSetUniformBuffersDynamic)";
    }
  }
  std::lock_guard<std::mutex> guard(device->lock);
  device->layouts[*out] = std::move(layout);
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyPipelineLayout(VkDevice handle, VkPipelineLayout layout, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  // Twins still to be made refer to this layout's padded twin: made now, while it exists.
  buildTwinsUsing(device, VK_NULL_HANDLE, layout);
  VkPipelineLayout traced = VK_NULL_HANDLE;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->layouts.find(layout);
    if (it != device->layouts.end()) traced = it->second.traced, device->layouts.erase(it);
  }
  // Twins made with it keep working: a pipeline does not need its layout to outlive it.
  if (traced) device->d.DestroyPipelineLayout(handle, traced, nullptr);
  device->d.DestroyPipelineLayout(handle, layout, allocator);
}

/** Instrumented SPIR-V for one stage from the CLI, or false with why. */
static bool instrument(DeviceState *device, const std::vector<uint32_t> &code, int stage, const char *entry, std::vector<uint8_t> &out,
                       std::string &why) {
  const wtCaps &c = device->caps;
  std::string subgroupStages;
  for (int i = 0; i < kTracedStageCount; i++)
    if (c.subgroupStages & kTracedStageBits[i]) subgroupStages += std::string(subgroupStages.empty() ? "" : ", ") + "\"" + kTracedStageNames[i] + "\"";
  std::string json = std::string("{\"stage\": \"") + kTracedStageNames[stage] + "\", \"entryPoint\": " + jsonString(entry) +
                     ", \"set\": " + std::to_string(device->traceSet) + ", \"binding\": 0, \"smBuiltins\": " + (c.smBuiltins ? "true" : "false") +
                     ", \"subgroupClock\": " + (c.subgroupClock ? "true" : "false") + ", \"deviceClock\": " + (c.deviceClock ? "true" : "false") +
                     ", \"subgroupStages\": [" + subgroupStages + "], \"fsCustomId\": \"" +
                     (c.geometryShader ? "primitive-id" : "frag-coord") + "\"" +
                     (stage == 4 && settings().sampleFs > 1 ? ", \"sampleFs\": " + std::to_string(settings().sampleFs) : std::string()) +
                     (device->lanesUnknown           ? std::string(", \"position\": []")
                      : settings().positionJson.empty() ? std::string()
                                                        : ", \"position\": " + settings().positionJson) +
                     "}";
  std::string reply;
  return device->client->request(kInstrument, json, code.data(), (uint32_t)(code.size() * 4), out, reply, why);
}

/**
 * The twin's stages: instrumented modules for the traced stages, the app's for
 * the others. False with why when a stage cannot be traced at all.
 */
static bool twinStages(DeviceState *device, const VkPipelineShaderStageCreateInfo *stages, uint32_t count,
                       std::vector<VkPipelineShaderStageCreateInfo> &out, std::vector<VkShaderModule> &made, std::string &why) {
  bool anyTraced = false;
  for (uint32_t i = 0; i < count; i++) {
    VkPipelineShaderStageCreateInfo stage = stages[i];
    int code = stageCode(stage.stage);
    if (code < 0) {
      why = "it has a ray-tracing stage (not traced by the layer yet)";
      return false;
    }
    if (!(settings().stageMask & (1u << code))) {
      out.push_back(stage);
      continue;
    }
    std::shared_ptr<const std::vector<uint32_t>> spirv;
    auto *inline_ = (const VkShaderModuleCreateInfo *)stage.pNext;
    if (stage.module == VK_NULL_HANDLE && inline_ && inline_->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) {
      spirv = std::make_shared<std::vector<uint32_t>>(inline_->pCode, inline_->pCode + inline_->codeSize / 4);
      stage.pNext = inline_->pNext;
    } else {
      std::lock_guard<std::mutex> guard(device->lock);
      auto it = device->modules.find(stage.module);
      if (it != device->modules.end()) spirv = it->second;
    }
    if (!spirv) {
      why = std::string("the SPIR-V of its ") + kTracedStageNames[code] + " shader is unknown to the layer";
      return false;
    }
    std::vector<uint8_t> traced;
    if (!instrument(device, *spirv, code, stage.pName, traced, why)) {
      why = std::string(kTracedStageNames[code]) + " shader: " + why;
      return false;
    }
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = traced.size();
    mi.pCode = (const uint32_t *)traced.data();
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult r = device->d.CreateShaderModule(device->device, &mi, nullptr, &module);
    if (r != VK_SUCCESS) {
      why = std::string("the driver refused its instrumented ") + kTracedStageNames[code] + " shader (VkResult " + std::to_string((int)r) + ")";
      return false;
    }
    made.push_back(module);
    stage.module = module;
    out.push_back(stage);
    anyTraced = true;
  }
  if (!anyTraced) why = "none of its stages is traced (--stages)";
  return anyTraced;
}

/** Creation feedback written by the twin would overwrite the app's: pointed at scratch while the twin is made. */
class FeedbackRedirect {
 public:
  explicit FeedbackRedirect(const void *chain) {
    for (auto *s = (const VkBaseInStructure *)chain; s; s = s->pNext)
      if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO) {
        info_ = (VkPipelineCreationFeedbackCreateInfo *)s;
        saved_ = *info_;
        stages_.resize(info_->pipelineStageCreationFeedbackCount);
        info_->pPipelineCreationFeedback = &pipeline_;
        info_->pPipelineStageCreationFeedbacks = stages_.data();
      }
  }
  ~FeedbackRedirect() {
    if (info_) *info_ = saved_;
  }

 private:
  VkPipelineCreationFeedbackCreateInfo *info_ = nullptr;
  VkPipelineCreationFeedbackCreateInfo saved_{};
  VkPipelineCreationFeedback pipeline_{};
  std::vector<VkPipelineCreationFeedback> stages_;
};

/** Why pipelines with these flags or this chain cannot get a twin, or "". */
static std::string pipelineProblem(VkPipelineCreateFlags flags, const void *chain) {
  if (flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) return "it is a pipeline library (graphics pipeline libraries are not traced yet)";
  if (flags & VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT) return "it uses descriptor buffers (VK_EXT_descriptor_buffer is not traced yet)";
  for (auto *s = (const VkBaseInStructure *)chain; s; s = s->pNext)
    if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR) return "it links pipeline libraries (not traced yet)";
  return "";
}

static std::shared_ptr<PipelineRecipe> recipeOf(DeviceState *device, const VkGraphicsPipelineCreateInfo &info) {
  return PipelineRecipe::ofGraphics(device, info);
}
static std::shared_ptr<PipelineRecipe> recipeOf(DeviceState *device, const VkComputePipelineCreateInfo &info) {
  return PipelineRecipe::ofCompute(device, info);
}

/** The twin from the app's create info (or a recipe's): its layout padded, no derivative, no cache. */
template <typename CreateInfo>
static void makeTwinNow(DeviceState *device, const CreateInfo &appInfo, const LayoutInfo &layout, PipelineInfo *info,
                        VkResult (*create)(DeviceState *, const CreateInfo &, VkPipeline *, std::string &), std::string &why) {
  CreateInfo twin = appInfo;
  twin.layout = layout.traced;
  twin.flags &= ~(VkPipelineCreateFlags)(VK_PIPELINE_CREATE_DERIVATIVE_BIT | VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT);
  twin.basePipelineHandle = VK_NULL_HANDLE;
  twin.basePipelineIndex = -1;
  VkResult r = create(device, twin, &info->twin, why);
  if (r != VK_SUCCESS) {
    info->twin = VK_NULL_HANDLE;
    if (why.empty()) why = "the driver refused its instrumented twin (VkResult " + std::to_string((int)r) + ")";
  }
}

template <typename CreateInfo>
static void makeTwin(DeviceState *device, const CreateInfo &appInfo, VkPipeline pipeline, VkPipelineBindPoint bindPoint,
                     VkResult (*create)(DeviceState *, const CreateInfo &, VkPipeline *, std::string &)) {
  auto info = std::make_unique<PipelineInfo>();
  info->bindPoint = bindPoint;
  info->name = hexHandle((uint64_t)pipeline);
  std::string why = pipelineProblem(appInfo.flags, appInfo.pNext);
  LayoutInfo layout;
  if (why.empty()) {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->layouts.find(appInfo.layout);
    if (it == device->layouts.end()) why = "its pipeline layout is unknown to the layer";
    else layout = it->second, why = it->second.untracedWhy;
  }
  if (why.empty()) {
    // Start-up pays for a copy only; the twin is compiled when a capture first needs it (ensureTwin).
    info->recipe = recipeOf(device, appInfo);
    if (!info->recipe) {
      FeedbackRedirect feedback(appInfo.pNext);
      makeTwinNow(device, appInfo, layout, info.get(), create, why);
    }
  }
  if (!why.empty()) {
    info->untracedWhy = why;
    reportSkipped(device, "pipeline " + info->name, why);
  } else {
    info->twinLayout = layout.traced;
    info->appSetCount = layout.appSetCount;
  }
  std::lock_guard<std::mutex> guard(device->lock);
  device->pipelines[pipeline] = std::move(info);
}

static VkResult createGraphicsTwin(DeviceState *device, const VkGraphicsPipelineCreateInfo &info, VkPipeline *out, std::string &why) {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  std::vector<VkShaderModule> made;
  VkResult r = VK_ERROR_UNKNOWN;
  if (twinStages(device, info.pStages, info.stageCount, stages, made, why)) {
    VkGraphicsPipelineCreateInfo twin = info;
    twin.pStages = stages.data();
    r = device->d.CreateGraphicsPipelines(device->device, VK_NULL_HANDLE, 1, &twin, nullptr, out);
  }
  for (VkShaderModule m : made) device->d.DestroyShaderModule(device->device, m, nullptr);
  return r;
}

static VkResult createComputeTwin(DeviceState *device, const VkComputePipelineCreateInfo &info, VkPipeline *out, std::string &why) {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  std::vector<VkShaderModule> made;
  VkResult r = VK_ERROR_UNKNOWN;
  if (twinStages(device, &info.stage, 1, stages, made, why)) {
    VkComputePipelineCreateInfo twin = info;
    twin.stage = stages[0];
    r = device->d.CreateComputePipelines(device->device, VK_NULL_HANDLE, 1, &twin, nullptr, out);
  }
  for (VkShaderModule m : made) device->d.DestroyShaderModule(device->device, m, nullptr);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateGraphicsPipelines(VkDevice handle, VkPipelineCache cache, uint32_t count,
                                                            const VkGraphicsPipelineCreateInfo *infos,
                                                            const VkAllocationCallbacks *allocator, VkPipeline *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateGraphicsPipelines(handle, cache, count, infos, allocator, out);
  if (device->traceable && (r == VK_SUCCESS || r == VK_PIPELINE_COMPILE_REQUIRED))
    for (uint32_t i = 0; i < count; i++)
      if (out[i]) makeTwin(device, infos[i], out[i], VK_PIPELINE_BIND_POINT_GRAPHICS, createGraphicsTwin);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateComputePipelines(VkDevice handle, VkPipelineCache cache, uint32_t count,
                                                           const VkComputePipelineCreateInfo *infos, const VkAllocationCallbacks *allocator,
                                                           VkPipeline *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateComputePipelines(handle, cache, count, infos, allocator, out);
  if (device->traceable && (r == VK_SUCCESS || r == VK_PIPELINE_COMPILE_REQUIRED))
    for (uint32_t i = 0; i < count; i++)
      if (out[i]) makeTwin(device, infos[i], out[i], VK_PIPELINE_BIND_POINT_COMPUTE, createComputeTwin);
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyPipeline(VkDevice handle, VkPipeline pipeline, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkPipeline twin = VK_NULL_HANDLE;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->pipelines.find(pipeline);
    if (it != device->pipelines.end()) twin = it->second->twin, device->pipelines.erase(it);
  }
  // A command buffer still holding the twin cannot run any more: the app's own one is invalid too.
  if (twin) device->d.DestroyPipeline(handle, twin, nullptr);
  device->d.DestroyPipeline(handle, pipeline, allocator);
}

void ensureTwin(DeviceState *device, PipelineInfo *info) {
  if (!info || !info->recipe) return;
  std::lock_guard<std::mutex> building(device->twinLock);
  std::shared_ptr<PipelineRecipe> recipe = info->recipe;
  if (!recipe) return;  // made by another thread meanwhile
  LayoutInfo layout;
  layout.traced = info->twinLayout;
  layout.appSetCount = info->appSetCount;
  std::vector<VkShaderModule> modules;
  std::string why;
  if (recipe->materialize(device, modules, why)) {
    if (recipe->compute()) makeTwinNow(device, recipe->computeInfo(), layout, info, createComputeTwin, why);
    else makeTwinNow(device, recipe->graphics(), layout, info, createGraphicsTwin, why);
  }
  {
    std::lock_guard<std::mutex> guard(device->lock);
    for (VkShaderModule m : modules) device->modules.erase(m);
  }
  for (VkShaderModule m : modules) device->d.DestroyShaderModule(device->device, m, nullptr);
  if (!why.empty()) {
    info->untracedWhy = why;
    info->twin = VK_NULL_HANDLE;
    reportSkipped(device, "pipeline " + info->name, why);
  }
  info->recipe.reset();
}

void buildTwinsUsing(DeviceState *device, VkRenderPass pass, VkPipelineLayout layout) {
  std::vector<PipelineInfo *> due;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    for (auto &entry : device->pipelines) {
      const std::shared_ptr<PipelineRecipe> &r = entry.second->recipe;
      if (r && ((pass && !r->compute() && r->renderPass() == pass) || (layout && r->appLayout() == layout))) due.push_back(entry.second.get());
    }
  }
  for (PipelineInfo *info : due) {
    // After the capture (apps tear down at exit) nobody needs the twin: the recipe is dropped, not compiled.
    if (device->capture.done) {
      std::lock_guard<std::mutex> building(device->twinLock);
      info->recipe.reset();
      info->untracedWhy = "the app destroyed its render pass or layout after the capture";
      continue;
    }
    ensureTwin(device, info);
  }
}

PipelineInfo *findPipeline(DeviceState *device, VkPipeline pipeline) {
  std::lock_guard<std::mutex> guard(device->lock);
  auto it = device->pipelines.find(pipeline);
  return it == device->pipelines.end() ? nullptr : it->second.get();
}

}  // namespace wtl
