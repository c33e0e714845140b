// Ray-traced reference workload: one primary ray per pixel of a width x height launch, and a
// shadow ray from every hit, through a scene of triangles (an opaque ground, an alpha-tested
// fence whose any-hit shader cuts holes) and procedural spheres (AABBs + an intersection
// shader). Every stage is instrumented, so warps are seen re-forming at each trace call.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "raytrace_scene.hpp"
#include "workloads.hpp"

namespace {

/* Push constants of capture/workloads/shaders/rt_common.glsl. */
struct RtKnobs {
  uint32_t shading = 16;
  uint32_t sphereCount = 0;
  uint32_t pad[2] = {0, 0};
};

const VkShaderStageFlags kRtStages = VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_ANY_HIT_BIT_KHR | VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR |
                                     VK_SHADER_STAGE_MISS_BIT_KHR | VK_SHADER_STAGE_INTERSECTION_BIT_KHR;

VkDeviceSize alignUp(VkDeviceSize value, VkDeviceSize alignment) { return (value + alignment - 1) / alignment * alignment; }

/* One pipeline's shader binding table: raygen, two miss records (primary, shadow), three hit groups. */
struct BindingTable {
  Buffer buffer;
  VkStridedDeviceAddressRegionKHR raygen{}, miss{}, hit{}, callable{};
};

/* What the workload builds once per Context: the scene, its descriptor set and layout, the output image. */
struct RtState {
  Context *ctx = nullptr;
  RtScene scene;
  Image output;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  std::vector<std::pair<VkPipeline, BindingTable>> tables;
  PFN_vkCreateRayTracingPipelinesKHR createPipelines = nullptr;
  PFN_vkGetRayTracingShaderGroupHandlesKHR groupHandles = nullptr;
  PFN_vkCmdTraceRaysKHR traceRays = nullptr;
  PFN_vkCmdTraceRaysIndirectKHR traceRaysIndirect = nullptr;
  PFN_vkCmdTraceRaysIndirect2KHR traceRaysIndirect2 = nullptr;
  Buffer launchSize;  // indirect=1: {width, height, 1} the launch reads from its device address; 2: the whole VkTraceRaysIndirectCommand2KHR
  VkDeviceAddress launchSizeAddress = 0;
  PFN_vkCreateDeferredOperationKHR createDeferred = nullptr;
  PFN_vkDeferredOperationJoinKHR joinDeferred = nullptr;
  PFN_vkGetDeferredOperationResultKHR deferredResult = nullptr;
  PFN_vkDestroyDeferredOperationKHR destroyDeferred = nullptr;

  void destroy() {
    VkDevice d = ctx->gpu.device;
    for (auto &t : tables) destroyBuffer(ctx->gpu, t.second.buffer);
    if (launchSize.buffer) destroyBuffer(ctx->gpu, launchSize);
    vkDestroyPipelineLayout(d, layout, nullptr);
    vkDestroyDescriptorPool(d, pool, nullptr);
    vkDestroyDescriptorSetLayout(d, setLayout, nullptr);
    destroyImage(ctx->gpu, output);
    destroyRtScene(ctx->gpu, scene);
  }
};

std::shared_ptr<RtState> createState(Context &ctx, uint32_t sphereCount, float fenceZ) {
  auto s = std::make_shared<RtState>();
  s->ctx = &ctx;
  Gpu &gpu = ctx.gpu;
  s->createPipelines = reinterpret_cast<PFN_vkCreateRayTracingPipelinesKHR>(vkGetDeviceProcAddr(gpu.device, "vkCreateRayTracingPipelinesKHR"));
  s->groupHandles = reinterpret_cast<PFN_vkGetRayTracingShaderGroupHandlesKHR>(vkGetDeviceProcAddr(gpu.device, "vkGetRayTracingShaderGroupHandlesKHR"));
  s->traceRays = reinterpret_cast<PFN_vkCmdTraceRaysKHR>(vkGetDeviceProcAddr(gpu.device, "vkCmdTraceRaysKHR"));
  if (!s->createPipelines || !s->groupHandles || !s->traceRays) fatal("unsupported: ray-tracing pipelines (no vkCmdTraceRaysKHR)");
  s->traceRaysIndirect = reinterpret_cast<PFN_vkCmdTraceRaysIndirectKHR>(vkGetDeviceProcAddr(gpu.device, "vkCmdTraceRaysIndirectKHR"));
  s->traceRaysIndirect2 = reinterpret_cast<PFN_vkCmdTraceRaysIndirect2KHR>(vkGetDeviceProcAddr(gpu.device, "vkCmdTraceRaysIndirect2KHR"));
  s->createDeferred = reinterpret_cast<PFN_vkCreateDeferredOperationKHR>(vkGetDeviceProcAddr(gpu.device, "vkCreateDeferredOperationKHR"));
  s->joinDeferred = reinterpret_cast<PFN_vkDeferredOperationJoinKHR>(vkGetDeviceProcAddr(gpu.device, "vkDeferredOperationJoinKHR"));
  s->deferredResult = reinterpret_cast<PFN_vkGetDeferredOperationResultKHR>(vkGetDeviceProcAddr(gpu.device, "vkGetDeferredOperationResultKHR"));
  s->destroyDeferred = reinterpret_cast<PFN_vkDestroyDeferredOperationKHR>(vkGetDeviceProcAddr(gpu.device, "vkDestroyDeferredOperationKHR"));
  s->scene = buildRtScene(gpu, sphereCount, fenceZ);

  s->output = createImage(gpu, ctx.width, ctx.height, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                          VK_IMAGE_ASPECT_COLOR_BIT);
  VkCommandBuffer cmd = beginCommands(gpu);
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = s->output.image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0, nullptr, 1, &b);
  submitAndWait(gpu, cmd);

  // Set 0: the scene (binding 0), the output image (1), the spheres (2).
  VkDescriptorSetLayoutBinding bindings[3] = {};
  VkDescriptorType types[3] = {VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
  VkDescriptorPoolSize sizes[3];
  for (uint32_t i = 0; i < 3; i++) {
    bindings[i].binding = i;
    bindings[i].descriptorType = types[i];
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = kRtStages;
    sizes[i] = {types[i], 1};
  }
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = 3;
  li.pBindings = bindings;
  check(vkCreateDescriptorSetLayout(gpu.device, &li, nullptr, &s->setLayout), "vkCreateDescriptorSetLayout (ray tracing)");
  VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pi.maxSets = 1;
  pi.poolSizeCount = 3;
  pi.pPoolSizes = sizes;
  check(vkCreateDescriptorPool(gpu.device, &pi, nullptr, &s->pool), "vkCreateDescriptorPool (ray tracing)");
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = s->pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &s->setLayout;
  check(vkAllocateDescriptorSets(gpu.device, &ai, &s->set), "vkAllocateDescriptorSets (ray tracing)");

  VkWriteDescriptorSetAccelerationStructureKHR asWrite{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
  asWrite.accelerationStructureCount = 1;
  asWrite.pAccelerationStructures = &s->scene.tlas.handle;
  VkDescriptorImageInfo image{VK_NULL_HANDLE, s->output.view, VK_IMAGE_LAYOUT_GENERAL};
  VkDescriptorBufferInfo spheres{s->scene.spheres.buffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w[3] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
  for (uint32_t i = 0; i < 3; i++) {
    w[i].dstSet = s->set;
    w[i].dstBinding = i;
    w[i].descriptorCount = 1;
    w[i].descriptorType = types[i];
  }
  w[0].pNext = &asWrite;
  w[1].pImageInfo = &image;
  w[2].pBufferInfo = &spheres;
  vkUpdateDescriptorSets(gpu.device, 3, w, 0, nullptr);

  // Set 0 the scene, 1..WT_SET-1 empty, WT_SET the trace (none for an untraced app).
  std::vector<VkDescriptorSetLayout> sets(ctx.tracer ? WT_DEFAULT_SET + 1 : 1, ctx.emptyLayout);
  sets[0] = s->setLayout;
  if (ctx.tracer) sets[WT_DEFAULT_SET] = wtTracerSetLayout(ctx.tracer);
  VkPushConstantRange range{kRtStages, 0, sizeof(RtKnobs)};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = static_cast<uint32_t>(sets.size());
  pl.pSetLayouts = sets.data();
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &range;
  check(vkCreatePipelineLayout(gpu.device, &pl, nullptr, &s->layout), "vkCreatePipelineLayout (ray tracing)");
  return s;
}

/* The shader files, in pipeline stage order (the group table below indexes them). */
using RtShaderFiles = std::array<const char *, 7>;
constexpr RtShaderFiles kShaderFiles = {"rt.rgen", "rt.rmiss", "rt_shadow.rmiss", "rt.rchit", "rt.rahit", "rt_sphere.rchit", "rt.rint"};
/* ray-tracing-reorder: the same but ray generation reorders (shader execution reordering) before shading. */
constexpr RtShaderFiles kReorderShaderFiles = {"rt_reorder.rgen", "rt.rmiss", "rt_shadow.rmiss", "rt.rchit", "rt.rahit", "rt_sphere.rchit", "rt.rint"};
const VkShaderStageFlagBits kShaderStages[] = {VK_SHADER_STAGE_RAYGEN_BIT_KHR,      VK_SHADER_STAGE_MISS_BIT_KHR,
                                               VK_SHADER_STAGE_MISS_BIT_KHR,        VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR,
                                               VK_SHADER_STAGE_ANY_HIT_BIT_KHR,     VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR,
                                               VK_SHADER_STAGE_INTERSECTION_BIT_KHR};

/*
 * --libraries: the same stages and groups as a VK_KHR_pipeline_library library, made through a deferred operation
 * (joined on this thread, as engines do on workers), then linked into the pipeline the frame binds; its groups and
 * their handles are the library's, in order.
 */
VkResult linkRtLibrary(RtState &s, const VkRayTracingPipelineCreateInfoKHR &stagesAndGroups, VkPipeline &out) {
  Context &ctx = *s.ctx;
  VkDevice d = ctx.gpu.device;
  if (!s.createDeferred || !s.joinDeferred || !s.deferredResult || !s.destroyDeferred) fatal("unsupported: deferred host operations");
  VkRayTracingPipelineInterfaceCreateInfoKHR iface{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_INTERFACE_CREATE_INFO_KHR};
  iface.maxPipelineRayPayloadSize = 32;       // PrimaryPayload (rt_common.glsl) is 28 bytes; the shadow payload less
  iface.maxPipelineRayHitAttributeSize = 12;  // the spheres' vec3 normal
  VkRayTracingPipelineCreateInfoKHR lib = stagesAndGroups;
  lib.flags |= VK_PIPELINE_CREATE_LIBRARY_BIT_KHR;
  lib.pLibraryInterface = &iface;
  VkDeferredOperationKHR op = VK_NULL_HANDLE;
  check(s.createDeferred(d, nullptr, &op), "vkCreateDeferredOperationKHR");
  VkPipeline library = VK_NULL_HANDLE;
  VkResult r = s.createPipelines(d, op, VK_NULL_HANDLE, 1, &lib, nullptr, &library);
  if (r == VK_OPERATION_DEFERRED_KHR) {
    while (s.joinDeferred(d, op) == VK_THREAD_IDLE_KHR) {
    }
    r = s.deferredResult(d, op);
  } else if (r == VK_OPERATION_NOT_DEFERRED_KHR) {
    r = VK_SUCCESS;
  }
  s.destroyDeferred(d, op, nullptr);
  if (r != VK_SUCCESS) return r;
  ctx.libraries.push_back(library);
  VkPipelineLibraryCreateInfoKHR libraries{VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR};
  libraries.libraryCount = 1;
  libraries.pLibraries = &library;
  VkRayTracingPipelineCreateInfoKHR link{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR};
  link.pLibraryInfo = &libraries;
  link.pLibraryInterface = &iface;
  link.maxPipelineRayRecursionDepth = stagesAndGroups.maxPipelineRayRecursionDepth;
  link.layout = stagesAndGroups.layout;
  return s.createPipelines(d, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &link, nullptr, &out);
}

VkPipeline createPipeline(RtState &s, const std::string &dir, const RtShaderFiles &files) {
  Context &ctx = *s.ctx;
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  std::vector<std::string> paths;
  for (size_t i = 0; i < 7; i++) {
    std::string path = dir + "/" + files[i] + ".spv";
    paths.push_back(path);
    auto it = ctx.modules.find(path);
    VkShaderModule module = it != ctx.modules.end() ? it->second : (ctx.modules[path] = loadShaderModule(ctx.gpu, path));
    VkPipelineShaderStageCreateInfo st{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    st.stage = kShaderStages[i];
    st.module = module;
    st.pName = "main";
    stages.push_back(st);
  }
  auto group = [](VkRayTracingShaderGroupTypeKHR type, uint32_t general, uint32_t closest, uint32_t any, uint32_t intersection) {
    VkRayTracingShaderGroupCreateInfoKHR g{VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR};
    g.type = type;
    g.generalShader = general, g.closestHitShader = closest, g.anyHitShader = any, g.intersectionShader = intersection;
    return g;
  };
  const uint32_t none = VK_SHADER_UNUSED_KHR;
  // Hit group = instance offset + geometry index: 0 ground, 1 fence (any-hit), 2 spheres (intersection).
  VkRayTracingShaderGroupCreateInfoKHR groups[6] = {
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, 0, none, none, none),
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, 1, none, none, none),
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, 2, none, none, none),
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR, none, 3, none, none),
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR, none, 3, 4, none),
      group(VK_RAY_TRACING_SHADER_GROUP_TYPE_PROCEDURAL_HIT_GROUP_KHR, none, 5, none, 6),
  };
  VkRayTracingPipelineCreateInfoKHR ci{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR};
  ci.stageCount = static_cast<uint32_t>(stages.size());
  ci.pStages = stages.data();
  ci.groupCount = 6;
  ci.pGroups = groups;
  ci.maxPipelineRayRecursionDepth = 1;  // only ray generation traces
  ci.layout = s.layout;
  BlockSpecialization blockBases(ctx, stages, paths);
  ci.pStages = stages.data();
  VkPipeline pipeline;
  VkResult r = ctx.style.libraries ? linkRtLibrary(s, ci, pipeline) : s.createPipelines(ctx.gpu.device, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline);
  if (r != VK_SUCCESS) fatal("the driver could not build the ray-tracing pipeline of %s (VkResult %d)", dir.c_str(), r);
  blockBases.remember(pipeline);
  ctx.pipelines.push_back(pipeline);

  // The binding table: each region starts at the base alignment, records at the handle alignment.
  VkPhysicalDeviceRayTracingPipelinePropertiesKHR rt{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &rt;
  vkGetPhysicalDeviceProperties2(ctx.gpu.physical, &props);
  VkDeviceSize handle = rt.shaderGroupHandleSize, record = alignUp(handle, rt.shaderGroupHandleAlignment);
  VkDeviceSize base = rt.shaderGroupBaseAlignment;
  VkDeviceSize raygenSize = alignUp(record, base), missOffset = raygenSize, missSize = alignUp(2 * record, base);
  VkDeviceSize hitOffset = missOffset + missSize, hitSize = alignUp(3 * record, base);
  std::vector<uint8_t> handles(6 * handle);
  check(s.groupHandles(ctx.gpu.device, pipeline, 0, 6, handles.size(), handles.data()), "vkGetRayTracingShaderGroupHandlesKHR");
  BindingTable t;
  t.buffer = createBuffer(ctx.gpu, hitOffset + hitSize + base,
                          VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, true);
  VkBufferDeviceAddressInfo bi{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  bi.buffer = t.buffer.buffer;
  VkDeviceAddress address = vkGetBufferDeviceAddress(ctx.gpu.device, &bi);
  VkDeviceSize shift = alignUp(address, base) - address;  // the buffer's own address may be less aligned
  uint8_t *map = static_cast<uint8_t *>(t.buffer.map) + shift;
  std::memset(t.buffer.map, 0, static_cast<size_t>(t.buffer.size));
  std::memcpy(map, &handles[0], handle);
  for (uint32_t m = 0; m < 2; m++) std::memcpy(map + missOffset + m * record, &handles[(1 + m) * handle], handle);
  for (uint32_t h = 0; h < 3; h++) std::memcpy(map + hitOffset + h * record, &handles[(3 + h) * handle], handle);
  address += shift;
  t.raygen = {address, raygenSize, raygenSize};
  t.miss = {address + missOffset, record, 2 * record};
  t.hit = {address + hitOffset, record, 3 * record};
  s.tables.emplace_back(pipeline, t);
  return pipeline;
}

class RayTracedScene : public Workload {
 public:
  explicit RayTracedScene(bool reorder = false) : reorder_(reorder) {
    params.define("width", 1280, "launch width: one primary ray per pixel");
    params.define("height", 720, "launch height");
    params.define("spheres", 24, "procedural spheres (AABBs + intersection shader)");
    params.define("shading", 16, "closest-hit busy-loop iterations");
    params.define("fenceZ", 120, "the fence's plane z in hundredths (120: in front of every sphere; 750: behind them, so closer hits make its any-hits useless)");
    params.define("indirect", 0, "1: launch with vkCmdTraceRaysIndirectKHR, the size read from a buffer's device address; 2: vkCmdTraceRaysIndirect2KHR, the binding table too");
  }
  const char *name() const override { return reorder_ ? "ray-tracing-reorder" : "ray-tracing"; }
  const char *summary() const override {
    return reorder_ ? "the ray-traced scene with shader execution reordering (VK_NV_ray_tracing_invocation_reorder): ray generation traces the "
                      "primary ray into a hit object and reorders by hit group before the hit or miss shader runs; the same image"
                    : "ray-traced scene: primary + shadow ray per pixel; triangles (opaque ground, alpha-tested fence: any-hit) and procedural "
                      "spheres (intersection shader)";
  }
  uint32_t needs() const override {
    return kNeedsRayTracing | (reorder_ ? kNeedsInvocationReorder : 0u) | (params.u("indirect") == 2 ? kNeedsTraceRaysIndirect2 : 0u);
  }
  std::vector<std::string> shaderFiles() const override {
    const RtShaderFiles &files = reorder_ ? kReorderShaderFiles : kShaderFiles;
    return {files.begin(), files.end()};
  }
  std::vector<VkPipeline> pipelines(Context &ctx, const std::string &dir) const override {
    if (!state_ || state_->ctx != &ctx) {
      state_ = createState(ctx, std::max(1u, params.u("spheres")), static_cast<float>(params.u("fenceZ")) / 100.0f);
      std::shared_ptr<RtState> s = state_;
      ctx.cleanups.push_back([s] { s->destroy(); });
    }
    return {createPipeline(*state_, dir, reorder_ ? kReorderShaderFiles : kShaderFiles)};
  }
  void record(Frame &f, const std::vector<VkPipeline> &p) const override {
    RtState &s = *state_;
    auto table = std::find_if(s.tables.begin(), s.tables.end(), [&](const auto &t) { return t.first == p[0]; });
    if (table == s.tables.end()) fatal("internal: no binding table for the ray-tracing pipeline");
    RtKnobs k;
    k.shading = params.u("shading");
    k.sphereCount = s.scene.sphereCount;
    f.bindPipeline(VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, p[0]);
    vkCmdBindDescriptorSets(f.cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, s.layout, 0, 1, &s.set, 0, nullptr);
    vkCmdPushConstants(f.cmd, s.layout, kRtStages, 0, sizeof k, &k);
    const BindingTable &t = table->second;
    uint32_t width = f.ctx.width, height = f.ctx.height;
    if (uint32_t indirect = params.u("indirect")) {
      if (!s.launchSize.buffer) {
        if (indirect == 1 ? !s.traceRaysIndirect : !s.traceRaysIndirect2) fatal("unsupported: indirect ray-tracing launches (no vkCmdTraceRaysIndirect*KHR)");
        s.launchSize = createBuffer(f.ctx.gpu, sizeof(VkTraceRaysIndirectCommand2KHR),
                                    VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, true);
        VkTraceRaysIndirectCommandKHR size{width, height, 1};
        VkTraceRaysIndirectCommand2KHR whole{t.raygen.deviceAddress, t.raygen.size,   t.miss.deviceAddress, t.miss.size,
                                             t.miss.stride,          t.hit.deviceAddress, t.hit.size,        t.hit.stride,
                                             0,                      0,                  0,                 width,
                                             height,                 1};
        if (indirect == 1) std::memcpy(s.launchSize.map, &size, sizeof size);
        else std::memcpy(s.launchSize.map, &whole, sizeof whole);
        VkBufferDeviceAddressInfo bi{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
        bi.buffer = s.launchSize.buffer;
        s.launchSizeAddress = vkGetBufferDeviceAddress(f.ctx.gpu.device, &bi);
      }
      f.custom("trace rays (indirect): primary + shadow ray per pixel", VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, s.layout, WT_KIND_TRACE_RAYS, width,
               height, [&] {
                 if (indirect == 1) s.traceRaysIndirect(f.cmd, &t.raygen, &t.miss, &t.hit, &t.callable, s.launchSizeAddress);
                 else s.traceRaysIndirect2(f.cmd, s.launchSizeAddress);
               });
      return;
    }
    f.custom("trace rays: primary + shadow ray per pixel", VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, s.layout, WT_KIND_TRACE_RAYS, width, height,
             [&] { s.traceRays(f.cmd, &t.raygen, &t.miss, &t.hit, &t.callable, width, height, 1); });
  }
  std::string drawStagesJson() const override {
    return reorder_ ? R"([["RAYGEN","RAYGEN_REORDERED","MISS","CLOSEST_HIT","ANY_HIT","INTERSECTION"]])"
                    : R"([["RAYGEN","MISS","CLOSEST_HIT","ANY_HIT","INTERSECTION"]])";
  }

 private:
  bool reorder_;
  mutable std::shared_ptr<RtState> state_;
};

}  // namespace

std::unique_ptr<Workload> makeRayTracingWorkload() { return std::unique_ptr<Workload>(new RayTracedScene()); }
std::unique_ptr<Workload> makeRayTracingReorderWorkload() { return std::unique_ptr<Workload>(new RayTracedScene(true)); }
