// Render passes: what the first subpass writes (colour targets, depth), so a
// pass without a debug label gets RenderDoc's name ("Colour Pass #2 (2 Targets
// + Depth)", "Depth-only Pass #1").
#include "command_buffers.hpp"
#include "hooks.hpp"
#include "pipeline_chain.hpp"

namespace wtl {

static void remember(DeviceState *device, VkRenderPass pass, uint32_t colours, bool depth, uint32_t views) {
  std::lock_guard<std::mutex> guard(device->lock);
  device->renderPasses[pass] = {colours, depth, views};
}

/** The most views of any of these view masks (0 masks: no multiview, one view). */
static uint32_t mostViews(const uint32_t *masks, uint32_t count) {
  uint32_t most = 1;
  for (uint32_t i = 0; i < count; i++)
    if (viewsOfMask(masks[i]) > most) most = viewsOfMask(masks[i]);
  return most;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRenderPass(VkDevice handle, const VkRenderPassCreateInfo *info, const VkAllocationCallbacks *allocator,
                                                     VkRenderPass *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  VkResult r = device->d.CreateRenderPass(handle, info, allocator, out);
  if (r == VK_SUCCESS && info->subpassCount > 0) {
    auto *multiview = (const VkRenderPassMultiviewCreateInfo *)findInChain(info->pNext, VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO);
    uint32_t views = multiview ? mostViews(multiview->pViewMasks, multiview->subpassCount) : 1;
    remember(device, *out, info->pSubpasses[0].colorAttachmentCount,
             info->pSubpasses[0].pDepthStencilAttachment != nullptr && info->pSubpasses[0].pDepthStencilAttachment->attachment != VK_ATTACHMENT_UNUSED,
             views);
  }
  return r;
}

static VkResult createRenderPass2(DeviceState *device, PFN_vkCreateRenderPass2 next, VkDevice handle, const VkRenderPassCreateInfo2 *info,
                                  const VkAllocationCallbacks *allocator, VkRenderPass *out) {
  VkResult r = next(handle, info, allocator, out);
  if (r == VK_SUCCESS && info->subpassCount > 0) {
    std::vector<uint32_t> masks;
    for (uint32_t i = 0; i < info->subpassCount; i++) masks.push_back(info->pSubpasses[i].viewMask);
    remember(device, *out, info->pSubpasses[0].colorAttachmentCount,
             info->pSubpasses[0].pDepthStencilAttachment != nullptr && info->pSubpasses[0].pDepthStencilAttachment->attachment != VK_ATTACHMENT_UNUSED,
             mostViews(masks.data(), (uint32_t)masks.size()));
  }
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRenderPass2(VkDevice handle, const VkRenderPassCreateInfo2 *info,
                                                      const VkAllocationCallbacks *allocator, VkRenderPass *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  return createRenderPass2(device, device->d.CreateRenderPass2, handle, info, allocator, out);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateRenderPass2KHR(VkDevice handle, const VkRenderPassCreateInfo2 *info,
                                                         const VkAllocationCallbacks *allocator, VkRenderPass *out) {
  DeviceState *device = findDevice(dispatchKey(handle));
  return createRenderPass2(device, device->d.CreateRenderPass2KHR, handle, info, allocator, out);
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroyRenderPass(VkDevice handle, VkRenderPass pass, const VkAllocationCallbacks *allocator) {
  DeviceState *device = findDevice(dispatchKey(handle));
  // Twins still to be made were copied with this render pass: made now, while it exists.
  buildTwinsUsing(device, pass, VK_NULL_HANDLE);
  {
    std::lock_guard<std::mutex> guard(device->lock);
    device->renderPasses.erase(pass);
  }
  device->d.DestroyRenderPass(handle, pass, allocator);
}

bool findRenderPass(DeviceState *device, VkRenderPass pass, DeviceState::RenderPassInfo &out) {
  std::lock_guard<std::mutex> guard(device->lock);
  auto it = device->renderPasses.find(pass);
  if (it == device->renderPasses.end()) return false;
  out = it->second;
  return true;
}

}  // namespace wtl
