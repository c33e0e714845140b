// The vkCmd* that do more in the shadow than repeat the app's command: pipeline
// binds (the twin), descriptor binds (replayed when our bind disturbs them),
// draws and dispatches (the trace set, a slot, timestamps) and secondaries.
// Render passes and labels are in commands_regions.cpp; every other vkCmd*
// is forwarded by generated_commands.inc.
#include <cstring>

#include "command_buffers.hpp"
#include "descriptor_buffers.hpp"
#include "hooks.hpp"
#include "shader_objects.hpp"
#include "tracer_glue.hpp"

namespace wtl {

#include "generated_commands.inc"

BindPointState &bindPoint(CommandState *cs, VkPipelineBindPoint bp) {
  if (bp == VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR) return cs->rayTracing;
  return bp == VK_PIPELINE_BIND_POINT_COMPUTE ? cs->compute : cs->graphics;
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipeline pipeline) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdBindPipeline(cb, bp, pipeline);
  if (bp == VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR) {
    // Instrumented in place (ray_tracing.cpp): the app's own buffer binds the trace set before each launch too.
    PipelineInfo *info = cs->device->traceable ? findPipeline(cs->device, pipeline) : nullptr;
    cs->rayTracingApp.pipeline = info;
    if (!cs->shadow) return;
    cs->device->cmd.CmdBindPipeline(cs->shadow, bp, pipeline);
    cs->rayTracing.pipeline = info;
    cs->rayTracing.appPipeline = pipeline;
    cs->rayTracing.twinBound = info && info->twin;
    return;
  }
  if (!cs->shadow) return;
  if (bp != VK_PIPELINE_BIND_POINT_GRAPHICS && bp != VK_PIPELINE_BIND_POINT_COMPUTE) {
    cs->device->cmd.CmdBindPipeline(cs->shadow, bp, pipeline);  // another bind point (e.g. subpass shading): forwarded
    return;
  }
  BindPointState &b = bindPoint(cs, bp);
  PipelineInfo *info = findPipeline(cs->device, pipeline);
  ensureTwin(cs->device, info);  // compiled at its first bind in a shadow, not when the app created it
  // A pipeline replaces the shader objects bound on its bind point.
  b.shaderObjects = false;
  for (int code = 0; code < kTracedStageCount; code++) b.appShaders[code] = VK_NULL_HANDLE, b.shaders[code] = nullptr;
  b.pipeline = info;
  b.appPipeline = pipeline;
  b.twinBound = b.pipeline && b.pipeline->twin;
  cs->device->cmd.CmdBindPipeline(cs->shadow, bp, b.twinBound ? b.pipeline->twin : pipeline);
}

void recordAppBind(BindPointState &b, BindPointState::Bind &&bind) {
  int32_t index = (int32_t)b.binds.size();
  uint32_t firstSet = bind.firstSet, setCount = bind.setCount;
  b.binds.push_back(std::move(bind));
  if (b.setBinder.size() < firstSet + setCount) b.setBinder.resize(firstSet + setCount, -1);
  for (uint32_t i = 0; i < setCount; i++) b.setBinder[firstSet + i] = index;
  if (b.binds.size() > 64) {
    // Keep only the calls that still bind some set, in order: replaying them rebuilds the app's state.
    std::vector<BindPointState::Bind> kept;
    std::vector<int32_t> remap(b.binds.size(), -1);
    for (size_t k = 0; k < b.binds.size(); k++)
      for (int32_t binder : b.setBinder)
        if (binder == (int32_t)k) {
          remap[k] = (int32_t)kept.size();
          kept.push_back(std::move(b.binds[k]));
          break;
        }
    for (int32_t &binder : b.setBinder) binder = binder < 0 ? -1 : remap[binder];
    b.binds = std::move(kept);
  }
}

void replayAppBinds(CommandState *cs, VkCommandBuffer cb, VkPipelineBindPoint bp, const BindPointState &b) {
  const CommandTable &cmd = cs->device->cmd;
  for (const auto &bind : b.binds) {
    if (bind.kind == BindPointState::Bind::Sets)
      cmd.CmdBindDescriptorSets(cb, bp, bind.layout, bind.firstSet, bind.setCount, bind.sets.data(), (uint32_t)bind.dynamicOffsets.size(),
                                bind.dynamicOffsets.data());
    else if (bind.kind == BindPointState::Bind::BufferOffsets)
      cmd.CmdSetDescriptorBufferOffsetsEXT(cb, bp, bind.layout, bind.firstSet, bind.setCount, bind.bufferIndices.data(), bind.offsets.data());
    else
      cmd.CmdBindDescriptorBufferEmbeddedSamplersEXT(cb, bp, bind.layout, bind.firstSet);
  }
}

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout layout,
                                                             uint32_t firstSet, uint32_t setCount, const VkDescriptorSet *sets,
                                                             uint32_t dynamicCount, const uint32_t *dynamicOffsets) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdBindDescriptorSets(cb, bp, layout, firstSet, setCount, sets, dynamicCount, dynamicOffsets);
  bool rayTracing = bp == VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR;
  if (!cs->shadow && !(rayTracing && cs->device->traceable)) return;
  if (bp != VK_PIPELINE_BIND_POINT_GRAPHICS && bp != VK_PIPELINE_BIND_POINT_COMPUTE && !rayTracing) {
    cs->device->cmd.CmdBindDescriptorSets(cs->shadow, bp, layout, firstSet, setCount, sets, dynamicCount, dynamicOffsets);
    return;
  }
  BindPointState::Bind bind;
  bind.layout = layout;
  bind.firstSet = firstSet;
  bind.setCount = setCount;
  bind.sets.assign(sets, sets + setCount);
  bind.dynamicOffsets.assign(dynamicOffsets, dynamicOffsets + dynamicCount);
  // Ray tracing: the app's own buffer binds the trace set too, and replays what that disturbs (ray_tracing.cpp).
  if (rayTracing) recordAppBind(cs->rayTracingApp, BindPointState::Bind(bind));
  if (!cs->shadow) return;
  cs->device->cmd.CmdBindDescriptorSets(cs->shadow, bp, layout, firstSet, setCount, sets, dynamicCount, dynamicOffsets);
  recordAppBind(bindPoint(cs, bp), std::move(bind));
}

/** Whether the draw about to be recorded matches --draws (a glob on the open labels or the inserted label). */
static bool drawSelected(const CommandState *cs) {
  const Settings &s = settings();
  if (s.drawGlob.empty()) return true;
  if (!cs->insertedLabel.empty() && globMatch(s.drawGlob.c_str(), cs->insertedLabel.c_str())) return true;
  for (const std::string &label : cs->labelStack)
    if (globMatch(s.drawGlob.c_str(), label.c_str())) return true;
  return false;
}

static DrawProgram boundPipeline(const PipelineInfo *p) {
  DrawProgram run;
  if (!p) return run;
  run.known = true;
  run.hasTwin = p->twin != VK_NULL_HANDLE;
  run.twinLayout = p->twinLayout;
  run.appSetCount = p->appSetCount;
  run.descriptorBuffer = p->descriptorBuffer;
  run.name = p->name;
  run.untracedWhy = p->untracedWhy;
  run.blockRow = p->blockRow;
  run.blockStageOffsets = p->blockStageOffsets;
  run.unprofiledWhy = p->unprofiledWhy;
  run.pipelineKey = (uint64_t)(uintptr_t)p;
  return run;
}

/**
 * Before a draw or dispatch in the shadow: the twin or the app's pipeline,
 * the app's sets our earlier binds disturbed, the trace set with this draw's
 * slot, and the begin timestamp. An untraced draw (its pipeline skipped)
 * runs the app's pipeline between its timestamps. Returns the slot, or
 * kNoSlot (no draw of the trace: left out by --draws GLOB, or no slot left).
 */
uint32_t beginDraw(CommandState *cs, VkPipelineBindPoint bp, const char *call, wtDrawKind kind, const std::string &params,
                          const std::string &label) {
  DeviceState *device = cs->device;
  BindPointState &b = bindPoint(cs, bp);
  // What draws: the bound pipeline and its twin, or the bound shader objects and theirs (VK_EXT_shader_object).
  DrawProgram run = b.shaderObjects ? boundShaders(device, b) : boundPipeline(b.pipeline);
  std::string noRoom = run.descriptorBuffer && run.hasTwin ? traceBufferProblem(cs) : std::string();
  if (!noRoom.empty()) run.hasTwin = false, run.untracedWhy = noRoom;
  // A draw --draws GLOB leaves out is no draw of the trace; any other gets a slot, for its timestamps at least.
  bool selected = drawSelected(cs);
  // Inside a multiview scope a timestamp fills one query per view: the draw takes `views` slots, its begin
  // timestamp the first slot's begin query and the next views - 1, its end the `views` queries after them.
  uint32_t views = cs->views;
  uint32_t slot = selected ? allocateSlots(device, views) : kNoSlot;
  if (selected && slot == kNoSlot) cs->untracedWhy = "more draws recorded than the layer's " + std::to_string(device->slotCapacity) + " slots";
  const char *nothingKnown = "no pipeline the layer knows is bound";
  bool traced = run.known && run.hasTwin && slot != kNoSlot;
  if (run.known && b.twinBound != traced) {
    if (b.shaderObjects) bindShadersInShadow(cs, b, traced);
    else device->cmd.CmdBindPipeline(cs->shadow, bp, traced ? b.pipeline->twin : b.appPipeline);
    b.twinBound = traced;
  }
  cs->insertedLabel.clear();
  std::string untraced;
  auto who = [&] { return b.shaderObjects ? run.name : "pipeline " + run.name; };  // the draw's program, as a reason names it
  if (!traced) {
    cs->untracedDraws++;
    if (cs->untracedWhy.empty()) cs->untracedWhy = run.known ? run.untracedWhy : nothingKnown;
    // It runs the app's pipeline between its timestamps: a draw of the trace without warps, marked with why (CONTRACT.md).
    untraced = run.known ? who() + ": " + run.untracedWhy : nothingKnown;
  }
  // The app's sets our trace-set binds disturbed, replayed where this draw's pipeline reads them (the app's own pipeline: all).
  if (b.disturbedFrom < (traced ? run.appSetCount : UINT32_MAX)) {
    replayAppBinds(cs, cs->shadow, bp, b);
    b.disturbedFrom = UINT32_MAX;
  }
  if (slot == kNoSlot) return kNoSlot;
  if (traced) {
    if (run.descriptorBuffer) {
      bindTraceDescriptorBuffer(cs, bp, run.twinLayout, slot);
    } else {
      VkDescriptorSet set = tracerSet(device->tracer);
      uint32_t offset = (uint32_t)(slot * tracerDrawStride(device->tracer));
      device->cmd.CmdBindDescriptorSets(cs->shadow, bp, run.twinLayout, device->traceSet, 1, &set, 1, &offset);
    }
    // Sets the app bound above this pipeline's own are incompatible with the padded layout: replayed when needed.
    if (run.appSetCount < b.disturbedFrom) b.disturbedFrom = run.appSetCount;
  }
  device->cmd.CmdWriteTimestamp(cs->shadow, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, tracerQueries(device->tracer), 1 + 2 * slot);
  RecordedEvent e{RecordedEvent::Draw};
  e.text = call;
  e.slot = slot;
  e.endQuery = views > 1 ? 1 + 2 * slot + views : 2 + 2 * slot;
  e.drawKind = kind;
  e.params = params;
  e.pipeline = run.name;
  e.label = label;
  e.untraced = std::move(untraced);
  if (traced && run.blockRow && !run.blockRow->empty()) {
    e.blockRow = run.blockRow;
    e.blockShareKey = settings().blockRowsPerPipeline ? run.pipelineKey : 0;
    e.blockStageOffsets = run.blockStageOffsets;
  } else if (traced && !run.unprofiledWhy.empty()) {
    e.unprofiled = who() + ": " + run.unprofiledWhy, e.unprofiledWhy = run.unprofiledWhy;  // traced without the profile asked for
  }
  cs->events.push_back(std::move(e));
  for (uint32_t k = 0; k < views; k++) cs->slots.push_back(slot + k);
  return slot;
}

void endDraw(CommandState *cs, uint32_t slot) {
  if (slot == kNoSlot) return;
  // Nothing is recorded between a draw's beginDraw and endDraw: its event is the last.
  cs->device->cmd.CmdWriteTimestamp(cs->shadow, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, tracerQueries(cs->device->tracer), cs->events.back().endQuery);
}

static std::string field(const char *name, int64_t value, bool first = false) {
  return std::string(first ? "" : ", ") + "\"" + name + "\": " + std::to_string(value);
}

/** A grid-launching call's counts (dispatches, mesh draws): its params and its default label "name(x, y, z)". */
static std::string groupParams(uint32_t x, uint32_t y, uint32_t z) {
  return field("groupCountX", x, true) + field("groupCountY", y) + field("groupCountZ", z);
}
static std::string groupLabel(const char *call, uint32_t x, uint32_t y, uint32_t z) {
  return std::string(call) + "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

/** Forwards a draw to the app's buffer, and to the shadow between beginDraw and endDraw. */
#define WTL_DRAW(bp, kind, callName, params, label, forward)                                           \
  CommandState *cs = findCommandState(commandBuffer);                                                 \
  cs->device->cmd.forward(commandBuffer, WTL_ARGS);                                                    \
  if (!cs->shadow) return;                                                                            \
  uint32_t slot = beginDraw(cs, bp, callName, kind, params, label);                                   \
  cs->device->cmd.forward(cs->shadow, WTL_ARGS);                                                       \
  endDraw(cs, slot);

#define WTL_ARGS vertexCount, instanceCount, firstVertex, firstInstance
static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDraw(VkCommandBuffer commandBuffer, uint32_t vertexCount, uint32_t instanceCount,
                                               uint32_t firstVertex, uint32_t firstInstance) {
  WTL_DRAW(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, "vkCmdDraw",
           field("vertexCount", vertexCount, true) + field("instanceCount", instanceCount) + field("firstVertex", firstVertex) +
               field("firstInstance", firstInstance),
           "vkCmdDraw(" + std::to_string(vertexCount) + ", " + std::to_string(instanceCount) + ")", CmdDraw)
}
#undef WTL_ARGS

#define WTL_ARGS indexCount, instanceCount, firstIndex, vertexOffset, firstInstance
static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDrawIndexed(VkCommandBuffer commandBuffer, uint32_t indexCount, uint32_t instanceCount,
                                                      uint32_t firstIndex, int32_t vertexOffset, uint32_t firstInstance) {
  WTL_DRAW(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, "vkCmdDrawIndexed",
           field("indexCount", indexCount, true) + field("instanceCount", instanceCount) + field("firstIndex", firstIndex) +
               field("vertexOffset", vertexOffset) + field("firstInstance", firstInstance),
           "vkCmdDrawIndexed(" + std::to_string(indexCount) + ", " + std::to_string(instanceCount) + ")", CmdDrawIndexed)
}
#undef WTL_ARGS

#define WTL_ARGS buffer, offset, drawCount, stride
#define WTL_INDIRECT(name, forward)                                                                                           \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset,         \
                                              uint32_t drawCount, uint32_t stride) {                                       \
    WTL_DRAW(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, #name, field("drawCount", drawCount, true),                     \
             std::string(#name "(") + std::to_string(drawCount) + ")", forward)                                             \
  }
WTL_INDIRECT(vkCmdDrawIndirect, CmdDrawIndirect)
WTL_INDIRECT(vkCmdDrawIndexedIndirect, CmdDrawIndexedIndirect)
#undef WTL_ARGS

#define WTL_ARGS buffer, offset, countBuffer, countBufferOffset, maxDrawCount, stride
#define WTL_INDIRECT_COUNT(name, forward)                                                                                    \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset,         \
                                              VkBuffer countBuffer, VkDeviceSize countBufferOffset, uint32_t maxDrawCount, \
                                              uint32_t stride) {                                                           \
    WTL_DRAW(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, #name, "", std::string(#name "(<=") + std::to_string(maxDrawCount) + ")", \
             forward)                                                                                                       \
  }
WTL_INDIRECT_COUNT(vkCmdDrawIndirectCount, CmdDrawIndirectCount)
WTL_INDIRECT_COUNT(vkCmdDrawIndexedIndirectCount, CmdDrawIndexedIndirectCount)
WTL_INDIRECT_COUNT(vkCmdDrawIndirectCountKHR, CmdDrawIndirectCountKHR)
WTL_INDIRECT_COUNT(vkCmdDrawIndexedIndirectCountKHR, CmdDrawIndexedIndirectCountKHR)
WTL_INDIRECT_COUNT(vkCmdDrawIndirectCountAMD, CmdDrawIndirectCountAMD)
WTL_INDIRECT_COUNT(vkCmdDrawIndexedIndirectCountAMD, CmdDrawIndexedIndirectCountAMD)
#undef WTL_ARGS

#define WTL_ARGS drawCount, pVertexInfo, instanceCount, firstInstance, stride
static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDrawMultiEXT(VkCommandBuffer commandBuffer, uint32_t drawCount, const VkMultiDrawInfoEXT *pVertexInfo,
                                                       uint32_t instanceCount, uint32_t firstInstance, uint32_t stride) {
  WTL_DRAW(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, "vkCmdDrawMultiEXT",
           field("drawCount", drawCount, true) + field("instanceCount", instanceCount),
           "vkCmdDrawMultiEXT(" + std::to_string(drawCount) + ")", CmdDrawMultiEXT)
}
#undef WTL_ARGS

#define WTL_ARGS drawCount, pIndexInfo, instanceCount, firstInstance, stride, pVertexOffset
static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDrawMultiIndexedEXT(VkCommandBuffer commandBuffer, uint32_t drawCount,
                                                              const VkMultiDrawIndexedInfoEXT *pIndexInfo, uint32_t instanceCount,
                                                              uint32_t firstInstance, uint32_t stride, const int32_t *pVertexOffset) {
  WTL_DRAW(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, "vkCmdDrawMultiIndexedEXT",
           field("drawCount", drawCount, true) + field("instanceCount", instanceCount),
           "vkCmdDrawMultiIndexedEXT(" + std::to_string(drawCount) + ")", CmdDrawMultiIndexedEXT)
}
#undef WTL_ARGS

// Calls that launch a grid of workgroups (x, y, z): a dispatch, or a mesh draw on the graphics bind point.
#define WTL_ARGS groupCountX, groupCountY, groupCountZ
#define WTL_GRID(bp, kind, name, forward)                                                                                  \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer commandBuffer, uint32_t groupCountX, uint32_t groupCountY,  \
                                              uint32_t groupCountZ) {                                                 \
    WTL_DRAW(bp, kind, #name, groupParams(groupCountX, groupCountY, groupCountZ),                                        \
             groupLabel(#name, groupCountX, groupCountY, groupCountZ), forward)                                        \
  }
// Mesh draws: the task and mesh stages' warps get the draw's id like any draw's.
WTL_GRID(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, vkCmdDrawMeshTasksEXT, CmdDrawMeshTasksEXT)
WTL_GRID(VK_PIPELINE_BIND_POINT_COMPUTE, WT_KIND_DISPATCH, vkCmdDispatch, CmdDispatch)
#undef WTL_GRID
#undef WTL_ARGS

#define WTL_ARGS taskCount, firstTask
static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDrawMeshTasksNV(VkCommandBuffer commandBuffer, uint32_t taskCount, uint32_t firstTask) {
  WTL_DRAW(VK_PIPELINE_BIND_POINT_GRAPHICS, WT_KIND_DRAW, "vkCmdDrawMeshTasksNV", field("taskCount", taskCount, true) + field("firstTask", firstTask),
           "vkCmdDrawMeshTasksNV(" + std::to_string(taskCount) + ")", CmdDrawMeshTasksNV)
}
#undef WTL_ARGS

#define WTL_ARGS buffer, offset, drawCount, stride
WTL_INDIRECT(vkCmdDrawMeshTasksIndirectEXT, CmdDrawMeshTasksIndirectEXT)
WTL_INDIRECT(vkCmdDrawMeshTasksIndirectNV, CmdDrawMeshTasksIndirectNV)
#undef WTL_ARGS

#define WTL_ARGS buffer, offset, countBuffer, countBufferOffset, maxDrawCount, stride
WTL_INDIRECT_COUNT(vkCmdDrawMeshTasksIndirectCountEXT, CmdDrawMeshTasksIndirectCountEXT)
WTL_INDIRECT_COUNT(vkCmdDrawMeshTasksIndirectCountNV, CmdDrawMeshTasksIndirectCountNV)
#undef WTL_ARGS
#undef WTL_INDIRECT
#undef WTL_INDIRECT_COUNT

#define WTL_ARGS baseGroupX, baseGroupY, baseGroupZ, groupCountX, groupCountY, groupCountZ
#define WTL_DISPATCH_BASE(name, forward)                                                                                       \
  static VKAPI_ATTR void VKAPI_CALL wl_##name(VkCommandBuffer commandBuffer, uint32_t baseGroupX, uint32_t baseGroupY,      \
                                              uint32_t baseGroupZ, uint32_t groupCountX, uint32_t groupCountY,            \
                                              uint32_t groupCountZ) {                                                     \
    WTL_DRAW(VK_PIPELINE_BIND_POINT_COMPUTE, WT_KIND_DISPATCH, #name, groupParams(groupCountX, groupCountY, groupCountZ),    \
             groupLabel(#name, groupCountX, groupCountY, groupCountZ), forward)                                            \
  }
WTL_DISPATCH_BASE(vkCmdDispatchBase, CmdDispatchBase)
WTL_DISPATCH_BASE(vkCmdDispatchBaseKHR, CmdDispatchBaseKHR)
#undef WTL_DISPATCH_BASE
#undef WTL_ARGS

#define WTL_ARGS buffer, offset
static VKAPI_ATTR void VKAPI_CALL wl_vkCmdDispatchIndirect(VkCommandBuffer commandBuffer, VkBuffer buffer, VkDeviceSize offset) {
  WTL_DRAW(VK_PIPELINE_BIND_POINT_COMPUTE, WT_KIND_DISPATCH, "vkCmdDispatchIndirect", "", "vkCmdDispatchIndirect()", CmdDispatchIndirect)
}
#undef WTL_ARGS
#undef WTL_DRAW

static VKAPI_ATTR void VKAPI_CALL wl_vkCmdExecuteCommands(VkCommandBuffer cb, uint32_t count, const VkCommandBuffer *buffers) {
  CommandState *cs = findCommandState(cb);
  cs->device->cmd.CmdExecuteCommands(cb, count, buffers);
  if (!cs->shadow) return;
  std::vector<VkCommandBuffer> shadows(buffers, buffers + count);
  for (uint32_t i = 0; i < count; i++) {
    CommandState *secondary = findCommandState(buffers[i]);
    if (secondary->shadow) shadows[i] = secondary->shadow;
    RecordedEvent e{RecordedEvent::Execute};
    e.secondary = secondary->shadow ? secondary : nullptr;
    e.secondaryGeneration = secondary->generation;
    cs->events.push_back(std::move(e));
  }
  cs->device->cmd.CmdExecuteCommands(cs->shadow, count, shadows.data());
}

#define WTL_HAND_WRITTEN(X)                                                                                             \
  X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdDraw) X(vkCmdDrawIndexed) X(vkCmdDrawIndirect)                \
  X(vkCmdDrawIndexedIndirect) X(vkCmdDrawIndirectCount) X(vkCmdDrawIndexedIndirectCount) X(vkCmdDrawIndirectCountKHR)  \
  X(vkCmdDrawIndexedIndirectCountKHR) X(vkCmdDrawIndirectCountAMD) X(vkCmdDrawIndexedIndirectCountAMD)                 \
  X(vkCmdDrawMultiEXT) X(vkCmdDrawMultiIndexedEXT) X(vkCmdDispatch) X(vkCmdDispatchIndirect) X(vkCmdDispatchBase)      \
  X(vkCmdDispatchBaseKHR) X(vkCmdExecuteCommands) X(vkCmdDrawMeshTasksEXT) X(vkCmdDrawMeshTasksIndirectEXT)                \
  X(vkCmdDrawMeshTasksIndirectCountEXT) X(vkCmdDrawMeshTasksNV) X(vkCmdDrawMeshTasksIndirectNV)                         \
  X(vkCmdDrawMeshTasksIndirectCountNV)

PFN_vkVoidFunction findCommandHook(const char *name) {
#define WTL_FIND(fn) \
  if (!strcmp(name, #fn)) return (PFN_vkVoidFunction)wl_##fn;
  WTL_HAND_WRITTEN(WTL_FIND)
#undef WTL_FIND
  if (PFN_vkVoidFunction f = findRegionCommand(name)) return f;
  if (PFN_vkVoidFunction f = findDescriptorBufferCommand(name)) return f;
  if (PFN_vkVoidFunction f = findRayLaunchCommand(name)) return f;
  if (PFN_vkVoidFunction f = findBarrierCommand(name)) return f;
  return findGeneratedCommand(name);
}

}  // namespace wtl
