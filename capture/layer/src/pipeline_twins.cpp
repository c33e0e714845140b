// Instrumented twins: the app's create info (or its recipe's copy) with the
// traced stages' SPIR-V instrumented and the layout padded to the trace set.
// A pipeline that links graphics pipeline libraries gets a twin linking the
// twins of its libraries (themselves libraries, made from their own recipes),
// as the validation layer's GPU-assisted mode swaps instrumented copies into
// pLibraries: the app's libraries are never changed.
#include <cstring>
#include <functional>

#include "command_buffers.hpp"
#include "hooks.hpp"
#include "pipeline_chain.hpp"
#include "pipeline_recipe.hpp"
#include "pipeline_twins.hpp"
#include "twin_stages.hpp"

namespace wtl {

static std::string whatOf(const PipelineInfo &info) { return (info.library ? "pipeline library " : "pipeline ") + info.name; }

/** Creation feedback written by the twin would overwrite the app's: pointed at scratch while the twin is made. */
class FeedbackRedirect {
 public:
  explicit FeedbackRedirect(const void *chain) {
    for (auto *s = (const VkBaseInStructure *)chain; s; s = s->pNext)
      if (s->sType == VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO) {
        info_ = (VkPipelineCreationFeedbackCreateInfo *)s;
        saved_ = *info_;
        stages_.resize(info_->pipelineStageCreationFeedbackCount);
        info_->pPipelineCreationFeedback = &pipeline_;
        info_->pPipelineStageCreationFeedbacks = stages_.data();
      }
  }
  ~FeedbackRedirect() {
    if (info_) *info_ = saved_;
  }

 private:
  VkPipelineCreationFeedbackCreateInfo *info_ = nullptr;
  VkPipelineCreationFeedbackCreateInfo saved_{};
  VkPipelineCreationFeedback pipeline_{};
  std::vector<VkPipelineCreationFeedback> stages_;
};

static VkPipeline libraryTwin(DeviceState *device, PipelineInfo *library, VkPipelineLayout layout, std::string &why);

/** The twins of the libraries a link links, for its twin's layout, and the libraries; false with why when one has none. */
static bool libraryTwins(DeviceState *device, const VkPipelineLibraryCreateInfoKHR &libraries, VkPipelineLayout layout, std::vector<VkPipeline> &twins,
                         std::vector<const PipelineInfo *> &infos, bool &instrumented, std::string &why) {
  for (uint32_t i = 0; i < libraries.libraryCount; i++) {
    PipelineInfo *library = findPipeline(device, libraries.pLibraries[i]);
    if (!library || !library->library) {
      why = "it links " + hexHandle((uint64_t)libraries.pLibraries[i]) + ", a pipeline library unknown to the layer";
      return false;
    }
    VkPipeline twin = libraryTwin(device, library, layout, why);
    if (!twin) {
      why = "its pipeline library " + library->name + " is not traced (" + why + ")";
      return false;
    }
    twins.push_back(twin);
    infos.push_back(library);
    instrumented = instrumented || library->instrumented;
  }
  return true;
}

static VkResult createGraphicsTwin(DeviceState *device, const VkGraphicsPipelineCreateInfo &info, PipelineInfo *out, std::string &why) {
  VkGraphicsPipelineLibraryFlagsEXT parts = ownParts(info);
  TwinStages stages;
  // Block profiles, not in the descriptor-buffer trace set. A library's modules are laid out by the pipelines linking it.
  bool blocks = !(info.flags & VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT);
  stages.library = (info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) != 0;
  if ((parts & kShaderParts) && !twinStages(device, info.pStages, info.stageCount, parts, stages, why, blocks)) return VK_ERROR_UNKNOWN;
  VkGraphicsPipelineCreateInfo twin = info;
  twin.stageCount = (uint32_t)stages.stages.size();
  twin.pStages = stages.stages.data();
  bool instrumented = stages.instrumented;
  std::vector<VkPipeline> libraries;
  ChainEdit chain;
  if (const VkPipelineLibraryCreateInfoKHR *linked = linkedLibraries(info.pNext)) {
    std::vector<const PipelineInfo *> infos;
    if (!libraryTwins(device, *linked, info.layout, libraries, infos, instrumented, why)) return VK_ERROR_UNKNOWN;
    if (blocks) addLibraryBlockStages(device, infos, stages);
    VkPipelineLibraryCreateInfoKHR twinLinked = *linked;
    twinLinked.pLibraries = libraries.data();
    if (!chain.replace(info.pNext, VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR, &twinLinked, &twin.pNext, why)) return VK_ERROR_UNKNOWN;
  }
  // A library's twin is made even with none of its stages traced: its padded layout is what the link needs.
  if (!instrumented && !out->library) {
    why = "none of its stages is traced (--stages)";
    return VK_ERROR_UNKNOWN;
  }
  out->instrumented = instrumented;
  if (!stages.blockRow.empty()) out->blockRow = std::make_shared<const std::vector<wtBlockRowModule>>(stages.blockRow);
  if (stages.hasStageOffsets) out->blockStageOffsets = std::make_shared<const BlockStageWords>(stages.stageOffsets);
  if (stages.libraryModules != noBlockModules()) out->blockStageModules = std::make_shared<const BlockStageWords>(stages.libraryModules);
  if (!blocks && device->blocks) out->unprofiledWhy = kNoBlocksDescriptorBuffers;
  return device->d.CreateGraphicsPipelines(device->device, VK_NULL_HANDLE, 1, &twin, nullptr, &out->twin);
}

static VkResult createComputeTwin(DeviceState *device, const VkComputePipelineCreateInfo &info, PipelineInfo *out, std::string &why) {
  TwinStages stages;
  bool blocks = !(info.flags & VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT);  // not in the descriptor-buffer trace set
  if (!twinStages(device, &info.stage, 1, kAllParts, stages, why, blocks)) return VK_ERROR_UNKNOWN;
  if (!stages.instrumented) {
    why = "none of its stages is traced (--stages)";
    return VK_ERROR_UNKNOWN;
  }
  VkComputePipelineCreateInfo twin = info;
  twin.stage = stages.stages[0];
  out->instrumented = true;
  if (!stages.blockRow.empty()) out->blockRow = std::make_shared<const std::vector<wtBlockRowModule>>(stages.blockRow);
  if (!blocks && device->blocks) out->unprofiledWhy = kNoBlocksDescriptorBuffers;
  return device->d.CreateComputePipelines(device->device, VK_NULL_HANDLE, 1, &twin, nullptr, &out->twin);
}

/** Whether the create info's layout matters: not to a library of interface parts only (vertex input, fragment output). */
static bool needsLayout(const VkGraphicsPipelineCreateInfo &info) {
  return !(info.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) || (ownParts(info) & kShaderParts) || linkedLibraries(info.pNext);
}
static bool needsLayout(const VkComputePipelineCreateInfo &) { return true; }

static std::shared_ptr<PipelineRecipe> recipeOf(DeviceState *device, const VkGraphicsPipelineCreateInfo &info) {
  return PipelineRecipe::ofGraphics(device, info);
}
static std::shared_ptr<PipelineRecipe> recipeOf(DeviceState *device, const VkComputePipelineCreateInfo &info) {
  return PipelineRecipe::ofCompute(device, info);
}

/** The twin from the app's create info (or a recipe's): its layout padded, no derivative, no cache. */
template <typename CreateInfo>
static void makeTwinNow(DeviceState *device, const CreateInfo &appInfo, PipelineInfo *info,
                        VkResult (*create)(DeviceState *, const CreateInfo &, PipelineInfo *, std::string &), std::string &why) {
  CreateInfo twin = appInfo;
  twin.layout = info->twinLayout;
  twin.flags &= ~(VkPipelineCreateFlags)(VK_PIPELINE_CREATE_DERIVATIVE_BIT | VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT);
  twin.basePipelineHandle = VK_NULL_HANDLE;
  twin.basePipelineIndex = -1;
  VkResult r = create(device, twin, info, why);
  if (r != VK_SUCCESS) {
    info->twin = VK_NULL_HANDLE;
    if (why.empty()) why = "the driver refused its instrumented twin (VkResult " + std::to_string((int)r) + ")";
  }
}

template <typename CreateInfo>
static void makeTwin(DeviceState *device, const CreateInfo &appInfo, VkPipeline pipeline, VkPipelineBindPoint bindPoint,
                     VkResult (*create)(DeviceState *, const CreateInfo &, PipelineInfo *, std::string &)) {
  auto info = std::make_unique<PipelineInfo>();
  info->bindPoint = bindPoint;
  info->library = (appInfo.flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR) != 0;
  info->name = hexHandle((uint64_t)pipeline);
  // A pipeline made for descriptor buffers: its twin's layout has descriptor-buffer sets, the trace set in the layer's buffer.
  info->descriptorBuffer = (appInfo.flags & VK_PIPELINE_CREATE_DESCRIPTOR_BUFFER_BIT_EXT) != 0;
  std::string why;
  if (needsLayout(appInfo)) {
    std::lock_guard<std::mutex> guard(device->lock);
    auto it = device->layouts.find(appInfo.layout);
    if (it == device->layouts.end()) why = "its pipeline layout is unknown to the layer";
    else if (info->descriptorBuffer)
      info->twinLayout = it->second.tracedDescriptorBuffer, info->appSetCount = it->second.appSetCount, why = it->second.descriptorBufferWhy;
    else info->twinLayout = it->second.traced, info->appSetCount = it->second.appSetCount, why = it->second.untracedWhy;
  }
  if (why.empty()) {
    // Start-up pays for a copy only; the twin is compiled when a capture first needs it (ensureTwin).
    info->recipe = recipeOf(device, appInfo);
    if (!info->recipe) {
      FeedbackRedirect feedback(appInfo.pNext);
      std::lock_guard<std::mutex> building(device->twinLock);  // the twins of libraries it links may be made too
      makeTwinNow(device, appInfo, info.get(), create, why);
    }
  }
  if (!why.empty()) {
    info->untracedWhy = why;
    info->twinLayout = VK_NULL_HANDLE;
    reportSkipped(device, whatOf(*info), why);
  }
  std::lock_guard<std::mutex> guard(device->lock);
  device->pipelines[pipeline] = std::move(info);
}

void registerPipeline(DeviceState *device, const VkGraphicsPipelineCreateInfo &info, VkPipeline pipeline) {
  makeTwin(device, info, pipeline, VK_PIPELINE_BIND_POINT_GRAPHICS, createGraphicsTwin);
}

void registerPipeline(DeviceState *device, const VkComputePipelineCreateInfo &info, VkPipeline pipeline) {
  makeTwin(device, info, pipeline, VK_PIPELINE_BIND_POINT_COMPUTE, createComputeTwin);
}

/** The twin of a recipe, into `info` (its twinLayout the twin's layout); false with why. */
static bool makeFromRecipe(DeviceState *device, PipelineRecipe &recipe, PipelineInfo *info, std::string &why) {
  std::vector<VkShaderModule> modules;
  if (recipe.materialize(device, modules, why)) {
    if (recipe.compute()) makeTwinNow(device, recipe.computeInfo(), info, createComputeTwin, why);
    else makeTwinNow(device, recipe.graphics(), info, createGraphicsTwin, why);
  }
  {
    std::lock_guard<std::mutex> guard(device->lock);
    for (VkShaderModule m : modules) device->modules.erase(m);
  }
  for (VkShaderModule m : modules) device->d.DestroyShaderModule(device->device, m, nullptr);
  return why.empty() && info->twin;
}

/**
 * A library's twin for the twins of links using `layout` (device->twinLock held). Made from the
 * library's recipe with that layout, so that every library a link's twin links has the link's own
 * padded layout: independent-set layouts then agree by construction (where the app's library layout
 * has a null set the link's has), and lavapipe (Mesa 22.3), which misplaces a fragment library's
 * sets above a null one, finds the trace set. Without its recipe (made at once, or its render pass
 * since destroyed): the twin it has, whose layout is the link's where the app's sets are not independent.
 */
static VkPipeline libraryTwin(DeviceState *device, PipelineInfo *library, VkPipelineLayout layout, std::string &why) {
  for (const auto &made : library->libraryTwins)
    if (made.first == layout) return made.second;
  if (std::shared_ptr<PipelineRecipe> recipe = library->recipe) {
    PipelineInfo made;
    made.library = true;
    made.twinLayout = layout;
    if (!makeFromRecipe(device, *recipe, &made, why)) return VK_NULL_HANDLE;
    library->libraryTwins.emplace_back(layout, made.twin);
    library->instrumented = library->instrumented || made.instrumented;
    // Its modules are the same whatever the layout (registered once by content): the first twin's say them.
    if (!library->blockStageModules) library->blockStageModules = made.blockStageModules;
    return made.twin;
  }
  if (library->twin) return library->twin;
  if (!library->libraryTwins.empty()) return library->libraryTwins.front().second;
  why = library->untracedWhy.empty() ? "its twin could not be made" : library->untracedWhy;
  return VK_NULL_HANDLE;
}

/** ensureTwin with device->twinLock held. */
static void buildTwinLocked(DeviceState *device, PipelineInfo *info) {
  std::shared_ptr<PipelineRecipe> recipe = info->recipe;
  // Made already (by another thread); a library's twins are made per link (libraryTwin).
  if (!recipe || info->library) return;
  std::string why;
  if (!makeFromRecipe(device, *recipe, info, why)) {
    info->untracedWhy = why;
    info->twin = VK_NULL_HANDLE;
    reportSkipped(device, whatOf(*info), why);
  }
  info->recipe.reset();
}

void forgetTwinLayout(DeviceState *device, VkPipelineLayout traced) {
  std::lock_guard<std::mutex> building(device->twinLock);
  std::lock_guard<std::mutex> guard(device->lock);
  // Kept (links made from them may still run) but under no handle a new layout could reuse.
  for (auto &entry : device->pipelines)
    for (auto &made : entry.second->libraryTwins)
      if (made.first == traced) made.first = VK_NULL_HANDLE;
}

void destroyTwins(DeviceState *device, const PipelineInfo &info) {
  if (info.twin && !info.inPlace) device->d.DestroyPipeline(device->device, info.twin, nullptr);
  for (const auto &made : info.libraryTwins) device->d.DestroyPipeline(device->device, made.second, nullptr);
}

void ensureTwin(DeviceState *device, PipelineInfo *info) {
  if (!info || !info->recipe) return;
  std::lock_guard<std::mutex> building(device->twinLock);
  buildTwinLocked(device, info);
}

/** Makes (or, after the capture, drops) the twins still to be made whose recipes are `due`. */
static void buildDueTwins(DeviceState *device, const std::function<bool(const PipelineRecipe &)> &due, const char *droppedWhy) {
  std::vector<std::pair<VkPipeline, PipelineInfo *>> found;
  {
    std::lock_guard<std::mutex> guard(device->lock);
    for (auto &entry : device->pipelines) {
      const std::shared_ptr<PipelineRecipe> &r = entry.second->recipe;
      if (r && due(*r)) found.emplace_back(entry.first, entry.second.get());
    }
  }
  for (auto &[handle, info] : found) {
    if (info->library) {
      // What its recipe refers to goes away: the links still to be made link its twins now; later links get one it has.
      buildTwinsLinking(device, handle);
      std::lock_guard<std::mutex> building(device->twinLock);
      info->recipe.reset();
      if (info->libraryTwins.empty()) info->untracedWhy = "the app destroyed its render pass before a pipeline linking it was traced";
      continue;
    }
    // After the capture (apps tear down at exit) nobody needs the twin: the recipe is dropped, not compiled.
    if (device->capture.done) {
      std::lock_guard<std::mutex> building(device->twinLock);
      info->recipe.reset();
      info->untracedWhy = droppedWhy;
      continue;
    }
    ensureTwin(device, info);
  }
}

void buildTwinsUsing(DeviceState *device, VkRenderPass pass, VkPipelineLayout layout) {
  buildDueTwins(
      device, [&](const PipelineRecipe &r) { return (pass && !r.compute() && r.renderPass() == pass) || (layout && r.appLayout() == layout); },
      "the app destroyed its render pass or layout after the capture");
}

void buildTwinsLinking(DeviceState *device, VkPipeline library) {
  buildDueTwins(
      device,
      [&](const PipelineRecipe &r) {
        for (VkPipeline linked : r.libraries())
          if (linked == library) return true;
        return false;
      },
      "the app destroyed a pipeline library it links after the capture");
}

PipelineInfo *findPipeline(DeviceState *device, VkPipeline pipeline) {
  std::lock_guard<std::mutex> guard(device->lock);
  auto it = device->pipelines.find(pipeline);
  return it == device->pipelines.end() ? nullptr : it->second.get();
}

}  // namespace wtl
