// The stages the layer traces, by stage code: the bit WARPTRACE_STAGES sets in
// Settings::stageMask and the index of the stage's name in instrument requests.
#pragma once

#include <vulkan/vulkan.h>

#include "warptrace_layout.h"

namespace wtl {

constexpr int kTracedStageCount = 14;

/** VS 0 .. CS 5, TASK 6, MESH 7 (the NV mesh and task bits equal the EXT ones), then the ray-tracing stages 8..13. */
constexpr VkShaderStageFlagBits kTracedStageBits[kTracedStageCount] = {
    VK_SHADER_STAGE_VERTEX_BIT,         VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT,
    VK_SHADER_STAGE_GEOMETRY_BIT,       VK_SHADER_STAGE_FRAGMENT_BIT,             VK_SHADER_STAGE_COMPUTE_BIT,
    VK_SHADER_STAGE_TASK_BIT_EXT,       VK_SHADER_STAGE_MESH_BIT_EXT,             VK_SHADER_STAGE_RAYGEN_BIT_KHR,
    VK_SHADER_STAGE_ANY_HIT_BIT_KHR,    VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR,      VK_SHADER_STAGE_MISS_BIT_KHR,
    VK_SHADER_STAGE_INTERSECTION_BIT_KHR, VK_SHADER_STAGE_CALLABLE_BIT_KHR};

/** Stage code (VS 0 .. CS 5, TASK 6, MESH 7, RAYGEN 8 .. CALLABLE 13) of a stage, or -1. */
inline int stageCode(VkShaderStageFlagBits stage) {
  for (int i = 0; i < kTracedStageCount; i++)
    if (stage == kTracedStageBits[i]) return i;  // the NV mesh and task bits equal the EXT ones
  return -1;
}

/** Their names in instrument requests (the instrumenter's stage names). */
constexpr const char *kTracedStageNames[kTracedStageCount] = {"VS",   "TCS",    "TES",         "GS",   "FS",           "CS",      "TASK",
                                                               "MESH", "RAYGEN", "ANY_HIT", "CLOSEST_HIT", "MISS", "INTERSECTION", "CALLABLE"};

/** The same stages as WARPTRACE_STAGES (and `warptrace capture --stages`) names them. */
constexpr const char *kTracedStageOptions[kTracedStageCount] = {"vs",   "tcs",  "tes",  "gs",   "fs",   "cs",   "task",
                                                                 "mesh", "rgen", "ahit", "chit", "miss", "rint", "call"};

/** Block profiles: a graphics stage's draw-id stage word (WT_BLOCK_STAGE_*) by stage code; -1: it reads none (CS, ray tracing). */
constexpr int kBlockStageOfCode[kTracedStageCount] = {WT_BLOCK_STAGE_VS, WT_BLOCK_STAGE_TCS, WT_BLOCK_STAGE_TES,  WT_BLOCK_STAGE_GS, WT_BLOCK_STAGE_FS,
                                                      -1,                WT_BLOCK_STAGE_TASK, WT_BLOCK_STAGE_MESH, -1, -1, -1, -1, -1, -1};

/** The stages of mesh pipelines: traced (and in the trace set's layout) only where the app enabled them. */
constexpr VkShaderStageFlags kMeshStageBits = VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT;

/** The ray-tracing stages' codes (RAYGEN 8 .. CALLABLE 13) as Settings::stageMask bits. */
constexpr uint32_t kRayTracingStageCodes = 0x3fu << 8;

/** The ray-tracing stages: traced (and in the trace set's layout) only where the app enabled ray-tracing pipelines. */
constexpr VkShaderStageFlags kRayTracingStageBits = VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_ANY_HIT_BIT_KHR |
                                                    VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR | VK_SHADER_STAGE_MISS_BIT_KHR |
                                                    VK_SHADER_STAGE_INTERSECTION_BIT_KHR | VK_SHADER_STAGE_CALLABLE_BIT_KHR;

}  // namespace wtl
