// Meshlet reference workload (VK_EXT_mesh_shader): a task shader culls a grid of meshlets (one
// per invocation, 32 per workgroup) and launches one mesh workgroup per survivor; each mesh
// workgroup expands its meshlet into an 8 x 8-vertex, 98-triangle patch of a height field,
// shaded by the shared fragment shader. Task, mesh and fragment stages are instrumented.
#include <algorithm>

#include "workloads.hpp"

namespace {

const VkShaderStageFlags kPushStages = VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT | VK_SHADER_STAGE_FRAGMENT_BIT;
const char *const kShaderFiles[] = {"meshlets.task", "meshlets.mesh", "shade.frag"};
const VkShaderStageFlagBits kShaderStages[] = {VK_SHADER_STAGE_TASK_BIT_EXT, VK_SHADER_STAGE_MESH_BIT_EXT, VK_SHADER_STAGE_FRAGMENT_BIT};

/* The pipeline layout (push constants reach task and mesh shaders) and the draw entry point, per Context. */
struct MeshState {
  Context *ctx = nullptr;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  PFN_vkCmdDrawMeshTasksEXT drawMeshTasks = nullptr;
};

std::shared_ptr<MeshState> createState(Context &ctx) {
  auto s = std::make_shared<MeshState>();
  s->ctx = &ctx;
  s->drawMeshTasks = reinterpret_cast<PFN_vkCmdDrawMeshTasksEXT>(vkGetDeviceProcAddr(ctx.gpu.device, "vkCmdDrawMeshTasksEXT"));
  if (!s->drawMeshTasks) fatal("unsupported: mesh shaders (no vkCmdDrawMeshTasksEXT)");
  // Set 0 the workload data, 1..WT_SET-1 empty, WT_SET the trace (none for an untraced app).
  std::vector<VkDescriptorSetLayout> sets(ctx.tracer ? WT_DEFAULT_SET + 1 : 1, ctx.emptyLayout);
  sets[0] = ctx.dataLayout;
  if (ctx.tracer) sets[WT_DEFAULT_SET] = wtTracerSetLayout(ctx.tracer);
  VkPushConstantRange range{kPushStages, 0, sizeof(Knobs)};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = static_cast<uint32_t>(sets.size());
  pl.pSetLayouts = sets.data();
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &range;
  check(vkCreatePipelineLayout(ctx.gpu.device, &pl, nullptr, &s->layout), "vkCreatePipelineLayout (mesh)");
  return s;
}

VkPipeline createPipeline(MeshState &s, const std::string &dir) {
  Context &ctx = *s.ctx;
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  for (size_t i = 0; i < 3; i++) {
    std::string path = dir + "/" + kShaderFiles[i] + ".spv";
    auto it = ctx.modules.find(path);
    VkShaderModule module = it != ctx.modules.end() ? it->second : (ctx.modules[path] = loadShaderModule(ctx.gpu, path));
    VkPipelineShaderStageCreateInfo st{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    st.stage = kShaderStages[i];
    st.module = module;
    st.pName = "main";
    stages.push_back(st);
  }
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo depth{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depth.depthTestEnable = VK_TRUE;
  depth.depthWriteEnable = VK_TRUE;
  depth.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkPipelineColorBlendAttachmentState attachment{};
  attachment.colorWriteMask = 0xf;
  VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend.attachmentCount = 1;
  blend.pAttachments = &attachment;
  VkDynamicState dynamics[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic.dynamicStateCount = 2;
  dynamic.pDynamicStates = dynamics;
  VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachmentFormats = &ctx.color.format;
  rendering.depthAttachmentFormat = ctx.depth.format;

  // No vertex input or input assembly: the mesh shader makes the primitives.
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.pNext = &rendering;
  ci.stageCount = static_cast<uint32_t>(stages.size());
  ci.pStages = stages.data();
  ci.pViewportState = &viewport;
  ci.pRasterizationState = &raster;
  ci.pMultisampleState = &multisample;
  ci.pDepthStencilState = &depth;
  ci.pColorBlendState = &blend;
  ci.pDynamicState = &dynamic;
  ci.layout = s.layout;
  VkPipeline pipeline;
  VkResult r = vkCreateGraphicsPipelines(ctx.gpu.device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline);
  if (r != VK_SUCCESS) fatal("the driver could not build the mesh pipeline of %s (VkResult %d)", dir.c_str(), r);
  ctx.pipelines.push_back(pipeline);
  return pipeline;
}

class MeshletDraw : public Workload {
 public:
  MeshletDraw() {
    params.define("width", 1280, "render target width (px)");
    params.define("height", 720, "render target height (px)");
    params.define("grid", 64, "meshlets across (rows = grid * 9 / 16); one task invocation each");
    params.define("cull", 25, "percent of meshlets the task shader culls");
    params.define("taskWork", 0, "task busy-loop iterations per invocation");
    params.define("meshWork", 8, "mesh busy-loop iterations per vertex");
    params.define("shading", 16, "fragment busy-loop iterations");
  }
  const char *name() const override { return "meshlets"; }
  const char *summary() const override {
    return "meshlet draw (VK_EXT_mesh_shader): a task shader culls meshlets, mesh workgroups expand the survivors into height-field patches";
  }
  uint32_t needs() const override { return kNeedsMeshShader; }
  std::vector<std::string> shaderFiles() const override { return {std::begin(kShaderFiles), std::end(kShaderFiles)}; }
  uint32_t gridW() const { return std::max(1u, params.u("grid")); }
  uint32_t gridH() const { return std::max(1u, gridW() * 9 / 16); }
  std::vector<VkPipeline> pipelines(Context &ctx, const std::string &dir) const override {
    if (!state_ || state_->ctx != &ctx) {
      state_ = createState(ctx);
      std::shared_ptr<MeshState> s = state_;
      ctx.cleanups.push_back([s] { vkDestroyPipelineLayout(s->ctx->gpu.device, s->layout, nullptr); });
    }
    return {createPipeline(*state_, dir)};
  }
  void record(Frame &f, const std::vector<VkPipeline> &p) const override {
    MeshState &s = *state_;
    Knobs k;
    k.rect[0] = -0.95f, k.rect[1] = -0.8f, k.rect[2] = 0.95f, k.rect[3] = 0.8f;
    k.gridW = gridW(), k.gridH = gridH();
    k.tcsWork = params.u("taskWork");  // the task shader's busy loop (see meshlets.task)
    k.vsWork = params.u("meshWork");   // the mesh shader's busy loop (see meshlets.mesh)
    k.fsWork = params.u("shading");
    k.flavor = std::min(100u, params.u("cull"));
    k.color[0] = 0.45f, k.color[1] = 0.7f, k.color[2] = 0.5f;
    uint32_t groups = (k.gridW * k.gridH + 31) / 32;
    f.beginRendering(true);
    vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p[0]);
    vkCmdBindDescriptorSets(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s.layout, 0, 1, &f.ctx.dataSet, 0, nullptr);
    VkViewport viewport{0, 0, static_cast<float>(f.ctx.width), static_cast<float>(f.ctx.height), 0, 1};
    VkRect2D scissor{{0, 0}, {f.ctx.width, f.ctx.height}};
    vkCmdSetViewport(f.cmd, 0, 1, &viewport);
    vkCmdSetScissor(f.cmd, 0, 1, &scissor);
    vkCmdPushConstants(f.cmd, s.layout, kPushStages, 0, sizeof k, &k);
    f.custom("meshlets: task culls, mesh expands 8x8-vertex patches", VK_PIPELINE_BIND_POINT_GRAPHICS, s.layout, WT_KIND_DRAW, f.ctx.width,
             f.ctx.height, [&] { s.drawMeshTasks(f.cmd, groups, 1, 1); });
    f.endRendering();
  }
  std::string drawStagesJson() const override { return R"([["TASK","MESH","FS"]])"; }

 private:
  mutable std::shared_ptr<MeshState> state_;
};

}  // namespace

std::unique_ptr<Workload> makeMeshletWorkload() { return std::unique_ptr<Workload>(new MeshletDraw()); }
