// Shared frame resources, pipelines and per-draw hooks of the reference workloads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "workloads.hpp"

void Params::define(const std::string &key, double fallback, const std::string &help) {
  if (!values_.count(key)) order_.push_back(key);
  values_[key] = fallback;
  help_[key] = help;
}

double Params::get(const std::string &key) const {
  auto it = values_.find(key);
  if (it == values_.end()) fatal("internal: unknown parameter %s", key.c_str());
  return it->second;
}

void Params::set(const std::string &key, double value) {
  if (!values_.count(key)) {
    std::string known;
    for (const auto &k : order_) known += (known.empty() ? "" : ", ") + k;
    fatal("unknown parameter \"%s\" (this workload has: %s)", key.c_str(), known.c_str());
  }
  if (!std::isfinite(value) || value < 0) fatal("parameter %s must be a number >= 0", key.c_str());
  values_[key] = value;
}

std::string Params::json() const {
  std::ostringstream out;
  out << "{";
  for (size_t i = 0; i < order_.size(); i++) {
    char number[64];
    std::snprintf(number, sizeof number, "%.10g", values_.at(order_[i]));
    out << (i ? ", " : "") << jsonEscape(order_[i]) << ": " << number;
  }
  out << "}";
  return out.str();
}

std::string Params::help() const {
  std::ostringstream out;
  for (const auto &k : order_) {
    char number[64];
    std::snprintf(number, sizeof number, "%g", values_.at(k));
    out << "    " << k << "=" << number << "  " << help_.at(k) << "\n";
  }
  return out.str();
}

static const VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
static const VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;

Context::Context(Gpu &g, uint32_t frameWidth, uint32_t frameHeight, wtTracer *t, VkDeviceSize dataBytes, PipelineStyle pipelineStyle,
                 uint32_t appSetCount)
    : gpu(g), width(frameWidth), height(frameHeight), style(pipelineStyle), tracer(t) {
  color = createImage(gpu, width, height, kColorFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                      VK_IMAGE_ASPECT_COLOR_BIT);
  depth = createImage(gpu, width, height, kDepthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
  data = createBuffer(gpu, dataBytes < 16 ? 16 : dataBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
  std::memset(data.map, 0, static_cast<size_t>(data.size));

  // The attachments stay in their attachment layouts for the whole run.
  VkCommandBuffer cmd = beginCommands(gpu);
  VkImageMemoryBarrier b[2] = {{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER}, {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER}};
  b[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  b[0].oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  b[0].newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  b[0].srcQueueFamilyIndex = b[0].dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b[0].image = color.image;
  b[0].subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  b[1] = b[0];
  b[1].dstAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  // DEPTH_ATTACHMENT_OPTIMAL is Vulkan 1.2.
  b[1].newLayout = gpu.vulkan10 ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
  b[1].image = depth.image;
  b[1].subresourceRange.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0, nullptr, 2, b);
  submitAndWait(gpu, cmd);

  VkDescriptorSetLayoutBinding binding{};
  binding.binding = 0;
  binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  binding.descriptorCount = 1;
  binding.stageFlags = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT;
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = 1;
  li.pBindings = &binding;
  check(vkCreateDescriptorSetLayout(gpu.device, &li, nullptr, &dataLayout), "vkCreateDescriptorSetLayout");
  VkDescriptorSetLayoutCreateInfo empty{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  check(vkCreateDescriptorSetLayout(gpu.device, &empty, nullptr, &emptyLayout), "vkCreateDescriptorSetLayout");
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
  VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pi.maxSets = 1;
  pi.poolSizeCount = 1;
  pi.pPoolSizes = &size;
  check(vkCreateDescriptorPool(gpu.device, &pi, nullptr, &pool), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &dataLayout;
  check(vkAllocateDescriptorSets(gpu.device, &ai, &dataSet), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo info{data.buffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstSet = dataSet;
  w.descriptorCount = 1;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w.pBufferInfo = &info;
  vkUpdateDescriptorSets(gpu.device, 1, &w, 0, nullptr);

  // Set 0: the workload's data; sets 1..WT_SET-1 empty; set WT_SET: the trace. No tracer (--app): set 0, then appSetCount - 1 empty.
  std::vector<VkDescriptorSetLayout> sets(tracer ? WT_DEFAULT_SET + 1 : std::max(1u, appSetCount), emptyLayout);
  sets[0] = dataLayout;
  if (tracer) sets[WT_DEFAULT_SET] = wtTracerSetLayout(tracer);
  VkPushConstantRange range{VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Knobs)};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = static_cast<uint32_t>(sets.size());
  pl.pSetLayouts = sets.data();
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &range;
  if (style.independentSets) pl.flags = VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT;
  check(vkCreatePipelineLayout(gpu.device, &pl, nullptr, &layout), "vkCreatePipelineLayout");
  if (gpu.vulkan10) createRenderPasses10(*this);
  if (style.independentSets) {
    // The fragment shader reads no set: its library's layout leaves set 0 null, as GPL allows.
    VkDescriptorSetLayout none = VK_NULL_HANDLE;
    pl.pSetLayouts = &none;
    check(vkCreatePipelineLayout(gpu.device, &pl, nullptr, &fragmentLayout), "vkCreatePipelineLayout");
  }
}

Context::~Context() {
  VkDevice d = gpu.device;
  vkDeviceWaitIdle(d);
  for (VkPipeline p : pipelines) vkDestroyPipeline(d, p, nullptr);
  for (VkPipeline p : libraries) vkDestroyPipeline(d, p, nullptr);
  for (auto &cleanup : cleanups) cleanup();
  for (auto &m : modules) vkDestroyShaderModule(d, m.second, nullptr);
  vkDestroyPipelineLayout(d, layout, nullptr);
  if (gpu.vulkan10) destroyRenderPasses10(*this);
  if (fragmentLayout) vkDestroyPipelineLayout(d, fragmentLayout, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  vkDestroyDescriptorSetLayout(d, dataLayout, nullptr);
  vkDestroyDescriptorSetLayout(d, emptyLayout, nullptr);
  destroyBuffer(gpu, data);
  destroyImage(gpu, color);
  destroyImage(gpu, depth);
}

static VkShaderStageFlagBits stageOf(const std::string &file) {
  auto ends = [&](const char *ext) {
    size_t n = std::strlen(ext);
    return file.size() > n && file.compare(file.size() - n, n, ext) == 0;
  };
  if (ends(".vert")) return VK_SHADER_STAGE_VERTEX_BIT;
  if (ends(".tesc")) return VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
  if (ends(".tese")) return VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT;
  if (ends(".geom")) return VK_SHADER_STAGE_GEOMETRY_BIT;
  if (ends(".frag")) return VK_SHADER_STAGE_FRAGMENT_BIT;
  if (ends(".comp")) return VK_SHADER_STAGE_COMPUTE_BIT;
  if (ends(".task")) return VK_SHADER_STAGE_TASK_BIT_EXT;
  if (ends(".mesh")) return VK_SHADER_STAGE_MESH_BIT_EXT;
  fatal("internal: no stage for %s", file.c_str());
}

static VkShaderModule moduleFor(Context &ctx, const std::string &dir, const std::string &file) {
  std::string path = dir + "/" + file + ".spv";
  auto it = ctx.modules.find(path);
  if (it != ctx.modules.end()) return it->second;
  VkShaderModule m = loadShaderModule(ctx.gpu, path);
  ctx.modules[path] = m;
  return m;
}

VkPipeline Context::graphics(const std::string &dir, const GraphicsPipelineDesc &desc) {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  std::vector<VkShaderModuleCreateInfo> inlined(desc.shaders.size(), {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO});
  std::vector<std::string> paths;
  bool meshShaded = false;
  for (const std::string &file : desc.shaders) {
    paths.push_back(dir + "/" + file + ".spv");
    VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    s.stage = stageOf(file);
    s.pName = "main";
    if (style.inlineShaders) {
      // No module: the SPIR-V rides in the stage's pNext (VK_KHR_maintenance5 / graphics pipeline libraries).
      std::string path = dir + "/" + file + ".spv";
      if (!inlineCode.count(path)) inlineCode[path] = readSpirv(path);
      VkShaderModuleCreateInfo &code = inlined[stages.size()];
      code.codeSize = inlineCode[path].size() * 4;
      code.pCode = inlineCode[path].data();
      s.pNext = &code;
    } else {
      s.module = moduleFor(*this, dir, file);
    }
    stages.push_back(s);
    meshShaded = meshShaded || s.stage == VK_SHADER_STAGE_MESH_BIT_EXT;
  }
  BlockSpecialization blockBases(*this, stages, paths);
  VkPipelineVertexInputStateCreateInfo vertexInput{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = desc.topology;
  VkPipelineTessellationStateCreateInfo tess{VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO};
  tess.patchControlPoints = desc.patchControlPoints;
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo depthState{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depthState.depthTestEnable = desc.depthTest;
  depthState.depthWriteEnable = desc.depthTest;
  depthState.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
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
  rendering.pColorAttachmentFormats = &kColorFormat;
  rendering.depthAttachmentFormat = kDepthFormat;

  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  if (gpu.vulkan10) ci.renderPass = renderPassLoad;
  else ci.pNext = &rendering;
  if (gpu.executableStats) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  ci.stageCount = static_cast<uint32_t>(stages.size());
  ci.pStages = stages.data();
  // A mesh shader makes its own primitives: no vertex input or input assembly.
  ci.pVertexInputState = meshShaded ? nullptr : &vertexInput;
  ci.pInputAssemblyState = meshShaded ? nullptr : &assembly;
  ci.pTessellationState = desc.patchControlPoints ? &tess : nullptr;
  ci.pViewportState = &viewport;
  ci.pRasterizationState = &raster;
  ci.pMultisampleState = &multisample;
  ci.pDepthStencilState = &depthState;
  ci.pColorBlendState = &blend;
  ci.pDynamicState = &dynamic;
  ci.layout = desc.layout != VK_NULL_HANDLE ? desc.layout : layout;
  if (style.libraries && !meshShaded) {
    pipelines.push_back(linkFromLibraries(*this, ci));
    blockBases.remember(pipelines.back());
    return pipelines.back();
  }
  VkPipeline pipeline;
  VkResult r = vkCreateGraphicsPipelines(gpu.device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline);
  if (r != VK_SUCCESS) fatal("the driver could not build the pipeline of %s/%s... (VkResult %d)", dir.c_str(), desc.shaders[0].c_str(), r);
  blockBases.remember(pipeline);
  pipelines.push_back(pipeline);
  return pipeline;
}

VkPipeline Context::compute(const std::string &dir, const std::string &file) {
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  if (gpu.executableStats) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = moduleFor(*this, dir, file);
  ci.stage.pName = "main";
  ci.layout = layout;
  std::vector<VkPipelineShaderStageCreateInfo> stages{ci.stage};
  BlockSpecialization blockBases(*this, stages, {dir + "/" + file + ".spv"});
  ci.stage = stages[0];
  VkPipeline pipeline;
  VkResult r = vkCreateComputePipelines(gpu.device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline);
  if (r != VK_SUCCESS) fatal("the driver could not build the compute pipeline %s/%s (VkResult %d)", dir.c_str(), file.c_str(), r);
  blockBases.remember(pipeline);
  pipelines.push_back(pipeline);
  return pipeline;
}

void Frame::clearTargets() {
  bool keep = ctx.clearInFrame;
  ctx.clearInFrame = true;
  beginRendering(true);
  endRendering();
  ctx.clearInFrame = keep;
}

void Frame::beginRendering(bool clear) {
  clear = clear && ctx.clearInFrame;
  VkRenderingAttachmentInfo colorAttachment{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  colorAttachment.imageView = ctx.color.view;
  colorAttachment.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  colorAttachment.loadOp = clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD;
  colorAttachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  colorAttachment.clearValue.color = {{0.05f, 0.06f, 0.08f, 1.0f}};
  VkRenderingAttachmentInfo depthAttachment = colorAttachment;
  depthAttachment.imageView = ctx.depth.view;
  depthAttachment.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
  depthAttachment.clearValue.depthStencil = {1.0f, 0};
  VkRenderingInfo info{VK_STRUCTURE_TYPE_RENDERING_INFO};
  info.renderArea = {{0, 0}, {ctx.width, ctx.height}};
  info.layerCount = 1;
  info.colorAttachmentCount = 1;
  info.pColorAttachments = &colorAttachment;
  info.pDepthAttachment = &depthAttachment;
  if (ctx.gpu.vulkan10) {
    VkClearValue clearValues[2] = {colorAttachment.clearValue, depthAttachment.clearValue};
    beginRenderPass10(ctx, cmd, clear, clearValues);
  } else {
    vkCmdBeginRendering(cmd, &info);
  }
  rendering_ = true;
}

void Frame::endRendering() {
  if (ctx.gpu.vulkan10) vkCmdEndRenderPass(cmd);
  else vkCmdEndRendering(cmd);
  rendering_ = false;
}

void Frame::bindGraphics(VkPipeline pipeline) {
  bindPipeline(VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, ctx.layout, 0, 1, &ctx.dataSet, 0, nullptr);
  VkViewport viewport{0, 0, static_cast<float>(ctx.width), static_cast<float>(ctx.height), 0, 1};
  VkRect2D scissor{{0, 0}, {ctx.width, ctx.height}};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
}

void Frame::bindCompute(VkPipeline pipeline) {
  bindPipeline(VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx.layout, 0, 1, &ctx.dataSet, 0, nullptr);
}

void Frame::push(const Knobs &knobs) {
  vkCmdPushConstants(cmd, ctx.layout, VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof knobs, &knobs);
}

void Frame::noteDraw() {
  if (traced) ctx.barrierBefore.push_back(pendingBarrier_);
  pendingBarrier_ = false;
}

void Frame::draw(const char *label, uint32_t vertexCount) {
  noteDraw();
  if (traced) {
    // Its target: the render area (beginRendering), the grid fragment warps' screen positions lie on.
    uint32_t id = wtCmdBeginDraw(ctx.tracer, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, ctx.layout, WT_DEFAULT_SET, label, WT_KIND_DRAW);
    wtSetDrawTarget(ctx.tracer, id, ctx.width, ctx.height);
    giveBlockRow(id);
  }
  vkCmdDraw(cmd, vertexCount, 1, 0, 0);
  if (traced) wtCmdEndDraw(ctx.tracer, cmd);
}

void Frame::dispatch(const char *label, uint32_t groups) {
  noteDraw();
  if (traced) {
    // Its grid in invocations: the workloads' compute shader (particles.comp) has local_size_x = 64.
    uint32_t id = wtCmdBeginDraw(ctx.tracer, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx.layout, WT_DEFAULT_SET, label, WT_KIND_DISPATCH);
    wtSetDrawTarget(ctx.tracer, id, groups * 64u, 1u);
    giveBlockRow(id);
  }
  vkCmdDispatch(cmd, groups, 1, 1);
  if (traced) wtCmdEndDraw(ctx.tracer, cmd);
}

void Frame::custom(const char *label, VkPipelineBindPoint bindPoint, VkPipelineLayout layout, wtDrawKind kind, uint32_t targetWidth,
                   uint32_t targetHeight, const std::function<void()> &call) {
  noteDraw();
  if (traced) {
    uint32_t id = wtCmdBeginDraw(ctx.tracer, cmd, bindPoint, layout, WT_DEFAULT_SET, label, kind);
    if (id != WT_NO_DRAW) wtSetDrawTarget(ctx.tracer, id, targetWidth, targetHeight);
    giveBlockRow(id);
    if (ctx.rayEvents && kind == WT_KIND_TRACE_RAYS && id != WT_NO_DRAW) wtSetDrawRayRow(ctx.tracer, id, 0);
  }
  call();
  if (traced) wtCmdEndDraw(ctx.tracer, cmd);
}

void Frame::sync() {
  bool wasRendering = rendering_;
  if (wasRendering) endRendering();
  fullBarrier(cmd);
  pendingBarrier_ = true;
  if (wasRendering) beginRendering(false);
}
