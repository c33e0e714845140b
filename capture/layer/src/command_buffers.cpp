// Command pools and buffers: each app command buffer that may run in the
// captured frame gets a shadow, allocated from a layer pool beside the app's,
// begun, ended and reset with it.
#include "command_buffers.hpp"

#include "hooks.hpp"
#include "pipeline_chain.hpp"

namespace wtl {

uint32_t allocateSlot(DeviceState *device) {
  std::lock_guard<std::mutex> guard(device->lock);
  if (!device->freeSlots.empty()) {
    uint32_t slot = device->freeSlots.back();
    device->freeSlots.pop_back();
    return slot;
  }
  return device->nextSlot < device->slotCapacity ? device->nextSlot++ : kNoSlot;
}

uint32_t allocateSlots(DeviceState *device, uint32_t count) {
  if (count <= 1) return allocateSlot(device);
  std::lock_guard<std::mutex> guard(device->lock);
  if (device->nextSlot + count > device->slotCapacity) return kNoSlot;
  uint32_t first = device->nextSlot;
  device->nextSlot += count;
  return first;
}

/** Forgets one recording: its slots go back, its events and binds are dropped. */
static void forgetRecording(CommandState *cs) {
  DeviceState *device = cs->device;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    device->freeSlots.insert(device->freeSlots.end(), cs->slots.begin(), cs->slots.end());
  }
  cs->slots.clear();
  cs->events.clear();
  cs->graphics = BindPointState();
  cs->compute = BindPointState();
  cs->rayTracing = BindPointState();
  cs->rayTracingApp = BindPointState();
  cs->views = 1;
  cs->traceBufferIndex = kTraceBufferUnbound;
  cs->labelStack.clear();
  cs->shadow = VK_NULL_HANDLE;
  cs->generation++;
}

/** Recordings of a reusable command buffer shadowed however far from the captured frame (beyond: near it only). */
static const uint32_t kShadowedEarlyRecordings = 2;

/** Whether command buffers begun now may be submitted in the captured frame. */
static bool captureWindowOpen(DeviceState *device, const CommandState *cs, const VkCommandBufferBeginInfo *info) {
  if (!device->traceable || device->capture.done) return false;
  const Settings &s = settings();
  if (s.submitMode || device->capture.armed) return true;
  // Reusable buffers may be recorded long before the frame that submits them (vkcube records them once, at start);
  // one recorded again and again is recorded per frame: shadowed, like one-time buffers, near the captured frame only.
  if (!(info->flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT) && cs->recordings <= kShadowedEarlyRecordings) return true;
  // One-time buffers are recorded for the frame that submits them, at most a frame ahead; the warm-up frame needs them too.
  return device->presents + 3 >= device->capture.targetFrame;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateCommandPool(VkDevice handle, const VkCommandPoolCreateInfo *info,
                                                      const VkAllocationCallbacks *allocator, VkCommandPool *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateCommandPool(handle, info, allocator, out);
  if (r == VK_SUCCESS) {
    std::lock_guard<std::mutex> guard(device->lock);
    device->pools[*out].family = info->queueFamilyIndex;
    device->pools[*out].protectedPool = (info->flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT) != 0;
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyCommandPool(VkDevice handle, VkCommandPool pool, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  PoolState state;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->pools.find(pool);
    if (it != device->pools.end()) state = std::move(it->second), device->pools.erase(it);
  }
  for (CommandState *cs : state.buffers) {
    forgetRecording(cs);
    unregisterCommandState(cs->app);
    delete cs;
  }
  if (state.shadowPool) device->d.DestroyCommandPool(handle, state.shadowPool, nullptr);
  device->d.DestroyCommandPool(handle, pool, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkResetCommandPool(VkDevice handle, VkCommandPool pool, VkCommandPoolResetFlags flags) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.ResetCommandPool(handle, pool, flags);
  std::vector<CommandState *> buffers;
  VkCommandPool shadowPool = VK_NULL_HANDLE;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->pools.find(pool);
    if (it != device->pools.end()) buffers = it->second.buffers, shadowPool = it->second.shadowPool;
  }
  for (CommandState *cs : buffers) forgetRecording(cs);
  if (shadowPool) device->d.ResetCommandPool(handle, shadowPool, flags);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkAllocateCommandBuffers(VkDevice handle, const VkCommandBufferAllocateInfo *info, VkCommandBuffer *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.AllocateCommandBuffers(handle, info, out);
  if (r != VK_SUCCESS) return r;
  for (uint32_t i = 0; i < info->commandBufferCount; i++) {
    auto *cs = new CommandState();
    cs->device = device;
    cs->app = out[i];
    cs->pool = info->commandPool;
    cs->secondary = info->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY;
    registerCommandState(out[i], cs);
    std::lock_guard<std::mutex> guard(device->lock);
    device->pools[info->commandPool].buffers.push_back(cs);
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkFreeCommandBuffers(VkDevice handle, VkCommandPool pool, uint32_t count, const VkCommandBuffer *buffers) {
  DeviceState *device = findDevice(dispatchKey(handle));
  std::vector<VkCommandBuffer> shadows;
  VkCommandPool shadowPool = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < count; i++) {
    if (!buffers[i]) continue;
    CommandState *cs = findCommandState(buffers[i]);
    if (cs == &device->untracked) continue;
    forgetRecording(cs);
    if (cs->shadowHandle) shadows.push_back(cs->shadowHandle);
    unregisterCommandState(buffers[i]);
    std::lock_guard<std::mutex> guard(device->lock);
    auto &list = device->pools[pool].buffers;
    for (auto it = list.begin(); it != list.end(); ++it)
      if (*it == cs) {
        list.erase(it);
        break;
      }
    shadowPool = device->pools[pool].shadowPool;
    delete cs;
  }
  if (!shadows.empty() && shadowPool) device->d.FreeCommandBuffers(handle, shadowPool, (uint32_t)shadows.size(), shadows.data());
  device->d.FreeCommandBuffers(handle, pool, count, buffers);
}

/** The shadow's handle for this app buffer (allocated once, reused across recordings), or null. */
static VkCommandBuffer shadowHandleFor(CommandState *cs) {
  if (cs->shadowHandle) return cs->shadowHandle;
  DeviceState *device = cs->device;
  VkCommandPool shadowPool;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    PoolState &pool = device->pools[cs->pool];
    if (pool.protectedPool) return VK_NULL_HANDLE;
    if (!pool.shadowPool) {
      VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
      pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
      pi.queueFamilyIndex = pool.family;
      if (device->d.CreateCommandPool(device->device, &pi, nullptr, &pool.shadowPool) != VK_SUCCESS) return VK_NULL_HANDLE;
    }
    shadowPool = pool.shadowPool;
  }
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = shadowPool;
  ai.level = cs->secondary ? VK_COMMAND_BUFFER_LEVEL_SECONDARY : VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer shadow = VK_NULL_HANDLE;
  if (device->d.AllocateCommandBuffers(device->device, &ai, &shadow) != VK_SUCCESS) return VK_NULL_HANDLE;
  if (device->setLoaderData) device->setLoaderData(device->device, shadow);
  cs->shadowHandle = shadow;
  return shadow;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkBeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
  CommandState *cs = findCommandState(cb);
  DeviceState *device = cs->device;
  VkResult r = device->d.BeginCommandBuffer(cb, info);
  if (r != VK_SUCCESS || cs == &device->untracked) return r;
  forgetRecording(cs);
  cs->recordings++;
  if (!captureWindowOpen(device, cs, info)) return r;
  VkCommandBuffer shadow = shadowHandleFor(cs);
  // Begin resets the shadow implicitly (its pool allows it); same inheritance, same flags.
  if (shadow && device->d.BeginCommandBuffer(shadow, info) == VK_SUCCESS) cs->shadow = shadow;
  // A secondary that continues a render pass or rendering scope records its draws in that scope's views.
  if (cs->secondary && info && info->pInheritanceInfo && (info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT)) {
    const VkCommandBufferInheritanceInfo *inherit = info->pInheritanceInfo;
    DeviceState::RenderPassInfo pass;
    if (inherit->renderPass && findRenderPass(device, inherit->renderPass, pass)) cs->views = pass.views;
    if (auto *rendering = (const VkCommandBufferInheritanceRenderingInfo *)findInChain(inherit->pNext, VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_RENDERING_INFO))
      cs->views = viewsOfMask(rendering->viewMask);
  }
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkEndCommandBuffer(VkCommandBuffer cb) {
  CommandState *cs = findCommandState(cb);
  VkResult r = cs->device->d.EndCommandBuffer(cb);
  if (cs->shadow && cs->device->d.EndCommandBuffer(cs->shadow) != VK_SUCCESS) forgetRecording(cs);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags) {
  CommandState *cs = findCommandState(cb);
  VkResult r = cs->device->d.ResetCommandBuffer(cb, flags);
  if (cs->shadowHandle) cs->device->d.ResetCommandBuffer(cs->shadowHandle, 0);
  if (cs != &cs->device->untracked) forgetRecording(cs);
  return r;
}

VkCommandBuffer beginLayerCommandBuffer(DeviceState *device, VkCommandPool pool) {
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (device->d.AllocateCommandBuffers(device->device, &ai, &cb) != VK_SUCCESS) return VK_NULL_HANDLE;
  // The layer's own dispatchable handle: the loader's dispatch pointer must be written into it.
  if (device->setLoaderData) device->setLoaderData(device->device, cb);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (device->d.BeginCommandBuffer(cb, &bi) != VK_SUCCESS) return VK_NULL_HANDLE;
  return cb;
}

}  // namespace wtl
