// Ray-tracing launches (vkCmdTraceRays*): draws of the trace, in their
// regions, with their counts and (direct launches) their launch size as
// target (indirect launches: read back, launch_sizes.cpp). Their pipelines are instrumented in place (ray_tracing.cpp): the
// app's buffer binds the trace set with the no-draw slot before each launch,
// the shadow with the launch's slot. A launch whose pipeline is not traced runs
// between its own timestamps, marked untraced with why (CONTRACT.md).
#include <cstddef>
#include <string>

#include "command_buffers.hpp"
#include "ray_tracing.hpp"

namespace wtl {

static std::string launchParams(uint32_t width, uint32_t height, uint32_t depth) {
  return "\"width\": " + std::to_string(width) + ", \"height\": " + std::to_string(height) + ", \"depth\": " + std::to_string(depth);
}

/**
 * Forwards a launch to the app's buffer, and to the shadow between beginDraw and endDraw; `launch` its size when
 * known, else `sizeAt` the device address an indirect launch reads it from (copied before the launch, read after the frame).
 */
template <typename Forward>
static void recordLaunch(VkCommandBuffer cb, const char *call, const std::string &params, const std::string &label, VkExtent2D launch,
                         VkDeviceAddress sizeAt, Forward forward) {
  CommandState *cs = findCommandState(cb);
  bindTraceSetForAppLaunch(cs, cb);
  forward(cb);
  if (!cs->shadow) return;
  int32_t size = sizeAt ? copyLaunchSize(cs, sizeAt) : -1;
  uint32_t slot = beginDraw(cs, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, call, WT_KIND_TRACE_RAYS, params, label);
  if (slot != kNoSlot) cs->events.back().launch = launch, cs->events.back().launchSize = size;
  forward(cs->shadow);
  endDraw(cs, slot);
}

static std::string sizeLabel(const char *call, uint32_t width, uint32_t height, uint32_t depth) {
  return std::string(call) + "(" + std::to_string(width) + ", " + std::to_string(height) + ", " + std::to_string(depth) + ")";
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdTraceRaysKHR(VkCommandBuffer cb, const VkStridedDeviceAddressRegionKHR *raygen,
                                                       const VkStridedDeviceAddressRegionKHR *miss, const VkStridedDeviceAddressRegionKHR *hit,
                                                       const VkStridedDeviceAddressRegionKHR *callable, uint32_t width, uint32_t height,
                                                       uint32_t depth) {
  const CommandTable &cmd = findCommandState(cb)->device->cmd;
  recordLaunch(cb, "vkCmdTraceRaysKHR", launchParams(width, height, depth), sizeLabel("vkCmdTraceRaysKHR", width, height, depth), {width, height}, 0,
               [&](VkCommandBuffer to) { cmd.CmdTraceRaysKHR(to, raygen, miss, hit, callable, width, height, depth); });
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdTraceRaysIndirectKHR(VkCommandBuffer cb, const VkStridedDeviceAddressRegionKHR *raygen,
                                                               const VkStridedDeviceAddressRegionKHR *miss,
                                                               const VkStridedDeviceAddressRegionKHR *hit,
                                                               const VkStridedDeviceAddressRegionKHR *callable, VkDeviceAddress indirect) {
  const CommandTable &cmd = findCommandState(cb)->device->cmd;
  recordLaunch(cb, "vkCmdTraceRaysIndirectKHR", "", "vkCmdTraceRaysIndirectKHR()", {}, indirect,
               [&](VkCommandBuffer to) { cmd.CmdTraceRaysIndirectKHR(to, raygen, miss, hit, callable, indirect); });
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdTraceRaysIndirect2KHR(VkCommandBuffer cb, VkDeviceAddress indirect) {
  const CommandTable &cmd = findCommandState(cb)->device->cmd;
  recordLaunch(cb, "vkCmdTraceRaysIndirect2KHR", "", "vkCmdTraceRaysIndirect2KHR()", {}, indirect + offsetof(VkTraceRaysIndirectCommand2KHR, width),
               [&](VkCommandBuffer to) { cmd.CmdTraceRaysIndirect2KHR(to, indirect); });
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdTraceRaysNV(VkCommandBuffer cb, VkBuffer raygen, VkDeviceSize raygenOffset, VkBuffer miss,
                                                      VkDeviceSize missOffset, VkDeviceSize missStride, VkBuffer hit, VkDeviceSize hitOffset,
                                                      VkDeviceSize hitStride, VkBuffer callable, VkDeviceSize callableOffset,
                                                      VkDeviceSize callableStride, uint32_t width, uint32_t height, uint32_t depth) {
  const CommandTable &cmd = findCommandState(cb)->device->cmd;
  recordLaunch(cb, "vkCmdTraceRaysNV", launchParams(width, height, depth), sizeLabel("vkCmdTraceRaysNV", width, height, depth), {width, height}, 0,
               [&](VkCommandBuffer to) {
                 cmd.CmdTraceRaysNV(to, raygen, raygenOffset, miss, missOffset, missStride, hit, hitOffset, hitStride, callable, callableOffset,
                                    callableStride, width, height, depth);
               });
}

PFN_vkVoidFunction findRayLaunchCommand(const char *name) {
  std::string n(name);
  if (n == "vkCmdTraceRaysKHR") return (PFN_vkVoidFunction)wl_vkCmdTraceRaysKHR;
  if (n == "vkCmdTraceRaysIndirectKHR") return (PFN_vkVoidFunction)wl_vkCmdTraceRaysIndirectKHR;
  if (n == "vkCmdTraceRaysIndirect2KHR") return (PFN_vkVoidFunction)wl_vkCmdTraceRaysIndirect2KHR;
  if (n == "vkCmdTraceRaysNV") return (PFN_vkVoidFunction)wl_vkCmdTraceRaysNV;
  return nullptr;
}

}  // namespace wtl
