// The image the app presents at the captured frame, written as a PPM
// (WARPTRACE_IMAGE): the proof that tracing does not change what the app
// renders is the same frame, traced and untraced, byte for byte.
#include <cstdio>
#include <cstring>
#include <string>

#include "command_buffers.hpp"
#include "hooks.hpp"
#include "offscreen.hpp"
#include "tracer_glue.hpp"

namespace wtl {

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateSwapchainKHR(VkDevice handle, const VkSwapchainCreateInfoKHR *info,
                                                       const VkAllocationCallbacks *allocator, VkSwapchainKHR *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = VK_ERROR_UNKNOWN;
  bool copyable = false;
  if (isOffscreenSurface(info->surface)) {
    r = createOffscreenSwapchain(device, info, out);  // its images always have TRANSFER_SRC
    copyable = true;
  } else if (!settings().imagePath.empty() && !(info->imageUsage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT)) {
    // Only to read the frame back; without WARPTRACE_IMAGE the app's swapchain is created as asked.
    VkSwapchainCreateInfoKHR patched = *info;
    patched.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    r = device->d.CreateSwapchainKHR(handle, &patched, allocator, out);
    copyable = r == VK_SUCCESS;
  }
  if (r != VK_SUCCESS && !isOffscreenSurface(info->surface)) {
    r = device->d.CreateSwapchainKHR(handle, info, allocator, out);
    copyable = (info->imageUsage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
  }
  if (r == VK_SUCCESS) {
    std::lock_guard<std::mutex> guard(device->lock);
    SwapchainState &s = device->swapchains[*out];
    s.format = info->imageFormat;
    s.extent = info->imageExtent;
    s.copyable = copyable;
  }
  return r;
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroySwapchainKHR(VkDevice handle, VkSwapchainKHR swapchain, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  {
    std::lock_guard<std::mutex> guard(device->lock);
    device->swapchains.erase(swapchain);
  }
  if (!destroyOffscreenSwapchain(device, swapchain)) device->d.DestroySwapchainKHR(handle, swapchain, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetSwapchainImagesKHR(VkDevice handle, VkSwapchainKHR swapchain, uint32_t *count, VkImage *images) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r;
  if (!offscreenSwapchainImages(device, swapchain, count, images, r)) r = device->d.GetSwapchainImagesKHR(handle, swapchain, count, images);
  if ((r == VK_SUCCESS || r == VK_INCOMPLETE) && images) {
    std::lock_guard<std::mutex> guard(device->lock);
    auto &list = device->swapchains[swapchain].images;
    if (list.size() < *count) list.resize(*count);
    for (uint32_t i = 0; i < *count; i++) list[i] = images[i];
  }
  return r;
}

/** RGB from one 4-byte pixel of the formats swapchains use; false for others. */
static bool channelOrder(VkFormat format, int &r, int &b) {
  switch (format) {
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB: r = 2, b = 0; return true;
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB: r = 0, b = 2; return true;
    default: return false;
  }
}

static bool writePpm(const std::string &path, const uint8_t *pixels, uint32_t width, uint32_t height, VkDeviceSize rowPitch, VkFormat format,
                     std::string &why) {
  int r, b;
  if (!channelOrder(format, r, b)) {
    why = "the swapchain's format " + std::to_string((int)format) + " is not an 8-bit RGBA/BGRA format";
    return false;
  }
  std::string tmp = path + ".tmp";
  FILE *f = fopen(tmp.c_str(), "wb");
  if (!f) {
    why = "cannot write " + tmp;
    return false;
  }
  fprintf(f, "P6\n%u %u\n255\n", width, height);
  std::vector<uint8_t> row(width * 3);
  for (uint32_t y = 0; y < height; y++) {
    const uint8_t *src = pixels + y * rowPitch;
    for (uint32_t x = 0; x < width; x++) {
      row[3 * x] = src[4 * x + r];
      row[3 * x + 1] = src[4 * x + 1];
      row[3 * x + 2] = src[4 * x + b];
    }
    fwrite(row.data(), 1, row.size(), f);
  }
  bool ok = !ferror(f);
  ok = fclose(f) == 0 && ok && rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) remove(tmp.c_str()), why = "cannot write " + path;
  return ok;
}

static void barrier(DeviceState *device, VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags srcAccess,
                    VkAccessFlags dstAccess) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  device->cmd.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0, nullptr, 1, &b);
}

bool writePresentedImage(DeviceState *device, VkQueue queue, const VkPresentInfoKHR *info, std::string &why) {
  if (info->swapchainCount == 0) return why = "the present names no swapchain", false;
  SwapchainState chain;
  uint32_t family = 0;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->swapchains.find(info->pSwapchains[0]);
    if (it == device->swapchains.end() || info->pImageIndices[0] >= it->second.images.size()) return why = "unknown swapchain image", false;
    chain = it->second;
    family = queueFamilyOf(device, queue);
  }
  if (!chain.copyable) return why = "the swapchain images cannot be copied (no TRANSFER_SRC usage)", false;
  VkImage image = chain.images[info->pImageIndices[0]];
  VkDeviceSize pitch = (VkDeviceSize)chain.extent.width * 4, bytes = pitch * chain.extent.height;
  DeviceScope scope(device);
  HostBuffer readback;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = family;
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  bool ok = makeHostBuffer(device, bytes, readback) && device->d.CreateCommandPool(device->device, &pi, nullptr, &pool) == VK_SUCCESS &&
            device->d.CreateFence(device->device, &fi, nullptr, &fence) == VK_SUCCESS;
  if (ok) ok = (cb = beginLayerCommandBuffer(device, pool)) != VK_NULL_HANDLE;
  if (ok) {
    barrier(device, cb, image, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_MEMORY_WRITE_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {chain.extent.width, chain.extent.height, 1};
    device->cmd.CmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
    barrier(device, cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_ACCESS_TRANSFER_READ_BIT, 0);
    device->d.EndCommandBuffer(cb);
    // The copy waits for what the present would have waited for; the present then waits for nothing (the fence below).
    std::vector<VkPipelineStageFlags> stages(info->waitSemaphoreCount, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = info->waitSemaphoreCount;
    si.pWaitSemaphores = info->pWaitSemaphores;
    si.pWaitDstStageMask = stages.data();
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    ok = device->d.QueueSubmit(queue, 1, &si, fence) == VK_SUCCESS &&
         device->d.WaitForFences(device->device, 1, &fence, VK_TRUE, 30ull * 1000 * 1000 * 1000) == VK_SUCCESS;
  }
  if (ok) ok = readHostBuffer(device, readback) && writePpm(settings().imagePath, (const uint8_t *)readback.map, chain.extent.width,
                                                          chain.extent.height, pitch, chain.format, why);
  else why = "the copy of the presented image failed";
  if (fence) device->d.DestroyFence(device->device, fence, nullptr);
  if (pool) device->d.DestroyCommandPool(device->device, pool, nullptr);
  destroyHostBuffer(device, readback);
  return ok;
}

}  // namespace wtl
