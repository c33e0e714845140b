// The stages of a twin: the traced ones' SPIR-V instrumented by the CLI
// (twin_stages.cpp), from shader modules or inline code.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline_chain.hpp"
#include "state.hpp"

namespace wtl {

/** Block stage words with no module in any stage. */
inline BlockStageWords noBlockModules() {
  BlockStageWords none;
  none.fill(WT_NO_BLOCK_MODULE);
  return none;
}

/**
 * Block profiles asked for and possible, but not made for this kind of work: why, each a draw's `unprofiled` after its
 * pipeline's name and the frame's `blocks` note (CONTRACT.md). Its warps are traced all the same.
 */
inline constexpr const char *kNoBlocksShaderObjects = "shader objects (VK_EXT_shader_object) get no block profile from the layer yet";
inline constexpr const char *kNoBlocksDescriptorBuffers =
    "pipelines made with descriptor buffers (VK_EXT_descriptor_buffer) get no block profile: the layer's descriptor-buffer trace set has no block table";
inline constexpr const char *kNoBlocksRayTracingLibraries =
    "ray-tracing pipelines linking libraries (VK_KHR_pipeline_library) get no block profile: the layer lays a row out per pipeline, and a "
    "library's shaders are compiled before the pipelines that link them";

/** A stage's specialization with the block base constant added (block_specialization.cpp). */
struct BlockSpecialization {
  VkSpecializationInfo info{};
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint8_t> data;
};

/** A twin's stages and what they need until the twin is created: instrumented modules, chains without the app's inline SPIR-V. */
struct TwinStages {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  std::vector<VkShaderModule> modules;
  std::vector<ChainEdit> chains;
  bool instrumented = false;  // at least one stage is
  /** Block profiles: the pipeline's row, its profiled modules one after another, and the specializations that say so. */
  std::vector<wtBlockRowModule> blockRow;
  std::vector<std::unique_ptr<BlockSpecialization>> specializations;
  /**
   * Block profiles of a graphics pipeline library (set before twinStages): its modules keep the base constant at 0
   * and go into `libraryModules` by stage, for the links that link it to lay out (WT_NO_BLOCK_MODULE: none).
   */
  bool library = false;
  BlockStageWords libraryModules = noBlockModules();
  /** Block profiles of a pipeline linking libraries: each stage's first cell in the row (its draws' stage words). */
  BlockStageWords stageOffsets{};
  bool hasStageOffsets = false;
  DeviceState *device = nullptr;
  ~TwinStages();
};

/**
 * Instrumented SPIR-V for one stage (its stage code, stages.hpp) from the CLI, or false with why; `blocks`:
 * with block profiles (the host gives the draws of this pipeline rows; settings().blocks); `rayEvents`: with ray
 * events (the ray-tracing stages count into the tracer's ray-event table; settings().rayEvents).
 */
bool instrumentStage(DeviceState *device, const std::vector<uint32_t> &code, int stage, const char *entry, bool blocks, bool rayEvents,
                     std::vector<uint8_t> &out, std::string &why);

/**
 * The twin's stages of those `parts` (a library defines only some): instrumented
 * modules for the traced stages, the app's for the others. False with why when
 * a stage cannot be traced at all.
 */
bool twinStages(DeviceState *device, const VkPipelineShaderStageCreateInfo *stages, uint32_t count, VkGraphicsPipelineLibraryFlagsEXT parts,
                TwinStages &out, std::string &why, bool blocks = false, bool rayEvents = false);

/**
 * Block profiles: registers the instrumented module (once per content) and gives the stage its first cell in
 * the pipeline's row through the specialization constant WT_BLOCK_BASE_SPEC_ID, or in a library (out.library)
 * notes it by stage code for the links (block_specialization.cpp).
 */
void addBlockStage(DeviceState *device, const std::vector<uint8_t> &traced, const std::string &name, int code, VkPipelineShaderStageCreateInfo &stage,
                   TwinStages &out);

/**
 * Block profiles of a pipeline linking these libraries (their blockStageModules): a library's modules join its own
 * by stage; any other pipeline lays them out after its own stages' in its row and notes each stage's offset.
 */
void addLibraryBlockStages(DeviceState *device, const std::vector<const PipelineInfo *> &libraries, TwinStages &out);

}  // namespace wtl
