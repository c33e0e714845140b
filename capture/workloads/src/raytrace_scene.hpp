// The ray-traced workload's scene: acceleration structures over triangles and procedural spheres.
#pragma once

#include "gpu.hpp"

struct AccelStruct {
  VkAccelerationStructureKHR handle = VK_NULL_HANDLE;
  Buffer storage;
  VkDeviceAddress address = 0;
};

struct RtScene {
  /* Bottom levels: triangles (geometry 0 the opaque ground, geometry 1 the alpha-tested fence) and sphere AABBs. */
  AccelStruct triangles, spheresBlas, tlas;
  Buffer vertices, indices, aabbs, instances;
  Buffer spheres;  // vec4 per sphere (center, radius), read by the intersection and closest-hit shaders
  uint32_t sphereCount = 0;
  uint32_t fenceTriangles = 0;
};

/* Builds the scene on the GPU (one submit, waited for). */
RtScene buildRtScene(Gpu &gpu, uint32_t sphereCount, float fenceZ);
void destroyRtScene(Gpu &gpu, RtScene &scene);
