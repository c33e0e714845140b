// wt-capture-vk --app: a reference workload as an ordinary Vulkan application, for the
// capture layer (`warptrace capture --submits K..K -- wt-capture-vk --app ...`).
//
// No warptrace at all: no tracer, a device with no tracing features or extensions,
// pipeline layouts with the workload's own set 0 only (no trace set), the plain shaders,
// and no warptrace call while recording (--all-sets: every set the device binds, see AppRun). Each frame records the same draws and
// dispatches, in the same order, as the traced frame of a capture (`Frame` with hooks
// off): clear the targets (a render pass with no draw), a full barrier, the workload.
//
// Queue submits, in order (0-based, as WARPTRACE_SUBMITS counts them):
//   0      the attachments' layout transition (Context)
//   1 + i  frame i, for i < --frames; each waits for its fence before the next
// It never presents. On success it prints one JSON line and exits 0.
#include <algorithm>
#include <cstdio>

#include "modes.hpp"

int runApp(const AppRun &run) {
  std::unique_ptr<Workload> w = requireWorkload(run.workload);
  for (auto &kv : run.params) w->params.set(kv.first, kv.second);
  Gpu gpu = createGpu(run.device, false, false, w->needs());
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gpu.physical, &props);
  uint32_t submits = 0;
  {
    uint32_t setCount = run.allSets ? std::min(props.limits.maxBoundDescriptorSets, 32u) : 1;
    Context ctx(gpu, w->params.u("width"), w->params.u("height"), nullptr, w->dataBytes(), setCount);
    submits++;  // the layout transition
    ctx.clearInFrame = run.clearInFrame;
    w->fillData(ctx.data.map);
    std::vector<VkPipeline> pipelines = w->pipelines(ctx, run.plainShaders);
    for (uint32_t i = 0; i < run.frames; i++) {
      VkCommandBuffer cmd = beginCommands(gpu);
      Frame frame(ctx, cmd, false);
      if (!ctx.clearInFrame) frame.clearTargets();
      fullBarrier(cmd);
      w->record(frame, pipelines);
      submitAndWait(gpu, cmd);
      submits++;
    }
  }
  std::printf("{\"app\": true, \"workload\": \"%s\", \"device\": %s, \"frames\": %u, \"submits\": %u, \"firstFrameSubmit\": 1}\n", w->name(),
              jsonEscape(props.deviceName).c_str(), run.frames, submits);
  destroyGpu(gpu);
  return 0;
}
