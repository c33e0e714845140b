/* A Vulkan layer for test/node/layer-untraceable-device.test.ts: enabled below the capture layer
 * (VK_INSTANCE_LAYERS=VK_LAYER_WARPTRACE_capture:VK_LAYER_WT_test_no_shader_clock), it hides
 * VK_KHR_shader_clock from vkEnumerateDeviceExtensionProperties, so lavapipe looks like a device without
 * shader clocks and the capture layer refuses it for real (wtUnsupportedReason: "the device lacks
 * VK_KHR_shader_clock"). Everything else passes through. One instance and one device chain at a time,
 * as the tests need: the next layer's entry points are kept in globals. */
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))
static const char *const kLayerName = "VK_LAYER_WT_test_no_shader_clock";
static const char *const kHidden = VK_KHR_SHADER_CLOCK_EXTENSION_NAME;

static PFN_vkGetInstanceProcAddr nextGipa;
static PFN_vkGetDeviceProcAddr nextGdpa;
static PFN_vkEnumerateDeviceExtensionProperties nextEnumerate;
static VkInstance lastInstance;

static VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *info, const VkAllocationCallbacks *allocator,
                                                     VkInstance *out) {
  VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerInstanceCreateInfo *)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  nextGipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)nextGipa(NULL, "vkCreateInstance");
  VkResult r = create(info, allocator, out);
  if (r != VK_SUCCESS) return r;
  lastInstance = *out;
  nextEnumerate = (PFN_vkEnumerateDeviceExtensionProperties)nextGipa(*out, "vkEnumerateDeviceExtensionProperties");
  return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                   const VkAllocationCallbacks *allocator, VkDevice *out) {
  VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerDeviceCreateInfo *)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  nextGdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(lastInstance, "vkCreateDevice");
  return create(physical, info, allocator, out);
}

/* The next layer's list without VK_KHR_shader_clock, in the count-then-fill protocol. */
static VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(VkPhysicalDevice physical, const char *layerName,
                                                                         uint32_t *count, VkExtensionProperties *props) {
  if (layerName && !strcmp(layerName, kLayerName)) {
    *count = 0;
    return VK_SUCCESS;
  }
  PFN_vkEnumerateDeviceExtensionProperties next = nextEnumerate;
  uint32_t all = 0;
  VkResult r = next(physical, layerName, &all, NULL);
  if (r != VK_SUCCESS) return r;
  VkExtensionProperties *list = (VkExtensionProperties *)calloc(all ? all : 1, sizeof *list);
  if (!list) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r = next(physical, layerName, &all, list);
  if (r < 0) {
    free(list);
    return r;
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; i < all; i++)
    if (strcmp(list[i].extensionName, kHidden)) list[kept++] = list[i];
  if (!props) {
    *count = kept;
    r = VK_SUCCESS;
  } else {
    uint32_t n = *count < kept ? *count : kept;
    memcpy(props, list, n * sizeof *list);
    *count = n;
    r = n < kept ? VK_INCOMPLETE : VK_SUCCESS;
  }
  free(list);
  return r;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char *name);

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char *name) {
  if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)GetInstanceProcAddr;
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)GetDeviceProcAddr;
  if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)CreateInstance;
  if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)CreateDevice;
  if (!strcmp(name, "vkEnumerateDeviceExtensionProperties")) return (PFN_vkVoidFunction)EnumerateDeviceExtensionProperties;
  return nextGipa ? nextGipa(instance, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char *name) {
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)GetDeviceProcAddr;
  return nextGdpa ? nextGdpa(device, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *version) {
  if (version->loaderLayerInterfaceVersion > 2) version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = GetInstanceProcAddr;
  version->pfnGetDeviceProcAddr = GetDeviceProcAddr;
  version->pfnGetPhysicalDeviceProcAddr = NULL;
  return VK_SUCCESS;
}
