// The captured frame on several queues (frame_queues.cpp).
#pragma once

#include "state.hpp"

namespace wtl {

/** Submits `submit` (null: an empty batch) with a fence and waits up to `timeoutNs`; false if not done (result says why). */
bool submitAndWait(DeviceState *device, VkQueue queue, const VkSubmitInfo *submit, uint64_t timeoutNs, VkResult &result);

/** A queue besides the capture's with traced submits in the frame. */
void noteOtherQueue(CaptureState &c, VkQueue queue);

/** Before the records are read: each other queue's work of the frame done (at most 5 s each; else noted). */
void waitOtherQueues(DeviceState *device);

}  // namespace wtl
