// What the layer uses of the host library's tracer beyond its public API.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "dispatch.hpp"
#include "warptrace.h"

namespace wtl {

struct DeviceState;
struct InstanceState;

/** Routes the host library's Vulkan calls to this device's next layer while alive. */
class DeviceScope {
 public:
  explicit DeviceScope(DeviceState *device);
  ~DeviceScope();
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

 private:
  DeviceState *previousDevice_;
  struct InstanceDispatch *previousInstance_;
};

void queryCaps(InstanceState *instance, VkPhysicalDevice physical, wtCaps *caps);
VkDescriptorSet tracerSet(const wtTracer *t);
VkDeviceSize tracerDrawStride(const wtTracer *t);
VkQueryPool tracerQueries(const wtTracer *t);
uint32_t tracerMaxDraws(const wtTracer *t);
VkBuffer tracerTraceBuffer(const wtTracer *t);
VkDeviceSize tracerTraceBytes(const wtTracer *t);
VkBuffer tracerDrawIdBuffer(const wtTracer *t);

struct HostBuffer;  // state.hpp
bool makeHostBuffer(DeviceState *device, VkDeviceSize bytes, HostBuffer &out, VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT);
/** Makes the GPU's writes visible to the host (non-coherent memory) after a fence. */
bool readHostBuffer(DeviceState *device, HostBuffer &buffer);
void destroyHostBuffer(DeviceState *device, HostBuffer &buffer);

/** Writes values[i] as the draw id of slot slots[i] (read by the traced shaders through the dynamic offset). */
bool setDrawIdValues(DeviceState *device, const uint32_t *slots, const uint32_t *values, size_t count);
/**
 * Block profiles: gives the draw in `slot` a row of the table (shared by the draws of one nonzero key) and writes its
 * first cell into the slot's draw-id block, and `stageOffsets` (a pipeline linked from libraries; null: none) into
 * its stage words; the tracer maps the slot to the file's draw (wtSetDrawTable). When the table is full the draw is
 * counted unprofiled.
 */
void giveBlockRow(DeviceState *device, uint32_t slot, const std::vector<wtBlockRowModule> &row, uint64_t shareKey,
                  const std::array<uint32_t, WT_BLOCK_STAGE_COUNT> *stageOffsets);
/** Ray events: gives the trace-rays call in `slot` a row of the ray-event table (one per slot and capture). */
void giveRayRow(DeviceState *device, uint32_t slot);

}  // namespace wtl
