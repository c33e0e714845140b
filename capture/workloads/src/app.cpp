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
//
// --libraries (and its variants) builds the graphics pipelines from graphics pipeline
// libraries (the ray-tracing workload: its pipeline from a ray-tracing library made through a
// deferred operation), --inline-shaders passes SPIR-V without shader modules: the same frames, made
// as DXVK and vkd3d-proton make theirs. --image FILE writes what the last frame rendered,
// copied inside that frame's own command buffer (no extra submit), so a traced run's image
// can be compared with an untraced one's.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "modes.hpp"

const char *const kAppUsage =
    "       --app options: [--libraries [--link-time-optimization] [--independent-sets]]\n"
    "                     (graphics pipelines from VK_EXT_graphics_pipeline_library parts, linked)\n"
    "                     [--inline-shaders] (SPIR-V chained to each stage, no shader module) [--image FILE.ppm]\n"
    "                     [--vulkan-1.0] (a Vulkan 1.0 instance without VK_KHR_get_physical_device_properties2,\n"
    "                     render passes, shaders compiled for Vulkan 1.0)\n"
    "                     [--all-sets] (its layout takes every descriptor set the device binds, the capture layer's too)\n";

bool parseAppOption(AppRun &run, const std::string &flag, const std::function<const char *()> &value) {
  if (flag == "--libraries") run.style.libraries = true;
  else if (flag == "--link-time-optimization") run.style.linkTimeOptimized = true;
  else if (flag == "--independent-sets") run.style.independentSets = true;
  else if (flag == "--inline-shaders") run.style.inlineShaders = true;
  else if (flag == "--image") run.image = value();
  else if (flag == "--vulkan-1.0") run.vulkan10 = true;
  else if (flag == "--all-sets") run.allSets = true;
  else return false;
  return true;
}

namespace {

/* Records the colour target's copy into `readback` at the end of the frame, leaving it as the frame found it. */
void recordReadback(Context &ctx, VkCommandBuffer cmd, Buffer &readback) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = ctx.color.image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 1, &b);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {ctx.width, ctx.height, 1};
  vkCmdCopyImageToBuffer(cmd, ctx.color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
  std::swap(b.oldLayout, b.newLayout);
  b.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  b.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0, nullptr, 0, nullptr, 1, &b);
  VkBufferMemoryBarrier host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  host.srcQueueFamilyIndex = host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  host.buffer = readback.buffer;
  host.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &host, 0, nullptr);
}

/* The RGBA8 pixels as a binary PPM (alpha dropped). */
void writePpm(const std::string &path, const uint8_t *rgba, uint32_t width, uint32_t height) {
  std::ofstream out(path, std::ios::binary);
  out << "P6\n" << width << " " << height << "\n255\n";
  for (size_t i = 0; i < static_cast<size_t>(width) * height; i++) out.write(reinterpret_cast<const char *>(rgba + 4 * i), 3);
  if (!out) fatal("cannot write --image %s", path.c_str());
}

}  // namespace

int runApp(const AppRun &run) {
  std::unique_ptr<Workload> w = requireWorkload(run.workload);
  for (auto &kv : run.params) w->params.set(kv.first, kv.second);
  if (run.vulkan10 && (w->needs() || run.style.libraries)) fatal("--vulkan-1.0: %s needs device features beyond Vulkan 1.0", w->name());
  Gpu gpu = createGpu(run.device, false, false, w->needs() | (run.style.libraries ? kNeedsPipelineLibrary : 0u), run.vulkan10);
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gpu.physical, &props);
  uint32_t submits = 0;
  {
    uint32_t setCount = run.allSets ? std::min(props.limits.maxBoundDescriptorSets, 32u) : 1;
    Context ctx(gpu, w->params.u("width"), w->params.u("height"), nullptr, w->dataBytes(), run.style, setCount);
    Buffer readback;
    if (!run.image.empty()) readback = createBuffer(gpu, 4ull * ctx.width * ctx.height, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
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
      bool last = i + 1 == run.frames;
      if (last && readback.buffer) recordReadback(ctx, cmd, readback);
      submitAndWait(gpu, cmd);
      submits++;
      if (last && readback.buffer) writePpm(run.image, static_cast<const uint8_t *>(readback.map), ctx.width, ctx.height);
    }
    if (readback.buffer) destroyBuffer(gpu, readback);
  }
  std::printf("{\"app\": true, \"workload\": \"%s\", \"device\": %s, \"frames\": %u, \"submits\": %u, \"firstFrameSubmit\": 1}\n", w->name(),
              jsonEscape(props.deviceName).c_str(), run.frames, submits);
  destroyGpu(gpu);
  return 0;
}
