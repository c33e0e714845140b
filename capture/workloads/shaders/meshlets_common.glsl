// Shared by the meshlet workload's task and mesh shaders (capture/demo/src/meshlets.cpp).
// Knobs (common.glsl) as this workload uses them: gridW x gridH meshlets over knobs.rect,
// tcsWork = task busy loop, vsWork = mesh busy loop, fsWork = shading, flavor = percent culled.
#ifndef WT_DEMO_MESHLETS_GLSL
#define WT_DEMO_MESHLETS_GLSL

#define MESHLET_SIDE 8u                                   // vertices across a meshlet
#define MESHLET_VERTICES (MESHLET_SIDE * MESHLET_SIDE)    // 64
#define MESHLET_TRIANGLES (2u * (MESHLET_SIDE - 1u) * (MESHLET_SIDE - 1u))  // 98

// What a task workgroup hands its mesh workgroups: the meshlets that survived culling.
struct MeshletTask {
  uint meshlets[32];
};

#endif
