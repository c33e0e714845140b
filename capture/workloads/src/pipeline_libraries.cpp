// --libraries: a workload's graphics pipelines built as DXVK and vkd3d-proton build theirs, from
// VK_EXT_graphics_pipeline_library parts linked into the pipeline that is bound. A complete create
// info (Context::graphics) is split into its four state subsets, one library each, so the linked
// pipeline renders exactly what the complete one would: the capture layer's tests compare the two.
#include "workloads.hpp"

namespace {

VkPipeline createLibrary(Context &ctx, VkGraphicsPipelineCreateInfo info, VkGraphicsPipelineLibraryFlagsEXT part, const void *chain,
                         const char *what) {
  VkGraphicsPipelineLibraryCreateInfoEXT library{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT};
  library.pNext = const_cast<void *>(chain);  // the spec types this pNext non-const; nothing writes through it
  library.flags = part;
  info.pNext = &library;
  info.flags = VK_PIPELINE_CREATE_LIBRARY_BIT_KHR;
  // Link-time optimization needs what the libraries' compiles knew.
  if (ctx.style.linkTimeOptimized) info.flags |= VK_PIPELINE_CREATE_RETAIN_LINK_TIME_OPTIMIZATION_INFO_BIT_EXT;
  VkPipeline pipeline;
  VkResult r = vkCreateGraphicsPipelines(ctx.gpu.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
  if (r != VK_SUCCESS) fatal("the driver could not build the %s library (VkResult %d)", what, static_cast<int>(r));
  return pipeline;
}

bool isFragmentStage(const VkPipelineShaderStageCreateInfo &s) { return s.stage == VK_SHADER_STAGE_FRAGMENT_BIT; }

}  // namespace

VkPipeline linkFromLibraries(Context &ctx, const VkGraphicsPipelineCreateInfo &complete) {
  // Each part carries only its subset's state; the pointers of the others are left null (the driver ignores them).
  VkGraphicsPipelineCreateInfo none{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  none.basePipelineIndex = -1;

  VkGraphicsPipelineCreateInfo vertexInput = none;
  vertexInput.pVertexInputState = complete.pVertexInputState;
  vertexInput.pInputAssemblyState = complete.pInputAssemblyState;

  std::vector<VkPipelineShaderStageCreateInfo> preRasterStages, fragmentStages;
  for (uint32_t i = 0; i < complete.stageCount; i++)
    (isFragmentStage(complete.pStages[i]) ? fragmentStages : preRasterStages).push_back(complete.pStages[i]);
  VkGraphicsPipelineCreateInfo preRaster = none;
  preRaster.stageCount = static_cast<uint32_t>(preRasterStages.size());
  preRaster.pStages = preRasterStages.data();
  preRaster.pTessellationState = complete.pTessellationState;
  preRaster.pViewportState = complete.pViewportState;
  preRaster.pRasterizationState = complete.pRasterizationState;
  preRaster.pDynamicState = complete.pDynamicState;  // the viewport and scissor: pre-rasterization state
  preRaster.layout = complete.layout;

  VkGraphicsPipelineCreateInfo fragment = none;
  fragment.stageCount = static_cast<uint32_t>(fragmentStages.size());
  fragment.pStages = fragmentStages.data();
  fragment.pMultisampleState = complete.pMultisampleState;
  fragment.pDepthStencilState = complete.pDepthStencilState;
  fragment.layout = ctx.fragmentLayout != VK_NULL_HANDLE ? ctx.fragmentLayout : complete.layout;

  VkGraphicsPipelineCreateInfo output = none;
  output.pColorBlendState = complete.pColorBlendState;
  output.pMultisampleState = complete.pMultisampleState;

  // The dynamic-rendering formats (complete.pNext) belong to the three parts after vertex input.
  VkPipeline parts[4] = {
      createLibrary(ctx, vertexInput, VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT, nullptr, "vertex input"),
      createLibrary(ctx, preRaster, VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT, complete.pNext, "pre-rasterization"),
      createLibrary(ctx, fragment, VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT, complete.pNext, "fragment shader"),
      createLibrary(ctx, output, VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT, complete.pNext, "fragment output"),
  };
  VkPipelineLibraryCreateInfoKHR libraries{VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR};
  libraries.libraryCount = 4;
  libraries.pLibraries = parts;
  VkGraphicsPipelineCreateInfo link = none;
  link.pNext = &libraries;
  link.flags = ctx.style.linkTimeOptimized ? VK_PIPELINE_CREATE_LINK_TIME_OPTIMIZATION_BIT_EXT : 0;
  link.layout = complete.layout;
  VkPipeline pipeline;
  VkResult r = vkCreateGraphicsPipelines(ctx.gpu.device, VK_NULL_HANDLE, 1, &link, nullptr, &pipeline);
  if (r != VK_SUCCESS) fatal("the driver could not link the pipeline libraries (VkResult %d)", static_cast<int>(r));
  ctx.libraries.insert(ctx.libraries.end(), parts, parts + 4);
  return pipeline;
}
