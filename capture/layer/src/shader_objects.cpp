// Shader objects (VK_EXT_shader_object). Each vkCreateShadersEXT is repeated
// for twins: the same create infos with the traced stages' SPIR-V instrumented
// and the set layouts padded to the trace set, in one call so linked shaders
// stay linked. Twins are made when the app creates its shaders (as the
// validation layer's GPU-assisted mode instruments them), because their set
// layouts are the app's, which it may destroy right after. The app's shaders
// are never changed: vkGetShaderBinaryDataEXT and every untraced frame see
// them. In the shadow, vkCmdBindShadersEXT binds the app's shaders and each
// traced draw swaps in the twins of every bound stage (commands.cpp).
#include "shader_objects.hpp"

#include <cstdio>
#include <cstring>

#include "descriptor_buffers.hpp"
#include "hooks.hpp"
#include "tracer_glue.hpp"
#include "twin_stages.hpp"

namespace wtl {

static std::string shaderName(DeviceState *device, VkShaderEXT shader) {
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->names.find((uint64_t)shader);
    if (it != device->names.end()) return it->second;
  }
  return hexHandle((uint64_t)shader);
}

/** One create info's twin: its instrumented code and padded set layouts, or why it has none. */
struct TwinPlan {
  VkShaderCreateInfoEXT info{};
  std::vector<uint8_t> code;
  std::vector<VkDescriptorSetLayout> sets;
  bool descriptorBuffer = false;  // its set layouts are descriptor-buffer ones
  std::string noTwin;         // non-empty: no twin (the app's shader draws untraced)
  std::string uninstrumented;  // non-empty: a twin with the app's code (reported; its warps are missing)
};

static void planTwin(DeviceState *device, const VkShaderCreateInfoEXT &app, TwinPlan &plan) {
  plan.info = app;
  int code = stageCode(app.stage);
  if (code < 0) {
    plan.noTwin = "a stage the layer does not know";
    return;
  }
  if (app.codeType != VK_SHADER_CODE_TYPE_SPIRV_EXT) {
    plan.noTwin = "its code is a driver binary (VK_SHADER_CODE_TYPE_BINARY_EXT), which cannot be instrumented";
    return;
  }
  if (app.setLayoutCount > device->traceSet) {
    plan.noTwin = "it uses " + std::to_string(app.setLayoutCount) + " descriptor sets, including set " + std::to_string(device->traceSet) +
                  " that the trace buffer needs";
    return;
  }
  plan.descriptorBuffer = usesDescriptorBuffers(device, app.pSetLayouts, app.setLayoutCount);
  if (plan.descriptorBuffer && !device->descriptorBuffers.why.empty()) {
    plan.noTwin = device->descriptorBuffers.why;
    return;
  }
  plan.sets = paddedSetLayouts(device, app.pSetLayouts, app.setLayoutCount, plan.descriptorBuffer);
  plan.info.setLayoutCount = (uint32_t)plan.sets.size();
  plan.info.pSetLayouts = plan.sets.data();
  if (!(settings().stageMask & (1u << code))) return;  // a twin with the app's code: --stages leaves it out
  std::vector<uint32_t> spirv((const uint32_t *)app.pCode, (const uint32_t *)app.pCode + app.codeSize / 4);
  std::string why;
  if (!instrumentStage(device, spirv, code, app.pName ? app.pName : "main", false, false, plan.code, why)) {
    plan.uninstrumented = std::string(kTracedStageNames[code]) + " shader: " + why;
    return;
  }
  plan.info.pCode = plan.code.data();
  plan.info.codeSize = plan.code.size();
}

/** The padded layout a twin's draws bind the trace set with; null when the driver refuses it. */
static VkPipelineLayout twinLayoutOf(DeviceState *device, const TwinPlan &plan) {
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = plan.info.setLayoutCount;
  info.pSetLayouts = plan.info.pSetLayouts;
  info.pushConstantRangeCount = plan.info.pushConstantRangeCount;
  info.pPushConstantRanges = plan.info.pPushConstantRanges;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  if (device->d.CreatePipelineLayout(device->device, &info, nullptr, &layout) != VK_SUCCESS) return VK_NULL_HANDLE;
  return layout;
}

/**
 * Makes the twins of one vkCreateShadersEXT call's shaders. Linked shaders (LINK_STAGE) are made in one call and
 * only together: if one of them cannot have a twin, none has. Unlinked ones are independent.
 */
static void makeTwins(DeviceState *device, uint32_t count, const VkShaderCreateInfoEXT *infos, const VkShaderEXT *shaders) {
  std::vector<TwinPlan> plans(count);
  std::string linkedNoTwin;
  for (uint32_t i = 0; i < count; i++) {
    planTwin(device, infos[i], plans[i]);
    if ((infos[i].flags & VK_SHADER_CREATE_LINK_STAGE_BIT_EXT) && !plans[i].noTwin.empty() && linkedNoTwin.empty())
      linkedNoTwin = "it is linked with a shader that cannot be traced (" + plans[i].noTwin + ")";
  }
  std::vector<VkShaderCreateInfoEXT> twinInfos;
  std::vector<uint32_t> twinOf;  // index into infos of each twin create info
  for (uint32_t i = 0; i < count; i++) {
    if (plans[i].noTwin.empty() && !linkedNoTwin.empty() && (infos[i].flags & VK_SHADER_CREATE_LINK_STAGE_BIT_EXT)) plans[i].noTwin = linkedNoTwin;
    if (!plans[i].noTwin.empty()) continue;
    twinInfos.push_back(plans[i].info);
    twinOf.push_back(i);
  }
  std::vector<VkShaderEXT> twins(twinInfos.size(), VK_NULL_HANDLE);
  if (!twinInfos.empty()) {
    VkResult r = device->createShaders(device->device, (uint32_t)twinInfos.size(), twinInfos.data(), nullptr, twins.data());
    if (r != VK_SUCCESS) {
      for (VkShaderEXT twin : twins)
        if (twin) device->destroyShader(device->device, twin, nullptr);
      for (uint32_t i : twinOf) plans[i].noTwin = "the driver refused its instrumented twin (VkResult " + std::to_string((int)r) + ")";
      twins.assign(twins.size(), VK_NULL_HANDLE);
    }
  }
  for (uint32_t k = 0; k < count; k++) {
    auto info = std::make_unique<ShaderInfo>();
    info->stage = infos[k].stage;
    info->appSetCount = infos[k].setLayoutCount;
    info->descriptorBuffer = plans[k].descriptorBuffer;
    for (size_t t = 0; t < twinOf.size(); t++)
      if (twinOf[t] == k && twins[t]) {
        info->twin = twins[t];
        info->twinLayout = twinLayoutOf(device, plans[k]);
        if (!info->twinLayout) {
          device->destroyShader(device->device, info->twin, nullptr);
          info->twin = VK_NULL_HANDLE;
          plans[k].noTwin = "the driver refused its layout with the trace set added";
        }
      }
    std::string what = "shader " + shaderName(device, shaders[k]);
    if (!info->twin) {
      info->untracedWhy = plans[k].noTwin;
      reportSkipped(device, what, info->untracedWhy);
    } else if (!plans[k].uninstrumented.empty()) {
      reportSkipped(device, what, plans[k].uninstrumented);  // drawn by its twin with the app's code: no warps of this stage
    }
    std::lock_guard<std::mutex> guard(device->lock);
    device->shaders[shaders[k]] = std::move(info);
  }
}

static VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateShadersEXT(VkDevice handle, uint32_t count, const VkShaderCreateInfoEXT *infos,
                                                            const VkAllocationCallbacks *allocator, VkShaderEXT *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->createShaders(handle, count, infos, allocator, out);
  if (r == VK_SUCCESS && device->traceable) makeTwins(device, count, infos, out);
  return r;
}

static VKAPI_ATTR void VKAPI_CALL wl_vkDestroyShaderEXT(VkDevice handle, VkShaderEXT shader, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  std::unique_ptr<ShaderInfo> gone;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->shaders.find(shader);
    if (it != device->shaders.end()) gone = std::move(it->second), device->shaders.erase(it);
  }
  if (gone && gone->twin) device->destroyShader(handle, gone->twin, nullptr);
  if (gone && gone->twinLayout) device->d.DestroyPipelineLayout(handle, gone->twinLayout, nullptr);
  device->destroyShader(handle, shader, allocator);
}

static const ShaderInfo *findShader(DeviceState *device, VkShaderEXT shader) {
  std::lock_guard<std::mutex> guard(device->lock);
  auto it = device->shaders.find(shader);
  return it == device->shaders.end() ? nullptr : it->second.get();
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdBindShadersEXT(VkCommandBuffer cb, uint32_t count, const VkShaderStageFlagBits *stages,
                                                         const VkShaderEXT *shaders) {
  CommandState *cs = findCommandState(cb);
  DeviceState *device = cs->device;
  device->cmdBindShaders(cb, count, stages, shaders);
  if (!cs->shadow) return;
  // The app's shaders first; a traced draw swaps in the twins of every stage bound (beginDraw).
  device->cmdBindShaders(cs->shadow, count, stages, shaders);
  for (uint32_t i = 0; i < count; i++) {
    int code = stageCode(stages[i]);
    if (code < 0) continue;
    BindPointState &b = stages[i] == VK_SHADER_STAGE_COMPUTE_BIT ? cs->compute : cs->graphics;
    VkShaderEXT shader = shaders ? shaders[i] : VK_NULL_HANDLE;
    b.shaderObjects = true;
    b.twinBound = false;
    b.pipeline = nullptr;
    b.appShaders[code] = shader;
    b.shaders[code] = shader ? findShader(device, shader) : nullptr;
  }
}

DrawProgram boundShaders(DeviceState *device, const BindPointState &b) {
  DrawProgram out;
  out.hasTwin = true;
  for (int code = 0; code < kTracedStageCount; code++) {
    if (!b.appShaders[code]) continue;
    const ShaderInfo *s = b.shaders[code];
    out.known = true;
    out.name += std::string(out.name.empty() ? "shaders " : " + ") + kTracedStageNames[code] + " " + shaderName(device, b.appShaders[code]);
    if (!s || !s->twin) {
      out.hasTwin = false;
      if (out.untracedWhy.empty())
        out.untracedWhy = std::string(kTracedStageNames[code]) + " shader: " + (s ? s->untracedWhy : "a shader object the layer does not know");
      continue;
    }
    if (!out.twinLayout || s->appSetCount > out.appSetCount)
      out.twinLayout = s->twinLayout, out.appSetCount = s->appSetCount, out.descriptorBuffer = s->descriptorBuffer;
  }
  if (!out.known) {
    out.hasTwin = false;
    out.untracedWhy = "no shader object is bound";
  }
  // Twins are instrumented without blocks (makeTwins): a draw's row would be laid out from the shaders bound at it.
  if (device->blocks) out.unprofiledWhy = kNoBlocksShaderObjects;
  return out;
}

void bindShadersInShadow(CommandState *cs, const BindPointState &b, bool twins) {
  std::vector<VkShaderStageFlagBits> stages;
  std::vector<VkShaderEXT> shaders;
  for (int code = 0; code < kTracedStageCount; code++) {
    if (!b.appShaders[code]) continue;
    stages.push_back(kTracedStageBits[code]);
    shaders.push_back(twins && b.shaders[code] ? b.shaders[code]->twin : b.appShaders[code]);
  }
  if (!stages.empty()) cs->device->cmdBindShaders(cs->shadow, (uint32_t)stages.size(), stages.data(), shaders.data());
}

void loadShaderObjectFunctions(DeviceState *device, PFN_vkGetDeviceProcAddr gdpa) {
  device->createShaders = (PFN_vkCreateShadersEXT)gdpa(device->device, "vkCreateShadersEXT");
  device->destroyShader = (PFN_vkDestroyShaderEXT)gdpa(device->device, "vkDestroyShaderEXT");
  device->cmdBindShaders = (PFN_vkCmdBindShadersEXT)gdpa(device->device, "vkCmdBindShadersEXT");
}

PFN_vkVoidFunction findShaderObjectHook(const char *name) {
  if (!strcmp(name, "vkCreateShadersEXT")) return (PFN_vkVoidFunction)wl_vkCreateShadersEXT;
  if (!strcmp(name, "vkDestroyShaderEXT")) return (PFN_vkVoidFunction)wl_vkDestroyShaderEXT;
  if (!strcmp(name, "vkCmdBindShadersEXT")) return (PFN_vkVoidFunction)wl_vkCmdBindShadersEXT;
  return nullptr;
}

}  // namespace wtl
