// The vkCmd* that open and close the frame's regions: render passes, dynamic
// rendering, debug labels and markers. Each is recorded into the app's buffer
// and its shadow, and noted in the shadow's events (frame.cpp names them).
#include <cstring>

#include "hooks.hpp"

namespace wtl {

static void beginPass(CommandState *cs, uint32_t colorTargets, bool depth, VkExtent2D renderArea, uint32_t views) {
  cs->views = views;
  RecordedEvent e{RecordedEvent::BeginPass};
  e.colorTargets = colorTargets;
  e.depthTarget = depth;
  e.renderArea = renderArea;
  cs->events.push_back(std::move(e));
}

static void endPass(CommandState *cs) {
  cs->views = 1;
  cs->events.push_back(RecordedEvent{RecordedEvent::EndPass});
}

/** A render pass begun: its targets and views as the app created it (unknown targets: UINT32_MAX colours). */
static void beginRenderPass(CommandState *cs, const VkRenderPassBeginInfo *info) {
  DeviceState::RenderPassInfo pass{UINT32_MAX, false, 1};
  findRenderPass(cs->device, info->renderPass, pass);
  beginPass(cs, pass.colours, pass.depth, info->renderArea.extent, pass.views);
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdBeginRenderPass(VkCommandBuffer cb, const VkRenderPassBeginInfo *info, VkSubpassContents contents) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdBeginRenderPass(cb, info, contents);
  if (!cs->shadow) return;
  cs->device->cmd.CmdBeginRenderPass(cs->shadow, info, contents);
  beginRenderPass(cs, info);
}

#define WTL_BEGIN_RENDER_PASS2(name, forward)                                                                              \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer cb, const VkRenderPassBeginInfo *info,                    \
                                              const VkSubpassBeginInfo *subpass) {                                      \
    CommandState *cs = findCommandState(cb);                                                                            \
    cs->device->cmd.forward(cb, info, subpass);                                                                         \
    if (!cs->shadow) return;                                                                                            \
    cs->device->cmd.forward(cs->shadow, info, subpass);                                                                 \
    beginRenderPass(cs, info);                                                                                          \
  }
WTL_BEGIN_RENDER_PASS2(vkCmdBeginRenderPass2, CmdBeginRenderPass2)
WTL_BEGIN_RENDER_PASS2(vkCmdBeginRenderPass2KHR, CmdBeginRenderPass2KHR)
#undef WTL_BEGIN_RENDER_PASS2

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdEndRenderPass(VkCommandBuffer cb) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdEndRenderPass(cb);
  if (!cs->shadow) return;
  cs->device->cmd.CmdEndRenderPass(cs->shadow);
  endPass(cs);
}

#define WTL_END_RENDER_PASS2(name, forward)                                                        \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer cb, const VkSubpassEndInfo *info) { \
    CommandState *cs = findCommandState(cb);                                                    \
    cs->device->cmd.forward(cb, info);                                                          \
    if (!cs->shadow) return;                                                                    \
    cs->device->cmd.forward(cs->shadow, info);                                                  \
    endPass(cs);                                                                                \
  }
WTL_END_RENDER_PASS2(vkCmdEndRenderPass2, CmdEndRenderPass2)
WTL_END_RENDER_PASS2(vkCmdEndRenderPass2KHR, CmdEndRenderPass2KHR)
#undef WTL_END_RENDER_PASS2

#define WTL_BEGIN_RENDERING(name, forward)                                                                         \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer cb, const VkRenderingInfo *info) {                 \
    CommandState *cs = findCommandState(cb);                                                                    \
    cs->device->cmd.forward(cb, info);                                                                          \
    if (!cs->shadow) return;                                                                                    \
    cs->device->cmd.forward(cs->shadow, info);                                                                  \
    beginPass(cs, info->colorAttachmentCount, info->pDepthAttachment && info->pDepthAttachment->imageView,      \
              info->renderArea.extent, viewsOfMask(info->viewMask));                                            \
  }
WTL_BEGIN_RENDERING(vkCmdBeginRendering, CmdBeginRendering)
WTL_BEGIN_RENDERING(vkCmdBeginRenderingKHR, CmdBeginRenderingKHR)
#undef WTL_BEGIN_RENDERING

#define WTL_END_RENDERING(name, forward)                                \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer cb) {   \
    CommandState *cs = findCommandState(cb);                          \
    cs->device->cmd.forward(cb);                                      \
    if (!cs->shadow) return;                                          \
    cs->device->cmd.forward(cs->shadow);                              \
    endPass(cs);                                                      \
  }
WTL_END_RENDERING(vkCmdEndRendering, CmdEndRendering)
WTL_END_RENDERING(vkCmdEndRenderingKHR, CmdEndRenderingKHR)
#undef WTL_END_RENDERING

static void openLabel(CommandState *cs, const char *text) {
  RecordedEvent e{RecordedEvent::BeginLabel};
  e.text = text ? text : "";
  cs->labelStack.push_back(e.text);
  cs->events.push_back(std::move(e));
}

static void closeLabel(CommandState *cs) {
  if (!cs->labelStack.empty()) cs->labelStack.pop_back();
  cs->events.push_back(RecordedEvent{RecordedEvent::EndLabel});
}

static void insertLabel(CommandState *cs, const char *text) {
  RecordedEvent e{RecordedEvent::InsertLabel};
  e.text = text ? text : "";
  cs->insertedLabel = e.text;
  cs->events.push_back(std::move(e));
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdBeginDebugUtilsLabelEXT(VkCommandBuffer cb, const VkDebugUtilsLabelEXT *label) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdBeginDebugUtilsLabelEXT(cb, label);
  if (!cs->shadow) return;
  cs->device->cmd.CmdBeginDebugUtilsLabelEXT(cs->shadow, label);
  openLabel(cs, label->pLabelName);
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdEndDebugUtilsLabelEXT(VkCommandBuffer cb) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdEndDebugUtilsLabelEXT(cb);
  if (!cs->shadow) return;
  cs->device->cmd.CmdEndDebugUtilsLabelEXT(cs->shadow);
  closeLabel(cs);
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdInsertDebugUtilsLabelEXT(VkCommandBuffer cb, const VkDebugUtilsLabelEXT *label) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdInsertDebugUtilsLabelEXT(cb, label);
  if (!cs->shadow) return;
  cs->device->cmd.CmdInsertDebugUtilsLabelEXT(cs->shadow, label);
  insertLabel(cs, label->pLabelName);
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDebugMarkerBeginEXT(VkCommandBuffer cb, const VkDebugMarkerMarkerInfoEXT *marker) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdDebugMarkerBeginEXT(cb, marker);
  if (!cs->shadow) return;
  cs->device->cmd.CmdDebugMarkerBeginEXT(cs->shadow, marker);
  openLabel(cs, marker->pMarkerName);
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDebugMarkerEndEXT(VkCommandBuffer cb) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdDebugMarkerEndEXT(cb);
  if (!cs->shadow) return;
  cs->device->cmd.CmdDebugMarkerEndEXT(cs->shadow);
  closeLabel(cs);
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDebugMarkerInsertEXT(VkCommandBuffer cb, const VkDebugMarkerMarkerInfoEXT *marker) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdDebugMarkerInsertEXT(cb, marker);
  if (!cs->shadow) return;
  cs->device->cmd.CmdDebugMarkerInsertEXT(cs->shadow, marker);
  insertLabel(cs, marker->pMarkerName);
}

#define WTL_REGION_COMMANDS(X)                                                                                         \
  X(vkCmdBeginRenderPass) X(vkCmdBeginRenderPass2) X(vkCmdBeginRenderPass2KHR) X(vkCmdEndRenderPass) X(vkCmdEndRenderPass2) \
  X(vkCmdEndRenderPass2KHR) X(vkCmdBeginRendering) X(vkCmdBeginRenderingKHR) X(vkCmdEndRendering) X(vkCmdEndRenderingKHR)  \
  X(vkCmdBeginDebugUtilsLabelEXT) X(vkCmdEndDebugUtilsLabelEXT) X(vkCmdInsertDebugUtilsLabelEXT) X(vkCmdDebugMarkerBeginEXT) \
  X(vkCmdDebugMarkerEndEXT) X(vkCmdDebugMarkerInsertEXT)

PFN_vkVoidFunction findRegionCommand(const char *name) {
#define WTL_FIND(fn) \
  if (!strcmp(name, #fn)) return (PFN_vkVoidFunction)wl_##fn;
  WTL_REGION_COMMANDS(WTL_FIND)
#undef WTL_FIND
  return nullptr;
}

}  // namespace wtl
