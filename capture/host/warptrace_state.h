/*
 * warptrace_state.h: the private definitions every part of the implementation shares: the stage tables,
 * struct wtTracer (its fields are the one contract between the parts, and the layer and the harness read
 * some of them) and the block-profile and ray-event hooks the parts call before warptrace_blocks.h and
 * warptrace_rays.h define them. Separate so each part can be read against one list of fields.
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_STATE_IMPLEMENTED)
#define WARPTRACE_STATE_IMPLEMENTED

#define WT_ALL_STAGES_                                                                                                          \
  (VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT | VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT |         \
   VK_SHADER_STAGE_GEOMETRY_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT)

/* Every stage code WT_STAGE_VS..WT_STAGE_CALLABLE, for the metadata's stage lists (subgroup stages). */
static const VkShaderStageFlagBits wtAllStageBits_[14] = {
    VK_SHADER_STAGE_VERTEX_BIT,     VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT,
    VK_SHADER_STAGE_GEOMETRY_BIT,   VK_SHADER_STAGE_FRAGMENT_BIT,             VK_SHADER_STAGE_COMPUTE_BIT,
    VK_SHADER_STAGE_TASK_BIT_EXT,   VK_SHADER_STAGE_MESH_BIT_EXT,             VK_SHADER_STAGE_RAYGEN_BIT_KHR,
    VK_SHADER_STAGE_ANY_HIT_BIT_KHR, VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR,     VK_SHADER_STAGE_MISS_BIT_KHR,
    VK_SHADER_STAGE_INTERSECTION_BIT_KHR, VK_SHADER_STAGE_CALLABLE_BIT_KHR};
static const char *const wtAllStageNames_[14] = {"VS",   "TCS",    "TES",     "GS",          "FS",   "CS",           "TASK",
                                                 "MESH", "RAYGEN", "ANY_HIT", "CLOSEST_HIT", "MISS", "INTERSECTION", "CALLABLE"};

typedef struct wtLabel_ {
  char text[96];
  wtDrawKind kind;
  uint32_t targetWidth, targetHeight; /* wtSetDrawTarget; 0: unknown */
} wtLabel_;

struct wtTracer {
  VkDevice device;
  const VkAllocationCallbacks *allocator;
  wtCaps caps;
  uint32_t capacity, maxDraws, binding;
  VkDeviceSize traceBytes, uboStride;
  VkBufferUsageFlags addressUsage; /* VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT with wtTracerInfo.deviceAddress, else 0 */
  VkBuffer traceBuffer, readbackBuffer, drawIdBuffer;
  VkDeviceMemory traceMemory, readbackMemory, drawIdMemory;
  VkBool32 readbackCoherent;
  void *readbackMap;
  VkDescriptorSetLayout setLayout, emptySetLayout;
  VkDescriptorPool pool;
  VkDescriptorSet set;
  VkQueryPool queries;
  uint32_t drawCount, openDraw, overflowDraws;
  VkBool32 captureOpen;
  wtLabel_ *labels;
  VkBool32 clocksChecked;
  wtClockCheck clocks;
  VkBool32 noDrawTimestamps;
  uint32_t sampleWords[WT_SAMPLE_WORDS]; /* wtSetSampling: 4-bit log2 rates by stage code */
  double samplingBudget;                 /* wtSetSampling's budget, 0: rates given by the user */
  /* wtSetDrawTable: draws numbered at submission rather than at wtCmdBeginDraw. */
  uint32_t tableDraws;
  const char *const *tableLabels;
  const wtDrawKind *tableKinds;
  const uint32_t *tableSlots;
  const char *const *tableExtra;
  const uint32_t *tableEndQueries; /* wtSetDrawEndQueries: each table draw's end-timestamp query, else 2 + 2 slot */
  /* wtTracerInfo.blockCells > 0: the block table (device memory, blockBytes long) and its bookkeeping (warptrace_blocks.h); else NULL. */
  struct wtBlockTable_ *blocks;
  VkBuffer blockBuffer;
  VkDeviceMemory blockMemory;
  VkDeviceSize blockBytes;
  /* wtTracerInfo.rayEventRows > 0: the ray-event table (device memory, rayBytes long) and its rows (warptrace_rays.h); else NULL. */
  struct wtRayTable_ *rays;
  VkBuffer rayBuffer;
  VkDeviceMemory rayMemory;
  VkDeviceSize rayBytes;
};

/* Block profiles (warptrace_blocks.h, included at the end). */
static VkResult wtBlocksCreate_(wtTracer *t, VkPhysicalDevice pd, uint32_t cells);
static void wtBlocksDestroy_(wtTracer *t);
static void wtBlocksCmdBegin_(wtTracer *t, VkCommandBuffer cmd);
static void wtBlocksCmdEnd_(wtTracer *t, VkCommandBuffer cmd);
static uint64_t wtBlocksSectionBytes_(const wtTracer *t);
static void wtBlocksWriteMetadata_(const wtTracer *t, FILE *f, const uint32_t *table);
static int wtBlocksWriteSection_(const wtTracer *t, FILE *f, const uint32_t *table);
/* Ray events (warptrace_rays.h, included at the end). */
struct wtRayTable_;
static VkResult wtRaysCreate_(wtTracer *t, VkPhysicalDevice pd, const wtTracerInfo *info);
static void wtRaysDestroy_(wtTracer *t);
static void wtRaysCmdBegin_(wtTracer *t, VkCommandBuffer cmd);
static void wtRaysCmdEnd_(wtTracer *t, VkCommandBuffer cmd);
static VkDeviceSize wtRaysReadBytes_(const struct wtRayTable_ *r);
static uint64_t wtRaysSectionBytes_(const wtTracer *t);
static void wtRaysWriteMetadata_(const wtTracer *t, FILE *f);
static int wtRaysWriteSection_(const wtTracer *t, FILE *f);

#endif /* WARPTRACE_STATE_IMPLEMENTED */
