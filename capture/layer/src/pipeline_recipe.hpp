// A copy of what a pipeline's instrumented twin needs, taken when the app
// creates the pipeline, so the twin (and its compile) can wait until a
// capture needs it: app start-up pays only for the copy.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "state.hpp"

namespace wtl {

class PipelineRecipe {
 public:
  /**
   * Copies the create info, with the SPIR-V of every stage (from its module or
   * inline); of a pipeline library, only the state subsets it defines. Null when
   * it holds something the copy does not know (an extension struct): then the
   * twin is made at once, as before.
   */
  static std::unique_ptr<PipelineRecipe> ofGraphics(DeviceState *device, const VkGraphicsPipelineCreateInfo &info);
  static std::unique_ptr<PipelineRecipe> ofCompute(DeviceState *device, const VkComputePipelineCreateInfo &info);

  bool compute() const { return compute_; }
  /** The app's objects the twin still refers to: the layer makes the twin before the app destroys them. */
  VkPipelineLayout appLayout() const { return appLayout_; }
  VkRenderPass renderPass() const { return graphics_.renderPass; }
  /** The app's pipeline libraries it links (their twins are linked into its twin): made before the app destroys them. */
  const std::vector<VkPipeline> &libraries() const { return libraries_; }

  /**
   * The create info again, each stage with a fresh module made from its SPIR-V
   * copy (returned in `modules`, registered with the device so the twin's
   * stages find their SPIR-V; the caller destroys and unregisters them).
   */
  bool materialize(DeviceState *device, std::vector<VkShaderModule> &modules, std::string &why);
  const VkGraphicsPipelineCreateInfo &graphics() const { return graphics_; }
  const VkComputePipelineCreateInfo &computeInfo() const { return compute_info_; }

 private:
  struct Stage {
    VkPipelineShaderStageCreateInfo info{};
    std::string name;
    std::shared_ptr<const std::vector<uint32_t>> spirv;
    VkSpecializationInfo specialization{};
    std::vector<VkSpecializationMapEntry> entries;
    std::vector<uint8_t> data;
  };

  bool copyStage(DeviceState *device, const VkPipelineShaderStageCreateInfo &stage);
  /** A copy of a pNext chain of the structs the recipe knows; false on any other. */
  bool copyChain(const void *chain, const void **out);
  template <typename T>
  const T *keep(const T *value, uint32_t count = 1);

  bool compute_ = false;
  VkPipelineLayout appLayout_ = VK_NULL_HANDLE;
  VkGraphicsPipelineCreateInfo graphics_{};
  VkComputePipelineCreateInfo compute_info_{};
  std::vector<VkPipeline> libraries_;
  std::vector<Stage> stages_;
  std::vector<VkPipelineShaderStageCreateInfo> stageInfos_;
  std::vector<std::unique_ptr<uint8_t[]>> storage_;  // every copied struct and array
};

}  // namespace wtl
