// The captured frame: which submits belong to it, the shadows they run
// instead of the app's buffers, the frame's draw list and regions, and the
// .wtraw written once its work has finished.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

#include "command_buffers.hpp"
#include "frame_draws.hpp"
#include "ray_tracing.hpp"
#include "frame_queues.hpp"
#include "frame_timing.hpp"
#include "hooks.hpp"
#include "offscreen.hpp"
#include "tracer_glue.hpp"

namespace wtl {

extern "C" char *program_invocation_short_name;

/** One capture per process: a second device (apps probe with throwaway devices) must not overwrite the first's. */
static std::atomic<bool> gCaptureWritten{false};

static VkCommandBuffer ownCommandBuffer(DeviceState *device) {
  if (!device->capturePool) {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = device->capture.family;
    if (device->d.CreateCommandPool(device->device, &pi, nullptr, &device->capturePool) != VK_SUCCESS) return VK_NULL_HANDLE;
  }
  return beginLayerCommandBuffer(device, device->capturePool);
}

static void failCapture(DeviceState *device, const std::string &why) {
  logLine("capture failed: %s", why.c_str());
  device->capture.done = true;
  if (device->client)
    device->client->event("{\"event\": \"capture-failed\", \"why\": " + jsonString(why) + ", \"frames\": " + std::to_string(device->presents) + "}");
}

/** Before the frame's first submit on the traced queue: the clock check, then the counter reset and time 0. */
static bool startCapture(DeviceState *device, VkQueue queue) {
  CaptureState &c = device->capture;
  DeviceScope scope(device);
  if (!c.warmup) {
    // Right before the frame, on its queue: the check measures the time bases as they are when the frame runs.
    wtClockCheck check;
    VkResult r = wtCheckClocks(device->tracer, queue, c.family, &check);
    if (r != VK_SUCCESS) logLine("the clock check failed (VkResult %d): timestamps are assumed to share the device clock's time base", (int)r);
  }
  VkCommandBuffer cb = ownCommandBuffer(device);
  if (!cb) {
    failCapture(device, "cannot allocate the layer's command buffer");
    return false;
  }
  wtCmdBeginCapture(device->tracer, cb);
  device->d.EndCommandBuffer(cb);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  // Waited for: the frame's other queues must not write records before the counter is reset (bounded: the queue may
  // still hold app work that waits for a later submit; then they may overlap, and the trace says so).
  VkResult r = VK_SUCCESS;
  if (!submitAndWait(device, queue, &si, 2ull * 1000 * 1000 * 1000, r)) {
    if (r != VK_SUCCESS && r != VK_TIMEOUT) {
      failCapture(device, "cannot submit the capture's prologue");
      return false;
    }
    c.notTraced.push_back("the capture's start: not done 2 s after it was submitted; other queues' first warps may be missing");
  }
  c.started = true;
  if (c.warmup) return true;
  std::string frame = settings().submitMode ? "null" : std::to_string(device->presents + 1);  // submits: the CLI names its range
  device->client->event("{\"event\": \"capture-started\", \"frame\": " + frame + ", \"frames\": " + std::to_string(device->presents) + "}");
  return true;
}

static std::string layerJson(DeviceState *device) {
  const Settings &s = settings();
  std::string skipped;
  std::vector<std::string> all = device->skipped;
  all.insert(all.end(), device->capture.notTraced.begin(), device->capture.notTraced.end());
  // The same reason many times (one per command buffer or pipeline) is one entry with its count.
  std::vector<std::pair<std::string, uint32_t>> counted;
  for (const std::string &item : all) {
    auto it = std::find_if(counted.begin(), counted.end(), [&](const auto &e) { return e.first == item; });
    if (it == counted.end()) counted.push_back({item, 1});
    else it->second++;
  }
  for (const auto &[item, times] : counted) {
    size_t colon = item.find(": ");
    std::string what = colon == std::string::npos ? item : item.substr(0, colon);
    std::string why = colon == std::string::npos ? "" : item.substr(colon + 2);
    if (times > 1) what += " (" + std::to_string(times) + " times)";
    skipped += std::string(skipped.empty() ? "" : ", ") + "{\"what\": " + jsonString(what) + ", \"why\": " + jsonString(why) + "}";
  }
  std::string notes;
  for (const auto &[what, why] : device->notes)
    notes += std::string(notes.empty() ? "" : ", ") + "{\"what\": " + jsonString(what) + ", \"why\": " + jsonString(why) + "}";
  std::string when = s.submitMode ? "\"submits\": \"" + std::to_string(s.firstSubmit) + ".." + std::to_string(s.lastSubmit) + "\""
                                   : "\"frame\": " + std::to_string(device->capture.targetFrame);
  return "\"layer\": {\"version\": \"0.1.0\", \"set\": " + std::to_string(device->traceSet) + ", " + when + ", \"skipped\": [" + skipped + "], \"notes\": [" + notes + "]}";
}

/** After the frame's last submit: copy the records back, wait, write the .wtraw, tell the CLI. */
static void finishCapture(DeviceState *device) {
  CaptureState &c = device->capture;
  DeviceScope scope(device);
  if (settings().submitMode) rangeTimingEnd(device);  // a frame's end is stamped at its present, before the image copy
  VkCommandBuffer cb = ownCommandBuffer(device);
  VkFence fence = VK_NULL_HANDLE;
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (!cb || device->d.CreateFence(device->device, &fi, nullptr, &fence) != VK_SUCCESS) return failCapture(device, "cannot create the epilogue");
  wtCmdEndCapture(device->tracer, cb);
  device->d.EndCommandBuffer(cb);
  waitOtherQueues(device);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  VkResult r = device->d.QueueSubmit(c.queue, 1, &si, fence);
  if (r == VK_SUCCESS) r = device->d.WaitForFences(device->device, 1, &fence, VK_TRUE, 30ull * 1000 * 1000 * 1000);
  device->d.DestroyFence(device->device, fence, nullptr);
  if (r != VK_SUCCESS) return failCapture(device, "the captured frame did not finish (VkResult " + std::to_string((int)r) + ")");

  if (c.skippedDraws)
    c.notTraced.push_back(std::to_string(c.skippedDraws) + " draws outside --draws " + std::to_string(settings().firstDraw) + ".." +
                          std::to_string(settings().lastDraw) + ": their warps ran instrumented but wrote no record");
  std::vector<const char *> labels, extras;
  std::vector<wtDrawKind> kinds;
  std::vector<uint32_t> slots, endQueries;
  // Indirect launches' sizes, copied in the frame: their targets, and their sizes in their default labels.
  for (FrameDraw &d : c.draws) {
    VkExtent3D size{};
    if (d.launchSize < 0 || !launchSizeAt(device, d.launchSize, size)) continue;
    d.extraJson += ", \"target\": {\"width\": " + std::to_string(size.width) + ", \"height\": " + std::to_string(size.height) + "}";
    if (d.label.size() > 2 && d.label.compare(d.label.size() - 2, 2, "()") == 0)
      d.label = d.label.substr(0, d.label.size() - 1) + std::to_string(size.width) + ", " + std::to_string(size.height) + ", " +
                std::to_string(size.depth) + ")";
  }
  device->launchSizeCount = 0;
  for (const FrameDraw &d : c.draws) {
    labels.push_back(d.label.c_str());
    extras.push_back(d.extraJson.c_str());
    kinds.push_back(d.kind);
    slots.push_back(d.slot);
    endQueries.push_back(d.endQuery);
  }
  std::string regions;
  for (const FrameRegion &g : c.regions)
    regions += std::string(regions.empty() ? "" : ",\n    ") + "{\"label\": " + jsonString(g.label) + ", \"parent\": " +
               (g.parent < 0 ? std::string("null") : std::to_string(g.parent)) + ", \"source\": \"" + g.source + "\"}";
  noteUnprofiledDraws(device);  // before layerJson: the notes are the trace's
  std::string extra = "\"regions\": [" + regions + "],\n  " + layerJson(device);
  wtSetDrawTable(device->tracer, (uint32_t)c.draws.size(), labels.data(), kinds.data(), slots.data(), extras.data());
  wtSetDrawEndQueries(device->tracer, endQueries.data());
  wtCaptureInfo info{};
  info.tool = "warptrace-layer";
  info.workload = program_invocation_short_name;
  // The knobs that change what the trace holds (sampling rates: the metadata's "sampling", from wtSetSampling).
  std::string params = settings().submitMode ? "{" : "{\"frame\": " + std::to_string(c.targetFrame);
  std::string positions = device->lanesUnknown ? "none" : settings().positions;  // no positions where the lane count is unknown
  if (!positions.empty()) params += std::string(params.size() > 1 ? ", " : "") + "\"positions\": " + jsonString(positions);
  if (!settings().marks.empty()) params += std::string(params.size() > 1 ? ", " : "") + "\"marks\": " + jsonString(settings().marks);
  // --budget B: said here too, so a capture that met it with every warp recorded (no "sampling") still tells it was
  // asked; ten-thousandths printed as integers, never with the app's locale's decimal comma.
  if (unsigned long long b = (unsigned long long)(settings().sampleBudget * 10000 + 0.5))
    params += std::string(params.size() > 1 ? ", " : "") + "\"budget\": " + std::to_string(b / 10000) + "." + std::to_string(10000 + b % 10000).substr(1);
  params += "}";
  info.parametersJson = params.c_str();
  info.extraJson = extra.c_str();
  if (frameTimingResult(device, info.plainFrameNs, info.tracedFrameNs, info.overheadFrames))
    logLine("GPU time: traced %.1f us, untraced %.1f us (median of %u %s): %.3fx", info.tracedFrameNs / 1000, info.plainFrameNs / 1000,
            info.overheadFrames, settings().submitMode ? "untraced runs of the same submits" : "frames before it",
            info.tracedFrameNs / info.plainFrameNs);
  wtCaptureStats stats{};
  char error[512] = "";
  int written = wtWriteWtraw(device->tracer, settings().outputPath.c_str(), &info, &stats, error, sizeof error);
  wtSetDrawTable(device->tracer, 0, nullptr, nullptr, nullptr, nullptr);
  if (written != 0) return failCapture(device, error);
  c.done = true;
  gCaptureWritten = true;
  logLine("wrote %s: %u draws, %u of %u records (capacity %u)", settings().outputPath.c_str(), stats.draws, stats.kept, stats.counter,
          stats.capacity);
  device->client->event("{\"event\": \"capture-written\", \"path\": " + jsonString(settings().outputPath) + ", \"draws\": " +
                        std::to_string(stats.draws) + ", \"records\": " + std::to_string(stats.kept) + ", \"counter\": " +
                        std::to_string(stats.counter) + ", \"capacity\": " + std::to_string(stats.capacity) + ", \"untracedDraws\": " +
                        std::to_string(c.untracedDraws) + "}");
}

/** Whether a submit with this index, on this queue, belongs to the captured frame; starts the capture on its first one. */
static bool submitIsCaptured(DeviceState *device, VkQueue queue, uint64_t submitIndex) {
  CaptureState &c = device->capture;
  const Settings &s = settings();
  // The frame before the captured one runs traced too, unrecorded: drivers that compile pipeline variants on first
  // use (llvmpipe's fragment shaders) do it there, not inside the measured frame.
  bool warmup = !s.submitMode && device->presents + 2 == c.targetFrame;
  bool inWindow = s.submitMode ? submitIndex >= s.firstSubmit && submitIndex <= s.lastSubmit : device->presents + 1 == c.targetFrame || warmup;
  if (!inWindow || c.done) return false;
  if (gCaptureWritten) {
    c.done = true;
    return false;
  }
  if (!c.started) {
    uint32_t family = queueFamilyOf(device, queue);
    VkQueueFlags flags = family < device->familyFlags.size() ? device->familyFlags[family] : 0;
    // The frame's first submit on a graphics or compute queue starts the capture there (an async compute queue often
    // submits first); a transfer-only queue cannot run the clock check, and its work holds no warps anyway.
    if (!(flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) && !s.submitMode) {
      c.notTraced.push_back("a submit on queue family " + std::to_string(family) + " (transfer only) before the capture started");
      return false;
    }
    c.queue = queue;
    c.family = family;
    c.warmup = warmup;
    if (!startCapture(device, queue)) return false;
    if (s.submitMode) rangeTimingBegin(device, queue);  // after the prologue: the submits' own work only
  }
  if (!s.submitMode && !c.warmup) frameTimingBegin(device, queue);  // its first graphics submit (frame_timing.cpp)
  if (queue != c.queue) noteOtherQueue(c, queue);  // traced too; its work is waited for before the records are read
  return true;
}

/** Replaces shadowed command buffers, numbers their draws and writes the draw ids the shaders read. */
static void swapInShadows(DeviceState *device, std::vector<VkCommandBuffer> &buffers) {
  std::vector<uint32_t> slots, values;
  for (VkCommandBuffer &cb : buffers) {
    CommandState *cs = findCommandState(cb);
    if (!cs->shadow) {
      device->capture.notTraced.push_back("a command buffer recorded before the layer shadowed it ran untraced");
      continue;
    }
    if (!device->capture.walked.insert(cs).second) {
      // Its slots already stand for its first run (draw ids, timestamps): a second run would blur both.
      device->capture.notTraced.push_back("a command buffer submitted again within the capture: runs after its first are untraced");
      continue;
    }
    numberDraws(device, cs, slots, values);
    cb = cs->shadow;
  }
  if (!slots.empty()) setDrawIdValues(device, slots.data(), values.data(), slots.size());
}

/**
 * WARPTRACE_TIME_ONLY: nothing traced, the --submits range timed as the app
 * runs it, for the traced run's overhead figure. The submit is the app's own.
 */
template <typename Submit>
static VkResult timedSubmit(DeviceState *device, VkQueue queue, Submit forward) {
  std::lock_guard<std::mutex> guard(device->captureLock);
  const Settings &s = settings();
  uint64_t index = device->submits++;
  DeviceScope scope(device);
  if (index == s.firstSubmit) rangeTimingBegin(device, queue);
  VkResult r = forward();
  double ns = 0;
  if (index == s.lastSubmit) {
    rangeTimingEnd(device);
    if (rangeTimingNs(device, ns) && device->client)
      device->client->event("{\"event\": \"timing\", \"gpuNs\": " + std::to_string((uint64_t)ns) + "}");
  }
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits, VkFence fence) {
  DeviceState *device = findDevice(dispatchKey(queue));
  if (settings().timeOnly && settings().submitMode)
    return timedSubmit(device, queue, [&] { return device->d.QueueSubmit(queue, count, submits, fence); });
  if (!device->traceable || device->capture.done) return device->d.QueueSubmit(queue, count, submits, fence);
  std::lock_guard<std::mutex> guard(device->captureLock);
  uint64_t index = device->submits++;
  if (device->presents + 1 < device->capture.targetFrame) frameTimingBegin(device, queue);
  if (!submitIsCaptured(device, queue, index)) return device->d.QueueSubmit(queue, count, submits, fence);
  std::vector<VkSubmitInfo> patched(submits, submits + count);
  std::vector<std::vector<VkCommandBuffer>> buffers(count);
  for (uint32_t i = 0; i < count; i++) {
    buffers[i].assign(submits[i].pCommandBuffers, submits[i].pCommandBuffers + submits[i].commandBufferCount);
    swapInShadows(device, buffers[i]);
    patched[i].pCommandBuffers = buffers[i].data();
  }
  VkResult r = device->d.QueueSubmit(queue, count, patched.data(), fence);
  if (settings().submitMode && index == settings().lastSubmit) finishCapture(device);
  return r;
}

static VkResult submit2(DeviceState *device, PFN_vkQueueSubmit2 next, VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits,
                        VkFence fence) {
  if (settings().timeOnly && settings().submitMode) return timedSubmit(device, queue, [&] { return next(queue, count, submits, fence); });
  if (!device->traceable || device->capture.done) return next(queue, count, submits, fence);
  std::lock_guard<std::mutex> guard(device->captureLock);
  uint64_t index = device->submits++;
  if (device->presents + 1 < device->capture.targetFrame) frameTimingBegin(device, queue);
  if (!submitIsCaptured(device, queue, index)) return next(queue, count, submits, fence);
  std::vector<VkSubmitInfo2> patched(submits, submits + count);
  std::vector<std::vector<VkCommandBufferSubmitInfo>> infos(count);
  for (uint32_t i = 0; i < count; i++) {
    infos[i].assign(submits[i].pCommandBufferInfos, submits[i].pCommandBufferInfos + submits[i].commandBufferInfoCount);
    std::vector<VkCommandBuffer> buffers;
    for (auto &info : infos[i]) buffers.push_back(info.commandBuffer);
    swapInShadows(device, buffers);
    for (size_t k = 0; k < buffers.size(); k++) infos[i][k].commandBuffer = buffers[k];
    patched[i].pCommandBufferInfos = infos[i].data();
  }
  VkResult r = next(queue, count, patched.data(), fence);
  if (settings().submitMode && index == settings().lastSubmit) finishCapture(device);
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits, VkFence fence) {
  DeviceState *device = findDevice(dispatchKey(queue));
  return submit2(device, device->d.QueueSubmit2, queue, count, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueueSubmit2KHR(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits, VkFence fence) {
  DeviceState *device = findDevice(dispatchKey(queue));
  return submit2(device, device->d.QueueSubmit2KHR, queue, count, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkQueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info) {
  DeviceState *device = findDevice(dispatchKey(queue));
  VkPresentInfoKHR present = *info;
  {
    std::lock_guard<std::mutex> guard(device->captureLock);
    CaptureState &c = device->capture;
    bool captured = device->presents + 1 == c.targetFrame;
    // A frame's GPU time ends at its present, before WARPTRACE_IMAGE's copy: that copy waits on the CPU and writes a
    // file, and a later end timestamp counted it as the frame's (H200, presented frames: 2.4-10 ms against 0.02-0.7 ms).
    // The captured frame is timed once its capture started; --submits times its range instead (finishCapture).
    if (device->traceable && !c.done && (!captured || (c.started && !settings().submitMode))) {
      DeviceScope scope(device);
      frameTimingEnd(device);
    }
    // The image first: once the capture is written the CLI may end the app (--exit-after).
    if (captured && !settings().imagePath.empty() && !device->imageWritten) {
      std::string why;
      device->imageWritten = true;
      if (writePresentedImage(device, queue, info, why)) present.waitSemaphoreCount = 0;  // the copy waited for them
      else reportSkipped(device, "WARPTRACE_IMAGE", why);
    }
    if (c.warmup && c.started && !captured) {
      // The warm-up frame ends: the captured frame starts over (its prologue clears what the warm-up wrote).
      CaptureState fresh;
      fresh.targetFrame = c.targetFrame;
      fresh.armed = c.armed;
      c = std::move(fresh);
    }
    if (device->traceable && !c.done && !settings().submitMode && captured) {
      if (c.started) finishCapture(device);
      else failCapture(device, "frame " + std::to_string(c.targetFrame) + " submitted no work before its present");
    }
    device->presents++;
    struct stat st;
    const std::string &trigger = settings().triggerPath;
    if (device->traceable && !trigger.empty() && !c.started && stat(trigger.c_str(), &st) == 0) {
      remove(trigger.c_str());
      c.targetFrame = device->presents + 3;  // a frame to record one-time command buffers with shadows, then the warm-up
      c.armed = true;
    }
  }
  return presentSwapchains(device, queue, &present);  // the window's present, or the layer's offscreen one
}

VKAPI_ATTR void VKAPI_CALL wl_vkQueueBeginDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label) {
  DeviceState *device = findDevice(dispatchKey(queue));
  if (device->capture.started && !device->capture.done && queue == device->capture.queue) {
    std::lock_guard<std::mutex> guard(device->captureLock);
    pushRegion(device->capture, label->pLabelName ? label->pLabelName : "", "debug-label");
  }
  device->d.QueueBeginDebugUtilsLabelEXT(queue, label);
}

VKAPI_ATTR void VKAPI_CALL wl_vkQueueEndDebugUtilsLabelEXT(VkQueue queue) {
  DeviceState *device = findDevice(dispatchKey(queue));
  if (device->capture.started && !device->capture.done && queue == device->capture.queue) {
    std::lock_guard<std::mutex> guard(device->captureLock);
    if (!device->capture.regionStack.empty()) device->capture.regionStack.pop_back();
  }
  device->d.QueueEndDebugUtilsLabelEXT(queue);
}

VKAPI_ATTR void VKAPI_CALL wl_vkQueueInsertDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label) {
  DeviceState *device = findDevice(dispatchKey(queue));
  if (device->capture.started && !device->capture.done && queue == device->capture.queue) {
    std::lock_guard<std::mutex> guard(device->captureLock);
    device->capture.pendingLabel = label->pLabelName ? label->pLabelName : "";
  }
  device->d.QueueInsertDebugUtilsLabelEXT(queue, label);
}

void finishCaptureAtDeviceEnd(DeviceState *device) {
  std::lock_guard<std::mutex> guard(device->captureLock);
  CaptureState &c = device->capture;
  if (!device->traceable || c.done || !c.started || c.warmup) return;
  // An app that ends before the last submit asked for (--submits N..M): what it submitted is the capture.
  c.notTraced.push_back(std::string("the rest of the capture window: the app destroyed its device after ") + std::to_string(device->submits) +
                        " submits");
  finishCapture(device);
}

}  // namespace wtl
