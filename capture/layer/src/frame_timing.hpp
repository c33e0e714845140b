#pragma once

#include "state.hpp"

namespace wtl {

/** At a submit: the frame's begin timestamp, for the captured frame and the ones just before it (once per frame). */
void frameTimingBegin(DeviceState *device, VkQueue queue);
/** At the frame's present (the captured frame: before the capture's epilogue): its end timestamp. */
void frameTimingEnd(DeviceState *device);
/** After the captured frame has finished: median GPU time of the untraced frames timed, and the traced frame's. */
bool frameTimingResult(DeviceState *device, double &plainNs, double &tracedNs, uint32_t &frames);
/** --submits: a timestamp before the range's first submit (after the capture's prologue), and after its last. */
void rangeTimingBegin(DeviceState *device, VkQueue queue);
void rangeTimingEnd(DeviceState *device);
/** The range's GPU time (waits for its end timestamp); false if it was not timed. */
bool rangeTimingNs(DeviceState *device, double &ns);

/** Frees the timing's pools and queries (at device destruction). */
void frameTimingRelease(DeviceState *device);

}  // namespace wtl
