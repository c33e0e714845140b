#include "pipeline_chain.hpp"

#include <cstring>

namespace wtl {

size_t plainStructSize(VkStructureType type) {
  switch (type) {
    case VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO:
      return sizeof(VkPipelineShaderStageRequiredSubgroupSizeCreateInfo);
    case VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO:
      return sizeof(VkPipelineTessellationDomainOriginStateCreateInfo);
    case VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT:
      return sizeof(VkPipelineRasterizationDepthClipStateCreateInfoEXT);
    case VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT:
      return sizeof(VkPipelineRasterizationLineStateCreateInfoEXT);
    case VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT:
      return sizeof(VkPipelineRasterizationProvokingVertexStateCreateInfoEXT);
    case VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_CONSERVATIVE_STATE_CREATE_INFO_EXT:
      return sizeof(VkPipelineRasterizationConservativeStateCreateInfoEXT);
    case VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_STREAM_CREATE_INFO_EXT:
      return sizeof(VkPipelineRasterizationStateStreamCreateInfoEXT);
    case VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_DEPTH_CLIP_CONTROL_CREATE_INFO_EXT:
      return sizeof(VkPipelineViewportDepthClipControlCreateInfoEXT);
    case VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT: return sizeof(VkGraphicsPipelineLibraryCreateInfoEXT);
#ifdef VK_EXT_pipeline_robustness
    case VK_STRUCTURE_TYPE_PIPELINE_ROBUSTNESS_CREATE_INFO_EXT: return sizeof(VkPipelineRobustnessCreateInfoEXT);
#endif
    default: return 0;
  }
}

/** Sizes of the structs a shallow copy may take: the plain ones and those whose arrays it can share for one call. */
static size_t shallowStructSize(VkStructureType type) {
  switch (type) {
    case VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO: return sizeof(VkPipelineRenderingCreateInfo);
    case VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_DIVISOR_STATE_CREATE_INFO_EXT: return sizeof(VkPipelineVertexInputDivisorStateCreateInfoEXT);
    case VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR: return sizeof(VkPipelineLibraryCreateInfoKHR);
    case VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO: return sizeof(VkPipelineCreationFeedbackCreateInfo);
    case VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO: return sizeof(VkShaderModuleCreateInfo);
    default: return plainStructSize(type);
  }
}

const VkBaseInStructure *findInChain(const void *chain, VkStructureType type) {
  for (auto *s = (const VkBaseInStructure *)chain; s; s = s->pNext)
    if (s->sType == type) return s;
  return nullptr;
}

VkBaseOutStructure *ChainEdit::copy(const VkBaseInStructure *s, size_t size) {
  copies_.emplace_back(new uint8_t[size]);
  memcpy(copies_.back().get(), s, size);
  return (VkBaseOutStructure *)copies_.back().get();
}

bool ChainEdit::replace(const void *chain, VkStructureType type, const void *replacement, const void **out, std::string &why) {
  *out = chain;
  const VkBaseInStructure *target = findInChain(chain, type);
  if (!target) return true;
  VkBaseOutStructure *last = nullptr;
  *out = nullptr;
  auto append = [&](VkBaseOutStructure *s) {
    if (last) last->pNext = s;
    else *out = s;
    last = s;
  };
  for (auto *s = (const VkBaseInStructure *)chain; s != target; s = s->pNext) {
    size_t size = shallowStructSize(s->sType);
    if (!size) {
      why = "its create info chains a struct the layer cannot copy (sType " + std::to_string((int)s->sType) + ")";
      return false;
    }
    append(copy(s, size));
  }
  if (replacement) append(copy((const VkBaseInStructure *)replacement, shallowStructSize(type)));
  const VkBaseInStructure *rest = target->pNext;
  if (last) last->pNext = (VkBaseOutStructure *)rest;
  else *out = rest;
  return true;
}

VkGraphicsPipelineLibraryFlagsEXT ownParts(const VkGraphicsPipelineCreateInfo &info) {
  if (auto *parts = (const VkGraphicsPipelineLibraryCreateInfoEXT *)findInChain(info.pNext, VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT))
    return parts->flags & kAllParts;
  const VkPipelineLibraryCreateInfoKHR *libraries = linkedLibraries(info.pNext);
  if ((info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) || (libraries && libraries->libraryCount > 0)) return 0;
  return kAllParts;
}

bool stageInParts(VkShaderStageFlagBits stage, VkGraphicsPipelineLibraryFlagsEXT parts) {
  return (parts & (stage == VK_SHADER_STAGE_FRAGMENT_BIT ? VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT
                                                         : VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT)) != 0;
}

const VkShaderModuleCreateInfo *inlineShader(const VkPipelineShaderStageCreateInfo &stage) {
  if (stage.module != VK_NULL_HANDLE) return nullptr;
  return (const VkShaderModuleCreateInfo *)findInChain(stage.pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
}

const VkPipelineLibraryCreateInfoKHR *linkedLibraries(const void *chain) {
  return (const VkPipelineLibraryCreateInfoKHR *)findInChain(chain, VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR);
}

}  // namespace wtl
