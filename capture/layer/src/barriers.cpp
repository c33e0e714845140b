// Pipeline barriers and event waits (vkCmdPipelineBarrier*, vkCmdWaitEvents*):
// forwarded unchanged to the app's buffer and its shadow, and noted in the
// shadow's events as a one-line summary, so the frame's next draw can say which
// barriers the app recorded before it (draws[i].barriersBefore, CONTRACT.md).
#include <cstdio>
#include <cstring>
#include <string>

#include "barriers.hpp"
#include "hooks.hpp"
#include "instrument_client.hpp"

namespace wtl {

namespace {

struct StageName {
  uint64_t bit;
  const char *name;
};

// The stage names without VK_PIPELINE_STAGE_(2_) and _BIT(_KHR, _EXT, _NV): short enough for a remedy's sentence.
const StageName kStages[] = {
    {VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, "TOP_OF_PIPE"},
    {VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, "DRAW_INDIRECT"},
    {VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, "VERTEX_INPUT"},
    {VK_PIPELINE_STAGE_VERTEX_SHADER_BIT, "VERTEX_SHADER"},
    {VK_PIPELINE_STAGE_TESSELLATION_CONTROL_SHADER_BIT, "TESSELLATION_CONTROL_SHADER"},
    {VK_PIPELINE_STAGE_TESSELLATION_EVALUATION_SHADER_BIT, "TESSELLATION_EVALUATION_SHADER"},
    {VK_PIPELINE_STAGE_GEOMETRY_SHADER_BIT, "GEOMETRY_SHADER"},
    {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, "FRAGMENT_SHADER"},
    {VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT, "EARLY_FRAGMENT_TESTS"},
    {VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT, "LATE_FRAGMENT_TESTS"},
    {VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, "COLOR_ATTACHMENT_OUTPUT"},
    {VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, "COMPUTE_SHADER"},
    {VK_PIPELINE_STAGE_TRANSFER_BIT, "TRANSFER"},
    {VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, "BOTTOM_OF_PIPE"},
    {VK_PIPELINE_STAGE_HOST_BIT, "HOST"},
    {VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, "ALL_GRAPHICS"},
    {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, "ALL_COMMANDS"},
    {0x00020000ull, "COMMAND_PREPROCESS"},
    {0x00040000ull, "CONDITIONAL_RENDERING"},
    {0x00080000ull, "TASK_SHADER"},
    {0x00100000ull, "MESH_SHADER"},
    {0x00200000ull, "RAY_TRACING_SHADER"},
    {0x00400000ull, "FRAGMENT_SHADING_RATE_ATTACHMENT"},
    {0x00800000ull, "FRAGMENT_DENSITY_PROCESS"},
    {0x01000000ull, "TRANSFORM_FEEDBACK"},
    {0x02000000ull, "ACCELERATION_STRUCTURE_BUILD"},
    // synchronization2 only (64-bit masks).
    {0x100000000ull, "COPY"},
    {0x200000000ull, "RESOLVE"},
    {0x400000000ull, "BLIT"},
    {0x800000000ull, "CLEAR"},
    {0x1000000000ull, "INDEX_INPUT"},
    {0x2000000000ull, "VERTEX_ATTRIBUTE_INPUT"},
    {0x4000000000ull, "PRE_RASTERIZATION_SHADERS"},
};

/** A stage mask as its stage names joined by '|' ("NONE" for 0; bits without a name in hex). */
std::string stageNames(uint64_t mask) {
  if (mask == 0) return "NONE";
  std::string out;
  for (const StageName &s : kStages) {
    if (!(mask & s.bit)) continue;
    out += (out.empty() ? "" : "|") + std::string(s.name);
    mask &= ~s.bit;
  }
  if (mask) {
    char hex[24];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)mask);
    out += (out.empty() ? "" : "|") + std::string(hex);
  }
  return out;
}

void appendCount(std::string &out, uint32_t count, const char *one, const char *many) {
  if (count) out += ", " + std::to_string(count) + " " + (count == 1 ? one : many);
}

/** "call(SRC → DST, 2 events, 1 memory, 1 buffer, 3 images)": what barriersBefore lists. */
std::string summary(const char *call, uint64_t src, uint64_t dst, uint32_t events, uint32_t memory, uint32_t buffers, uint32_t images) {
  std::string out = std::string(call) + "(" + stageNames(src) + " \xe2\x86\x92 " + stageNames(dst);
  appendCount(out, events, "event", "events");
  appendCount(out, memory, "memory", "memory");
  appendCount(out, buffers, "buffer", "buffers");
  appendCount(out, images, "image", "images");
  return out + ")";
}

void noteBarrier(CommandState *cs, std::string &&text) {
  RecordedEvent e{RecordedEvent::Barrier};
  e.text = std::move(text);
  cs->events.push_back(std::move(e));
}

VKAPI_ATTR void VKAPI_CALL wl_vkCmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst, VkDependencyFlags flags,
                                                   uint32_t memoryCount, const VkMemoryBarrier *memory, uint32_t bufferCount,
                                                   const VkBufferMemoryBarrier *buffers, uint32_t imageCount, const VkImageMemoryBarrier *images) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdPipelineBarrier(cb, src, dst, flags, memoryCount, memory, bufferCount, buffers, imageCount, images);
  if (!cs->shadow) return;
  cs->device->cmd.CmdPipelineBarrier(cs->shadow, src, dst, flags, memoryCount, memory, bufferCount, buffers, imageCount, images);
  noteBarrier(cs, summary("vkCmdPipelineBarrier", src, dst, 0, memoryCount, bufferCount, imageCount));
}

VKAPI_ATTR void VKAPI_CALL wl_vkCmdWaitEvents(VkCommandBuffer cb, uint32_t eventCount, const VkEvent *events, VkPipelineStageFlags src,
                                              VkPipelineStageFlags dst, uint32_t memoryCount, const VkMemoryBarrier *memory, uint32_t bufferCount,
                                              const VkBufferMemoryBarrier *buffers, uint32_t imageCount, const VkImageMemoryBarrier *images) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdWaitEvents(cb, eventCount, events, src, dst, memoryCount, memory, bufferCount, buffers, imageCount, images);
  if (!cs->shadow) return;
  cs->device->cmd.CmdWaitEvents(cs->shadow, eventCount, events, src, dst, memoryCount, memory, bufferCount, buffers, imageCount, images);
  noteBarrier(cs, summary("vkCmdWaitEvents", src, dst, eventCount, memoryCount, bufferCount, imageCount));
}

#if defined(VK_VERSION_1_3) || defined(VK_KHR_synchronization2)
/** synchronization2 keeps stage masks per barrier: the summary names their unions over `count` dependency infos. */
std::string dependencySummary(const char *call, uint32_t events, uint32_t count, const VkDependencyInfo *infos) {
  uint64_t src = 0, dst = 0;
  uint32_t memory = 0, buffers = 0, images = 0;
  for (uint32_t i = 0; infos && i < count; i++) {
    const VkDependencyInfo &d = infos[i];
    for (uint32_t k = 0; d.pMemoryBarriers && k < d.memoryBarrierCount; k++) src |= d.pMemoryBarriers[k].srcStageMask, dst |= d.pMemoryBarriers[k].dstStageMask;
    for (uint32_t k = 0; d.pBufferMemoryBarriers && k < d.bufferMemoryBarrierCount; k++)
      src |= d.pBufferMemoryBarriers[k].srcStageMask, dst |= d.pBufferMemoryBarriers[k].dstStageMask;
    for (uint32_t k = 0; d.pImageMemoryBarriers && k < d.imageMemoryBarrierCount; k++)
      src |= d.pImageMemoryBarriers[k].srcStageMask, dst |= d.pImageMemoryBarriers[k].dstStageMask;
    memory += d.memoryBarrierCount, buffers += d.bufferMemoryBarrierCount, images += d.imageMemoryBarrierCount;
  }
  return summary(call, src, dst, events, memory, buffers, images);
}

#define WTL_PIPELINE_BARRIER2(name, forward)                                                   \
  VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer cb, const VkDependencyInfo *info) {      \
    CommandState *cs = findCommandState(cb);                                                    \
    cs->device->cmd.forward(cb, info);                                                          \
    if (!cs->shadow) return;                                                                    \
    cs->device->cmd.forward(cs->shadow, info);                                                  \
    noteBarrier(cs, dependencySummary(#name, 0, 1, info));                                      \
  }
#define WTL_WAIT_EVENTS2(name, forward)                                                                                          \
  VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer cb, uint32_t eventCount, const VkEvent *events, const VkDependencyInfo *infos) { \
    CommandState *cs = findCommandState(cb);                                                                                     \
    cs->device->cmd.forward(cb, eventCount, events, infos);                                                                      \
    if (!cs->shadow) return;                                                                                                     \
    cs->device->cmd.forward(cs->shadow, eventCount, events, infos);                                                              \
    noteBarrier(cs, dependencySummary(#name, eventCount, eventCount, infos));                                                    \
  }
#endif
#ifdef VK_VERSION_1_3
WTL_PIPELINE_BARRIER2(vkCmdPipelineBarrier2, CmdPipelineBarrier2)
WTL_WAIT_EVENTS2(vkCmdWaitEvents2, CmdWaitEvents2)
#endif
#ifdef VK_KHR_synchronization2
WTL_PIPELINE_BARRIER2(vkCmdPipelineBarrier2KHR, CmdPipelineBarrier2KHR)
WTL_WAIT_EVENTS2(vkCmdWaitEvents2KHR, CmdWaitEvents2KHR)
#endif

}  // namespace

PFN_vkVoidFunction findBarrierCommand(const char *name) {
  if (!strcmp(name, "vkCmdPipelineBarrier")) return (PFN_vkVoidFunction)wl_vkCmdPipelineBarrier;
  if (!strcmp(name, "vkCmdWaitEvents")) return (PFN_vkVoidFunction)wl_vkCmdWaitEvents;
#ifdef VK_VERSION_1_3
  if (!strcmp(name, "vkCmdPipelineBarrier2")) return (PFN_vkVoidFunction)wl_vkCmdPipelineBarrier2;
  if (!strcmp(name, "vkCmdWaitEvents2")) return (PFN_vkVoidFunction)wl_vkCmdWaitEvents2;
#endif
#ifdef VK_KHR_synchronization2
  if (!strcmp(name, "vkCmdPipelineBarrier2KHR")) return (PFN_vkVoidFunction)wl_vkCmdPipelineBarrier2KHR;
  if (!strcmp(name, "vkCmdWaitEvents2KHR")) return (PFN_vkVoidFunction)wl_vkCmdWaitEvents2KHR;
#endif
  return nullptr;
}

std::string barriersBeforeJson(const std::vector<std::string> &barriers) {
  if (barriers.empty()) return "";
  std::string out = ", \"barriersBefore\": [";
  size_t kept = barriers.size() <= kMaxBarriersBefore ? barriers.size() : kMaxBarriersBefore - 1;
  for (size_t i = 0; i < kept; i++) out += (i ? ", " : "") + jsonString(barriers[i]);
  // The rest as one entry that counts them: the list stays short however many barriers an app records between two draws.
  if (kept < barriers.size()) out += ", " + jsonString("+" + std::to_string(barriers.size() - kept) + " more");
  return out + "]";
}

}  // namespace wtl
