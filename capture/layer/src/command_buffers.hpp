#pragma once

#include "state.hpp"

namespace wtl {

static const uint32_t kNoSlot = UINT32_MAX;
/** The draw id of a slot whose warps write no record (the instrumenter's UNTRACED_DRAW, the host library's WT_NO_DRAW). */
static const uint32_t kNoDrawId = 0xffffffffu;

/** A free slot of the draw-id table (and its timestamp queries), or kNoSlot when all are taken. */
uint32_t allocateSlot(DeviceState *device);
/** `count` consecutive free slots (never reused ones: they must be contiguous), the first, or kNoSlot. */
uint32_t allocateSlots(DeviceState *device, uint32_t count);

/** A primary command buffer of the layer's from pool, begun for one submit; null on failure. */
VkCommandBuffer beginLayerCommandBuffer(DeviceState *device, VkCommandPool pool);

/** The app's binds on this bind point again, in order, into `cb` (after our trace-set bind disturbed them). */
void replayAppBinds(CommandState *cs, VkCommandBuffer cb, VkPipelineBindPoint bp, const BindPointState &b);

/** The shadow's state of one bind point (graphics, compute, ray tracing). */
BindPointState &bindPoint(CommandState *cs, VkPipelineBindPoint bp);

/** Records one of the app's descriptor binds (sets, or descriptor-buffer offsets) for replay after our trace-set bind disturbs it. */
void recordAppBind(BindPointState &b, BindPointState::Bind &&bind);

/**
 * What a draw runs, for beginDraw: the bound pipeline (or the bound shader objects, shader_objects.cpp) and what
 * stands in for it in the shadow.
 */
struct DrawProgram {
  bool known = false;    // a pipeline (shader) the layer knows is bound
  bool hasTwin = false;  // it has a twin (an instrumented-in-place ray-tracing pipeline is its own)
  /** The layout that binds the trace set; the app's sets above `appSetCount` are disturbed by that bind. */
  VkPipelineLayout twinLayout = VK_NULL_HANDLE;
  uint32_t appSetCount = 0;
  bool descriptorBuffer = false;  // the trace set lives in the layer's descriptor buffer
  std::string name;               // debug name or handle ("shaders VS 0x… + FS 0x…" for shader objects)
  std::string untracedWhy;
  std::shared_ptr<const std::vector<wtBlockRowModule>> blockRow;  // block profiles: the pipeline's row (null: none)
  std::shared_ptr<const BlockStageWords> blockStageOffsets;       // and its stage words (linked from libraries; null: 0)
  uint64_t pipelineKey = 0;                                       // the app's pipeline, for rows per pipeline
  std::string unprofiledWhy;  // block profiles asked for, but none for this kind of work: why (twin_stages.hpp kNoBlocks*)
};

/**
 * Before a draw, dispatch or launch in the shadow (commands.cpp): the twin or the app's pipeline, the trace set with
 * the draw's slot, its begin timestamp; kNoSlot when it is no draw of the trace. endDraw writes its end timestamp.
 */
uint32_t beginDraw(CommandState *cs, VkPipelineBindPoint bp, const char *call, wtDrawKind kind, const std::string &params,
                   const std::string &label);
void endDraw(CommandState *cs, uint32_t slot);

/** The layer's vkCmdTraceRays* (commands_rays.cpp), or null. */
PFN_vkVoidFunction findRayLaunchCommand(const char *name);

PipelineInfo *findPipeline(DeviceState *device, VkPipeline pipeline);
/** Makes a pipeline's twin if it is still a recipe (at its first bind in a shadow); a no-op otherwise. */
void ensureTwin(DeviceState *device, PipelineInfo *info);
/** Makes the twins still to be made that refer to this render pass or layout (before the app destroys it). */
void buildTwinsUsing(DeviceState *device, VkRenderPass pass, VkPipelineLayout layout);

}  // namespace wtl
