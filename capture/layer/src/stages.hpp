// The stages the layer traces, by stage code: the bit WARPTRACE_STAGES sets in
// Settings::stageMask and the index of the stage's name in instrument requests.
#pragma once

#include <vulkan/vulkan.h>

namespace wtl {

constexpr int kTracedStageCount = 8;

/** VS 0 .. CS 5, TASK 6, MESH 7 (the NV mesh and task bits equal the EXT ones). */
constexpr VkShaderStageFlagBits kTracedStageBits[kTracedStageCount] = {
    VK_SHADER_STAGE_VERTEX_BIT,   VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT,
    VK_SHADER_STAGE_GEOMETRY_BIT, VK_SHADER_STAGE_FRAGMENT_BIT,             VK_SHADER_STAGE_COMPUTE_BIT,
    VK_SHADER_STAGE_TASK_BIT_EXT, VK_SHADER_STAGE_MESH_BIT_EXT};

/** Stage code (VS 0 .. CS 5, TASK 6, MESH 7) of a graphics, mesh or compute stage, or -1 (ray tracing). */
inline int stageCode(VkShaderStageFlagBits stage) {
  for (int i = 0; i < kTracedStageCount; i++)
    if (stage == kTracedStageBits[i]) return i;  // the NV mesh and task bits equal the EXT ones
  return -1;
}

/** Their names in instrument requests (the instrumenter's stage names). */
constexpr const char *kTracedStageNames[kTracedStageCount] = {"VS", "TCS", "TES", "GS", "FS", "CS", "TASK", "MESH"};

/** The same stages as WARPTRACE_STAGES (and `warptrace capture --stages`) names them. */
constexpr const char *kTracedStageOptions[kTracedStageCount] = {"vs", "tcs", "tes", "gs", "fs", "cs", "task", "mesh"};

/** The stages of mesh pipelines: traced (and in the trace set's layout) only where the app enabled them. */
constexpr VkShaderStageFlags kMeshStageBits = VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT;

}  // namespace wtl
