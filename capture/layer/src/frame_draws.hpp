#pragma once

#include "state.hpp"

namespace wtl {

/** Opens a region (a debug label or a render pass) inside the innermost open one. */
void pushRegion(CaptureState &c, const std::string &label, const char *source);

/**
 * Numbers the draws of one submitted command buffer (and the secondaries it
 * runs) after those already in the frame: appends each slot and the draw id it
 * must read (kNoDrawId outside --draws A..B) to slots/values.
 */
void numberDraws(DeviceState *device, CommandState *cs, std::vector<uint32_t> &slots, std::vector<uint32_t> &values);

/** Block profiles: a `blocks` note per reason the frame's traced draws have none (draws[i].unprofiled), with their count. */
void noteUnprofiledDraws(DeviceState *device);

}  // namespace wtl
