// Meshlet reference workload (VK_EXT_mesh_shader): a task shader culls a grid of meshlets (one
// per invocation, 32 per workgroup) and launches one mesh workgroup per survivor; each mesh
// workgroup expands its meshlet into an 8 x 8-vertex, 98-triangle patch of a height field,
// shaded by the shared fragment shader. Task, mesh and fragment stages are instrumented.
#include <algorithm>

#include "workloads.hpp"

namespace {

const VkShaderStageFlags kPushStages = VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT | VK_SHADER_STAGE_FRAGMENT_BIT;
const char *const kShaderFiles[] = {"meshlets.task", "meshlets.mesh", "shade.frag"};

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

/* The task + mesh + fragment pipeline, on the state's layout (push constants reach task and mesh shaders). */
VkPipeline createPipeline(MeshState &s, const std::string &dir) {
  GraphicsPipelineDesc desc;
  desc.shaders = {std::begin(kShaderFiles), std::end(kShaderFiles)};
  desc.layout = s.layout;
  return s.ctx->graphics(dir, desc);
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
    f.bindPipeline(VK_PIPELINE_BIND_POINT_GRAPHICS, p[0]);
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
