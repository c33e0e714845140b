// Device creation: turn on what the instrumented shaders need, decide whether
// this device can be traced, create the tracer (trace buffer, draw-id table,
// queries) and connect to the CLI.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "offscreen.hpp"
#include "frame_timing.hpp"
#include "hooks.hpp"
#include "descriptor_buffers.hpp"
#include "device_create_patch.hpp"
#include "pipeline_twins.hpp"
#include "ray_tracing.hpp"
#include "shader_objects.hpp"
#include "stages.hpp"
#include "tracer_glue.hpp"

extern "C" char *program_invocation_short_name;

namespace wtl {

#include "generated_known_extensions.inc"

/** Most recorded draws one capture can tell apart (the draw-id table: slots x minUniformBufferOffsetAlignment bytes). */
static const uint32_t kSlotCapacity = 16384;

void reportSkipped(DeviceState *device, const std::string &what, const std::string &why) {
  logLine("not traced: %s: %s", what.c_str(), why.c_str());
  device->skipped.push_back(what + ": " + why);
  if (device->client && device->client->connected())
    device->client->event("{\"event\": \"skipped\", \"what\": " + jsonString(what) + ", \"why\": " + jsonString(why) + "}");
}

/**
 * Extensions newer than the build's Vulkan header that the layer can trace beside: it declares and handles their
 * commands itself, or they have no vkCmd* to repeat in a shadow (their other commands reach the driver untouched).
 */
static const char *const kLayerDeclaredExtensions[] = {
    "VK_EXT_shader_object",     // vk_shader_object.h, shader_objects.cpp
    "VK_EXT_host_image_copy",   // host-side copies and layout transitions only
};

static bool knownExtension(const char *name) {
  for (const char *known : kKnownExtensions)
    if (!strcmp(known, name)) return true;
  for (const char *known : kLayerDeclaredExtensions)
    if (!strcmp(known, name)) return true;
  return false;
}

void reportNote(DeviceState *device, const std::string &what, const std::string &why) {
  logLine("note: %s: %s", what.c_str(), why.c_str());
  device->notes.push_back({what, why});
  if (device->client && device->client->connected())
    device->client->event("{\"event\": \"note\", \"what\": " + jsonString(what) + ", \"why\": " + jsonString(why) + "}");
}

/**
 * A Vulkan 1.0 instance (the app asked for 1.0 and the driver refused the 1.1 the layer asks for below it, see
 * wl_vkCreateInstance): the subgroup properties are 1.1, and without VK_KHR_get_physical_device_properties2 the
 * extension features (shader clocks, SM built-ins) cannot be read either. Nothing a shader would depend on is guessed:
 * SM built-ins and subgroup operations (SPIR-V 1.3) are not used, no warp records a screen position, whose record word
 * needs the unknown subgroup size (the header says 64, the widest, so no lane is out of range), and hidden clocks are
 * asked for (a driver without them refuses the device, and the app gets it untraced). Returns what was assumed, or "".
 */
static std::string fillHiddenCaps(const InstanceState *instance, DeviceState *device) {
  wtCaps &caps = device->caps;
  if (instance->apiVersion >= VK_API_VERSION_1_1) return "";
  caps.smBuiltins = VK_FALSE;
  caps.subgroupStages = 0;
  caps.subgroupSize = 64;
  device->lanesUnknown = true;
  bool clocksHidden = !instance->appEnabledProperties2 && caps.hasShaderClockExtension && !caps.subgroupClock && !caps.deviceClock;
  if (clocksHidden) caps.subgroupClock = caps.deviceClock = VK_TRUE;
  // The driver's name is hidden too; the decoder needs llvmpipe's (its timestamps follow its rasterizer).
  if (!caps.driverName[0] && !strncmp(caps.deviceName, "llvmpipe", 8)) snprintf(caps.driverName, sizeof caps.driverName, "llvmpipe");
  return std::string("a Vulkan 1.0 instance (the driver refused 1.1) hides the subgroup size: the layer records one warp per "
                     "invocation (no subgroup operations) and no screen positions") +
         (clocksHidden ? "; the shader clocks are hidden too: the layer asked for both" : "");
}

/** Why the app's enabled extensions keep this device from being traced, or "". */
static std::string extensionProblem(const VkDeviceCreateInfo *info) {
  for (uint32_t i = 0; i < info->enabledExtensionCount; i++) {
    const char *name = info->ppEnabledExtensionNames[i];
    if (!knownExtension(name))
      return std::string("the app enables ") + name + ", whose commands this build of the layer does not know (rebuild it against a newer Vulkan header)";
  }
  return "";
}

/** The mesh and task stages the app enabled (VK_EXT_mesh_shader or VK_NV_mesh_shader features), as stage bits. */
static VkShaderStageFlags meshStagesEnabled(const VkDeviceCreateInfo *info) {
  VkShaderStageFlags stages = 0;
  for (auto *s = (const VkBaseInStructure *)info->pNext; s; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT) {
      auto *f = (const VkPhysicalDeviceMeshShaderFeaturesEXT *)s;
      if (f->taskShader) stages |= VK_SHADER_STAGE_TASK_BIT_EXT;
      if (f->meshShader) stages |= VK_SHADER_STAGE_MESH_BIT_EXT;
    } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_NV) {
      auto *f = (const VkPhysicalDeviceMeshShaderFeaturesNV *)s;
      if (f->taskShader) stages |= VK_SHADER_STAGE_TASK_BIT_NV;
      if (f->meshShader) stages |= VK_SHADER_STAGE_MESH_BIT_NV;
    }
  }
  return stages;
}

/** The tracer, the trace set index, and the CLI connection. */
static void prepareTracing(DeviceState *device, const VkDeviceCreateInfo *appInfo) {
  const Settings &s = settings();
  if (s.timeOnly) {
    // The untraced baseline of a --submits capture: the app's own work, only timed (frame_timing.cpp).
    device->client.reset(new InstrumentClient(s.socketPath));
    device->untraceableWhy = "timing only (WARPTRACE_TIME_ONLY)";
    return;
  }
  // The CLI's connection first: without it nothing is traced, and saying what the device lacks instead misleads (an
  // untraced Vulkan 1.0 instance hides the shader clock's features from the layer's queries).
  device->client.reset(new InstrumentClient(s.socketPath));
  if (!device->client->connected()) device->untraceableWhy = device->client->error();
  if (device->untraceableWhy.empty()) device->untraceableWhy = extensionProblem(appInfo);
  device->meshStages = meshStagesEnabled(appInfo);
  device->rayTracingStages = rayTracingStagesEnabled(appInfo);
  if (device->untraceableWhy.empty()) {
    VkShaderStageFlags stages = 0;
    for (int i = 0; i < kTracedStageCount; i++)
      if (s.stageMask & (1u << i)) stages |= kTracedStageBits[i];
    stages &= ~kMeshStageBits | device->meshStages;
    stages &= ~kRayTracingStageBits | device->rayTracingStages;
    wtCaps caps = device->caps;
    caps.maxBoundDescriptorSets = 32;  // the layer picks its own set index below; the library's check is about WT_SET 7
    if (const char *why = wtUnsupportedReason(&caps, stages)) device->untraceableWhy = why;
  }
  if (device->untraceableWhy.empty() && device->caps.maxBoundDescriptorSets < 2)
    device->untraceableWhy = "maxBoundDescriptorSets leaves no set for the trace buffer";
  // The validation layer's choice: the last set index (capped at 32), so apps with fewer sets never collide.
  uint32_t sets = device->caps.maxBoundDescriptorSets < 32 ? device->caps.maxBoundDescriptorSets : 32;
  device->traceSet = sets - 1;
  checkDescriptorBuffers(device, appInfo);
  if (device->untraceableWhy.empty()) {
    wtTracerInfo ti{};
    // Descriptors in the layer's descriptor buffer point at the trace and draw-id buffers by address.
    ti.deviceAddress = device->descriptorBuffers.enabled && device->descriptorBuffers.why.empty();
    ti.physicalDevice = device->physical;
    ti.device = device->device;
    ti.caps = &device->caps;
    ti.capacity = s.capacity;
    // A buffer past the device's storage-buffer range would be read out of bounds: the most it allows, said in a note.
    uint32_t most = 0;
    {
      DeviceScope limits(device);
      most = wtMaxCapacity(device->physical);
    }
    if (ti.capacity > most) {
      reportNote(device, "capacity", "--capacity " + std::to_string(ti.capacity) + " records is more than this device's trace buffer can hold " +
                                         "(maxStorageBufferRange): the layer uses " + std::to_string(most));
      ti.capacity = most;
    }
    ti.maxDraws = kSlotCapacity;
    ti.blockCells = device->blocks ? s.blockCells : 0;  // block profiles: the table at binding + 2
    if (s.blocks && !device->blocks)
      reportNote(device, "blocks", "no block profiles: they count in 64-bit atomics, and the device lacks shaderBufferInt64Atomics (or, before Vulkan 1.2, VK_KHR_shader_atomic_int64)");
    // Ray events: a row per profiled trace-rays call, at binding + 3 (ray-tracing devices only: no other stage counts).
    device->rayEvents = s.rayEvents && device->rayTracingStages;
    ti.rayEventRows = device->rayEvents ? s.rayRows : 0;
    ti.rayEventCells = s.rayCells;
    if (s.rayEvents && !device->rayEvents) reportNote(device, "rays", "no ray events: the app made no ray-tracing device");
    ti.allocator = device->allocator;
    // The trace set is visible to every stage the device runs: the mesh stages only where the app enabled them.
    ti.stages = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT | device->meshStages | device->rayTracingStages;
    DeviceScope scope(device);
    VkResult r = wtCreateTracer(&ti, &device->tracer);
    if (r != VK_SUCCESS) device->untraceableWhy = "cannot create the trace buffer (VkResult " + std::to_string((int)r) + ")";
    else device->emptySetLayout = wtTracerEmptySetLayout(device->tracer);
    for (uint32_t stage = 0; device->tracer && stage < 14; stage++)
      if (s.sampleLog2[stage] && wtSetSampling(device->tracer, stage, s.sampleLog2[stage], s.sampleBudget) != VK_SUCCESS)
        reportNote(device, "sampling", "could not write the sampling rates: every warp records");
    device->slotCapacity = device->tracer ? kSlotCapacity : 0;
    createDescriptorBufferTracing(device);  // its pipelines are reported with why where it cannot
    if (device->rayTracingStages && !reserveOffSlot(device)) device->rayTracingStages = 0;  // then its pipelines are made as asked

  }
  if (!device->tracer) device->slotCapacity = 0;
  device->capture.targetFrame = s.triggerPath.empty() || getenv("WARPTRACE_FRAME") ? s.frame : UINT64_MAX;

  device->traceable = device->untraceableWhy.empty();
  if (device->client->connected()) {
    std::string hello = "{\"pid\": " + std::to_string((int)getpid()) + ", \"app\": " + jsonString(program_invocation_short_name) +
                        ", \"device\": {\"name\": " + jsonString(device->caps.deviceName) + ", \"traceable\": " +
                        (device->traceable ? "true" : "false") + ", \"why\": " + jsonString(device->untraceableWhy) +
                        "}, \"set\": " + std::to_string(device->traceSet) + ", \"target\": {\"smBuiltins\": " +
                        (device->caps.smBuiltins ? "true" : "false") + ", \"subgroupClock\": " + (device->caps.subgroupClock ? "true" : "false") +
                        ", \"deviceClock\": " + (device->caps.deviceClock ? "true" : "false") + "}}";
    std::vector<uint8_t> payload;
    std::string reply, why;
    device->client->request(kHello, hello, nullptr, 0, payload, reply, why);
  }
  if (!device->traceable) reportSkipped(device, std::string("device ") + device->caps.deviceName, device->untraceableWhy);
  if (!s.problems.empty()) reportSkipped(device, "settings", s.problems);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                 const VkAllocationCallbacks *allocator, VkDevice *out) {
  InstanceState *instance = findInstance(dispatchKey(physical));
  auto *link = (VkLayerDeviceCreateInfo *)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerDeviceCreateInfo *)link->pNext;
  auto *loaderData = (VkLayerDeviceCreateInfo *)info->pNext;
  while (loaderData && !(loaderData->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && loaderData->function == VK_LOADER_DATA_CALLBACK))
    loaderData = (VkLayerDeviceCreateInfo *)loaderData->pNext;
  if (!instance || !link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = (PFN_vkCreateDevice)gipa(instance->instance, "vkCreateDevice");
  if (!create) return VK_ERROR_INITIALIZATION_FAILED;

  auto *device = new DeviceState();
  device->instance = instance;
  device->physical = physical;
  device->allocator = allocator;
  queryCaps(instance, physical, &device->caps);
  // The untraced baseline (time only) creates the device exactly as the app asks.
  bool wantTracing = !settings().socketPath.empty() && !settings().timeOnly;
  std::string assumed = wantTracing ? fillHiddenCaps(instance, device) : "";
  VkResult r;
  {
    // Block profiles count in 64-bit atomics: core from Vulkan 1.2 as the app sees the device, else the extension.
    uint32_t apiVersion = std::min(instance->apiVersion, device->caps.apiVersion);
    device->blocks = wantTracing && settings().blocks && device->caps.bufferInt64Atomics && (apiVersion >= VK_API_VERSION_1_2 || device->caps.hasAtomicInt64Extension);
    DeviceCreatePatch patch(info, device->caps, device->blocks, apiVersion);
    r = create(physical, wantTracing ? patch.info() : info, allocator, out);
  }
  std::string patchFailure;
  if (r != VK_SUCCESS && wantTracing) {
    // What tracing asked for was refused: the app still gets its device, untraced.
    patchFailure = "the driver refused the features tracing needs (VkResult " + std::to_string((int)r) + ")";
    r = create(physical, info, allocator, out);
  }
  if (r != VK_SUCCESS) {
    delete device;
    return r;
  }
  device->device = *out;
  device->setLoaderData = loaderData ? loaderData->u.pfnSetDeviceLoaderData : nullptr;
  loadDeviceDispatch(device->d, gdpa, *out);
  loadCommandTable(device->cmd, gdpa, *out);
  loadShaderObjectFunctions(device, gdpa);
  loadBufferAddressFunction(device, gdpa);
  device->createRayTracingPipelines = (PFN_vkCreateRayTracingPipelinesKHR)gdpa(*out, "vkCreateRayTracingPipelinesKHR");
  device->untracked.device = device;
  uint32_t families = 0;
  instance->d.GetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> familyProps(families);
  instance->d.GetPhysicalDeviceQueueFamilyProperties(physical, &families, familyProps.data());
  for (const auto &f : familyProps) device->familyFlags.push_back(f.queueFlags);
  registerDevice(device);
  if (!patchFailure.empty()) {
    device->client.reset(new InstrumentClient(settings().socketPath));
    device->untraceableWhy = patchFailure;
    reportSkipped(device, std::string("device ") + device->caps.deviceName, patchFailure);
  } else {
    prepareTracing(device, info);
    if (wantTracing && !instance->apiVersionNote.empty()) reportNote(device, "instance", instance->apiVersionNote);
    if (!assumed.empty()) reportNote(device, "device properties", assumed);
  }
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyDevice(VkDevice handle, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  if (!device) return;
  finishCaptureAtDeviceEnd(device);
  if (device->traceable && !device->capture.done && device->client && device->client->connected())
    device->client->event("{\"event\": \"capture-failed\", \"why\": " +
                          jsonString("the app destroyed its device after " + std::to_string(device->presents) + " presents and " +
                                     std::to_string(device->submits) + " submits, before the captured " +
                                     (settings().submitMode ? std::string("submits") : "frame " + std::to_string(device->capture.targetFrame))) +
                          ", \"frames\": " + std::to_string(device->presents) + "}");
  {
    DeviceScope scope(device);
    for (auto &entry : device->pipelines) destroyTwins(device, *entry.second);
    for (auto &entry : device->layouts)
      for (VkPipelineLayout padded : {entry.second.traced, entry.second.tracedDescriptorBuffer})
        if (padded) device->d.DestroyPipelineLayout(handle, padded, nullptr);
    for (auto &entry : device->shaders) {
      if (entry.second->twin) device->destroyShader(handle, entry.second->twin, nullptr);
      if (entry.second->twinLayout) device->d.DestroyPipelineLayout(handle, entry.second->twinLayout, nullptr);
    }
    for (auto &entry : device->pools)
      if (entry.second.shadowPool) device->d.DestroyCommandPool(handle, entry.second.shadowPool, nullptr);
    if (device->capturePool) device->d.DestroyCommandPool(handle, device->capturePool, nullptr);
    frameTimingRelease(device);
    releaseOffscreenSwapchains(device);
    destroyDescriptorBufferTracing(device);
    destroyHostBuffer(device, device->launchSizes);
    if (device->tracer) wtDestroyTracer(device->tracer);
  }
  device->d.DestroyDevice(handle, allocator);
  unregisterDevice(device);
  delete device;
}

VKAPI_ATTR void VKAPI_CALL wl_vkGetDeviceQueue(VkDevice handle, uint32_t family, uint32_t index, VkQueue *queue) {
  DeviceState *device = findDevice(dispatchKey(handle));
  device->d.GetDeviceQueue(handle, family, index, queue);
  std::lock_guard<std::mutex> guard(device->lock);
  device->queueFamilies[*queue] = family;
}

VKAPI_ATTR void VKAPI_CALL wl_vkGetDeviceQueue2(VkDevice handle, const VkDeviceQueueInfo2 *info, VkQueue *queue) {
  DeviceState *device = findDevice(dispatchKey(handle));
  device->d.GetDeviceQueue2(handle, info, queue);
  std::lock_guard<std::mutex> guard(device->lock);
  device->queueFamilies[*queue] = info->queueFamilyIndex;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkSetDebugUtilsObjectNameEXT(VkDevice handle, const VkDebugUtilsObjectNameInfoEXT *info) {
  DeviceState *device = findDevice(dispatchKey(handle));
  if (info->pObjectName) {
    std::lock_guard<std::mutex> guard(device->lock);
    device->names[info->objectHandle] = info->pObjectName;
    if (info->objectType == VK_OBJECT_TYPE_PIPELINE) {
      auto it = device->pipelines.find((VkPipeline)info->objectHandle);
      if (it != device->pipelines.end()) it->second->name = info->pObjectName;
    }
  }
  return device->d.SetDebugUtilsObjectNameEXT ? device->d.SetDebugUtilsObjectNameEXT(handle, info) : VK_SUCCESS;
}

}  // namespace wtl
