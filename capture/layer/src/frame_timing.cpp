// The traced frame's cost against its untraced neighbours: the GPU time of
// the frames before the captured one and of the captured one itself, from
// timestamps the layer submits at each frame's first submit and at its
// present. Stored as the trace's `overhead` (plain = median of neighbours).
#include <algorithm>

#include "frame_timing.hpp"
#include "command_buffers.hpp"
#include "hooks.hpp"

namespace wtl {

/** Untraced frames timed before the captured one. */
static const uint32_t kNeighbours = 10;

static bool ensureQueries(DeviceState *device);

static VkCommandBuffer timingCommandBuffer(DeviceState *device, uint32_t family) {
  FrameTiming &t = device->timing;
  VkCommandPool &pool = t.pools[family];
  if (!pool) {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.queueFamilyIndex = family;
    if (device->d.CreateCommandPool(device->device, &pi, nullptr, &pool) != VK_SUCCESS) return VK_NULL_HANDLE;
  }
  return beginLayerCommandBuffer(device, pool);
}

/** One timestamp, once everything submitted before it on the queue has finished. */
static void submitTimestamp(DeviceState *device, VkQueue queue, uint32_t family, uint32_t query, bool reset) {
  FrameTiming &t = device->timing;
  VkCommandBuffer cb = timingCommandBuffer(device, family);
  if (!cb) return;
  if (reset) device->cmd.CmdResetQueryPool(cb, t.queries, query, 2);
  device->cmd.CmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t.queries, query);
  device->d.EndCommandBuffer(cb);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  if (device->d.QueueSubmit(queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS) t.submitted.push_back({family, cb});
}

void frameTimingBegin(DeviceState *device, VkQueue queue) {
  FrameTiming &t = device->timing;
  uint64_t frame = device->presents + 1, target = device->capture.targetFrame;
  // The warm-up frame (target - 1) runs traced: it is neither a neighbour nor the measured frame.
  if (settings().submitMode || frame + kNeighbours + 1 < target || frame > target || frame + 1 == target || t.begun == frame) return;
  uint32_t family = queueFamilyOf(device, queue);
  // Timed on the frame's graphics queue, from its first graphics submit: a begin on an async compute queue is taken
  // while that queue waits for the last frame's graphics work (computenbody's untraced frames read 3 ms for 0.6 ms).
  if (family >= device->familyFlags.size() || !(device->familyFlags[family] & VK_QUEUE_GRAPHICS_BIT)) return;
  if (!ensureQueries(device)) return;
  t.begun = frame;
  t.queue = queue;
  t.family = family;
  uint32_t back = frame == target ? 0 : (uint32_t)(target - frame) - 1;  // 0: the captured frame, 1..: its neighbours
  submitTimestamp(device, queue, family, 2 * back, true);
}

void frameTimingEnd(DeviceState *device) {
  FrameTiming &t = device->timing;
  uint64_t frame = device->presents + 1, target = device->capture.targetFrame;
  if (t.begun != frame || frame > target) return;
  uint32_t back = frame == target ? 0 : (uint32_t)(target - frame) - 1;
  submitTimestamp(device, t.queue, t.family, 2 * back + 1, false);
  t.ended[back] = true;
}

static bool ensureQueries(DeviceState *device) {
  FrameTiming &t = device->timing;
  if (t.queries) return true;
  VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qi.queryCount = 2 * (kNeighbours + 1);
  return device->d.CreateQueryPool(device->device, &qi, nullptr, &t.queries) == VK_SUCCESS;
}

void rangeTimingBegin(DeviceState *device, VkQueue queue) {
  FrameTiming &t = device->timing;
  if (!ensureQueries(device)) return;
  t.queue = queue;
  t.family = queueFamilyOf(device, queue);
  t.begun = 1;
  submitTimestamp(device, queue, t.family, 0, true);
}

void rangeTimingEnd(DeviceState *device) {
  FrameTiming &t = device->timing;
  if (t.begun != 1 || t.ended[0]) return;
  submitTimestamp(device, t.queue, t.family, 1, false);
  t.ended[0] = true;
}

bool rangeTimingNs(DeviceState *device, double &ns) {
  FrameTiming &t = device->timing;
  if (!t.queries || !t.ended[0]) return false;
  uint64_t ticks[2] = {};
  if (device->d.GetQueryPoolResults(device->device, t.queries, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS || ticks[1] < ticks[0])
    return false;
  ns = (double)(ticks[1] - ticks[0]) * (device->caps.timestampPeriod > 0 ? device->caps.timestampPeriod : 1);
  return true;
}

bool frameTimingResult(DeviceState *device, double &plainNs, double &tracedNs, uint32_t &frames) {
  FrameTiming &t = device->timing;
  if (!t.queries) return false;
  if (settings().submitMode) {
    // The same submits, untraced, in runs before this one (warptrace capture --submits times them first).
    if (!(settings().plainNs > 0) || !rangeTimingNs(device, tracedNs)) return false;
    plainNs = settings().plainNs;
    frames = settings().plainRuns ? settings().plainRuns : 1;
    return true;
  }
  uint64_t values[2 * (kNeighbours + 1)][2] = {};
  device->d.GetQueryPoolResults(device->device, t.queries, 0, 2 * (kNeighbours + 1), sizeof values, values, 2 * sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  double period = device->caps.timestampPeriod > 0 ? device->caps.timestampPeriod : 1;
  auto frameNs = [&](uint32_t back) -> double {
    const uint64_t *begin = values[2 * back], *end = values[2 * back + 1];
    if (!t.ended[back] || !begin[1] || !end[1] || end[0] < begin[0]) return -1;
    return (double)(end[0] - begin[0]) * period;
  };
  tracedNs = frameNs(0);
  std::vector<double> plain;
  for (uint32_t back = 1; back <= kNeighbours; back++)
    if (double ns = frameNs(back); ns >= 0) plain.push_back(ns);
  if (tracedNs < 0 || plain.empty()) return false;
  std::sort(plain.begin(), plain.end());
  plainNs = plain.size() % 2 ? plain[plain.size() / 2] : 0.5 * (plain[plain.size() / 2 - 1] + plain[plain.size() / 2]);
  frames = (uint32_t)plain.size();
  return true;
}

void frameTimingRelease(DeviceState *device) {
  FrameTiming &t = device->timing;
  for (auto &entry : t.pools)
    if (entry.second) device->d.DestroyCommandPool(device->device, entry.second, nullptr);
  if (t.queries) device->d.DestroyQueryPool(device->device, t.queries, nullptr);
  t = FrameTiming();
}

}  // namespace wtl
