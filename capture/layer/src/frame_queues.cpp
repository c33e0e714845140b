// The captured frame on several queues: the frame's first submit (graphics or
// compute) starts the capture on its queue, and the frame's submits on the
// other queues are traced too (an async compute queue's dispatches). The
// prologue must be done before they run, and their work before the records
// are read: both are waited for on the CPU, boundedly, since an app's queue may
// wait for a semaphore only a later submit of the app signals.
#include "frame_queues.hpp"

namespace wtl {

bool submitAndWait(DeviceState *device, VkQueue queue, const VkSubmitInfo *submit, uint64_t timeoutNs, VkResult &result) {
  VkFence fence = VK_NULL_HANDLE;
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  result = device->d.CreateFence(device->device, &fi, nullptr, &fence);
  if (result != VK_SUCCESS) return false;
  VkSubmitInfo empty{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  result = device->d.QueueSubmit(queue, 1, submit ? submit : &empty, fence);
  bool done = false;
  if (result == VK_SUCCESS) {
    VkResult w = device->d.WaitForFences(device->device, 1, &fence, VK_TRUE, timeoutNs);
    done = w == VK_SUCCESS;
    // A fence still pending must not be destroyed: it is left to the driver (one per capture at most).
    if (w == VK_TIMEOUT) return false;
  }
  device->d.DestroyFence(device->device, fence, nullptr);
  return done;
}

void noteOtherQueue(CaptureState &c, VkQueue queue) {
  for (VkQueue q : c.otherQueues)
    if (q == queue) return;
  c.otherQueues.push_back(queue);
}

void waitOtherQueues(DeviceState *device) {
  CaptureState &c = device->capture;
  for (VkQueue q : c.otherQueues) {
    VkResult r = VK_SUCCESS;
    if (submitAndWait(device, q, nullptr, 5ull * 1000 * 1000 * 1000, r)) continue;
    c.notTraced.push_back("the frame's work on queue family " + std::to_string(queueFamilyOf(device, q)) +
                          ": not finished 5 s after its present (VkResult " + std::to_string((int)r) + "), its later warps may be missing");
  }
}

}  // namespace wtl
