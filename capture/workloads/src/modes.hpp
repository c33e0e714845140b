// The harness's modes that live outside main.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "workloads.hpp"

/* --probe: what the device offers and how to compile the shaders for it (JSON on stdout). */
int probe(int device);

/* --app: the workload as an ordinary, untraced Vulkan application (app.cpp). */
struct AppRun {
  std::string workload, plainShaders;
  std::vector<std::pair<std::string, double>> params;
  uint32_t frames = 3;
  int device = -1;
  bool clearInFrame = false;
  /* --vulkan-1.0: an app that asks for Vulkan 1.0 and enables no instance extension (render passes, SPIR-V 1.0 shaders). */
  bool vulkan10 = false;
  PipelineStyle style;  // --libraries, --link-time-optimization, --independent-sets, --inline-shaders
  std::string image;    // --image FILE: the last frame's colour target as a binary PPM
  /* --all-sets: the layout takes every descriptor set the device binds (up to 32), the last one too, where the capture
     layer puts its trace set: the layer leaves these pipelines untraced (a real reason, for its untraced-draw tests). */
  bool allSets = false;
};
int runApp(const AppRun &run);
/* The options only --app takes: true when `flag` is one (its value, if any, taken through `value`). */
bool parseAppOption(AppRun &run, const std::string &flag, const std::function<const char *()> &value);
extern const char *const kAppUsage;

/* Writes the driver's statistics (VK_KHR_pipeline_executable_properties) of each named variant's pipelines as JSON lines (stats.cpp). */
void writePipelineStats(Gpu &gpu, const std::vector<std::pair<std::string, std::vector<VkPipeline>>> &variants, const std::string &path);
