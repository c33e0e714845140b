/*
 * warptrace.h: per-warp GPU traces for a Vulkan engine, header-only C99.
 *
 * In one .c/.cpp file:   #define WARPTRACE_IMPLEMENTATION
 *                        #include "warptrace.h"
 * Everywhere else:       #include "warptrace.h"
 *
 * What it does for the engine (see capture/README.md for the walk-through):
 *   1. wtQueryCaps: reads what the device offers (shader clocks, SM builtins,
 *      subgroup stages, SM count, timestamp period) and which shader defines
 *      to compile capture/shaders/warptrace.glsl with (wtShaderDefines).
 *   2. wtPrepareDevice: the extensions and feature structs to enable.
 *   3. wtCreateTracer: the trace buffer, the draw-id buffer, their descriptor
 *      set (add wtTracerSetLayout() at set WT_SET of your pipeline layouts),
 *      and the timestamp queries.
 *   4. Per capture: wtCmdBeginCapture, then around each draw or dispatch
 *      wtCmdBeginDraw / wtCmdEndDraw, then wtCmdEndCapture; submit; wait for
 *      the fence; wtWriteWtraw writes the .wtraw file (`warptrace convert`
 *      turns it into a calibrated .wtrace).
 *   5. Optional, block profiles (modules from `warptrace instrument --blocks`):
 *      wtTracerInfo.blockCells and the calls of warptrace_blocks.h.
 *   6. Optional, ray events (modules from `warptrace instrument --ray-events`):
 *      wtTracerInfo.rayEventRows and wtSetDrawRayRow (warptrace_rays.h).
 *
 * Requires Vulkan 1.1 (vkGetPhysicalDeviceProperties2). Not thread-safe: one
 * tracer records into one command buffer at a time.
 */
#ifndef WARPTRACE_H
#define WARPTRACE_H

#include <stdint.h>
#include <vulkan/vulkan.h>

#include "warptrace_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WT_DEFAULT_SET 7u
#define WT_DEFAULT_BINDING 0u
#define WT_DEFAULT_CAPACITY (1u << 21) /* records: 64 MiB */
#define WT_DEFAULT_MAX_DRAWS 4096u
#define WT_NO_DRAW 0xffffffffu

/* Graphics and compute stages, in the order of the stage codes WT_STAGE_VS..WT_STAGE_CS. */
#define WT_GRAPHICS_COMPUTE_STAGE_COUNT 6u

typedef struct wtCaps {
  char deviceName[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  char vendor[32];
  uint32_t vendorId, deviceId;
  uint32_t apiVersion, driverVersion;
  char driverVersionText[64];
  char driverName[VK_MAX_DRIVER_NAME_SIZE];
  /* VK_KHR_shader_clock */
  VkBool32 hasShaderClockExtension, subgroupClock, deviceClock;
  /* VK_NV_shader_sm_builtins */
  VkBool32 hasSmBuiltinsExtension, smBuiltins;
  uint32_t smCount, warpsPerSm; /* 0 when unknown */
  /* Subgroups: stages where basic + ballot operations work. */
  uint32_t subgroupSize;
  VkShaderStageFlags subgroupStages;
  VkBool32 subgroupArithmetic; /* min/max for the screen position (else per-lane stages only record one) */
  /* Core features the shaders need to store from each stage. */
  VkBool32 vertexPipelineStoresAndAtomics, fragmentStoresAndAtomics;
  VkBool32 tessellationShader, geometryShader;
  /* Timestamps */
  float timestampPeriod;
  uint32_t timestampValidBits; /* of the first graphics+compute queue family */
  VkBool32 timestampComputeAndGraphics;
  uint32_t maxBoundDescriptorSets;
  VkDeviceSize minUniformBufferOffsetAlignment;
  /* 64-bit buffer atomics (block profiles' counters): VK_KHR_shader_atomic_int64 or Vulkan 1.2 */
  VkBool32 hasAtomicInt64Extension, bufferInt64Atomics;
} wtCaps;

/* Fills caps. The instance must be Vulkan 1.1 or newer. */
void wtQueryCaps(VkPhysicalDevice physicalDevice, wtCaps *caps);

/* Whether tracing can work at all: a clock, stores from the traced stages. NULL when fine, else a reason. */
const char *wtUnsupportedReason(const wtCaps *caps, VkShaderStageFlags tracedStages);

/*
 * Writes the glslangValidator defines for one stage (VK_SHADER_STAGE_*_BIT)
 * into out, e.g. "-DWT_ENABLE -DWT_SUBGROUP_CLOCK=1 -DWT_DEVICE_CLOCK=1
 * -DWT_SM_BUILTINS=1 -DWT_SUBGROUP=1". Returns the length written.
 */
int wtShaderDefines(const wtCaps *caps, VkShaderStageFlagBits stage, char *out, size_t outSize);

/* Extensions and feature structs to enable on the device (keep it alive until vkCreateDevice returns). */
typedef struct wtDeviceSetup {
  const char *extensions[3];
  uint32_t extensionCount;
  VkPhysicalDeviceShaderClockFeaturesKHR clockFeatures;
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV smFeatures;
  VkPhysicalDeviceShaderAtomicInt64Features int64Features; /* wtPrepareBlockDevice */
} wtDeviceSetup;

/*
 * Fills setup, links its feature structs in front of *pNextChain (the pNext of
 * your VkDeviceCreateInfo or VkPhysicalDeviceFeatures2) and turns on the core
 * features the instrumented shaders need in *features. Append
 * setup->extensions to your enabled extensions.
 */
void wtPrepareDevice(const wtCaps *caps, wtDeviceSetup *setup, const void **pNextChain, VkPhysicalDeviceFeatures *features);
/*
 * Block profiles (modules from `warptrace instrument --blocks` count in 64-bit atomics): after wtPrepareDevice, links
 * shaderBufferInt64Atomics in front of *pNextChain (and VK_KHR_shader_atomic_int64 before Vulkan 1.2). Returns 0
 * when the device lacks it. An app that chains VkPhysicalDeviceVulkan12Features sets shaderBufferInt64Atomics there
 * instead (the two may not be chained together).
 */
int wtPrepareBlockDevice(const wtCaps *caps, wtDeviceSetup *setup, const void **pNextChain);

typedef struct wtTracerInfo {
  VkPhysicalDevice physicalDevice;
  VkDevice device;
  const wtCaps *caps;
  uint32_t capacity;  /* records in the trace buffer (0: WT_DEFAULT_CAPACITY) */
  uint32_t maxDraws;  /* draws and dispatches per capture (0: WT_DEFAULT_MAX_DRAWS) */
  uint32_t binding;   /* the shaders' WT_BINDING (0) */
  VkShaderStageFlags stages; /* stages that trace (0: all graphics and compute) */
  const VkAllocationCallbacks *allocator;
  /* VK_TRUE: the trace and draw-id buffers get device addresses (descriptors in a VK_EXT_descriptor_buffer buffer
     point at them); the device must have bufferDeviceAddress enabled. */
  VkBool32 deviceAddress;
  /* Cells of the block table (warptrace_blocks.h) at binding + WT_BLOCK_BINDING_OFFSET; 0 (default): no table,
     the set layout and the .wtraw are as without block profiles. */
  uint32_t blockCells;
  /* Rows of the ray-event table (warptrace_rays.h) at binding + WT_RAY_EVENT_BINDING_OFFSET, one per profiled
     trace-rays call; 0 (default): no table, the set layout and the .wtraw are as without ray events. Cells per row
     (0: WT_DEFAULT_RAY_CELLS) and launch pixels with a scratch entry (0: WT_DEFAULT_RAY_SCRATCH). */
  uint32_t rayEventRows;
  uint32_t rayEventCells;
  uint32_t rayEventScratchPixels;
} wtTracerInfo;

typedef enum wtDrawKind { WT_KIND_DRAW = 0, WT_KIND_DISPATCH = 1, WT_KIND_TRACE_RAYS = 2 } wtDrawKind;

typedef struct wtTracer wtTracer;

VkResult wtCreateTracer(const wtTracerInfo *info, wtTracer **tracer);
/* The most records one trace buffer can hold on this device (its maxStorageBufferRange); wtCreateTracer refuses more. */
uint32_t wtMaxCapacity(VkPhysicalDevice physicalDevice);
void wtDestroyTracer(wtTracer *tracer);

/* The layout to place at set WT_SET of every pipeline layout that runs traced shaders. */
VkDescriptorSetLayout wtTracerSetLayout(const wtTracer *tracer);
/* An empty layout for the unused sets below WT_SET (pipeline layouts cannot have holes). */
VkDescriptorSetLayout wtTracerEmptySetLayout(const wtTracer *tracer);

/*
 * Starts a capture (outside a render pass): clears the counter, resets the
 * queries and writes the capture-start timestamp (time 0).
 */
void wtCmdBeginCapture(wtTracer *tracer, VkCommandBuffer cmd);
/*
 * Before a draw or dispatch: gives it the next draw id (bound at set `set` of
 * `layout` through a dynamic uniform offset, valid inside render passes) and
 * writes its begin timestamp. Returns the draw id, or WT_NO_DRAW when the
 * capture already holds maxDraws draws (then wtWriteWtraw fails).
 */
uint32_t wtCmdBeginDraw(wtTracer *tracer, VkCommandBuffer cmd, VkPipelineBindPoint bindPoint, VkPipelineLayout layout, uint32_t set,
                        const char *label, wtDrawKind kind);
/* After the draw or dispatch: its end timestamp. */
void wtCmdEndDraw(wtTracer *tracer, VkCommandBuffer cmd);
/*
 * The target of draw `drawId` (wtCmdBeginDraw's id), in pixels: a graphics
 * draw's render area (or framebuffer), a trace-rays launch's width x height,
 * a dispatch's grid in invocations. The metadata gives it as the draw's
 * "target", the grid its warps' screen positions lie on. 0 x 0 (the
 * default): unknown. WT_NO_DRAW is ignored.
 */
void wtSetDrawTarget(wtTracer *tracer, uint32_t drawId, uint32_t width, uint32_t height);
/* Turns the per-draw timestamp queries on (default) or off (their pairs are then written as missing). */
void wtSetDrawTimestamps(wtTracer *tracer, VkBool32 enabled);
/*
 * Warp sampling (shared-schema/sample-layout.ts): from the next submitted draw on, one warp in
 * 2^log2Every of shader stage `stage` (WT_STAGE_VS..WT_STAGE_CALLABLE) records; 0 (the default)
 * records every warp. Shaders compiled with WT_SAMPLING 1 (the default) read the rate from the
 * draw-id block and decide per warp before any clock is read. `budget` > 0 says the rates were
 * chosen to keep the traced frame within budget x the plain frame; the metadata's "sampling" says
 * so. Call it between frames (it rewrites the draw-id table the GPU reads). Returns
 * VK_ERROR_UNKNOWN for a stage or rate out of range.
 */
VkResult wtSetSampling(wtTracer *tracer, uint32_t stage, uint32_t log2Every, double budget);
/*
 * "FS=8": a stage name of the trace format (VS, TCS, TES, GS, FS, CS, TASK, MESH, RAYGEN, ANY_HIT, CLOSEST_HIT, MISS,
 * INTERSECTION, CALLABLE) and N, a power of two from 1 to 32768, as wtSetSampling's stage and log2Every. Reads
 * `length` bytes of `text` (the capture layer's WARPTRACE_SAMPLE items, wt-capture-vk's --sample). Returns 1, or 0 for
 * anything else.
 */
int wtParseSampleRate(const char *text, size_t length, uint32_t *stage, uint32_t *log2Every);
/* Ends the capture (outside a render pass): copies the buffer for the host to read. */
void wtCmdEndCapture(wtTracer *tracer, VkCommandBuffer cmd);

/*
 * Checks, once before capturing, how the shader device clock relates to the
 * timestamp queries: after one untimed warm-up dispatch (on lavapipe the first
 * dispatch compiles the shader inside its bracket: 7-154 ms), a one-invocation
 * dispatch reads the device clock between two timestamps, 16 times over 20 ms.
 * On NVIDIA both count ns from one origin; on other drivers (lavapipe) the
 * origins differ, and wtWriteWtraw then shifts the timestamps it writes into
 * the device clock's time base. Not during a capture (it uses the trace buffer
 * as scratch). Without this call the time bases are assumed shared.
 */
typedef enum wtClockFit {
  WT_CLOCK_FIT_UNIT_RATE = 0, /* every bracket holds one offset at 1 device ns per timestamp ns */
  WT_CLOCK_FIT_RATE = 1,      /* brackets disagree at rate 1: the rate was fitted on the narrow brackets */
  WT_CLOCK_FIT_DISAGREE = 2   /* no rate makes the narrow brackets agree: the offset is their mean */
} wtClockFit;

typedef struct wtClockCheck {
  uint32_t samples;               /* brackets taken */
  uint32_t samplesUsed;           /* brackets the offset (and a fitted rate) came from */
  wtClockFit fit;
  double deviceNsPerTick;         /* timestamp ns per device-clock tick: 1 unless the brackets disagree at 1 */
  double widestBracketNs, medianBracketNs;
  double offsetLowNs, offsetHighNs; /* timestamp ns - device ns lies in [low, high] */
  VkBool32 sharedTimeBase;        /* the bracket holds 0 (within 64 ns): timestamps are written as they are */
  int64_t timestampShiftTicks;    /* added to every timestamp wtWriteWtraw writes */
} wtClockCheck;

VkResult wtCheckClocks(wtTracer *tracer, VkQueue queue, uint32_t queueFamily, wtClockCheck *result);

/*
 * The arithmetic of wtCheckClocks, for n brackets: timestamp ticks before and
 * after each device-clock read, and the device clock as read (64-bit, or 32-bit
 * wrapping: lavapipe's high word is 0 and it wraps every 4.29 s; consecutive
 * reads must lie within 2^31 ticks of each other). Prefers 1 ns per tick when
 * every bracket holds one offset, so a single slow bracket (a shader compiled
 * or a CPU thread descheduled inside it) cannot bend the rate.
 */
void wtFitClockSamples(const uint64_t *beforeTicks, const uint64_t *afterTicks, const uint64_t *deviceTicks, uint32_t n,
                       double timestampPeriodNs, wtClockCheck *result);

typedef struct wtCaptureInfo {
  const char *tool;            /* "warptrace-vk" when NULL */
  const char *toolVersion;     /* "0.1.0" when NULL */
  const char *workload;        /* application or workload name */
  const char *parametersJson;  /* a JSON object of knobs, or NULL for {} */
  /* Overhead measured in the same run (frames = 0: not measured). */
  double plainFrameNs, tracedFrameNs;
  uint32_t overheadFrames;
  const char *extraJson;       /* more members for the metadata object ("\"key\": value, ..."), or NULL */
} wtCaptureInfo;

typedef struct wtCaptureStats {
  uint32_t counter;  /* records the shaders tried to write */
  uint32_t capacity;
  uint32_t kept;     /* records in the file */
  uint32_t draws;
} wtCaptureStats;

/*
 * After the capture's fence has signaled: reads the buffer and the queries and
 * writes a .wtraw file (through a temporary file renamed into place). Returns
 * 0 on success, else -1 with a message in errorText.
 */
int wtWriteWtraw(wtTracer *tracer, const char *path, const wtCaptureInfo *info, wtCaptureStats *stats, char *errorText, size_t errorSize);

/*
 * For a tracer whose draw ids are not the order of wtCmdBeginDraw calls (the
 * Vulkan layer gives each recorded draw a slot when the app records it and
 * numbers the draws when the frame is submitted): the next wtWriteWtraw writes
 * drawCount draws, draw d with label labels[d], kind kinds[d], the timestamps
 * of slot querySlots[d] (wtCmdBeginDraw's query pair for draw id querySlots[d]),
 * and extraJson[d] (NULL or "": nothing) appended to its metadata object, e.g.
 * "\"call\": \"vkCmdDraw\"". The arrays must stay valid until then; NULL
 * pointers restore the default (the order of wtCmdBeginDraw calls).
 */
void wtSetDrawTable(wtTracer *tracer, uint32_t drawCount, const char *const *labels, const wtDrawKind *kinds, const uint32_t *querySlots,
                    const char *const *extraJson);
/*
 * With wtSetDrawTable: the query index of each table draw's end timestamp (null: its slot's, 2 + 2 slot). A
 * timestamp written inside a multiview render pass fills one query per view, so such a draw takes several slots
 * and ends past its own pair.
 */
void wtSetDrawEndQueries(wtTracer *tracer, const uint32_t *endQueries);

#ifdef __cplusplus
}
#endif

#include "warptrace_blocks.h"
#include "warptrace_rays.h"

#endif /* WARPTRACE_H */

/* ------------------------------------------------------------------------ */
#ifdef WARPTRACE_IMPLEMENTATION
#ifndef WARPTRACE_IMPLEMENTED
#define WARPTRACE_IMPLEMENTED

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The implementation, one concern per part; the order is the order of use (each part may call the ones above). */
#include "warptrace_state.h"
#include "warptrace_caps.h"
#include "warptrace_resources.h"
#include "warptrace_commands.h"
#include "warptrace_sampling.h"
#include "warptrace_clocks.h"
#include "warptrace_metadata.h"
#include "warptrace_wtraw.h"

#define WT_BLOCKS_IMPLEMENT_
#include "warptrace_blocks.h"
#define WT_RAYS_IMPLEMENT_
#include "warptrace_rays.h"

#endif /* WARPTRACE_IMPLEMENTED */
#endif /* WARPTRACE_IMPLEMENTATION */
