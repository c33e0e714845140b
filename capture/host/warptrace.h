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

static int wtHasExtension_(const VkExtensionProperties *exts, uint32_t count, const char *name) {
  for (uint32_t i = 0; i < count; i++)
    if (strcmp(exts[i].extensionName, name) == 0) return 1;
  return 0;
}

static const char *wtVendorName_(uint32_t id) {
  switch (id) {
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x13b5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x106b: return "Apple";
    case 0x10005: return "Mesa";
    default: return "";
  }
}

void wtQueryCaps(VkPhysicalDevice pd, wtCaps *caps) {
  memset(caps, 0, sizeof *caps);
  uint32_t extCount = 0;
  vkEnumerateDeviceExtensionProperties(pd, NULL, &extCount, NULL);
  VkExtensionProperties *exts = (VkExtensionProperties *)calloc(extCount ? extCount : 1, sizeof *exts);
  vkEnumerateDeviceExtensionProperties(pd, NULL, &extCount, exts);
  caps->hasShaderClockExtension = wtHasExtension_(exts, extCount, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  caps->hasSmBuiltinsExtension = wtHasExtension_(exts, extCount, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  caps->hasAtomicInt64Extension = wtHasExtension_(exts, extCount, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME);
  int hasDriverProps = wtHasExtension_(exts, extCount, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  free(exts);

  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smProps = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceSubgroupProperties subgroup = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  if (caps->hasSmBuiltinsExtension) {
    smProps.pNext = props.pNext;
    props.pNext = &smProps;
  }
  VkPhysicalDeviceProperties basic;
  vkGetPhysicalDeviceProperties(pd, &basic);
  if (hasDriverProps || basic.apiVersion >= VK_API_VERSION_1_2) {
    driver.pNext = props.pNext;
    props.pNext = &driver;
  }
  vkGetPhysicalDeviceProperties2(pd, &props);
  const VkPhysicalDeviceProperties *p = &props.properties;
  snprintf(caps->deviceName, sizeof caps->deviceName, "%s", p->deviceName);
  snprintf(caps->vendor, sizeof caps->vendor, "%s", wtVendorName_(p->vendorID));
  caps->vendorId = p->vendorID;
  caps->deviceId = p->deviceID;
  caps->apiVersion = p->apiVersion;
  caps->driverVersion = p->driverVersion;
  snprintf(caps->driverName, sizeof caps->driverName, "%s", driver.driverName);
  if (p->vendorID == 0x10de) {
    snprintf(caps->driverVersionText, sizeof caps->driverVersionText, "%u.%u.%u", p->driverVersion >> 22,
             (p->driverVersion >> 14) & 0xff, (p->driverVersion >> 6) & 0xff);
  } else {
    snprintf(caps->driverVersionText, sizeof caps->driverVersionText, "%u.%u.%u", VK_API_VERSION_MAJOR(p->driverVersion),
             VK_API_VERSION_MINOR(p->driverVersion), VK_API_VERSION_PATCH(p->driverVersion));
  }
  if (driver.driverInfo[0] != 0 && strlen(driver.driverInfo) < 40) {
    size_t n = strlen(caps->driverVersionText);
    snprintf(caps->driverVersionText + n, sizeof caps->driverVersionText - n, " (%s)", driver.driverInfo);
  }
  caps->smCount = caps->hasSmBuiltinsExtension ? smProps.shaderSMCount : 0;
  caps->warpsPerSm = caps->hasSmBuiltinsExtension ? smProps.shaderWarpsPerSM : 0;
  caps->subgroupSize = subgroup.subgroupSize;
  VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;
  caps->subgroupStages = (subgroup.supportedOperations & needed) == needed ? subgroup.supportedStages : 0;
  caps->subgroupArithmetic = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
  caps->timestampPeriod = p->limits.timestampPeriod;
  caps->timestampComputeAndGraphics = p->limits.timestampComputeAndGraphics;
  caps->maxBoundDescriptorSets = p->limits.maxBoundDescriptorSets;
  caps->minUniformBufferOffsetAlignment = p->limits.minUniformBufferOffsetAlignment;

  VkPhysicalDeviceShaderClockFeaturesKHR clock = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
  VkPhysicalDeviceShaderAtomicInt64Features int64 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
  VkPhysicalDeviceFeatures2 features = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  if (caps->hasAtomicInt64Extension || caps->apiVersion >= VK_API_VERSION_1_2) {
    int64.pNext = features.pNext;
    features.pNext = &int64;
  }
  if (caps->hasShaderClockExtension) {
    clock.pNext = features.pNext;
    features.pNext = &clock;
  }
  if (caps->hasSmBuiltinsExtension) {
    sm.pNext = features.pNext;
    features.pNext = &sm;
  }
  vkGetPhysicalDeviceFeatures2(pd, &features);
  caps->subgroupClock = clock.shaderSubgroupClock;
  caps->deviceClock = clock.shaderDeviceClock;
  caps->smBuiltins = sm.shaderSMBuiltins;
  caps->bufferInt64Atomics = int64.shaderBufferInt64Atomics;
  caps->vertexPipelineStoresAndAtomics = features.features.vertexPipelineStoresAndAtomics;
  caps->fragmentStoresAndAtomics = features.features.fragmentStoresAndAtomics;
  caps->tessellationShader = features.features.tessellationShader;
  caps->geometryShader = features.features.geometryShader;

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, NULL);
  VkQueueFamilyProperties *families = (VkQueueFamilyProperties *)calloc(familyCount ? familyCount : 1, sizeof *families);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, families);
  for (uint32_t i = 0; i < familyCount; i++) {
    VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    if ((families[i].queueFlags & want) == want) {
      caps->timestampValidBits = families[i].timestampValidBits;
      break;
    }
  }
  free(families);
}

const char *wtUnsupportedReason(const wtCaps *caps, VkShaderStageFlags traced) {
  if (traced == 0) traced = WT_ALL_STAGES_;
  if (!caps->hasShaderClockExtension) return "the device lacks VK_KHR_shader_clock (shaders cannot read a clock)";
  if (!caps->subgroupClock && !caps->deviceClock) return "VK_KHR_shader_clock offers neither shaderSubgroupClock nor shaderDeviceClock";
  if ((traced & (VK_SHADER_STAGE_ALL_GRAPHICS & ~VK_SHADER_STAGE_FRAGMENT_BIT)) && !caps->vertexPipelineStoresAndAtomics)
    return "the device lacks vertexPipelineStoresAndAtomics (VS/TCS/TES/GS cannot write trace records)";
  if ((traced & VK_SHADER_STAGE_FRAGMENT_BIT) && !caps->fragmentStoresAndAtomics)
    return "the device lacks fragmentStoresAndAtomics (fragment shaders cannot write trace records)";
  if (caps->maxBoundDescriptorSets <= WT_DEFAULT_SET)
    return "maxBoundDescriptorSets is too small for the trace set (compile the shaders with a lower -DWT_SET)";
  return NULL;
}

int wtShaderDefines(const wtCaps *caps, VkShaderStageFlagBits stage, char *out, size_t outSize) {
  /* The screen position takes record word 3 (lanes 32..63 otherwise) and, per subgroup, min/max. */
  int subgroup = (caps->subgroupStages & stage) ? 1 : 0;
  int position = caps->subgroupSize <= 32 && (!subgroup || caps->subgroupArithmetic);
  return snprintf(out, outSize, "-DWT_ENABLE -DWT_SUBGROUP_CLOCK=%d -DWT_DEVICE_CLOCK=%d -DWT_SM_BUILTINS=%d -DWT_SUBGROUP=%d%s",
                  caps->subgroupClock ? 1 : 0, caps->deviceClock ? 1 : 0, caps->smBuiltins ? 1 : 0, subgroup,
                  position ? "" : " -DWT_POSITION=0");
}

void wtPrepareDevice(const wtCaps *caps, wtDeviceSetup *setup, const void **pNextChain, VkPhysicalDeviceFeatures *features) {
  memset(setup, 0, sizeof *setup);
  setup->clockFeatures.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  setup->smFeatures.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV;
  if (caps->hasShaderClockExtension) {
    setup->extensions[setup->extensionCount++] = VK_KHR_SHADER_CLOCK_EXTENSION_NAME;
    setup->clockFeatures.shaderSubgroupClock = caps->subgroupClock;
    setup->clockFeatures.shaderDeviceClock = caps->deviceClock;
    setup->clockFeatures.pNext = (void *)*pNextChain;
    *pNextChain = &setup->clockFeatures;
  }
  if (caps->hasSmBuiltinsExtension && caps->smBuiltins) {
    setup->extensions[setup->extensionCount++] = VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME;
    setup->smFeatures.shaderSMBuiltins = VK_TRUE;
    setup->smFeatures.pNext = (void *)*pNextChain;
    *pNextChain = &setup->smFeatures;
  }
  if (features) {
    features->vertexPipelineStoresAndAtomics |= caps->vertexPipelineStoresAndAtomics;
    features->fragmentStoresAndAtomics |= caps->fragmentStoresAndAtomics;
  }
}

int wtPrepareBlockDevice(const wtCaps *caps, wtDeviceSetup *setup, const void **pNextChain) {
  if (!caps->bufferInt64Atomics) return 0;
  setup->int64Features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
  setup->int64Features.shaderBufferInt64Atomics = VK_TRUE;
  if (caps->apiVersion < VK_API_VERSION_1_2) setup->extensions[setup->extensionCount++] = VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME;
  setup->int64Features.pNext = (void *)*pNextChain;
  *pNextChain = &setup->int64Features;
  return 1;
}

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

uint32_t wtMaxCapacity(VkPhysicalDevice physicalDevice) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physicalDevice, &props);
  uint64_t records = ((uint64_t)props.limits.maxStorageBufferRange - WT_BUFFER_HEADER_WORDS * 4ull) / WT_RECORD_BYTES;
  return records > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)records;
}

static int wtFindMemory_(VkPhysicalDevice pd, uint32_t typeBits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
      VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
      if (!(typeBits & (1u << i)) || (f & want) != want) continue;
      if (pass == 0 && (f & avoid)) continue;
      return (int)i;
    }
  }
  return -1;
}

static VkResult wtMakeBuffer_(wtTracer *t, VkPhysicalDevice pd, VkDeviceSize size, VkBufferUsageFlags usage,
                              VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer, VkBuffer *buffer, VkDeviceMemory *memory,
                              VkMemoryPropertyFlags *got) {
  VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  VkResult r = vkCreateBuffer(t->device, &bi, t->allocator, buffer);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(t->device, *buffer, &req);
  int type = wtFindMemory_(pd, req.memoryTypeBits, want | prefer, 0);
  if (type < 0) type = wtFindMemory_(pd, req.memoryTypeBits, want, 0);
  if (type < 0) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  if (got) *got = mp.memoryTypes[type].propertyFlags;
  VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = (uint32_t)type;
  /* A buffer with a device address needs memory that has one. */
  VkMemoryAllocateFlagsInfo flags = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) ai.pNext = &flags;
  r = vkAllocateMemory(t->device, &ai, t->allocator, memory);
  if (r != VK_SUCCESS) return r;
  return vkBindBufferMemory(t->device, *buffer, *memory, 0);
}

/* Creates the tracer's resources; on failure the caller destroys what exists. */
static VkResult wtInitTracer_(wtTracer *t, const wtTracerInfo *info) {
  VkResult r;
#define WT_TRY_(expr)              \
  do {                             \
    r = (expr);                    \
    if (r != VK_SUCCESS) return r; \
  } while (0)
  VkShaderStageFlags stages = info->stages ? info->stages : WT_ALL_STAGES_;
  VkDeviceSize align = info->caps->minUniformBufferOffsetAlignment;
  /* Each draw's block covers every word a shader may read (the block profile's stage words included). */
  t->uboStride = align < WT_DRAW_ID_BLOCK_BYTES ? WT_DRAW_ID_BLOCK_BYTES : align;
  t->traceBytes = WT_BUFFER_HEADER_WORDS * 4ull + (VkDeviceSize)t->capacity * WT_RECORD_BYTES;
  /* The shaders see the trace buffer through one storage-buffer descriptor: a range past the device's limit is
     undefined (llvmpipe, 128 MiB, crashed the app). Ask for at most wtMaxCapacity(). */
  if (t->capacity > wtMaxCapacity(info->physicalDevice)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  t->labels = (wtLabel_ *)calloc(t->maxDraws, sizeof *t->labels);
  if (!t->labels) return VK_ERROR_OUT_OF_HOST_MEMORY;
  /* The trace buffer lives in device memory: shaders' stores stay on the GPU. */
  WT_TRY_(wtMakeBuffer_(t, info->physicalDevice, t->traceBytes,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                            t->addressUsage,
                        0,
                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &t->traceBuffer, &t->traceMemory, NULL));
  if (info->blockCells) WT_TRY_(wtBlocksCreate_(t, info->physicalDevice, info->blockCells));
  if (info->rayEventRows) WT_TRY_(wtRaysCreate_(t, info->physicalDevice, info));
  VkMemoryPropertyFlags got = 0;
  /* The block table comes back behind the records, the ray-event rows behind it. */
  WT_TRY_(wtMakeBuffer_(t, info->physicalDevice, t->traceBytes + t->blockBytes + (t->rays ? wtRaysReadBytes_(t->rays) : 0), VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                        VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &t->readbackBuffer, &t->readbackMemory, &got));
  t->readbackCoherent = (got & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  WT_TRY_(vkMapMemory(t->device, t->readbackMemory, 0, VK_WHOLE_SIZE, 0, &t->readbackMap));
  WT_TRY_(wtMakeBuffer_(t, info->physicalDevice, t->uboStride * t->maxDraws, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | t->addressUsage,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, &t->drawIdBuffer,
                        &t->drawIdMemory, NULL));
  /* Entry d holds draw id d: binding at offset d * stride gives a draw its id. No block row until
     wtSetDrawBlockRow gives one (also without a table: a module with blocks then counts nothing); stage
     offsets 0 until wtSetDrawBlockStageOffsets writes them. */
  void *map = NULL;
  WT_TRY_(vkMapMemory(t->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map));
  memset(map, 0, (size_t)(t->uboStride * t->maxDraws));
  for (uint32_t d = 0; d < t->maxDraws; d++) {
    uint32_t *entry = (uint32_t *)((char *)map + d * t->uboStride);
    entry[0] = d;
    entry[WT_DRAW_BLOCK_ROW_WORD] = WT_NO_BLOCK_ROW;
    entry[WT_DRAW_RAY_ROW_WORD] = WT_NO_RAY_ROW;
  }
  vkUnmapMemory(t->device, t->drawIdMemory);

  VkDescriptorSetLayoutBinding b[4];
  memset(b, 0, sizeof b);
  b[0].binding = t->binding;
  b[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  b[0].descriptorCount = 1;
  b[0].stageFlags = stages;
  b[1].binding = t->binding + 1;
  b[1].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
  b[1].descriptorCount = 1;
  b[1].stageFlags = stages;
  /* The optional tables follow at their offsets: a binding number may stay unused (blocks off, ray events on). */
  uint32_t bindings = 2;
  if (t->blocks) {
    b[bindings] = b[0];
    b[bindings++].binding = t->binding + WT_BLOCK_BINDING_OFFSET;
  }
  if (t->rays) {
    b[bindings] = b[0];
    b[bindings++].binding = t->binding + WT_RAY_EVENT_BINDING_OFFSET;
  }
  VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = bindings;
  li.pBindings = b;
  WT_TRY_(vkCreateDescriptorSetLayout(t->device, &li, t->allocator, &t->setLayout));
  VkDescriptorSetLayoutCreateInfo empty = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  WT_TRY_(vkCreateDescriptorSetLayout(t->device, &empty, t->allocator, &t->emptySetLayout));
  VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings - 1}, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1}};
  VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pi.maxSets = 1;
  pi.poolSizeCount = 2;
  pi.pPoolSizes = sizes;
  WT_TRY_(vkCreateDescriptorPool(t->device, &pi, t->allocator, &t->pool));
  VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = t->pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &t->setLayout;
  WT_TRY_(vkAllocateDescriptorSets(t->device, &ai, &t->set));
  VkDescriptorBufferInfo traceInfo = {t->traceBuffer, 0, t->traceBytes};
  VkDescriptorBufferInfo drawInfo = {t->drawIdBuffer, 0, WT_DRAW_ID_BLOCK_BYTES};
  VkDescriptorBufferInfo blockInfo = {t->blockBuffer, 0, VK_WHOLE_SIZE};
  VkDescriptorBufferInfo rayInfo = {t->rayBuffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w[4];
  memset(w, 0, sizeof w);
  for (int i = 0; i < 4; i++) {
    w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w[i].dstSet = t->set;
    w[i].descriptorCount = 1;
  }
  w[0].dstBinding = t->binding;
  w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w[0].pBufferInfo = &traceInfo;
  w[1].dstBinding = t->binding + 1;
  w[1].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
  w[1].pBufferInfo = &drawInfo;
  uint32_t writes = 2;
  if (t->blocks) {
    w[writes] = w[0];
    w[writes].dstBinding = t->binding + WT_BLOCK_BINDING_OFFSET;
    w[writes++].pBufferInfo = &blockInfo;
  }
  if (t->rays) {
    w[writes] = w[0];
    w[writes].dstBinding = t->binding + WT_RAY_EVENT_BINDING_OFFSET;
    w[writes++].pBufferInfo = &rayInfo;
  }
  vkUpdateDescriptorSets(t->device, writes, w, 0, NULL);
  if (t->caps.timestampValidBits > 0) {
    VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 1 + 2 * t->maxDraws;
    WT_TRY_(vkCreateQueryPool(t->device, &qi, t->allocator, &t->queries));
  }
#undef WT_TRY_
  return VK_SUCCESS;
}

VkResult wtCreateTracer(const wtTracerInfo *info, wtTracer **out) {
  *out = NULL;
  wtTracer *t = (wtTracer *)calloc(1, sizeof *t);
  if (!t) return VK_ERROR_OUT_OF_HOST_MEMORY;
  t->device = info->device;
  t->allocator = info->allocator;
  t->caps = *info->caps;
  t->capacity = info->capacity ? info->capacity : WT_DEFAULT_CAPACITY;
  t->maxDraws = info->maxDraws ? info->maxDraws : WT_DEFAULT_MAX_DRAWS;
  t->binding = info->binding;
  t->addressUsage = info->deviceAddress ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0;
  VkResult r = wtInitTracer_(t, info);
  if (r != VK_SUCCESS) {
    wtDestroyTracer(t);
    return r;
  }
  *out = t;
  return VK_SUCCESS;
}

void wtDestroyTracer(wtTracer *t) {
  if (!t) return;
  VkDevice d = t->device;
  if (t->queries) vkDestroyQueryPool(d, t->queries, t->allocator);
  if (t->pool) vkDestroyDescriptorPool(d, t->pool, t->allocator);
  if (t->setLayout) vkDestroyDescriptorSetLayout(d, t->setLayout, t->allocator);
  if (t->emptySetLayout) vkDestroyDescriptorSetLayout(d, t->emptySetLayout, t->allocator);
  VkBuffer buffers[3] = {t->traceBuffer, t->readbackBuffer, t->drawIdBuffer};
  VkDeviceMemory memories[3] = {t->traceMemory, t->readbackMemory, t->drawIdMemory};
  for (int i = 0; i < 3; i++) {
    if (buffers[i]) vkDestroyBuffer(d, buffers[i], t->allocator);
    if (memories[i]) vkFreeMemory(d, memories[i], t->allocator);
  }
  wtBlocksDestroy_(t);
  wtRaysDestroy_(t);
  free(t->labels);
  free(t);
}

VkDescriptorSetLayout wtTracerSetLayout(const wtTracer *t) { return t->setLayout; }
VkDescriptorSetLayout wtTracerEmptySetLayout(const wtTracer *t) { return t->emptySetLayout; }

static void wtBarrier_(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                       VkAccessFlags dstAccess) {
  VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

void wtCmdBeginCapture(wtTracer *t, VkCommandBuffer cmd) {
  t->drawCount = 0;
  t->openDraw = WT_NO_DRAW;
  t->overflowDraws = 0;
  t->captureOpen = VK_TRUE;
  uint32_t header[WT_BUFFER_HEADER_WORDS] = {0};
  header[WT_BUFFER_WORD_CAPACITY] = t->capacity;
  /* Earlier shader writes (a previous capture) must land before the reset. */
  wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
             VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdUpdateBuffer(cmd, t->traceBuffer, 0, sizeof header, header);
  if (t->blocks) wtBlocksCmdBegin_(t, cmd);
  if (t->rays) wtRaysCmdBegin_(t, cmd);
  wtBarrier_(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
             VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  if (t->queries) {
    vkCmdResetQueryPool(cmd, t->queries, 0, 1 + 2 * t->maxDraws);
    /* Time 0: once everything before the capture has finished. */
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->queries, 0);
  }
}

uint32_t wtCmdBeginDraw(wtTracer *t, VkCommandBuffer cmd, VkPipelineBindPoint bindPoint, VkPipelineLayout layout, uint32_t set,
                        const char *label, wtDrawKind kind) {
  if (t->drawCount >= t->maxDraws) {
    t->overflowDraws++;
    t->openDraw = WT_NO_DRAW;
    return WT_NO_DRAW;
  }
  uint32_t d = t->drawCount++;
  snprintf(t->labels[d].text, sizeof t->labels[d].text, "%s", label ? label : "");
  t->labels[d].kind = kind;
  t->labels[d].targetWidth = t->labels[d].targetHeight = 0;
  t->openDraw = d;
  uint32_t offset = (uint32_t)(d * t->uboStride);
  vkCmdBindDescriptorSets(cmd, bindPoint, layout, set, 1, &t->set, 1, &offset);
  /* Written before the front end launches the draw: a lower bound of its warps. */
  if (t->queries && !t->noDrawTimestamps) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, t->queries, 1 + 2 * d);
  return d;
}

void wtCmdEndDraw(wtTracer *t, VkCommandBuffer cmd) {
  /* Written once every earlier command has finished: an upper bound of the draw's warps. */
  if (t->openDraw != WT_NO_DRAW && t->queries && !t->noDrawTimestamps) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->queries, 2 + 2 * t->openDraw);
  t->openDraw = WT_NO_DRAW;
}

void wtSetDrawTimestamps(wtTracer *t, VkBool32 enabled) { t->noDrawTimestamps = !enabled; }

VkResult wtSetSampling(wtTracer *t, uint32_t stage, uint32_t log2Every, double budget) {
  if (stage > WT_STAGE_CALLABLE || log2Every > WT_MAX_SAMPLE_LOG2) return VK_ERROR_UNKNOWN;
  uint32_t word = stage >> 3, shift = WT_SAMPLE_LOG2_BITS * (stage & 7u);
  uint32_t words[WT_SAMPLE_WORDS];
  memcpy(words, t->sampleWords, sizeof words);
  words[word] = (words[word] & ~(15u << shift)) | (log2Every << shift);
  void *map = NULL;
  VkResult r = vkMapMemory(t->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map);
  if (r != VK_SUCCESS) return r;  /* the shaders keep the old rates, and so does the metadata */
  for (uint32_t d = 0; d < t->maxDraws; d++) {
    uint32_t *entry = (uint32_t *)((char *)map + d * t->uboStride);
    for (uint32_t w = 0; w < WT_SAMPLE_WORDS; w++) entry[WT_DRAW_SAMPLE_WORD + w] = words[w];
  }
  vkUnmapMemory(t->device, t->drawIdMemory);
  memcpy(t->sampleWords, words, sizeof words);
  t->samplingBudget = budget > 0 ? budget : 0;
  return VK_SUCCESS;
}

int wtParseSampleRate(const char *text, size_t length, uint32_t *stage, uint32_t *log2Every) {
  size_t eq = 0;
  uint64_t n = 0;
  while (eq < length && text[eq] != '=') eq++;
  if (eq + 1 >= length) return 0;
  for (size_t i = eq + 1; i < length; i++) {
    if (text[i] < '0' || text[i] > '9' || n > (1u << WT_MAX_SAMPLE_LOG2)) return 0;
    n = n * 10 + (uint64_t)(text[i] - '0');
  }
  if (n == 0 || n > (1u << WT_MAX_SAMPLE_LOG2) || (n & (n - 1)) != 0) return 0;
  for (uint32_t s = 0; s <= WT_STAGE_CALLABLE; s++) {
    if (strlen(wtAllStageNames_[s]) != eq || strncmp(wtAllStageNames_[s], text, eq) != 0) continue;
    uint32_t log2 = 0;
    while ((1ull << log2) < n) log2++;
    *stage = s;
    *log2Every = log2;
    return 1;
  }
  return 0;
}

/* The metadata's "sampling" member (shared-schema WarpSampling), or nothing when every warp records. */
static void wtWriteSamplingMetadata_(const wtTracer *t, FILE *f) {
  int any = 0;
  for (uint32_t s = 0; s <= WT_STAGE_CALLABLE; s++) {
    uint32_t k = (t->sampleWords[s >> 3] >> (WT_SAMPLE_LOG2_BITS * (s & 7u))) & 15u;
    if (!k) continue;
    fprintf(f, any ? ", \"%s\": %u" : ",\n  \"sampling\": { \"every\": { \"%s\": %u", wtAllStageNames_[s], 1u << k);
    any = 1;
  }
  if (!any) return;
  /* Whole and ten-thousandths printed as integers: %f follows the app's locale (a decimal comma breaks the JSON). */
  unsigned long long scaled = (unsigned long long)(t->samplingBudget * 10000.0 + 0.5);
  if (t->samplingBudget > 0) fprintf(f, " }, \"chosenBy\": \"budget\", \"budget\": %llu.%04llu }", scaled / 10000, scaled % 10000);
  else fprintf(f, " }, \"chosenBy\": \"flag\", \"budget\": null }");
}

void wtSetDrawTarget(wtTracer *t, uint32_t drawId, uint32_t width, uint32_t height) {
  if (drawId >= t->maxDraws) return;
  t->labels[drawId].targetWidth = width;
  t->labels[drawId].targetHeight = height;
}

void wtCmdEndCapture(wtTracer *t, VkCommandBuffer cmd) {
  wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
             VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferCopy region = {0, 0, t->traceBytes};
  vkCmdCopyBuffer(cmd, t->traceBuffer, t->readbackBuffer, 1, &region);
  if (t->blocks) wtBlocksCmdEnd_(t, cmd);
  if (t->rays) wtRaysCmdEnd_(t, cmd);
  wtBarrier_(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  t->captureOpen = VK_FALSE;
}

/* ---- clock check ---- */

/* capture/host/clockcheck.comp, compiled and stripped (see that file). */
static const uint32_t wtClockCheckSpirv_[] = {
    0x07230203, 0x00010300, 0x0008000b, 0x00000022, 0x00000000, 0x00020011, 0x00000001, 0x00020011,
    0x000013bf, 0x0007000a, 0x5f565053, 0x5f52484b, 0x64616873, 0x635f7265, 0x6b636f6c, 0x00000000,
    0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000,
    0x00000001, 0x0005000f, 0x00000005, 0x00000004, 0x6e69616d, 0x00000000, 0x00060010, 0x00000004,
    0x00000011, 0x00000001, 0x00000001, 0x00000001, 0x00040047, 0x00000008, 0x00000006, 0x00000004,
    0x00040047, 0x0000000a, 0x00000006, 0x00000010, 0x00050048, 0x0000000b, 0x00000000, 0x00000023,
    0x00000000, 0x00050048, 0x0000000b, 0x00000001, 0x00000023, 0x00000010, 0x00030047, 0x0000000b,
    0x00000002, 0x00040047, 0x0000000d, 0x00000022, 0x00000000, 0x00040047, 0x0000000d, 0x00000021,
    0x00000000, 0x00050048, 0x00000010, 0x00000000, 0x00000023, 0x00000000, 0x00030047, 0x00000010,
    0x00000002, 0x00040047, 0x00000021, 0x0000000b, 0x00000019, 0x00020013, 0x00000002, 0x00030021,
    0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000000, 0x0004002b, 0x00000006,
    0x00000007, 0x00000004, 0x0004001c, 0x00000008, 0x00000006, 0x00000007, 0x00040017, 0x00000009,
    0x00000006, 0x00000004, 0x0003001d, 0x0000000a, 0x00000009, 0x0004001e, 0x0000000b, 0x00000008,
    0x0000000a, 0x00040020, 0x0000000c, 0x0000000c, 0x0000000b, 0x0004003b, 0x0000000c, 0x0000000d,
    0x0000000c, 0x00040015, 0x0000000e, 0x00000020, 0x00000001, 0x0004002b, 0x0000000e, 0x0000000f,
    0x00000001, 0x0003001e, 0x00000010, 0x00000006, 0x00040020, 0x00000011, 0x00000009, 0x00000010,
    0x0004003b, 0x00000011, 0x00000012, 0x00000009, 0x0004002b, 0x0000000e, 0x00000013, 0x00000000,
    0x00040020, 0x00000014, 0x00000009, 0x00000006, 0x00040017, 0x00000017, 0x00000006, 0x00000002,
    0x0004002b, 0x00000006, 0x00000018, 0x00000001, 0x0004002b, 0x00000006, 0x0000001a, 0x00000000,
    0x00040020, 0x0000001e, 0x0000000c, 0x00000009, 0x00040017, 0x00000020, 0x00000006, 0x00000003,
    0x0006002c, 0x00000020, 0x00000021, 0x00000018, 0x00000018, 0x00000018, 0x00050036, 0x00000002,
    0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x00050041, 0x00000014, 0x00000015,
    0x00000012, 0x00000013, 0x0004003d, 0x00000006, 0x00000016, 0x00000015, 0x000413c0, 0x00000017,
    0x00000019, 0x00000018, 0x00050051, 0x00000006, 0x0000001b, 0x00000019, 0x00000000, 0x00050051,
    0x00000006, 0x0000001c, 0x00000019, 0x00000001, 0x00070050, 0x00000009, 0x0000001d, 0x0000001b,
    0x0000001c, 0x0000001a, 0x0000001a, 0x00060041, 0x0000001e, 0x0000001f, 0x0000000d, 0x0000000f,
    0x00000016, 0x0003003e, 0x0000001f, 0x0000001d, 0x000100fd, 0x00010038,
};

#define WT_CLOCK_SAMPLES_ 16u
/* Brackets may overlap by this much and still agree: a device-clock step (32 ns on NVIDIA) and rounding. */
#define WT_CLOCK_AGREE_NS_ 64.0

/* Busy-waits about `ms` milliseconds of CPU time (portable C99). */
static void wtSpin_(long ms) {
  clock_t until = clock() + (clock_t)(ms * (long)CLOCKS_PER_SEC / 1000);
  while (clock() < until) {
  }
}

static int wtCompareDoubles_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Intersection of brackets [t - k·d] over the samples in `use`; returns whether it is (nearly) non-empty. */
static int wtIntersect_(const double *before, const double *after, const double *dev, const unsigned char *use, uint32_t n, double k,
                        double *lo, double *hi) {
  *lo = -1e300, *hi = 1e300;
  for (uint32_t i = 0; i < n; i++) {
    if (!use[i]) continue;
    if (before[i] - k * dev[i] > *lo) *lo = before[i] - k * dev[i];
    if (after[i] - k * dev[i] < *hi) *hi = after[i] - k * dev[i];
  }
  return *lo <= *hi + WT_CLOCK_AGREE_NS_;
}

void wtFitClockSamples(const uint64_t *beforeTicks, const uint64_t *afterTicks, const uint64_t *deviceTicks, uint32_t n,
                       double period, wtClockCheck *out) {
  double before[WT_CLOCK_SAMPLES_], after[WT_CLOCK_SAMPLES_], dev[WT_CLOCK_SAMPLES_], widths[WT_CLOCK_SAMPLES_];
  unsigned char use[WT_CLOCK_SAMPLES_];
  memset(out, 0, sizeof *out);
  out->deviceNsPerTick = 1;
  out->sharedTimeBase = VK_TRUE;
  if (n == 0) return;
  if (n > WT_CLOCK_SAMPLES_) n = WT_CLOCK_SAMPLES_;
  if (!(period > 0)) period = 1;
  /* Relative to the first sample, so doubles stay exact at epoch-scale values (NVIDIA: ns since 1970). The device
     clock is unwrapped by signed 32-bit steps between consecutive reads: right for 64-bit and 32-bit clocks alike. */
  int64_t unwrapped = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i) unwrapped += (int32_t)(uint32_t)(deviceTicks[i] - deviceTicks[i - 1]);
    before[i] = (double)(int64_t)(beforeTicks[i] - beforeTicks[0]) * period;
    after[i] = (double)(int64_t)(afterTicks[i] - beforeTicks[0]) * period;
    dev[i] = (double)unwrapped;
    widths[i] = after[i] - before[i];
    use[i] = 1;
  }
  double sorted[WT_CLOCK_SAMPLES_];
  memcpy(sorted, widths, n * sizeof(double));
  qsort(sorted, n, sizeof(double), wtCompareDoubles_);
  double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  out->samples = n;
  out->samplesUsed = n;
  out->widestBracketNs = sorted[n - 1];
  out->medianBracketNs = median;
  double k = 1, lo, hi;
  /* At rate 1 every bracket, however wide, holds the true offset: if they all agree, that is the answer. */
  if (wtIntersect_(before, after, dev, use, n, 1, &lo, &hi)) {
    out->fit = WT_CLOCK_FIT_UNIT_RATE;
  } else {
    /* Another rate: fit it on the narrow brackets (a wide one says little about when the clock was read). */
    uint32_t kept = 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (uint32_t i = 0; i < n; i++) {
      use[i] = widths[i] <= 4 * median + 1000;
      if (!use[i]) continue;
      double mid = 0.5 * (before[i] + after[i]);
      kept++, sx += dev[i], sy += mid, sxx += dev[i] * dev[i], sxy += dev[i] * mid;
    }
    double det = kept * sxx - sx * sx;
    double fitted = kept >= 4 && det > 0 ? (kept * sxy - sx * sy) / det : 0;
    out->samplesUsed = kept;
    if (fitted > 0 && wtIntersect_(before, after, dev, use, n, fitted, &lo, &hi)) {
      k = fitted;
      out->fit = WT_CLOCK_FIT_RATE;
    } else {
      /* No line through every narrow bracket: keep rate 1 and the brackets' mean offset, and say so. */
      double mean = 0;
      for (uint32_t i = 0; i < n; i++)
        if (use[i]) mean += (0.5 * (before[i] + after[i]) - dev[i]) / kept;
      lo = hi = mean;
      out->fit = WT_CLOCK_FIT_DISAGREE;
    }
  }
  if (lo > hi) lo = hi = 0.5 * (lo + hi); /* overlapping within a clock step */
  /* Back to absolute values: timestamp ns - k · device ns at the first sample, exact when both count ns. */
  long double base = (long double)beforeTicks[0] * (long double)period - (long double)k * (long double)deviceTicks[0];
  out->deviceNsPerTick = k;
  out->offsetLowNs = (double)(base + lo);
  out->offsetHighNs = (double)(base + hi);
  out->sharedTimeBase = base + lo - WT_CLOCK_AGREE_NS_ <= 0 && 0 <= base + hi + WT_CLOCK_AGREE_NS_;
  long double shift = out->sharedTimeBase ? 0 : -(base + 0.5 * (lo + hi)) / period;
  out->timestampShiftTicks = (int64_t)(shift < 0 ? shift - 0.5 : shift + 0.5);
}

/* Records `count` clock samples starting at slot `first` (timestamps around each unless `timed` is 0), submits, waits. */
static VkResult wtSampleClocks_(wtTracer *t, VkQueue queue, VkCommandPool pool, VkPipeline pipeline, VkPipelineLayout layout,
                                VkQueryPool queries, VkFence fence, uint32_t first, uint32_t count, int timed, int readBack) {
  VkDevice d = t->device;
  VkResult r;
  VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  if ((r = vkAllocateCommandBuffers(d, &ai, &cmd)) != VK_SUCCESS) return r;
  VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if ((r = vkBeginCommandBuffer(cmd, &bi)) != VK_SUCCESS) return r;
  if (timed) vkCmdResetQueryPool(cmd, queries, 2 * first, 2 * count);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  uint32_t zero = 0;
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &t->set, 1, &zero);
  for (uint32_t i = first; i < first + count; i++) {
    wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
               VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * i);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &i);
    vkCmdDispatch(cmd, 1, 1, 1);
    wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
               VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * i + 1);
  }
  if (readBack) {
    VkBufferCopy region = {WT_BUFFER_HEADER_WORDS * 4, WT_BUFFER_HEADER_WORDS * 4, WT_CLOCK_SAMPLES_ * 16};
    wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
               VK_ACCESS_TRANSFER_READ_BIT);
    vkCmdCopyBuffer(cmd, t->traceBuffer, t->readbackBuffer, 1, &region);
    wtBarrier_(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  if ((r = vkEndCommandBuffer(cmd)) != VK_SUCCESS) return r;
  VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  if ((r = vkResetFences(d, 1, &fence)) != VK_SUCCESS) return r;
  if ((r = vkQueueSubmit(queue, 1, &si, fence)) != VK_SUCCESS) return r;
  return vkWaitForFences(d, 1, &fence, VK_TRUE, 10ull * 1000 * 1000 * 1000);
}

VkResult wtCheckClocks(wtTracer *t, VkQueue queue, uint32_t family, wtClockCheck *out) {
  memset(out, 0, sizeof *out);
  out->deviceNsPerTick = 1;
  out->sharedTimeBase = VK_TRUE;
  if (!t->caps.deviceClock || !t->queries || t->capacity < WT_CLOCK_SAMPLES_) return VK_SUCCESS;
  VkDevice d = t->device;
  VkResult r;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = sizeof wtClockCheckSpirv_;
  mi.pCode = wtClockCheckSpirv_;
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
  VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.setLayoutCount = 1;
  li.pSetLayouts = &t->setLayout;
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  VkComputePipelineCreateInfo ci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.pName = "main";
  VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = family;
  VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qi.queryCount = 2 * WT_CLOCK_SAMPLES_;
  VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  uint64_t ticks[2 * WT_CLOCK_SAMPLES_];
  uint32_t half = WT_CLOCK_SAMPLES_ / 2;
#define WT_TRY_(expr)               \
  do {                              \
    r = (expr);                     \
    if (r != VK_SUCCESS) goto done; \
  } while (0)
  WT_TRY_(vkCreateShaderModule(d, &mi, t->allocator, &module));
  WT_TRY_(vkCreatePipelineLayout(d, &li, t->allocator, &layout));
  ci.stage.module = module;
  ci.layout = layout;
  WT_TRY_(vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &ci, t->allocator, &pipeline));
  WT_TRY_(vkCreateCommandPool(d, &pi, t->allocator, &pool));
  WT_TRY_(vkCreateQueryPool(d, &qi, t->allocator, &queries));
  WT_TRY_(vkCreateFence(d, &fi, t->allocator, &fence));
  /* Warm-up, untimed: whatever the driver does on a pipeline's first dispatch happens here, not inside a bracket. */
  WT_TRY_(wtSampleClocks_(t, queue, pool, pipeline, layout, queries, fence, 0, 1, 0, 0));
  /* Two batches 20 ms apart, so a rate other than 1 can be measured. */
  WT_TRY_(wtSampleClocks_(t, queue, pool, pipeline, layout, queries, fence, 0, half, 1, 0));
  wtSpin_(20);
  WT_TRY_(wtSampleClocks_(t, queue, pool, pipeline, layout, queries, fence, half, half, 1, 1));
  WT_TRY_(vkGetQueryPoolResults(d, queries, 0, 2 * WT_CLOCK_SAMPLES_, sizeof ticks, ticks, sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  if (!t->readbackCoherent) {
    VkMappedMemoryRange mr = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    mr.memory = t->readbackMemory;
    mr.size = VK_WHOLE_SIZE;
    vkInvalidateMappedMemoryRanges(d, 1, &mr);
  }
  {
    const uint32_t *rec = (const uint32_t *)t->readbackMap + WT_BUFFER_HEADER_WORDS;
    uint64_t mask = t->caps.timestampValidBits >= 64 ? ~0ull : ((1ull << t->caps.timestampValidBits) - 1);
    uint64_t before[WT_CLOCK_SAMPLES_], after[WT_CLOCK_SAMPLES_], dev[WT_CLOCK_SAMPLES_];
    for (uint32_t i = 0; i < WT_CLOCK_SAMPLES_; i++) {
      dev[i] = (uint64_t)rec[4 * i] | ((uint64_t)rec[4 * i + 1] << 32);
      before[i] = ticks[2 * i] & mask;
      after[i] = ticks[2 * i + 1] & mask;
    }
    wtFitClockSamples(before, after, dev, WT_CLOCK_SAMPLES_, t->caps.timestampPeriod, out);
  }
  t->clocks = *out;
  t->clocksChecked = VK_TRUE;
done:
#undef WT_TRY_
  if (fence) vkDestroyFence(d, fence, t->allocator);
  if (queries) vkDestroyQueryPool(d, queries, t->allocator);
  if (pool) vkDestroyCommandPool(d, pool, t->allocator);
  if (pipeline) vkDestroyPipeline(d, pipeline, t->allocator);
  if (layout) vkDestroyPipelineLayout(d, layout, t->allocator);
  if (module) vkDestroyShaderModule(d, module, t->allocator);
  return r;
}

/* ---- .wtraw writer ---- */

static void wtJsonString_(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void wtStageList_(FILE *f, VkShaderStageFlags stages) {
  fputc('[', f);
  int first = 1;
  for (uint32_t i = 0; i < 14; i++) {
    if (!(stages & wtAllStageBits_[i])) continue;
    fprintf(f, "%s\"%s\"", first ? "" : ", ", wtAllStageNames_[i]);
    first = 0;
  }
  fputc(']', f);
}

/* Draws in the file: wtSetDrawTable's when set, else one per wtCmdBeginDraw. */
static uint32_t wtDrawsWritten_(const wtTracer *t) { return t->tableLabels ? t->tableDraws : t->drawCount; }

/* The query pair of draw d: its slot under wtSetDrawTable, else d itself. */
static uint32_t wtQuerySlot_(const wtTracer *t, uint32_t d) { return t->tableSlots ? t->tableSlots[d] : d; }

void wtSetDrawEndQueries(wtTracer *t, const uint32_t *endQueries) { t->tableEndQueries = endQueries; }

void wtSetDrawTable(wtTracer *t, uint32_t drawCount, const char *const *labels, const wtDrawKind *kinds, const uint32_t *querySlots,
                    const char *const *extraJson) {
  int on = labels && kinds && querySlots;
  t->tableDraws = on ? drawCount : 0;
  t->tableLabels = on ? labels : NULL;
  t->tableKinds = on ? kinds : NULL;
  t->tableSlots = on ? querySlots : NULL;
  t->tableExtra = on ? extraJson : NULL;
  if (!on) t->tableEndQueries = NULL;
}

/* Writes the metadata JSON to f; returns 0 or -1. */
static int wtWriteMetadata_(const wtTracer *t, FILE *f, const wtCaptureInfo *info, uint64_t captureStart, int haveStart) {
  const wtCaps *c = &t->caps;
  char when[32];
  time_t now = time(NULL);
  struct tm utc;
#if defined(_WIN32)
  gmtime_s(&utc, &now);
#else
  gmtime_r(&now, &utc);
#endif
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  fprintf(f, "{\n  \"tool\": ");
  wtJsonString_(f, info && info->tool ? info->tool : "warptrace-vk");
  fprintf(f, ", \"toolVersion\": ");
  wtJsonString_(f, info && info->toolVersion ? info->toolVersion : "0.1.0");
  fprintf(f, ",\n  \"capturedAt\": \"%s\", \"workload\": ", when);
  wtJsonString_(f, info && info->workload ? info->workload : "capture");
  fprintf(f, ",\n  \"parameters\": %s,\n", info && info->parametersJson ? info->parametersJson : "{}");
  if (haveStart) fprintf(f, "  \"captureStartTicks\": \"%llu\",\n", (unsigned long long)captureStart);
  fprintf(f, "  \"device\": {\n    \"name\": ");
  wtJsonString_(f, c->deviceName);
  fprintf(f, ", \"vendor\": ");
  wtJsonString_(f, c->vendor);
  fprintf(f, ", \"vendorId\": %u, \"deviceId\": %u,\n    \"api\": \"vulkan\", \"apiVersion\": \"%u.%u.%u\", \"driverVersion\": ",
          c->vendorId, c->deviceId, VK_API_VERSION_MAJOR(c->apiVersion), VK_API_VERSION_MINOR(c->apiVersion),
          VK_API_VERSION_PATCH(c->apiVersion));
  wtJsonString_(f, c->driverVersionText);
  fprintf(f, ", \"driverName\": ");
  wtJsonString_(f, c->driverName);
  if (c->smCount) fprintf(f, ",\n    \"smCount\": %u, \"warpsPerSm\": %u", c->smCount, c->warpsPerSm);
  else fprintf(f, ",\n    \"smCount\": null, \"warpsPerSm\": null");
  fprintf(f, ", \"subgroupSize\": %u,\n    \"subgroupStages\": ", c->subgroupSize);
  wtStageList_(f, c->subgroupStages);
  fprintf(f, ",\n    \"smBuiltins\": %s, \"smClock\": %s, \"deviceClock\": %s,\n", c->smBuiltins ? "true" : "false",
          c->subgroupClock ? "true" : "false", c->deviceClock ? "true" : "false");
  fprintf(f, "    \"deviceClockNsPerTick\": %.9g, \"timestampPeriodNs\": %.9g, \"smClockRateHz\": null\n  },\n",
          t->clocksChecked ? t->clocks.deviceNsPerTick : 1.0, c->timestampPeriod);
  fprintf(f, "  \"draws\": [");
  for (uint32_t d = 0; d < wtDrawsWritten_(t); d++) {
    static const char *const kinds[3] = {"draw", "dispatch", "trace-rays"};
    fprintf(f, "%s\n    { \"label\": ", d ? "," : "");
    wtJsonString_(f, t->tableLabels ? t->tableLabels[d] : t->labels[d].text);
    fprintf(f, ", \"kind\": \"%s\"", kinds[t->tableKinds ? t->tableKinds[d] : t->labels[d].kind]);
    const wtLabel_ *slot = wtQuerySlot_(t, d) < t->maxDraws ? &t->labels[wtQuerySlot_(t, d)] : NULL;
    if (slot && slot->targetWidth && slot->targetHeight) fprintf(f, ", \"target\": { \"width\": %u, \"height\": %u }", slot->targetWidth, slot->targetHeight);
    if (t->tableExtra && t->tableExtra[d] && t->tableExtra[d][0]) fprintf(f, ", %s", t->tableExtra[d]);
    fprintf(f, " }");
  }
  fprintf(f, "\n  ]");
  if (info && info->overheadFrames > 0) {
    fprintf(f, ",\n  \"overhead\": { \"plainFrameNs\": %.1f, \"tracedFrameNs\": %.1f, \"frames\": %u }", info->plainFrameNs,
            info->tracedFrameNs, info->overheadFrames);
  }
  if (t->clocksChecked) {
    const wtClockCheck *k = &t->clocks;
    static const char *const fits[3] = {"unit-rate", "fitted-rate", "disagree"};
    fprintf(f,
            ",\n  \"clockCheck\": { \"samples\": %u, \"samplesUsed\": %u, \"fit\": \"%s\", \"deviceNsPerTick\": %.9g,"
            " \"bracketNs\": { \"median\": %.0f, \"widest\": %.0f }, \"timestampMinusDeviceNs\": [%.0f, %.0f],"
            " \"sharedTimeBase\": %s, \"timestampShiftTicks\": \"%lld\" }",
            k->samples, k->samplesUsed, fits[k->fit], k->deviceNsPerTick, k->medianBracketNs, k->widestBracketNs, k->offsetLowNs,
            k->offsetHighNs, k->sharedTimeBase ? "true" : "false", (long long)k->timestampShiftTicks);
  }
  if (t->blocks) wtBlocksWriteMetadata_(t, f, (const uint32_t *)((const char *)t->readbackMap + t->traceBytes));
  if (t->rays) wtRaysWriteMetadata_(t, f);
  wtWriteSamplingMetadata_(t, f);
  if (info && info->extraJson && info->extraJson[0]) fprintf(f, ",\n  %s", info->extraJson);
  fprintf(f, "\n}\n");
  return ferror(f) ? -1 : 0;
}

static void wtPutU32_(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void wtPutU64_(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

int wtWriteWtraw(wtTracer *t, const char *path, const wtCaptureInfo *info, wtCaptureStats *stats, char *err, size_t errSize) {
  if (t->overflowDraws) {
    snprintf(err, errSize, "%u draws past the tracer's maxDraws (%u): create the tracer with a larger maxDraws", t->overflowDraws,
             t->maxDraws);
    return -1;
  }
  if (!t->readbackCoherent) {
    VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = t->readbackMemory;
    range.size = VK_WHOLE_SIZE;
    vkInvalidateMappedMemoryRanges(t->device, 1, &range);
  }
  const uint32_t *words = (const uint32_t *)t->readbackMap;
  uint32_t counter = words[WT_BUFFER_WORD_COUNT];
  uint32_t kept = counter < t->capacity ? counter : t->capacity;

  /* Timestamps: query 0 = capture start, then (begin, end) per draw id (per slot under wtSetDrawTable). */
  uint32_t queryCount = 1 + 2 * (t->tableSlots ? t->maxDraws : t->drawCount);
  uint64_t *ticks = (uint64_t *)calloc(queryCount * 2, sizeof(uint64_t));
  int haveStart = 0;
  if (!ticks) {
    snprintf(err, errSize, "out of host memory");
    return -1;
  }
  if (t->queries) {
    /* Each query: value, availability. */
    VkResult r = vkGetQueryPoolResults(t->device, t->queries, 0, queryCount, queryCount * 2 * sizeof(uint64_t), ticks,
                                       2 * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (r != VK_SUCCESS && r != VK_NOT_READY) {
      free(ticks);
      snprintf(err, errSize, "vkGetQueryPoolResults failed (%d)", (int)r);
      return -1;
    }
    uint64_t mask = t->caps.timestampValidBits >= 64 ? ~0ull : ((1ull << t->caps.timestampValidBits) - 1);
    /* Into the device clock's time base (wtCheckClocks), so the decoder can compare them with shader clocks. */
    int64_t shift = t->clocksChecked ? t->clocks.timestampShiftTicks : 0;
    for (uint32_t q = 0; q < queryCount; q++) {
      uint64_t v = ticks[2 * q] & mask;
      int ok = ticks[2 * q + 1] != 0 && (shift >= 0 || v >= (uint64_t)(-shift));
      ticks[2 * q] = ok ? v + (uint64_t)shift : WT_WTRAW_NO_TIMESTAMP;
    }
    haveStart = ticks[0] != WT_WTRAW_NO_TIMESTAMP;
  }

  size_t tmpLen = strlen(path) + 16;
  char *tmp = (char *)malloc(tmpLen);
  if (!tmp) {
    free(ticks);
    snprintf(err, errSize, "out of host memory");
    return -1;
  }
  snprintf(tmp, tmpLen, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    snprintf(err, errSize, "cannot write %s", tmp);
    free(tmp);
    free(ticks);
    return -1;
  }
  /* Metadata goes first into a temporary stream so its length is known. */
  FILE *meta = tmpfile();
  int bad = meta == NULL || wtWriteMetadata_(t, meta, info, ticks[0], haveStart) != 0;
  long metaLen = bad ? 0 : ftell(meta);
  unsigned char header[WT_WTRAW_HEADER_BYTES] = {0};
  wtPutU32_(header + 4 * WT_WTRAW_WORD_MAGIC, WT_WTRAW_MAGIC);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_VERSION, WT_WTRAW_VERSION);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_HEADER_BYTES, WT_WTRAW_HEADER_BYTES);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_METADATA_BYTES, (uint32_t)metaLen);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_RECORD_BYTES, WT_RECORD_BYTES);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_RECORD_COUNT, kept);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_COUNTER, counter);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_CAPACITY, t->capacity);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_TIMESTAMP_COUNT, t->queries ? wtDrawsWritten_(t) : 0);
  uint64_t blockBytes = t->blocks ? wtBlocksSectionBytes_(t) : 0;
  if (blockBytes > 0xffffffffull) bad = 1;
  wtPutU32_(header + 4 * WT_WTRAW_WORD_BLOCK_BYTES, (uint32_t)blockBytes);
  uint64_t rayBytes = t->rays ? wtRaysSectionBytes_(t) : 0;
  if (rayBytes > 0xffffffffull) bad = 1;
  wtPutU32_(header + 4 * WT_WTRAW_WORD_RAY_EVENT_BYTES, (uint32_t)rayBytes);
  if (!bad) bad = fwrite(header, 1, sizeof header, f) != sizeof header;
  if (!bad) {
    rewind(meta);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, meta)) > 0)
      if (fwrite(buf, 1, n, f) != n) bad = 1;
    static const char spaces[WT_WTRAW_SECTION_ALIGN] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    size_t pad = (WT_WTRAW_SECTION_ALIGN - (size_t)metaLen % WT_WTRAW_SECTION_ALIGN) % WT_WTRAW_SECTION_ALIGN;
    if (fwrite(spaces, 1, pad, f) != pad) bad = 1;
  }
  if (!bad && t->queries) {
    for (uint32_t d = 0; d < wtDrawsWritten_(t) && !bad; d++) {
      unsigned char pair[16];
      uint32_t q = wtQuerySlot_(t, d);
      uint32_t endQuery = t->tableEndQueries ? t->tableEndQueries[d] : 2 + 2 * q;
      uint64_t b = ticks[2 * (1 + 2 * q)], e = endQuery < queryCount ? ticks[2 * endQuery] : WT_WTRAW_NO_TIMESTAMP;
      if (b == WT_WTRAW_NO_TIMESTAMP || e == WT_WTRAW_NO_TIMESTAMP) b = e = WT_WTRAW_NO_TIMESTAMP;
      wtPutU64_(pair, b);
      wtPutU64_(pair + 8, e);
      bad = fwrite(pair, 1, 16, f) != 16;
    }
  }
  if (!bad) {
    /* Little-endian hosts write the records as they are. */
    const unsigned char *records = (const unsigned char *)(words + WT_BUFFER_HEADER_WORDS);
    bad = fwrite(records, WT_RECORD_BYTES, kept, f) != kept;
  }
  if (!bad && t->blocks) bad = wtBlocksWriteSection_(t, f, (const uint32_t *)((const char *)t->readbackMap + t->traceBytes));
  if (!bad && t->rays) bad = wtRaysWriteSection_(t, f);
  if (meta) fclose(meta);
  if (fclose(f) != 0) bad = 1;
  free(ticks);
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    snprintf(err, errSize, "cannot write %s", path);
    free(tmp);
    return -1;
  }
  free(tmp);
  if (stats) {
    stats->counter = counter;
    stats->capacity = t->capacity;
    stats->kept = kept;
    stats->draws = wtDrawsWritten_(t);
  }
  return 0;
}

#define WT_BLOCKS_IMPLEMENT_
#include "warptrace_blocks.h"
#define WT_RAYS_IMPLEMENT_
#include "warptrace_rays.h"

#endif /* WARPTRACE_IMPLEMENTED */
#endif /* WARPTRACE_IMPLEMENTATION */
