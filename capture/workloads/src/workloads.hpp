// Reference workloads: headless frames that reproduce the 2016 case studies.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu.hpp"

/* Per-draw knobs, the push-constant block of capture/workloads/shaders/common.glsl. */
struct Knobs {
  float rect[4] = {-1, -1, 1, 1};
  uint32_t gridW = 1, gridH = 1, patchBase = 0;
  uint32_t vsWork = 0, tcsWork = 0, tesWork = 0, gsWork = 0, fsWork = 0, csWork = 0;
  float tessLevel = 1;
  uint32_t flavor = 0;
  float depth = 0.5f;
  float color[4] = {0.7f, 0.7f, 0.7f, 1};
};
static_assert(sizeof(Knobs) == 80, "Knobs must match common.glsl");

/* Named numeric knobs with defaults; --param key=value overrides them. */
class Params {
 public:
  void define(const std::string &key, double fallback, const std::string &help);
  double get(const std::string &key) const;
  uint32_t u(const std::string &key) const { return static_cast<uint32_t>(get(key)); }
  void set(const std::string &key, double value);  // fails on unknown keys
  std::string json() const;
  std::string help() const;

 private:
  std::map<std::string, double> values_;
  std::map<std::string, std::string> help_;
  std::vector<std::string> order_;
};

struct GraphicsPipelineDesc {
  std::vector<std::string> shaders;  // file names, e.g. "aqt.vert"; the stage comes from the extension
  VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  uint32_t patchControlPoints = 0;
  bool depthTest = true;
  VkPipelineLayout layout = VK_NULL_HANDLE;  // VK_NULL_HANDLE: the context's layout
};

/* How Context::graphics builds graphics pipelines (--app only; capture/workloads/src/pipeline_libraries.cpp). */
struct PipelineStyle {
  /* From four VK_EXT_graphics_pipeline_library parts (vertex input, pre-rasterization, fragment shader, fragment output), linked. */
  bool libraries = false;
  bool linkTimeOptimized = false;  // linked with VK_PIPELINE_CREATE_LINK_TIME_OPTIMIZATION_BIT_EXT
  /* Layouts with VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT; the fragment library's has a null set 0 (its shader reads none). */
  bool independentSets = false;
  /* Each stage's SPIR-V in a VkShaderModuleCreateInfo chained to it, no shader module. */
  bool inlineShaders = false;
};

class Frame;

/* What a workload records into: shared resources and the per-draw hooks. */
class Context {
 public:
  /* appSetCount: descriptor sets in an untraced app's layout (set 0 the data, the rest empty; --app --all-sets). */
  Context(Gpu &gpu, uint32_t width, uint32_t height, wtTracer *tracer, VkDeviceSize dataBytes, PipelineStyle style = {},
          uint32_t appSetCount = 1);
  ~Context();
  Gpu &gpu;
  uint32_t width, height;
  PipelineStyle style;
  wtTracer *tracer;  // null: an untraced app (--app); its layout has set 0 only and frames must be plain
  /* Clear the attachments inside the timed frame (else before it, see Frame::clearTargets). */
  bool clearInFrame = false;
  /* Per draw of the frame being recorded: whether a full barrier precedes it (metadata "barrierBefore"). */
  std::vector<bool> barrierBefore;
  Buffer data;  // set 0, binding 0: the workload's storage buffer (patch table, particles)
  VkPipelineLayout layout = VK_NULL_HANDLE;
  /* --independent-sets: the fragment shader library's layout (set 0 null); else VK_NULL_HANDLE. */
  VkPipelineLayout fragmentLayout = VK_NULL_HANDLE;

  VkPipeline graphics(const std::string &shaderDir, const GraphicsPipelineDesc &desc);
  VkPipeline compute(const std::string &shaderDir, const std::string &file);

  Image color, depth;
  /* Vulkan 1.0 (Gpu::vulkan10) only: render passes that clear or load the attachments, compatible (render_pass_10.cpp). */
  VkRenderPass renderPassClear = VK_NULL_HANDLE, renderPassLoad = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkDescriptorSetLayout dataLayout = VK_NULL_HANDLE, emptyLayout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet dataSet = VK_NULL_HANDLE;
  std::vector<VkPipeline> pipelines;
  std::map<std::string, VkShaderModule> modules;
  std::map<std::string, std::vector<uint32_t>> inlineCode;  // --inline-shaders: SPIR-V by path
  /* --blocks (the tracer has a block table): modules by path (WT_NO_BLOCK_MODULE: not profiled), each pipeline's row. */
  bool blocks = false;
  bool blockRowPerPipeline = false;  // --block-rows pipeline: the draws of one pipeline share its row
  std::map<std::string, uint32_t> blockModules;
  std::map<VkPipeline, std::vector<wtBlockRowModule>> blockRows;
  /* --ray-events (the tracer has a ray-event table): each trace-rays call of the captured frame gets a row. */
  bool rayEvents = false;
  /* --libraries: the parts, kept until the end (lavapipe, Mesa 22.3, crashes drawing with a pipeline whose libraries were destroyed). */
  std::vector<VkPipeline> libraries;
  /* Run by the destructor after the device is idle and the pipelines are gone: a workload's own resources. */
  std::vector<std::function<void()>> cleanups;
};

/* One frame being recorded: traced (hooks on) or plain. */
class Frame {
 public:
  Frame(Context &ctx, VkCommandBuffer cmd, bool traced) : ctx(ctx), cmd(cmd), traced(traced) {}
  Context &ctx;
  VkCommandBuffer cmd;
  bool traced;

  /* Starts rendering; `clear` clears the targets only when the context clears inside frames. */
  void beginRendering(bool clear);
  /* Clears the targets in a render pass of its own (before the timed frame). */
  void clearTargets();
  void endRendering();
  void bindGraphics(VkPipeline pipeline);
  void bindCompute(VkPipeline pipeline);
  /* Binds a pipeline the workload set up itself (mesh, ray tracing): its draws then get its block row. */
  void bindPipeline(VkPipelineBindPoint bindPoint, VkPipeline pipeline);
  void push(const Knobs &knobs);
  void draw(const char *label, uint32_t vertexCount);
  void dispatch(const char *label, uint32_t groups);
  /*
   * A call the workload records itself (`call`: a trace-rays or mesh-task draw), between the hooks, with the trace set bound on
   * `layout`; its target (the grid its warps' positions lie on: a launch size, a render area) is targetWidth x targetHeight.
   */
  void custom(const char *label, VkPipelineBindPoint bindPoint, VkPipelineLayout layout, wtDrawKind kind, uint32_t targetWidth,
              uint32_t targetHeight, const std::function<void()> &call);
  /* The forced GPU sync between draws (ends and restarts rendering when inside). */
  void sync();

 private:
  bool rendering_ = false;
  bool pendingBarrier_ = true;  // every frame starts after a full barrier (capture start or frame timer)
  VkPipeline pipeline_ = VK_NULL_HANDLE;  // the last one bound: whose block row a draw gets
  void noteDraw();
  /* --blocks: after wtCmdBeginDraw, draw `id` gets the bound pipeline's row. */
  void giveBlockRow(uint32_t id);
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual const char *name() const = 0;
  virtual const char *summary() const = 0;
  Params params;
  /* WorkloadNeeds bits: device features beyond the base set. */
  virtual uint32_t needs() const { return 0; }
  /* Storage-buffer bytes the workload needs at set 0, binding 0. */
  virtual VkDeviceSize dataBytes() const { return 16; }
  /* Fills the storage buffer (host-visible, mapped). */
  virtual void fillData(void *) const {}
  /* Builds its pipelines from one shader directory; returns an opaque pipeline set. */
  virtual std::vector<VkPipeline> pipelines(Context &ctx, const std::string &shaderDir) const = 0;
  /* Records one frame. */
  virtual void record(Frame &frame, const std::vector<VkPipeline> &pipelines) const = 0;
  /* The shader stages of each draw, in draw order (for the tests), as a JSON array. */
  virtual std::string drawStagesJson() const = 0;
  /* Shader files the workload loads (for --list). */
  virtual std::vector<std::string> shaderFiles() const = 0;
};

/*
 * --blocks (blocks.cpp): registers each stage's module (path: DIR/FILE.spv) with the tracer and sets its
 * specialization constant WT_BLOCK_BASE_SPEC_ID to the module's offset in the pipeline's row, merged with
 * the stage's own constants. The stages point into this object: keep it until the pipeline is created,
 * then remember(pipeline). Without --blocks it changes nothing.
 */
class BlockSpecialization {
 public:
  BlockSpecialization(Context &ctx, std::vector<VkPipelineShaderStageCreateInfo> &stages, const std::vector<std::string> &paths);
  void remember(VkPipeline pipeline);

 private:
  Context &ctx_;
  std::vector<wtBlockRowModule> row_;
  std::vector<VkSpecializationInfo> infos_;
  std::vector<std::vector<VkSpecializationMapEntry>> entries_;
  std::vector<std::vector<uint8_t>> data_;
};

/* The render passes of a Vulkan 1.0 context (render_pass_10.cpp). */
void createRenderPasses10(Context &ctx);
void destroyRenderPasses10(Context &ctx);
void beginRenderPass10(Context &ctx, VkCommandBuffer cmd, bool clear, const VkClearValue clearValues[2]);

/* The ray-traced scene (raytrace.cpp) and the meshlet draw (meshlets.cpp). */
std::unique_ptr<Workload> makeRayTracingWorkload();
std::unique_ptr<Workload> makeRayTracingReorderWorkload();
std::unique_ptr<Workload> makeMeshletWorkload();

/*
 * The pipeline of a complete create info, built instead from four graphics pipeline library parts (its
 * state split between them) linked as ctx.style says (pipeline_libraries.cpp). Fails with one line.
 */
VkPipeline linkFromLibraries(Context &ctx, const VkGraphicsPipelineCreateInfo &complete);

std::vector<std::unique_ptr<Workload>> allWorkloads();
std::unique_ptr<Workload> findWorkload(const std::string &name);
/* findWorkload, or a fatal error naming the known workloads. */
std::unique_ptr<Workload> requireWorkload(const std::string &name);
