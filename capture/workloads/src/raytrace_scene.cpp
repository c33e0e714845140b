// The ray-traced workload's scene, built once: a ground quad (opaque triangles), a fence of
// quads in front of the spheres (triangles without the opaque flag, so the any-hit shader runs
// and cuts round holes), and a grid of spheres given as AABBs (the intersection shader finds
// the surface). Two instances in one top level; instance offsets select the hit groups.
#include <cmath>
#include <cstring>
#include <vector>

#include "raytrace_scene.hpp"

namespace {

const uint32_t kFenceX = 8, kFenceY = 4;  // fence quads across and up

struct Builder {
  Gpu &gpu;
  PFN_vkCreateAccelerationStructureKHR create;
  PFN_vkGetAccelerationStructureBuildSizesKHR sizes;
  PFN_vkCmdBuildAccelerationStructuresKHR build;
  PFN_vkGetAccelerationStructureDeviceAddressKHR address;
  VkDeviceSize scratchAlignment;
  std::vector<Buffer> scratch;

  explicit Builder(Gpu &g) : gpu(g) {
    create = reinterpret_cast<PFN_vkCreateAccelerationStructureKHR>(vkGetDeviceProcAddr(gpu.device, "vkCreateAccelerationStructureKHR"));
    sizes = reinterpret_cast<PFN_vkGetAccelerationStructureBuildSizesKHR>(
        vkGetDeviceProcAddr(gpu.device, "vkGetAccelerationStructureBuildSizesKHR"));
    build = reinterpret_cast<PFN_vkCmdBuildAccelerationStructuresKHR>(vkGetDeviceProcAddr(gpu.device, "vkCmdBuildAccelerationStructuresKHR"));
    address = reinterpret_cast<PFN_vkGetAccelerationStructureDeviceAddressKHR>(
        vkGetDeviceProcAddr(gpu.device, "vkGetAccelerationStructureDeviceAddressKHR"));
    if (!create || !sizes || !build || !address) fatal("unsupported: ray-tracing pipelines (no acceleration-structure entry points)");
    VkPhysicalDeviceAccelerationStructurePropertiesKHR as{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &as;
    vkGetPhysicalDeviceProperties2(gpu.physical, &props);
    scratchAlignment = as.minAccelerationStructureScratchOffsetAlignment ? as.minAccelerationStructureScratchOffsetAlignment : 1;
  }

  VkDeviceAddress bufferAddress(const Buffer &b) {
    VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = b.buffer;
    return vkGetBufferDeviceAddress(gpu.device, &info);
  }

  Buffer input(const void *data, VkDeviceSize bytes, VkBufferUsageFlags extra = 0) {
    Buffer b = createBuffer(gpu, bytes,
                            VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | extra,
                            true);
    std::memcpy(b.map, data, static_cast<size_t>(bytes));
    return b;
  }

  /* Creates the structure and records its build into cmd (geometries and ranges stay valid until then). */
  AccelStruct record(VkCommandBuffer cmd, VkAccelerationStructureTypeKHR type, const std::vector<VkAccelerationStructureGeometryKHR> &geometries,
                     const std::vector<VkAccelerationStructureBuildRangeInfoKHR> &ranges) {
    VkAccelerationStructureBuildGeometryInfoKHR info{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
    info.type = type;
    info.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
    info.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
    info.geometryCount = static_cast<uint32_t>(geometries.size());
    info.pGeometries = geometries.data();
    std::vector<uint32_t> counts;
    for (const auto &r : ranges) counts.push_back(r.primitiveCount);
    VkAccelerationStructureBuildSizesInfoKHR size{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
    sizes(gpu.device, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &info, counts.data(), &size);
    AccelStruct as;
    as.storage = createBuffer(gpu, size.accelerationStructureSize,
                              VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, false);
    VkAccelerationStructureCreateInfoKHR ci{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
    ci.buffer = as.storage.buffer;
    ci.size = size.accelerationStructureSize;
    ci.type = type;
    check(create(gpu.device, &ci, nullptr, &as.handle), "vkCreateAccelerationStructureKHR");
    VkAccelerationStructureDeviceAddressInfoKHR ai{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
    ai.accelerationStructure = as.handle;
    as.address = address(gpu.device, &ai);
    Buffer s = createBuffer(gpu, size.buildScratchSize + scratchAlignment, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, false);
    scratch.push_back(s);
    VkDeviceAddress at = bufferAddress(s);
    info.scratchData.deviceAddress = (at + scratchAlignment - 1) / scratchAlignment * scratchAlignment;
    info.dstAccelerationStructure = as.handle;
    const VkAccelerationStructureBuildRangeInfoKHR *rangePointer = ranges.data();
    build(cmd, 1, &info, &rangePointer);
    return as;
  }
};

VkAccelerationStructureGeometryKHR triangleGeometry(VkDeviceAddress vertices, uint32_t vertexCount, VkDeviceAddress indices, bool opaque) {
  VkAccelerationStructureGeometryKHR g{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
  g.geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR;
  g.flags = opaque ? VK_GEOMETRY_OPAQUE_BIT_KHR : 0;
  auto &t = g.geometry.triangles;
  t.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR;
  t.vertexFormat = VK_FORMAT_R32G32B32_SFLOAT;
  t.vertexData.deviceAddress = vertices;
  t.vertexStride = 12;
  t.maxVertex = vertexCount - 1;
  t.indexType = VK_INDEX_TYPE_UINT32;
  t.indexData.deviceAddress = indices;
  return g;
}

void barrierAfterBuild(VkCommandBuffer cmd) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR;
  b.dstAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                       VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR | VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR, 0, 1, &b, 0, nullptr, 0,
                       nullptr);
}

}  // namespace

RtScene buildRtScene(Gpu &gpu, uint32_t sphereCount, float fenceZ) {
  Builder builder(gpu);
  RtScene scene;
  // Vertices: the ground quad (0-3), then the fence grid on the plane z = 1.2.
  std::vector<float> v = {-8, 0, -3, 8, 0, -3, 8, 0, 16, -8, 0, 16};
  std::vector<uint32_t> idx = {0, 1, 2, 0, 2, 3};
  for (uint32_t y = 0; y <= kFenceY; y++)
    for (uint32_t x = 0; x <= kFenceX; x++) v.insert(v.end(), {-3.0f + 6.0f * x / kFenceX, 1.8f * y / kFenceY, fenceZ});
  for (uint32_t y = 0; y < kFenceY; y++) {
    for (uint32_t x = 0; x < kFenceX; x++) {
      uint32_t a = 4 + y * (kFenceX + 1) + x, b = a + 1, c = a + kFenceX + 1, d = c + 1;
      idx.insert(idx.end(), {a, b, d, a, d, c});
    }
  }
  scene.fenceTriangles = 2 * kFenceX * kFenceY;
  uint32_t vertexCount = static_cast<uint32_t>(v.size() / 3);
  scene.vertices = builder.input(v.data(), v.size() * 4);
  scene.indices = builder.input(idx.data(), idx.size() * 4);

  // Spheres in rows of six behind the fence; radii vary a little.
  scene.sphereCount = sphereCount;
  std::vector<float> spheres, aabbs;
  for (uint32_t i = 0; i < sphereCount; i++) {
    float r = 0.3f + 0.25f * static_cast<float>((i * 7u) % 5u) / 4.0f;
    float x = -3.75f + 1.5f * static_cast<float>(i % 6u), z = 2.4f + 1.5f * static_cast<float>(i / 6u);
    spheres.insert(spheres.end(), {x, r, z, r});
    aabbs.insert(aabbs.end(), {x - r, 0, z - r, x + r, 2 * r, z + r});
  }
  scene.spheres = builder.input(spheres.data(), spheres.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  scene.aabbs = builder.input(aabbs.data(), aabbs.size() * 4);

  VkCommandBuffer cmd = beginCommands(gpu);
  VkDeviceAddress vAt = builder.bufferAddress(scene.vertices), iAt = builder.bufferAddress(scene.indices);
  std::vector<VkAccelerationStructureGeometryKHR> tri = {triangleGeometry(vAt, vertexCount, iAt, true),
                                                         triangleGeometry(vAt, vertexCount, iAt, false)};
  std::vector<VkAccelerationStructureBuildRangeInfoKHR> triRanges = {{2, 0, 0, 0}, {scene.fenceTriangles, 6 * 4, 0, 0}};
  scene.triangles = builder.record(cmd, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, tri, triRanges);

  VkAccelerationStructureGeometryKHR box{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
  box.geometryType = VK_GEOMETRY_TYPE_AABBS_KHR;
  box.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
  box.geometry.aabbs.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_AABBS_DATA_KHR;
  box.geometry.aabbs.data.deviceAddress = builder.bufferAddress(scene.aabbs);
  box.geometry.aabbs.stride = sizeof(VkAabbPositionsKHR);
  scene.spheresBlas = builder.record(cmd, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, {box}, {{sphereCount, 0, 0, 0}});
  barrierAfterBuild(cmd);

  // Instances: hit group = instance offset + geometry index (ground 0, fence 1, spheres 2).
  VkAccelerationStructureInstanceKHR inst[2] = {};
  for (uint32_t i = 0; i < 2; i++) {
    inst[i].transform.matrix[0][0] = inst[i].transform.matrix[1][1] = inst[i].transform.matrix[2][2] = 1;
    inst[i].instanceCustomIndex = i;
    inst[i].mask = 0xff;
    inst[i].flags = VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR;
  }
  inst[0].accelerationStructureReference = scene.triangles.address;
  inst[1].accelerationStructureReference = scene.spheresBlas.address;
  inst[1].instanceShaderBindingTableRecordOffset = 2;
  scene.instances = builder.input(inst, sizeof inst);
  VkAccelerationStructureGeometryKHR top{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
  top.geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR;
  top.geometry.instances.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR;
  top.geometry.instances.data.deviceAddress = builder.bufferAddress(scene.instances);
  scene.tlas = builder.record(cmd, VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR, {top}, {{2, 0, 0, 0}});
  barrierAfterBuild(cmd);
  submitAndWait(gpu, cmd);
  for (Buffer &s : builder.scratch) destroyBuffer(gpu, s);
  return scene;
}

void destroyRtScene(Gpu &gpu, RtScene &scene) {
  auto destroy = reinterpret_cast<PFN_vkDestroyAccelerationStructureKHR>(vkGetDeviceProcAddr(gpu.device, "vkDestroyAccelerationStructureKHR"));
  for (AccelStruct *as : {&scene.tlas, &scene.spheresBlas, &scene.triangles}) {
    if (as->handle && destroy) destroy(gpu.device, as->handle, nullptr);
    destroyBuffer(gpu, as->storage);
  }
  for (Buffer *b : {&scene.vertices, &scene.indices, &scene.aabbs, &scene.instances, &scene.spheres}) destroyBuffer(gpu, *b);
  scene = RtScene{};
}
