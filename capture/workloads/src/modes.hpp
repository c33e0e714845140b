// The harness's modes that live outside main.cpp.
#pragma once

#include <cstdint>
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
  /* --all-sets: the layout takes every descriptor set the device binds (up to 32), the last one too, where the capture
     layer puts its trace set: the layer leaves these pipelines untraced (a real reason, for its untraced-draw tests). */
  bool allSets = false;
};
int runApp(const AppRun &run);
