// The app's VkDeviceCreateInfo with what tracing needs added (device.cpp creates the device with it).
#pragma once

#include <cstring>
#include <utility>
#include <vector>

#include "warptrace.h"

namespace wtl {

template <typename T>
inline T *findInChain(const void *chain, VkStructureType type) {
  for (auto *s = (const VkBaseInStructure *)chain; s; s = s->pNext)
    if (s->sType == type) return (T *)s;
  return nullptr;
}

/**
 * The app's VkDeviceCreateInfo with the extensions and features tracing
 * needs. Feature structs the app already chained are switched on in place and
 * restored when this object dies, so the app never sees its structs changed.
 */
class DeviceCreatePatch {
 public:
  /** `blocks`: block profiles (64-bit atomics); `apiVersion`: the device's as the app sees it (its instance's at most). */
  DeviceCreatePatch(const VkDeviceCreateInfo *app, const wtCaps &caps, bool blocks, uint32_t apiVersion) : patched_(*app) {
    extensions_.assign(app->ppEnabledExtensionNames, app->ppEnabledExtensionNames + app->enabledExtensionCount);
    auto add = [&](const char *name) {
      for (const char *e : extensions_)
        if (!strcmp(e, name)) return;
      extensions_.push_back(name);
    };
    if (caps.hasShaderClockExtension) add(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
    if (caps.hasSmBuiltinsExtension && caps.smBuiltins) add(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    patched_.enabledExtensionCount = (uint32_t)extensions_.size();
    patched_.ppEnabledExtensionNames = extensions_.data();

    const void *head = app->pNext;
    if (auto *clock = findInChain<VkPhysicalDeviceShaderClockFeaturesKHR>(head, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR)) {
      setInPlace(&clock->shaderSubgroupClock, caps.subgroupClock);
      setInPlace(&clock->shaderDeviceClock, caps.deviceClock);
    } else if (caps.hasShaderClockExtension) {
      clock_.shaderSubgroupClock = caps.subgroupClock;
      clock_.shaderDeviceClock = caps.deviceClock;
      clock_.pNext = (void *)head;
      head = &clock_;
    }
    if (caps.hasSmBuiltinsExtension && caps.smBuiltins) {
      if (auto *sm = findInChain<VkPhysicalDeviceShaderSMBuiltinsFeaturesNV>(head, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV)) {
        setInPlace(&sm->shaderSMBuiltins, VK_TRUE);
      } else {
        sm_.shaderSMBuiltins = VK_TRUE;
        sm_.pNext = (void *)head;
        head = &sm_;
      }
    }
    // Block profiles count in 64-bit atomics: in the app's Vulkan 1.2 or int64 features struct if it chains one
    // (the two may not both be chained), else ours.
    if (blocks && caps.bufferInt64Atomics) {
      if (auto *v12 = findInChain<VkPhysicalDeviceVulkan12Features>(head, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)) {
        setInPlace(&v12->shaderBufferInt64Atomics, VK_TRUE);
      } else if (auto *i64 = findInChain<VkPhysicalDeviceShaderAtomicInt64Features>(head, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES)) {
        setInPlace(&i64->shaderBufferInt64Atomics, VK_TRUE);
      } else {
        int64_.shaderBufferInt64Atomics = VK_TRUE;
        int64_.pNext = (void *)head;
        head = &int64_;
      }
      if (apiVersion < VK_API_VERSION_1_2) add(VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME);
      patched_.enabledExtensionCount = (uint32_t)extensions_.size();
      patched_.ppEnabledExtensionNames = extensions_.data();
    }
    patched_.pNext = head;

    VkPhysicalDeviceFeatures *core = nullptr;
    if (auto *f2 = findInChain<VkPhysicalDeviceFeatures2>(head, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)) {
      core = &f2->features;
    } else {
      if (app->pEnabledFeatures) features_ = *app->pEnabledFeatures;
      patched_.pEnabledFeatures = &features_;
      core = &features_;
    }
    if (caps.vertexPipelineStoresAndAtomics) setInPlace(&core->vertexPipelineStoresAndAtomics, VK_TRUE);
    if (caps.fragmentStoresAndAtomics) setInPlace(&core->fragmentStoresAndAtomics, VK_TRUE);
    // gl_PrimitiveID in fragment shaders (the default FS custom id) needs the Geometry capability.
    if (caps.geometryShader) setInPlace(&core->geometryShader, VK_TRUE);
  }

  ~DeviceCreatePatch() {
    for (auto it = restore_.rbegin(); it != restore_.rend(); ++it) *it->first = it->second;
  }

  const VkDeviceCreateInfo *info() const { return &patched_; }

 private:
  void setInPlace(VkBool32 *field, VkBool32 value) {
    if (*field == value) return;
    restore_.push_back({field, *field});
    *field = value;
  }

  VkDeviceCreateInfo patched_;
  std::vector<const char *> extensions_;
  VkPhysicalDeviceShaderClockFeaturesKHR clock_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
  VkPhysicalDeviceShaderAtomicInt64Features int64_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
  VkPhysicalDeviceFeatures features_{};
  std::vector<std::pair<VkBool32 *, VkBool32>> restore_;
};

}  // namespace wtl
