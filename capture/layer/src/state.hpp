// What the layer knows about the app's objects: instances, devices, shader
// modules, layouts, pipelines and the command buffers it shadows.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dispatch.hpp"
#include "instrument_client.hpp"
#include "settings.hpp"
#include "stages.hpp"
#include "vk_shader_object.h"
#include "warptrace.h"

namespace wtl {

#include "generated_command_table.inc"

struct InstanceState {
  VkInstance instance = VK_NULL_HANDLE;
  InstanceDispatch d;
  uint32_t apiVersion = VK_API_VERSION_1_0;
  /** The version the app asked for: the loader answers extended device queries by it (1.0: emulated, extension structs dropped). */
  uint32_t appApiVersion = VK_API_VERSION_1_0;
  bool appEnabledProperties2 = false;
  /** A 1.0 instance's vkGetPhysicalDeviceProperties2KHR (the app enabled the extension), behind d.GetPhysicalDeviceProperties2. */
  PFN_vkGetPhysicalDeviceProperties2 properties2KHR = nullptr;
  /** What the layer changed at vkCreateInstance (a note in the trace); empty: nothing. */
  std::string apiVersionNote;
};

/** A pipeline layout: the app's, and its twin with the trace set at the trace index. */
struct LayoutInfo {
  uint32_t appSetCount = 0;
  VkPipelineLayout traced = VK_NULL_HANDLE;
  std::string untracedWhy;
  /** For pipelines made with VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT: padded with descriptor-buffer set layouts. */
  VkPipelineLayout tracedDescriptorBuffer = VK_NULL_HANDLE;
  std::string descriptorBufferWhy;
};

/**
 * Draws whose pipelines use descriptor buffers (VK_EXT_descriptor_buffer) find the trace set in a descriptor
 * buffer of the layer's, bound after the app's, one trace set per draw slot (descriptor_buffers.cpp).
 */
struct DescriptorBufferTracing {
  bool enabled = false;  // the app enabled the descriptorBuffer feature
  std::string why;       // enabled, and its draws cannot be traced: why
  VkDescriptorSetLayout traceLayout = VK_NULL_HANDLE, emptyLayout = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;
  VkDeviceSize setStride = 0;  // one slot's trace set, aligned to descriptorBufferOffsetAlignment
  uint32_t maxBindings = 0, maxResourceBindings = 0;
  std::unordered_set<VkDescriptorSetLayout> appLayouts;  // the app's set layouts made for descriptor buffers (device->lock)
};

class PipelineRecipe;

/** Block profiles: a u32 per graphics stage with a draw-id stage word (WT_BLOCK_STAGE_VS .. WT_BLOCK_STAGE_MESH). */
using BlockStageWords = std::array<uint32_t, WT_BLOCK_STAGE_COUNT>;

/** A pipeline and, when it can be traced, its instrumented twin. */
struct PipelineInfo {
  VkPipelineBindPoint bindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  VkPipeline twin = VK_NULL_HANDLE;
  VkPipelineLayout twinLayout = VK_NULL_HANDLE;
  uint32_t appSetCount = 0;
  bool descriptorBuffer = false;  // made with VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT: twinLayout has descriptor-buffer sets
  std::string name;  // debug name, else the handle in hex
  std::string untracedWhy;
  /**
   * A graphics pipeline library (never bound): its twins, libraries too, are linked into the twins of the pipelines
   * that link it, one per padded layout those use (pipeline_twins.cpp).
   */
  bool library = false;
  std::vector<std::pair<VkPipelineLayout, VkPipeline>> libraryTwins;
  /** A ray-tracing pipeline instrumented in place: `twin` is the app's own handle (ray_tracing.cpp), never destroyed as a twin. */
  bool inPlace = false;
  bool instrumented = false;  // its twin has an instrumented stage (a library's may have none: it is made for its layout)
  /** Block profiles: its row, the profiled modules one after another (empty: its draws are not profiled). */
  std::shared_ptr<const std::vector<wtBlockRowModule>> blockRow;
  /**
   * Block profiles of a pipeline linked from libraries: each stage's first cell in the row, which its draws write
   * into their stage words (the libraries' modules keep the base constant at 0); null: all 0, as whole pipelines.
   */
  std::shared_ptr<const BlockStageWords> blockStageOffsets;
  /** Block profiles of a graphics pipeline library: its profiled modules by stage (WT_NO_BLOCK_MODULE: none), laid out by its links. */
  std::shared_ptr<const BlockStageWords> blockStageModules;
  /** Block profiles asked for and possible, but none for this kind of pipeline: why (twin_stages.hpp kNoBlocks*); empty otherwise. */
  std::string unprofiledWhy;
  /** Until the twin is made (ensureTwin): what it is made from. Null once made, or when made at creation. */
  std::shared_ptr<PipelineRecipe> recipe;
};

/**
 * A shader object (VK_EXT_shader_object) and its instrumented twin: made with the app's
 * create info when the app creates it, its set layouts padded to the trace set
 * (shader_objects.cpp). The app's shader is never changed.
 */
struct ShaderInfo {
  VkShaderStageFlagBits stage = VK_SHADER_STAGE_VERTEX_BIT;
  VkShaderEXT twin = VK_NULL_HANDLE;
  /** The twin's padded set layouts and the app's push-constant ranges, for binding the trace set. */
  VkPipelineLayout twinLayout = VK_NULL_HANDLE;
  uint32_t appSetCount = 0;
  bool descriptorBuffer = false;  // its set layouts are descriptor-buffer ones (and so are the twin's)
  std::string untracedWhy;  // no twin: why
};

/** One thing a recorded command buffer did that the frame's draw list needs, in recording order. */
struct RecordedEvent {
  enum Kind : uint8_t { BeginLabel, EndLabel, InsertLabel, BeginPass, EndPass, Draw, Execute, Barrier } kind;
  std::string text;         // labels; a draw's call ("vkCmdDrawIndexed"); a barrier's summary (barriers.cpp)
  uint32_t slot = 0;        // Draw: its slot
  uint32_t endQuery = 0;    // Draw: its end timestamp's query (a multiview draw's lies past its slot's pair)
  wtDrawKind drawKind = WT_KIND_DRAW;
  std::string params;       // Draw: JSON members of its counts
  std::string pipeline;     // Draw: pipeline name
  std::string label;        // Draw: its label when no inserted label names it ("vkCmdDraw(36, 1)")
  std::string untraced;     // Draw: why it runs the app's pipeline untraced ("pipeline 0x…: …"); empty when traced
  uint32_t colorTargets = 0;  // BeginPass
  bool depthTarget = false;   // BeginPass
  VkExtent2D renderArea{};    // BeginPass: its renderArea extent, the target of the draws inside (shared-schema: draws[i].target)
  VkExtent2D launch{};        // Draw of a ray-tracing launch with a known size: width x height, its target
  int32_t launchSize = -1;    // Draw of an indirect launch: its size's index in DeviceState::launchSizes (read after the frame); -1: none
  std::shared_ptr<const std::vector<wtBlockRowModule>> blockRow;  // Draw: its pipeline's block row (null: not profiled)
  uint64_t blockShareKey = 0;  // Draw: its pipeline, when rows are per pipeline (WARPTRACE_BLOCK_ROWS=pipeline)
  std::shared_ptr<const BlockStageWords> blockStageOffsets;  // Draw: its stage words (a pipeline linked from libraries), else null
  std::string unprofiled;     // Draw, traced: why it has no block profile, after its pipeline's name (draws[i].unprofiled); else empty
  std::string unprofiledWhy;  // Draw: that reason alone (the frame's `blocks` note counts the draws per reason)
  struct CommandState *secondary = nullptr;  // Execute
  uint64_t secondaryGeneration = 0;          // Execute: the recording it saw
};

/** The app's descriptor-set binds on one bind point, replayed into the shadow after our bind disturbs them. */
struct BindPointState {
  const PipelineInfo *pipeline = nullptr;  // the app's pipeline, as recorded
  VkPipeline appPipeline = VK_NULL_HANDLE;
  bool twinBound = false;                  // the shadow has the twin bound, not the app's pipeline
  /** vkCmdBindDescriptorSets, or for descriptor buffers vkCmdSetDescriptorBufferOffsetsEXT / vkCmdBindDescriptorBufferEmbeddedSamplersEXT. */
  struct Bind {
    enum Kind : uint8_t { Sets, BufferOffsets, EmbeddedSamplers } kind = Sets;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    uint32_t firstSet = 0;
    uint32_t setCount = 0;
    std::vector<VkDescriptorSet> sets;
    std::vector<uint32_t> dynamicOffsets;
    std::vector<uint32_t> bufferIndices;  // BufferOffsets
    std::vector<VkDeviceSize> offsets;    // BufferOffsets
  };
  /** The app bound shader objects here since its last pipeline (VK_EXT_shader_object): they, not `pipeline`, draw. */
  bool shaderObjects = false;
  VkShaderEXT appShaders[kTracedStageCount] = {};       // by stage code; null: none bound
  const ShaderInfo *shaders[kTracedStageCount] = {};    // the layer's record of each, or null
  std::vector<Bind> binds;          // calls that still bind at least one set, in order
  std::vector<int32_t> setBinder;   // set index -> index into binds, or -1
  uint32_t disturbedFrom = UINT32_MAX;  // sets at or above this index were disturbed by our bind
};

struct DeviceState;

/** A host-visible buffer the layer reads back (a frame's image, indirect launch sizes; tracer_glue.hpp). */
struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void *map = nullptr;
  bool coherent = false;
};

/** A command buffer of the app and its shadow: the same commands with traced twins and the trace set bound. */
struct CommandState {
  DeviceState *device = nullptr;
  VkCommandBuffer app = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  bool secondary = false;
  VkCommandBuffer shadow = VK_NULL_HANDLE;  // null: not shadowed in this recording
  VkCommandBuffer shadowHandle = VK_NULL_HANDLE;  // kept between recordings
  uint64_t generation = 0;  // bumped at each begin/reset
  uint32_t recordings = 0;  // times the app began it
  std::vector<RecordedEvent> events;
  std::vector<uint32_t> slots;  // slots this recording holds
  BindPointState graphics, compute, rayTracing;
  /** The ray-tracing binds recorded into the app's own buffer, shadowed or not: its launches bind the trace set too. */
  BindPointState rayTracingApp;
  std::vector<std::string> labelStack;  // this buffer's open labels, for --draws globs
  std::string insertedLabel;            // the last inserted label since the previous draw
  uint32_t untracedDraws = 0;
  std::string untracedWhy;  // the last reason a draw was not traced
  /** Views of the render pass or rendering scope being recorded (multiview: the bits of its view mask), else 1. */
  uint32_t views = 1;
  /** The shadow's binding index of the layer's descriptor buffer (after the app's); kTraceBufferUnbound, kTraceBufferNoRoom. */
  uint32_t traceBufferIndex = UINT32_MAX;
};
constexpr uint32_t kTraceBufferUnbound = UINT32_MAX, kTraceBufferNoRoom = UINT32_MAX - 1;

/** A command pool of the app and the layer's pool for its shadows (same family and flags). */
struct PoolState {
  uint32_t family = 0;
  bool protectedPool = false;  // protected command buffers are never shadowed
  VkCommandPool shadowPool = VK_NULL_HANDLE;
  std::vector<CommandState *> buffers;
};

struct FrameDraw {
  uint32_t slot;
  uint32_t endQuery;
  std::string label;
  wtDrawKind kind;
  std::string extraJson;
  int32_t launchSize = -1;  // an indirect launch's size, read back after the frame (RecordedEvent::launchSize)
  std::string unprofiledWhy;  // RecordedEvent::unprofiledWhy
};

struct FrameRegion {
  std::string label;
  int32_t parent;
  const char *source;
};

/** The capture in progress: which submits belong to it and what they drew. */
struct CaptureState {
  uint64_t targetFrame = 0;  // the present count whose frame is captured (1-based)
  bool armed = false;      // the next submits belong to the captured frame
  bool started = false;    // the prologue has been submitted
  bool warmup = false;     // this is the frame before the captured one (run traced, not recorded)
  bool done = false;       // written (or failed): the layer only forwards from now on
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  std::vector<VkQueue> otherQueues;  // the frame's other queues with traced submits (frame_queues.cpp)
  std::vector<FrameDraw> draws;
  std::vector<FrameRegion> regions;
  std::vector<int32_t> regionStack;
  std::string pendingLabel;
  std::vector<std::string> pendingBarriers;  // barriers since the frame's previous draw (the next draw's barriersBefore)
  uint32_t colourPasses = 0, depthPasses = 0;
  uint64_t frameDraws = 0;     // draws of the frame so far, traced or not (the numbering --draws A..B uses)
  uint32_t skippedDraws = 0;   // outside --draws A..B
  std::vector<std::string> notTraced;  // queues, command buffers, draws the capture left out
  std::unordered_set<const CommandState *> walked;  // command buffers whose draws are numbered in this capture
  uint32_t untracedDraws = 0;
};

/** A swapchain's images, for WARPTRACE_IMAGE. */
struct SwapchainState {
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkExtent2D extent{};
  bool copyable = false;
  std::vector<VkImage> images;
};

/** Frame timestamps for the overhead figure (frame_timing.cpp). */
struct FrameTiming {
  VkQueryPool queries = VK_NULL_HANDLE;
  std::unordered_map<uint32_t, VkCommandPool> pools;  // per queue family
  std::vector<std::pair<uint32_t, VkCommandBuffer>> submitted;
  uint64_t begun = 0;  // the frame whose begin timestamp was submitted
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  bool ended[16] = {};  // by frames before the captured one (0: the captured frame)
};

struct DeviceState {
  VkDevice device = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  InstanceState *instance = nullptr;
  DeviceDispatch d;
  CommandTable cmd;
  PFN_vkSetDeviceLoaderData setLoaderData = nullptr;
  const VkAllocationCallbacks *allocator = nullptr;

  wtCaps caps{};
  bool traceable = false;
  std::string untraceableWhy;
  uint32_t traceSet = 7;
  VkShaderStageFlags meshStages = 0;
  VkShaderStageFlags rayTracingStages = 0;  // ray-tracing stage bits, where the app enabled ray-tracing pipelines
  uint32_t offSlot = UINT32_MAX;            // the slot app buffers' launches bind: its draw id is the no-draw id
  PFN_vkCreateRayTracingPipelinesKHR createRayTracingPipelines = nullptr;  // task/mesh stage bits the app enabled (features); their pipelines are traced
  wtTracer *tracer = nullptr;
  VkDescriptorSetLayout emptySetLayout = VK_NULL_HANDLE;
  DescriptorBufferTracing descriptorBuffers;
  uint32_t slotCapacity = 0;
  std::vector<std::string> skipped;  // "what: why", reported in the trace
  /** What the layer changed or could not learn, with nothing left untraced (what, why): the trace's layer.notes. */
  std::vector<std::pair<std::string, std::string>> notes;
  /**
   * The subgroup size is unknown (the loader hid the device's properties): no shader depends on it, so no subgroup
   * operations and no screen positions (which take record word 3, lanes 32..63 in wide subgroups).
   */
  bool lanesUnknown = false;

  std::unique_ptr<InstrumentClient> client;
  std::mutex twinLock;  // one twin made at a time (ensureTwin)
  std::mutex lock;  // everything below
  std::unordered_map<VkShaderModule, std::shared_ptr<const std::vector<uint32_t>>> modules;
  std::unordered_map<VkPipelineLayout, LayoutInfo> layouts;
  std::unordered_map<VkPipeline, std::unique_ptr<PipelineInfo>> pipelines;
  std::unordered_map<VkShaderEXT, std::unique_ptr<ShaderInfo>> shaders;
  /** Block profiles asked for (settings().blocks) and possible: the device counts in 64-bit atomics. */
  bool blocks = false;
  /** Ray events asked for (settings().rayEvents) on a device with ray-tracing stages: the tracer has a ray-event table. */
  bool rayEvents = false;
  /** Block profiles: instrumented modules registered with the tracer, by a hash of their bytes (block_specialization.cpp). */
  std::unordered_map<uint64_t, uint32_t> blockModules;
  /** VK_EXT_shader_object's functions below the layer (its header may be older than the extension: vk_shader_object.h). */
  PFN_vkCreateShadersEXT createShaders = nullptr;
  PFN_vkDestroyShaderEXT destroyShader = nullptr;
  PFN_vkCmdBindShadersEXT cmdBindShaders = nullptr;
  std::unordered_map<uint64_t, std::string> names;
  std::unordered_map<VkQueue, uint32_t> queueFamilies;
  std::unordered_map<VkCommandPool, PoolState> pools;
  std::unordered_map<VkSwapchainKHR, SwapchainState> swapchains;
  /** Per render pass: colour attachments and depth of its first subpass, for RenderDoc-style pass names. */
  struct RenderPassInfo {
    uint32_t colours = 0;
    bool depth = false;
    uint32_t views = 1;  // the most views of any subpass (multiview): a timestamp inside it fills that many queries
  };
  std::unordered_map<VkRenderPass, RenderPassInfo> renderPasses;
  /** Buffers whose device address the app asked for, by that address: what an indirect launch's address lies in (launch_sizes.cpp). */
  struct AddressedBuffer {
    VkBuffer buffer;
    VkDeviceSize size;
  };
  std::map<VkDeviceAddress, AddressedBuffer> addressedBuffers;
  /** Buffers made with device addresses: their size, and their address once asked for (0 before), for the above. */
  struct BufferAddress {
    VkDeviceSize size;
    VkDeviceAddress address;
  };
  std::unordered_map<VkBuffer, BufferAddress> bufferAddresses;
  /** vkGetBufferDeviceAddress below the layer, by whichever name the device has (core, KHR or EXT). */
  PFN_vkGetBufferDeviceAddress getBufferDeviceAddress = nullptr;
  /** Indirect launches' {width, height, depth}, copied in the captured frame (launch_sizes.cpp); `launchSizeCount` used. */
  HostBuffer launchSizes;
  uint32_t launchSizeCount = 0;
  std::vector<VkQueueFlags> familyFlags;  // by queue family index
  bool imageWritten = false;
  std::vector<uint32_t> freeSlots;
  uint32_t nextSlot = 0;
  uint64_t presents = 0, submits = 0;
  CaptureState capture;
  std::mutex captureLock;  // submits and presents while a capture may start or finish
  VkCommandPool capturePool = VK_NULL_HANDLE;
  FrameTiming timing;
  CommandState untracked;  // stands in for command buffers the layer never saw
};

/** Global registries, keyed by handle. */
InstanceState *findInstance(void *dispatchKeyOrHandle);
DeviceState *findDevice(void *dispatchKeyOrHandle);
CommandState *findCommandState(VkCommandBuffer cb);
void registerCommandState(VkCommandBuffer cb, CommandState *cs);
void unregisterCommandState(VkCommandBuffer cb);

/** The key the loader writes into every dispatchable handle. */
inline void *dispatchKey(const void *handle) { return *(void *const *)handle; }

/** One-line report on stderr, prefixed "warptrace-layer:". */
void logLine(const char *format, ...);

/** A handle as the trace names objects without a debug name: "0x…". */
std::string hexHandle(uint64_t handle);

/** The queue family of a queue the app got from the device (0 if the layer never saw it). */
uint32_t queueFamilyOf(DeviceState *device, VkQueue queue);

}  // namespace wtl
