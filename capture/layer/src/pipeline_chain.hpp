// pNext chains and graphics pipeline library parts: what a twin's create info
// rewrites (inline shaders, the libraries it links) and which of the app's
// pointers it may read (a library defines only some of a pipeline's state).
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wtl {

/** Byte size of the extension structs without pointers besides pNext (copied byte for byte), or 0. */
size_t plainStructSize(VkStructureType type);

/** The first struct of `type` in a pNext chain, or null. */
const VkBaseInStructure *findInChain(const void *chain, VkStructureType type);

/**
 * A pNext chain with one struct replaced or removed. The structs before it are
 * shallow copies the edit keeps (their arrays stay the app's, valid for the
 * call the chain is made for); the structs after it are the app's own.
 */
class ChainEdit {
 public:
  /**
   * `*out`: `chain` with its struct of `type` replaced by a copy of `replacement`
   * (null: removed); `chain` itself where it has none. False with why when a
   * struct before it is one the layer cannot copy.
   */
  bool replace(const void *chain, VkStructureType type, const void *replacement, const void **out, std::string &why);

 private:
  VkBaseOutStructure *copy(const VkBaseInStructure *s, size_t size);
  std::vector<std::unique_ptr<uint8_t[]>> copies_;
};

constexpr VkGraphicsPipelineLibraryFlagsEXT kShaderParts =
    VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT | VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT;
constexpr VkGraphicsPipelineLibraryFlagsEXT kAllParts = VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT | kShaderParts |
                                                        VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT;

/**
 * The state subsets a graphics create info defines itself (VK_EXT_graphics_pipeline_library):
 * its VkGraphicsPipelineLibraryCreateInfoEXT's; none for a library or a link without one;
 * all four for an ordinary pipeline. The driver ignores the pointers of the others.
 */
VkGraphicsPipelineLibraryFlagsEXT ownParts(const VkGraphicsPipelineCreateInfo &info);

/** Whether a stage belongs to those parts: the fragment stage to the fragment shader part, the others to pre-rasterization. */
bool stageInParts(VkShaderStageFlagBits stage, VkGraphicsPipelineLibraryFlagsEXT parts);

/** The SPIR-V a stage passes inline (a VkShaderModuleCreateInfo anywhere in its chain, no module), or null. */
const VkShaderModuleCreateInfo *inlineShader(const VkPipelineShaderStageCreateInfo &stage);

/** The libraries a create info links, or null. */
const VkPipelineLibraryCreateInfoKHR *linkedLibraries(const void *chain);

}  // namespace wtl
