#include "pipeline_recipe.hpp"

#include <cstring>

#include "pipeline_chain.hpp"

namespace wtl {

template <typename T>
const T *PipelineRecipe::keep(const T *value, uint32_t count) {
  if (!value || count == 0) return nullptr;
  storage_.emplace_back(new uint8_t[sizeof(T) * count]);
  memcpy(storage_.back().get(), value, sizeof(T) * count);
  return (const T *)storage_.back().get();
}

bool PipelineRecipe::copyChain(const void *chain, const void **out) {
  VkBaseOutStructure *last = nullptr;
  *out = nullptr;
  for (auto *s = (const VkBaseInStructure *)chain; s; s = s->pNext) {
    VkBaseOutStructure *copy = nullptr;
    if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO) continue;  // the app's, not the twin's
    if (s->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) continue;  // a stage's inline SPIR-V: the recipe's copy (copyStage)
    if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO) {
      VkPipelineRenderingCreateInfo rendering = *(const VkPipelineRenderingCreateInfo *)s;
      rendering.pColorAttachmentFormats = keep(rendering.pColorAttachmentFormats, rendering.colorAttachmentCount);
      copy = (VkBaseOutStructure *)keep(&rendering);
    } else if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_DIVISOR_STATE_CREATE_INFO_EXT) {
      VkPipelineVertexInputDivisorStateCreateInfoEXT divisor = *(const VkPipelineVertexInputDivisorStateCreateInfoEXT *)s;
      divisor.pVertexBindingDivisors = keep(divisor.pVertexBindingDivisors, divisor.vertexBindingDivisorCount);
      copy = (VkBaseOutStructure *)keep(&divisor);
    } else if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR) {
      // The app's libraries: the twin links their twins instead (createGraphicsTwin).
      VkPipelineLibraryCreateInfoKHR linked = *(const VkPipelineLibraryCreateInfoKHR *)s;
      libraries_.assign(linked.pLibraries, linked.pLibraries + linked.libraryCount);
      linked.pLibraries = keep(linked.pLibraries, linked.libraryCount);
      copy = (VkBaseOutStructure *)keep(&linked);
    } else if (size_t size = plainStructSize(s->sType)) {
      storage_.emplace_back(new uint8_t[size]);
      memcpy(storage_.back().get(), s, size);
      copy = (VkBaseOutStructure *)storage_.back().get();
    } else {
      return false;
    }
    copy->pNext = nullptr;
    if (last) last->pNext = copy;
    else *out = copy;
    last = copy;
  }
  return true;
}

bool PipelineRecipe::copyStage(DeviceState *device, const VkPipelineShaderStageCreateInfo &stage) {
  Stage copy;
  copy.info = stage;
  copy.name = stage.pName ? stage.pName : "main";
  if (const VkShaderModuleCreateInfo *inline_ = inlineShader(stage)) {
    copy.spirv = std::make_shared<std::vector<uint32_t>>(inline_->pCode, inline_->pCode + inline_->codeSize / 4);
  } else {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->modules.find(stage.module);
    if (it != device->modules.end()) copy.spirv = it->second;
  }
  if (!copy.spirv || !copyChain(stage.pNext, &copy.info.pNext)) return false;
  if (const VkSpecializationInfo *spec = stage.pSpecializationInfo) {
    copy.entries.assign(spec->pMapEntries, spec->pMapEntries + spec->mapEntryCount);
    const uint8_t *data = (const uint8_t *)spec->pData;
    copy.data.assign(data, data + spec->dataSize);
  }
  stages_.push_back(std::move(copy));
  return true;
}

static bool hasDynamic(const VkPipelineDynamicStateCreateInfo *dynamic, VkDynamicState state) {
  for (uint32_t i = 0; dynamic && i < dynamic->dynamicStateCount; i++)
    if (dynamic->pDynamicStates[i] == state) return true;
  return false;
}

std::unique_ptr<PipelineRecipe> PipelineRecipe::ofGraphics(DeviceState *device, const VkGraphicsPipelineCreateInfo &info) {
  std::unique_ptr<PipelineRecipe> r(new PipelineRecipe());
  // A pipeline library defines only some state subsets: the pointers of the others may be dangling, and are not read.
  VkGraphicsPipelineLibraryFlagsEXT parts = ownParts(info);
  bool vertexInputPart = parts & VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT;
  bool preRasterPart = parts & VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT;
  bool fragmentPart = parts & VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT;
  bool outputPart = parts & VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT;
  VkGraphicsPipelineCreateInfo &g = r->graphics_;
  g = info;
  if (!r->copyChain(info.pNext, &g.pNext)) return nullptr;
  // A library's twins take the layouts of the links that link them (pipeline_twins.cpp): its own is never used.
  r->appLayout_ = (info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) ? VK_NULL_HANDLE : info.layout;
  // The render pass matters to every part but vertex input.
  if (!(parts & ~VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT)) g.renderPass = VK_NULL_HANDLE;
  bool tessellation = false;
  bool mesh = false;
  for (uint32_t i = 0; (parts & kShaderParts) && i < info.stageCount; i++) {
    if (!stageInParts(info.pStages[i].stage, parts)) continue;
    tessellation |= info.pStages[i].stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
    mesh |= info.pStages[i].stage == VK_SHADER_STAGE_MESH_BIT_EXT;  // the NV bit has the same value
    if (!r->copyStage(device, info.pStages[i])) return nullptr;
  }
  g.stageCount = 0;
  g.pStages = nullptr;
  // What the driver ignores, the copy must not read (the app may leave such pointers dangling).
  const VkPipelineDynamicStateCreateInfo *dynamic = info.pDynamicState;
  const VkPipelineRasterizationStateCreateInfo *raster = preRasterPart ? info.pRasterizationState : nullptr;
  bool discard = raster && raster->rasterizerDiscardEnable && !hasDynamic(dynamic, VK_DYNAMIC_STATE_RASTERIZER_DISCARD_ENABLE);
  if (dynamic) {
    VkPipelineDynamicStateCreateInfo d = *dynamic;
    if (d.pNext) return nullptr;
    d.pDynamicStates = r->keep(d.pDynamicStates, d.dynamicStateCount);
    g.pDynamicState = r->keep(&d);
  }
  // A mesh shader makes the primitives: vertex input and input assembly are ignored.
  if (vertexInputPart && !mesh && info.pVertexInputState && !hasDynamic(dynamic, VK_DYNAMIC_STATE_VERTEX_INPUT_EXT)) {
    VkPipelineVertexInputStateCreateInfo v = *info.pVertexInputState;
    if (!r->copyChain(v.pNext, &v.pNext)) return nullptr;
    v.pVertexBindingDescriptions = r->keep(v.pVertexBindingDescriptions, v.vertexBindingDescriptionCount);
    v.pVertexAttributeDescriptions = r->keep(v.pVertexAttributeDescriptions, v.vertexAttributeDescriptionCount);
    g.pVertexInputState = r->keep(&v);
  } else {
    g.pVertexInputState = nullptr;
  }
  const VkPipelineInputAssemblyStateCreateInfo *assembly = vertexInputPart && !mesh ? info.pInputAssemblyState : nullptr;
  g.pInputAssemblyState = assembly && !assembly->pNext ? r->keep(assembly) : nullptr;
  if (assembly && assembly->pNext) return nullptr;
  if (preRasterPart && tessellation && info.pTessellationState) {
    VkPipelineTessellationStateCreateInfo t = *info.pTessellationState;
    if (!r->copyChain(t.pNext, &t.pNext)) return nullptr;
    g.pTessellationState = r->keep(&t);
  } else {
    g.pTessellationState = nullptr;
  }
  g.pRasterizationState = nullptr;
  if (raster) {
    VkPipelineRasterizationStateCreateInfo rs = *raster;
    if (!r->copyChain(rs.pNext, &rs.pNext)) return nullptr;
    g.pRasterizationState = r->keep(&rs);
  }
  g.pViewportState = nullptr;
  g.pMultisampleState = nullptr;
  g.pDepthStencilState = nullptr;
  g.pColorBlendState = nullptr;
  if (preRasterPart && !discard && info.pViewportState) {
    VkPipelineViewportStateCreateInfo v = *info.pViewportState;
    if (!r->copyChain(v.pNext, &v.pNext)) return nullptr;
    bool dynamicViewports = hasDynamic(dynamic, VK_DYNAMIC_STATE_VIEWPORT) || hasDynamic(dynamic, VK_DYNAMIC_STATE_VIEWPORT_WITH_COUNT);
    bool dynamicScissors = hasDynamic(dynamic, VK_DYNAMIC_STATE_SCISSOR) || hasDynamic(dynamic, VK_DYNAMIC_STATE_SCISSOR_WITH_COUNT);
    v.pViewports = dynamicViewports ? nullptr : r->keep(v.pViewports, v.viewportCount);
    v.pScissors = dynamicScissors ? nullptr : r->keep(v.pScissors, v.scissorCount);
    g.pViewportState = r->keep(&v);
  }
  if ((fragmentPart || outputPart) && !discard && info.pMultisampleState) {
    VkPipelineMultisampleStateCreateInfo m = *info.pMultisampleState;
    if (m.pNext) return nullptr;
    m.pSampleMask = r->keep(m.pSampleMask, ((uint32_t)m.rasterizationSamples + 31) / 32);
    g.pMultisampleState = r->keep(&m);
  }
  if (fragmentPart && !discard && info.pDepthStencilState) {
    if (info.pDepthStencilState->pNext) return nullptr;
    g.pDepthStencilState = r->keep(info.pDepthStencilState);
  }
  if (outputPart && !discard && info.pColorBlendState) {
    VkPipelineColorBlendStateCreateInfo c = *info.pColorBlendState;
    if (c.pNext) return nullptr;
    c.pAttachments = r->keep(c.pAttachments, c.attachmentCount);
    g.pColorBlendState = r->keep(&c);
  }
  return r;
}

std::unique_ptr<PipelineRecipe> PipelineRecipe::ofCompute(DeviceState *device, const VkComputePipelineCreateInfo &info) {
  std::unique_ptr<PipelineRecipe> r(new PipelineRecipe());
  r->compute_ = true;
  r->appLayout_ = info.layout;
  r->compute_info_ = info;
  if (!r->copyChain(info.pNext, &r->compute_info_.pNext) || !r->copyStage(device, info.stage)) return nullptr;
  return r;
}

bool PipelineRecipe::materialize(DeviceState *device, std::vector<VkShaderModule> &modules, std::string &why) {
  stageInfos_.clear();
  for (Stage &s : stages_) {
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = s.spirv->size() * 4;
    mi.pCode = s.spirv->data();
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult result = device->d.CreateShaderModule(device->device, &mi, nullptr, &module);
    if (result != VK_SUCCESS) {
      why = "cannot recreate a shader module of the app's (VkResult " + std::to_string((int)result) + ")";
      return false;
    }
    modules.push_back(module);
    {
      std::lock_guard<std::mutex> guard(device->lock);
      device->modules[module] = s.spirv;
    }
    VkPipelineShaderStageCreateInfo stage = s.info;
    stage.module = module;
    stage.pName = s.name.c_str();
    if (!s.entries.empty() || !s.data.empty()) {
      s.specialization = {(uint32_t)s.entries.size(), s.entries.data(), s.data.size(), s.data.data()};
      stage.pSpecializationInfo = &s.specialization;
    } else {
      stage.pSpecializationInfo = nullptr;
    }
    stageInfos_.push_back(stage);
  }
  if (compute_) compute_info_.stage = stageInfos_[0];
  else graphics_.pStages = stageInfos_.data(), graphics_.stageCount = (uint32_t)stageInfos_.size();
  return true;
}

}  // namespace wtl
