// Entry points: the loader's negotiation, vkGetInstanceProcAddr /
// vkGetDeviceProcAddr, instance creation, and the registries of handles.
#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "hooks.hpp"
#include "ray_tracing.hpp"
#include "shader_objects.hpp"
#include "offscreen.hpp"
#include "state.hpp"

namespace wtl {

static std::shared_mutex gRegistryLock;
static std::unordered_map<void *, InstanceState *> gInstances;
static std::unordered_map<void *, DeviceState *> gDevices;
static std::unordered_map<VkCommandBuffer, CommandState *> gCommandStates;

InstanceState *findInstance(void *key) {
  std::shared_lock<std::shared_mutex> guard(gRegistryLock);
  auto it = gInstances.find(key);
  return it == gInstances.end() ? nullptr : it->second;
}

DeviceState *findDevice(void *key) {
  std::shared_lock<std::shared_mutex> guard(gRegistryLock);
  auto it = gDevices.find(key);
  return it == gDevices.end() ? nullptr : it->second;
}

void registerDevice(DeviceState *device) {
  std::unique_lock<std::shared_mutex> guard(gRegistryLock);
  gDevices[dispatchKey(device->device)] = device;
}

void unregisterDevice(DeviceState *device) {
  std::unique_lock<std::shared_mutex> guard(gRegistryLock);
  gDevices.erase(dispatchKey(device->device));
}

CommandState *findCommandState(VkCommandBuffer cb) {
  {
    std::shared_lock<std::shared_mutex> guard(gRegistryLock);
    auto it = gCommandStates.find(cb);
    if (it != gCommandStates.end()) return it->second;
  }
  // Never seen (allocated before the layer tracked its pool): forward only.
  return &findDevice(dispatchKey(cb))->untracked;
}

void registerCommandState(VkCommandBuffer cb, CommandState *cs) {
  std::unique_lock<std::shared_mutex> guard(gRegistryLock);
  gCommandStates[cb] = cs;
}

void unregisterCommandState(VkCommandBuffer cb) {
  std::unique_lock<std::shared_mutex> guard(gRegistryLock);
  gCommandStates.erase(cb);
}

std::string hexHandle(uint64_t handle) {
  char text[32];
  snprintf(text, sizeof text, "0x%llx", (unsigned long long)handle);
  return text;
}

uint32_t queueFamilyOf(DeviceState *device, VkQueue queue) {
  auto it = device->queueFamilies.find(queue);
  return it == device->queueFamilies.end() ? 0 : it->second;
}

void logLine(const char *format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  fprintf(stderr, "warptrace-layer: %s\n", text);
}

/**
 * The Vulkan loader's instance version, from the loader's own exported vkEnumerateInstanceVersion. Not through the
 * next layer's vkGetInstanceProcAddr(VK_NULL_HANDLE, ...): the loader's terminator answers NULL there (so a 1.0 app's
 * instance was never raised), and a layer below may not accept a null instance at all (the Khronos validation layer
 * 1.3.239 dereferences it and the app dies). The loader is already in the process (it loaded this layer), whether the
 * app linked it or opened it itself; a loader without the function is 1.0.
 */
static uint32_t loaderVersion() {
  static const uint32_t version = [] {
    PFN_vkEnumerateInstanceVersion enumerate = nullptr;
    for (const char *name : {"libvulkan.so.1", "libvulkan.so"}) {
      if (void *loader = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) {
        enumerate = (PFN_vkEnumerateInstanceVersion)dlsym(loader, "vkEnumerateInstanceVersion");
        dlclose(loader);  // RTLD_NOLOAD took a reference of its own: the loader stays loaded
        if (enumerate) break;
      }
    }
    if (!enumerate) enumerate = (PFN_vkEnumerateInstanceVersion)dlsym(RTLD_DEFAULT, "vkEnumerateInstanceVersion");
    uint32_t v = VK_API_VERSION_1_0;
    if (enumerate && enumerate(&v) != VK_SUCCESS) v = VK_API_VERSION_1_0;
    return v;
  }();
  return version;
}

/** vkGetPhysicalDeviceProperties2 on a 1.0 instance without the extension: the core properties; extension structs stay zero. */
static VKAPI_ATTR void VKAPI_CALL coreProperties2(VkPhysicalDevice physical, VkPhysicalDeviceProperties2 *properties) {
  findInstance(dispatchKey(physical))->d.GetPhysicalDeviceProperties(physical, &properties->properties);
}

/**
 * vkGetPhysicalDeviceProperties2KHR on a 1.0 instance: VkPhysicalDeviceSubgroupProperties is a 1.1 struct, so it is
 * taken out of the chain for the call (left as it was: zero) and put back.
 */
static VKAPI_ATTR void VKAPI_CALL extensionProperties2(VkPhysicalDevice physical, VkPhysicalDeviceProperties2 *properties) {
  auto *link = (VkBaseOutStructure *)properties;
  VkBaseOutStructure *removed = nullptr;
  while (link->pNext && link->pNext->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES) link = link->pNext;
  if (link->pNext) removed = link->pNext, link->pNext = removed->pNext;
  findInstance(dispatchKey(physical))->properties2KHR(physical, properties);
  if (removed) link->pNext = removed;
}

/** vkGetPhysicalDeviceFeatures2 on a 1.0 instance without the extension: the core features; extension structs stay zero. */
static VKAPI_ATTR void VKAPI_CALL coreFeatures2(VkPhysicalDevice physical, VkPhysicalDeviceFeatures2 *features) {
  findInstance(dispatchKey(physical))->d.GetPhysicalDeviceFeatures(physical, &features->features);
}

static VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateInstance(const VkInstanceCreateInfo *info, const VkAllocationCallbacks *allocator,
                                                          VkInstance *out) {
  auto *link = (VkLayerInstanceCreateInfo *)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerInstanceCreateInfo *)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
  if (!create) return VK_ERROR_INITIALIZATION_FAILED;

  // SPIR-V 1.0 modules get core subgroup operations by moving to SPIR-V 1.3, which needs a Vulkan 1.1 instance
  // (the validation layer's GPU-assisted mode asks the same). Apps that asked for 1.0 use nothing newer. The loader
  // takes the raised version as the instance's (terminator_CreateInstance), so it also stops emulating
  // vkGetPhysicalDevice{Features,Properties}2 for the layer, which for a 1.0 instance dropped every extension struct
  // (subgroup size, shader clock): the device's real properties reach the layer without enabling an extension the
  // app did not ask for. The app's own view is unchanged: the loader's trampoline answers its version and extension
  // queries, and the layers above this one see its create info as it wrote it.
  VkInstanceCreateInfo patched = *info;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  if (info->pApplicationInfo) app = *info->pApplicationInfo;
  uint32_t asked = app.apiVersion ? app.apiVersion : VK_API_VERSION_1_0;
  std::string note;
  std::vector<const char *> extensions(info->ppEnabledExtensionNames, info->ppEnabledExtensionNames + info->enabledExtensionCount);
  // The layer provides VK_EXT_headless_surface itself (offscreen_surface.cpp): the driver below never sees it.
  if (removeLayerProvidedExtensions(extensions)) {
    patched.enabledExtensionCount = (uint32_t)extensions.size();
    patched.ppEnabledExtensionNames = extensions.data();
  }
  if (!settings().socketPath.empty() && !settings().timeOnly && asked < VK_API_VERSION_1_1 && loaderVersion() >= VK_API_VERSION_1_1) {
    app.apiVersion = VK_API_VERSION_1_1;
    patched.pApplicationInfo = &app;
    note = "the app asked for Vulkan 1.0; the layer created its instance as 1.1 below the app (SPIR-V 1.3 subgroup operations in "
           "instrumented shaders, the device's real properties); the app's own calls and queries are unchanged";
  }
  VkResult r = create(&patched, allocator, out);
  if (r != VK_SUCCESS && patched.pApplicationInfo != info->pApplicationInfo) {
    // A driver that refuses 1.1 gets the version the app asked for.
    note.clear();
    patched.pApplicationInfo = info->pApplicationInfo;  // its extensions still without the layer's own
    r = create(&patched, allocator, out);
  } else if (!note.empty()) {
    asked = VK_API_VERSION_1_1;  // reported as a note with the device (the CLI's connection is per device)
  }
  if (r != VK_SUCCESS) return r;
  auto *state = new InstanceState();
  state->instance = *out;
  state->apiVersion = asked;
  state->apiVersionNote = note;
  state->appApiVersion = info->pApplicationInfo && info->pApplicationInfo->apiVersion ? info->pApplicationInfo->apiVersion : VK_API_VERSION_1_0;
  for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
    if (!strcmp(info->ppEnabledExtensionNames[i], VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) state->appEnabledProperties2 = true;
  loadInstanceDispatch(state->d, gipa, *out);
  loadOffscreenInstance(state, gipa);
  if (state->apiVersion < VK_API_VERSION_1_1) {
    // vkGetPhysicalDevice{Properties,Features}2 are 1.1 names: a 1.0 instance (untraced, or a driver that refused 1.1)
    // gets the extension's, where the app enabled it, else the 1.0 queries alone, so a validation layer below sees no
    // call the instance does not have.
    state->properties2KHR = (PFN_vkGetPhysicalDeviceProperties2)gipa(*out, "vkGetPhysicalDeviceProperties2KHR");
    state->d.GetPhysicalDeviceProperties2 = state->appEnabledProperties2 && state->properties2KHR ? extensionProperties2 : coreProperties2;
    auto features2KHR = (PFN_vkGetPhysicalDeviceFeatures2)gipa(*out, "vkGetPhysicalDeviceFeatures2KHR");
    state->d.GetPhysicalDeviceFeatures2 = state->appEnabledProperties2 && features2KHR ? features2KHR : coreFeatures2;
  }
  std::unique_lock<std::shared_mutex> guard(gRegistryLock);
  gInstances[dispatchKey(*out)] = state;
  return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL wl_vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator) {
  InstanceState *state = findInstance(dispatchKey(instance));
  if (!state) return;
  state->d.DestroyInstance(instance, allocator);
  std::unique_lock<std::shared_mutex> guard(gRegistryLock);
  gInstances.erase(dispatchKey(instance));
  delete state;
}

#define WTL_HOOK(name) \
  if (!strcmp(pName, #name)) return (PFN_vkVoidFunction)wl_##name;

static PFN_vkVoidFunction findDeviceHook(const char *pName) {
  WTL_DEVICE_HOOKS(WTL_HOOK)
  if (PFN_vkVoidFunction f = findCommandHook(pName)) return f;
  if (PFN_vkVoidFunction f = findOffscreenDeviceHook(pName)) return f;
  if (PFN_vkVoidFunction f = findShaderObjectHook(pName)) return f;
  if (PFN_vkVoidFunction f = findLaunchSizeHook(pName)) return f;
  return nullptr;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wl_vkGetDeviceProcAddr(VkDevice device, const char *pName);

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wl_vkGetInstanceProcAddr(VkInstance instance, const char *pName) {
  WTL_HOOK(vkGetInstanceProcAddr)
  WTL_HOOK(vkCreateInstance)
  WTL_HOOK(vkDestroyInstance)
  WTL_HOOK(vkCreateDevice)
  WTL_HOOK(vkGetDeviceProcAddr)
  if (instance == VK_NULL_HANDLE) return nullptr;
  InstanceState *state = findInstance(dispatchKey(instance));
  if (!state) return nullptr;
  PFN_vkVoidFunction next = state->d.GetInstanceProcAddr(instance, pName);
  if (PFN_vkVoidFunction hook = findOffscreenInstanceHook(pName, next)) return hook;
  // Device functions reached through the instance must still pass through the layer, but only where they exist below.
  if (next)
    if (PFN_vkVoidFunction hook = findDeviceHook(pName)) return hook;
  return next;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wl_vkGetDeviceProcAddr(VkDevice device, const char *pName) {
  WTL_HOOK(vkGetDeviceProcAddr)
  DeviceState *state = findDevice(dispatchKey(device));
  if (!state) return nullptr;
  PFN_vkVoidFunction next = state->d.GetDeviceProcAddr(device, pName);
  if (!next) return nullptr;
  if (PFN_vkVoidFunction hook = findDeviceHook(pName)) return hook;
  return next;
}

#undef WTL_HOOK

}  // namespace wtl

extern "C" {

__attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *version) {
  if (!version || version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
  if (version->loaderLayerInterfaceVersion >= 2) {
    version->pfnGetInstanceProcAddr = wtl::wl_vkGetInstanceProcAddr;
    version->pfnGetDeviceProcAddr = wtl::wl_vkGetDeviceProcAddr;
    version->pfnGetPhysicalDeviceProcAddr = nullptr;
  }
  if (version->loaderLayerInterfaceVersion > 2) version->loaderLayerInterfaceVersion = 2;
  return VK_SUCCESS;
}

__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance,
                                                                                                     const char *pName) {
  return wtl::wl_vkGetInstanceProcAddr(instance, pName);
}

__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *pName) {
  return wtl::wl_vkGetDeviceProcAddr(device, pName);
}
}
