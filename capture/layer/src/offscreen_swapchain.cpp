// Swapchains on the layer's offscreen surfaces (offscreen_surface.cpp): ordinary
// images with their own memory, handed to the app by acquire and back by present.
// Synchronization is the app's, honoured with empty submits: acquire signals the
// app's semaphore and fence; present waits for the app's semaphores and signals
// the image's fence, which the acquire that hands the image out again waits for.
// Nothing is shown anywhere; the frame logic of vkQueuePresentKHR (frame.cpp:
// frame counting, --frame, --trigger, WARPTRACE_IMAGE) runs before this as for a
// window.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "offscreen.hpp"

namespace wtl {

namespace {

/** The device functions only offscreen swapchains need, and the next layer's acquire for the app's own swapchains. */
struct SwapchainNext {
#define WTL_SWAPCHAIN_FUNCTIONS(X)                                                                                     \
  X(CreateImage) X(DestroyImage) X(GetImageMemoryRequirements) X(BindImageMemory) X(AcquireNextImageKHR)                \
  X(AcquireNextImage2KHR) X(GetSwapchainStatusKHR) X(GetDeviceGroupSurfacePresentModesKHR) X(ReleaseSwapchainImagesEXT)
#define WTL_MEMBER(name) PFN_vk##name name = nullptr;
  WTL_SWAPCHAIN_FUNCTIONS(WTL_MEMBER)
#undef WTL_MEMBER
};

enum class ImageState { Free, Acquired, Presented };

struct OffscreenImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkFence presented = VK_NULL_HANDLE;  // signalled once the present's wait semaphores are
  ImageState state = ImageState::Free;
  uint64_t order = 0;  // when it was last handed back: the oldest goes out first
};

struct OffscreenSwapchain {
  DeviceState *device = nullptr;
  std::mutex lock;
  std::vector<OffscreenImage> images;
  VkQueue queue = VK_NULL_HANDLE;  // the queue of the last present, for the next acquire's signal
  uint64_t presents = 0;
  bool retired = false;  // replaced (oldSwapchain): acquire says VK_ERROR_OUT_OF_DATE_KHR
};

std::mutex gLock;
std::unordered_map<uint64_t, OffscreenSwapchain *> gSwapchains;
std::unordered_map<DeviceState *, SwapchainNext> gNext;

SwapchainNext &nextOf(DeviceState *device) {
  std::lock_guard<std::mutex> guard(gLock);
  auto it = gNext.find(device);
  if (it != gNext.end()) return it->second;
  SwapchainNext &n = gNext[device];
#define WTL_LOAD(name) n.name = (PFN_vk##name)device->d.GetDeviceProcAddr(device->device, "vk" #name);
  WTL_SWAPCHAIN_FUNCTIONS(WTL_LOAD)
#undef WTL_LOAD
  return n;
}

OffscreenSwapchain *findSwapchain(VkSwapchainKHR swapchain) {
  std::lock_guard<std::mutex> guard(gLock);
  auto it = gSwapchains.find((uint64_t)swapchain);
  return it == gSwapchains.end() ? nullptr : it->second;
}

/** A queue for acquire's signal: the last present's, else the app's first graphics queue, else any. */
VkQueue signalQueue(OffscreenSwapchain &sc) {
  if (sc.queue) return sc.queue;
  DeviceState *device = sc.device;
  std::lock_guard<std::mutex> guard(device->lock);
  VkQueue any = VK_NULL_HANDLE;
  for (const auto &[queue, family] : device->queueFamilies) {
    if (family < device->familyFlags.size() && (device->familyFlags[family] & VK_QUEUE_GRAPHICS_BIT)) return queue;
    any = queue;
  }
  return any;
}

void destroyImages(DeviceState *device, std::vector<OffscreenImage> &images) {
  SwapchainNext &n = nextOf(device);
  for (OffscreenImage &image : images) {
    if (image.state == ImageState::Presented) device->d.WaitForFences(device->device, 1, &image.presented, VK_TRUE, UINT64_MAX);
    if (image.image) n.DestroyImage(device->device, image.image, nullptr);
    if (image.memory) device->d.FreeMemory(device->device, image.memory, nullptr);
    if (image.presented) device->d.DestroyFence(device->device, image.presented, nullptr);
  }
  images.clear();
}

VkResult makeImage(DeviceState *device, const VkSwapchainCreateInfoKHR *info, OffscreenImage &out) {
  SwapchainNext &n = nextOf(device);
  VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  // A mutable-format swapchain lists its view formats: the image takes the same list.
  VkImageFormatListCreateInfo formats{VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
  for (auto *s = (const VkBaseInStructure *)info->pNext; s; s = s->pNext)
    if (s->sType == VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO) formats = *(const VkImageFormatListCreateInfo *)s, formats.pNext = nullptr, ii.pNext = &formats;
  if (info->flags & VK_SWAPCHAIN_CREATE_MUTABLE_FORMAT_BIT_KHR) ii.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
  if (info->flags & VK_SWAPCHAIN_CREATE_PROTECTED_BIT_KHR) ii.flags |= VK_IMAGE_CREATE_PROTECTED_BIT;
  ii.imageType = VK_IMAGE_TYPE_2D;
  ii.format = info->imageFormat;
  ii.extent = {info->imageExtent.width, info->imageExtent.height, 1};
  ii.mipLevels = 1;
  ii.arrayLayers = info->imageArrayLayers;
  ii.samples = VK_SAMPLE_COUNT_1_BIT;
  ii.tiling = VK_IMAGE_TILING_OPTIMAL;
  // TRANSFER_SRC as well: WARPTRACE_IMAGE reads the presented image back.
  ii.usage = info->imageUsage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  ii.sharingMode = info->imageSharingMode;
  ii.queueFamilyIndexCount = info->imageSharingMode == VK_SHARING_MODE_CONCURRENT ? info->queueFamilyIndexCount : 0;
  ii.pQueueFamilyIndices = info->imageSharingMode == VK_SHARING_MODE_CONCURRENT ? info->pQueueFamilyIndices : nullptr;
  ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkResult r = n.CreateImage(device->device, &ii, nullptr, &out.image);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req{};
  n.GetImageMemoryRequirements(device->device, out.image, &req);
  VkPhysicalDeviceMemoryProperties mem{};
  device->instance->d.GetPhysicalDeviceMemoryProperties(device->physical, &mem);
  uint32_t type = UINT32_MAX;
  VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  if (info->flags & VK_SWAPCHAIN_CREATE_PROTECTED_BIT_KHR) want |= VK_MEMORY_PROPERTY_PROTECTED_BIT;
  for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; i++)
    if ((req.memoryTypeBits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want) type = i;
  for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; i++)
    if (req.memoryTypeBits & (1u << i)) type = i;
  if (type == UINT32_MAX) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  if ((r = device->d.AllocateMemory(device->device, &ai, nullptr, &out.memory)) != VK_SUCCESS) return r;
  if ((r = n.BindImageMemory(device->device, out.image, out.memory, 0)) != VK_SUCCESS) return r;
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  return device->d.CreateFence(device->device, &fi, nullptr, &out.presented);
}

/** Hands out the image handed back longest ago, once its present's semaphores are signalled; signals the app's semaphore and fence. */
VkResult acquire(DeviceState *device, OffscreenSwapchain &sc, uint64_t timeout, VkSemaphore semaphore, VkFence fence, uint32_t *index) {
  std::lock_guard<std::mutex> guard(sc.lock);
  if (sc.retired) return VK_ERROR_OUT_OF_DATE_KHR;
  OffscreenImage *pick = nullptr;
  for (OffscreenImage &image : sc.images)
    if (image.state != ImageState::Acquired && (!pick || image.order < pick->order)) pick = &image;
  if (!pick) return timeout == 0 ? VK_NOT_READY : VK_TIMEOUT;  // the app holds them all
  if (pick->state == ImageState::Presented) {
    VkResult r = device->d.WaitForFences(device->device, 1, &pick->presented, VK_TRUE, timeout);
    if (r == VK_TIMEOUT) return timeout == 0 ? VK_NOT_READY : VK_TIMEOUT;
    if (r != VK_SUCCESS) return r;
    device->d.ResetFences(device->device, 1, &pick->presented);
    pick->state = ImageState::Free;
  }
  if (semaphore || fence) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.signalSemaphoreCount = semaphore ? 1 : 0;
    si.pSignalSemaphores = &semaphore;
    VkQueue queue = signalQueue(sc);
    if (!queue) return VK_ERROR_DEVICE_LOST;  // the app got no queue of this device: nothing could signal
    VkResult r = device->d.QueueSubmit(queue, 1, &si, fence);
    if (r != VK_SUCCESS) return r;
  }
  pick->state = ImageState::Acquired;
  *index = (uint32_t)(pick - sc.images.data());
  return VK_SUCCESS;
}

// --- the hooks

VKAPI_ATTR VkResult VKAPI_CALL wl_vkAcquireNextImageKHR(VkDevice handle, VkSwapchainKHR swapchain, uint64_t timeout, VkSemaphore semaphore,
                                                        VkFence fence, uint32_t *index) {
  DeviceState *device = findDevice(dispatchKey(handle));
  OffscreenSwapchain *sc = findSwapchain(swapchain);
  if (!sc) return nextOf(device).AcquireNextImageKHR(handle, swapchain, timeout, semaphore, fence, index);
  return acquire(device, *sc, timeout, semaphore, fence, index);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkAcquireNextImage2KHR(VkDevice handle, const VkAcquireNextImageInfoKHR *info, uint32_t *index) {
  DeviceState *device = findDevice(dispatchKey(handle));
  OffscreenSwapchain *sc = findSwapchain(info->swapchain);
  if (!sc) return nextOf(device).AcquireNextImage2KHR(handle, info, index);
  return acquire(device, *sc, info->timeout, info->semaphore, info->fence, index);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetSwapchainStatusKHR(VkDevice handle, VkSwapchainKHR swapchain) {
  DeviceState *device = findDevice(dispatchKey(handle));
  OffscreenSwapchain *sc = findSwapchain(swapchain);
  if (!sc) return nextOf(device).GetSwapchainStatusKHR(handle, swapchain);
  return sc->retired ? VK_ERROR_OUT_OF_DATE_KHR : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetDeviceGroupSurfacePresentModesKHR(VkDevice handle, VkSurfaceKHR surface,
                                                                         VkDeviceGroupPresentModeFlagsKHR *modes) {
  DeviceState *device = findDevice(dispatchKey(handle));
  if (!isOffscreenSurface(surface)) return nextOf(device).GetDeviceGroupSurfacePresentModesKHR(handle, surface, modes);
  *modes = VK_DEVICE_GROUP_PRESENT_MODE_LOCAL_BIT_KHR;
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkReleaseSwapchainImagesEXT(VkDevice handle, const VkReleaseSwapchainImagesInfoEXT *info) {
  DeviceState *device = findDevice(dispatchKey(handle));
  OffscreenSwapchain *sc = findSwapchain(info->swapchain);
  if (!sc) return nextOf(device).ReleaseSwapchainImagesEXT(handle, info);
  std::lock_guard<std::mutex> guard(sc->lock);
  for (uint32_t i = 0; i < info->imageIndexCount; i++)
    if (info->pImageIndices[i] < sc->images.size()) sc->images[info->pImageIndices[i]].state = ImageState::Free;
  return VK_SUCCESS;
}

}  // namespace

VkResult createOffscreenSwapchain(DeviceState *device, const VkSwapchainCreateInfoKHR *info, VkSwapchainKHR *out) {
  if (OffscreenSwapchain *old = findSwapchain(info->oldSwapchain)) {
    std::lock_guard<std::mutex> guard(old->lock);
    old->retired = true;
  }
  auto *sc = new OffscreenSwapchain();
  sc->device = device;
  uint32_t count = std::max(info->minImageCount, 2u);
  sc->images.resize(count);
  for (uint32_t i = 0; i < count; i++) {
    sc->images[i].order = i;
    VkResult r = makeImage(device, info, sc->images[i]);
    if (r != VK_SUCCESS) {
      destroyImages(device, sc->images);
      delete sc;
      return r;
    }
  }
  sc->presents = count;
  auto handle = (uint64_t)(uintptr_t)sc;  // unique while it lives, like the driver's own handles
  {
    std::lock_guard<std::mutex> guard(gLock);
    gSwapchains[handle] = sc;
  }
  *out = (VkSwapchainKHR)handle;
  std::lock_guard<std::mutex> guard(device->lock);
  auto &images = device->swapchains[*out].images;
  for (const OffscreenImage &image : sc->images) images.push_back(image.image);
  return VK_SUCCESS;
}

bool destroyOffscreenSwapchain(DeviceState *device, VkSwapchainKHR swapchain) {
  OffscreenSwapchain *sc = nullptr;
  {
    std::lock_guard<std::mutex> guard(gLock);
    auto it = gSwapchains.find((uint64_t)swapchain);
    if (it == gSwapchains.end()) return false;
    sc = it->second;
    gSwapchains.erase(it);
  }
  destroyImages(device, sc->images);
  delete sc;
  return true;
}

bool offscreenSwapchainImages(DeviceState *device, VkSwapchainKHR swapchain, uint32_t *count, VkImage *images, VkResult &result) {
  OffscreenSwapchain *sc = findSwapchain(swapchain);
  if (!sc) return false;
  uint32_t total = (uint32_t)sc->images.size();
  if (!images) {
    *count = total;
    result = VK_SUCCESS;
    return true;
  }
  uint32_t n = std::min(*count, total);
  for (uint32_t i = 0; i < n; i++) images[i] = sc->images[i].image;
  *count = n;
  result = n < total ? VK_INCOMPLETE : VK_SUCCESS;
  return true;
}

VkResult presentSwapchains(DeviceState *device, VkQueue queue, const VkPresentInfoKHR *info) {
  std::vector<uint32_t> ours, theirs;  // indices into the present's swapchains
  for (uint32_t i = 0; i < info->swapchainCount; i++) (findSwapchain(info->pSwapchains[i]) ? ours : theirs).push_back(i);
  if (ours.empty()) return device->d.QueuePresentKHR(queue, info);
  VkResult result = VK_SUCCESS;
  bool waited = false;
  if (!theirs.empty()) {
    // Windows and offscreen images in one present (rare): the windows' present takes the semaphores; the
    // offscreen images' fences below come after it on the same queue. Its pNext (per-swapchain arrays) is dropped.
    std::vector<VkSwapchainKHR> chains;
    std::vector<uint32_t> indices;
    std::vector<VkResult> results(theirs.size(), VK_SUCCESS);
    for (uint32_t i : theirs) chains.push_back(info->pSwapchains[i]), indices.push_back(info->pImageIndices[i]);
    VkPresentInfoKHR windows = *info;
    windows.pNext = nullptr;
    windows.swapchainCount = (uint32_t)chains.size();
    windows.pSwapchains = chains.data();
    windows.pImageIndices = indices.data();
    windows.pResults = results.data();
    result = device->d.QueuePresentKHR(queue, &windows);
    for (size_t k = 0; k < theirs.size() && info->pResults; k++) info->pResults[theirs[k]] = results[k];
    waited = true;
  }
  const VkSwapchainPresentFenceInfoEXT *presentFences = nullptr;
  for (auto *s = (const VkBaseInStructure *)info->pNext; s; s = s->pNext)
    if (s->sType == VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_EXT) presentFences = (const VkSwapchainPresentFenceInfoEXT *)s;
  std::vector<VkPipelineStageFlags> stages(info->waitSemaphoreCount, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  for (uint32_t i : ours) {
    OffscreenSwapchain *sc = findSwapchain(info->pSwapchains[i]);
    std::lock_guard<std::mutex> guard(sc->lock);
    uint32_t index = info->pImageIndices[i];
    VkResult r = VK_ERROR_OUT_OF_DATE_KHR;
    if (index < sc->images.size() && sc->images[index].state == ImageState::Acquired) {
      OffscreenImage &image = sc->images[index];
      // The first submit waits for the app's semaphores; a fence signalled by a later submit on the
      // same queue covers everything submitted before it, those waits included.
      VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      if (!waited) {
        si.waitSemaphoreCount = info->waitSemaphoreCount;
        si.pWaitSemaphores = info->pWaitSemaphores;
        si.pWaitDstStageMask = stages.data();
        waited = true;
      }
      r = device->d.QueueSubmit(queue, 1, &si, image.presented);
      if (r == VK_SUCCESS) {
        image.state = ImageState::Presented;
        image.order = ++sc->presents;
        sc->queue = queue;
      }
      if (r == VK_SUCCESS && presentFences && i < presentFences->swapchainCount && presentFences->pFences[i]) {
        VkSubmitInfo empty{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        r = device->d.QueueSubmit(queue, 1, &empty, presentFences->pFences[i]);
      }
    }
    if (info->pResults) info->pResults[i] = r;
    if (r != VK_SUCCESS && result == VK_SUCCESS) result = r;
  }
  return result;
}

void releaseOffscreenSwapchains(DeviceState *device) {
  std::vector<OffscreenSwapchain *> left;
  {
    std::lock_guard<std::mutex> guard(gLock);
    for (auto it = gSwapchains.begin(); it != gSwapchains.end();)
      if (it->second->device == device) left.push_back(it->second), it = gSwapchains.erase(it);
      else ++it;
  }
  for (OffscreenSwapchain *sc : left) destroyImages(device, sc->images), delete sc;
  std::lock_guard<std::mutex> guard(gLock);
  gNext.erase(device);
}

#define WTL_HOOK(name) \
  if (!strcmp(pName, #name)) return (PFN_vkVoidFunction)wl_##name;

PFN_vkVoidFunction findOffscreenDeviceHook(const char *pName) {
  WTL_HOOK(vkAcquireNextImageKHR)
  WTL_HOOK(vkAcquireNextImage2KHR)
  WTL_HOOK(vkGetSwapchainStatusKHR)
  WTL_HOOK(vkGetDeviceGroupSurfacePresentModesKHR)
  WTL_HOOK(vkReleaseSwapchainImagesEXT)
  return nullptr;
}

#undef WTL_HOOK

}  // namespace wtl
