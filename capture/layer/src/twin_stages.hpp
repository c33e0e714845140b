// The stages of a twin: the traced ones' SPIR-V instrumented by the CLI
// (twin_stages.cpp), from shader modules or inline code.
#pragma once

#include <string>
#include <vector>

#include "pipeline_chain.hpp"
#include "state.hpp"

namespace wtl {

/** A twin's stages and what they need until the twin is created: instrumented modules, chains without the app's inline SPIR-V. */
struct TwinStages {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  std::vector<VkShaderModule> modules;
  std::vector<ChainEdit> chains;
  bool instrumented = false;  // at least one stage is
  DeviceState *device = nullptr;
  ~TwinStages();
};

/** Instrumented SPIR-V for one stage (its stage code, stages.hpp) from the CLI, or false with why. */
bool instrumentStage(DeviceState *device, const std::vector<uint32_t> &code, int stage, const char *entry, std::vector<uint8_t> &out,
                     std::string &why);

/**
 * The twin's stages of those `parts` (a library defines only some): instrumented
 * modules for the traced stages, the app's for the others. False with why when
 * a stage cannot be traced at all.
 */
bool twinStages(DeviceState *device, const VkPipelineShaderStageCreateInfo *stages, uint32_t count, VkGraphicsPipelineLibraryFlagsEXT parts,
                TwinStages &out, std::string &why);

}  // namespace wtl
