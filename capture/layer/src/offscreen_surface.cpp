// Surfaces the layer answers for itself, so an app presents on a GPU that has no
// display (an NVIDIA datacentre GPU, CI): VK_EXT_headless_surface (provided by the
// layer, never passed down), and with WARPTRACE_OFFSCREEN=1 every xcb, Xlib and
// Wayland window surface. Without it a window surface becomes one of these only
// where the device cannot present to it: its creation below failed, or no queue
// family of any physical device supports it. Their swapchains are
// offscreen_swapchain.cpp's.
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "offscreen.hpp"

// The window-system types the Vulkan platform headers name, declared here so that
// the layer builds without the X11 and Wayland development headers.
typedef struct xcb_connection_t xcb_connection_t;
typedef uint32_t xcb_window_t;
typedef uint32_t xcb_visualid_t;
typedef struct _XDisplay Display;
typedef unsigned long Window;
typedef unsigned long VisualID;
struct wl_display;
struct wl_surface;
#include <vulkan/vulkan_wayland.h>
#include <vulkan/vulkan_xcb.h>
#include <vulkan/vulkan_xlib.h>

namespace wtl {

namespace {

enum class SurfaceKind { Headless, Xcb, Xlib, Wayland };

struct OffscreenSurface {
  SurfaceKind kind = SurfaceKind::Headless;
  /** The surface the loader made for the window (kept where the device could not present to it), destroyed with this one. */
  VkSurfaceKHR below = VK_NULL_HANDLE;
  void *connection = nullptr;  // xcb_connection_t * or Display *
  unsigned long window = 0;
};

std::mutex gSurfaceLock;
std::unordered_map<uint64_t, OffscreenSurface *> gSurfaces;

/** The next layer's surface functions, by instance (looked up once). */
struct SurfaceNext {
#define WTL_SURFACE_FUNCTIONS(X)                                                                                                 \
  X(EnumeratePhysicalDevices) X(GetPhysicalDeviceFormatProperties) X(DestroySurfaceKHR) X(GetPhysicalDeviceSurfaceSupportKHR)    \
  X(GetPhysicalDeviceSurfaceCapabilitiesKHR) X(GetPhysicalDeviceSurfaceCapabilities2KHR) X(GetPhysicalDeviceSurfaceFormatsKHR)   \
  X(GetPhysicalDeviceSurfaceFormats2KHR) X(GetPhysicalDeviceSurfacePresentModesKHR) X(GetPhysicalDevicePresentRectanglesKHR)      \
  X(CreateXcbSurfaceKHR) X(CreateXlibSurfaceKHR) X(CreateWaylandSurfaceKHR) X(GetPhysicalDeviceXcbPresentationSupportKHR)        \
  X(GetPhysicalDeviceXlibPresentationSupportKHR) X(GetPhysicalDeviceWaylandPresentationSupportKHR)
#define WTL_MEMBER(name) PFN_vk##name name = nullptr;
  WTL_SURFACE_FUNCTIONS(WTL_MEMBER)
#undef WTL_MEMBER
  InstanceState *instance = nullptr;
};

std::mutex gNextLock;
std::unordered_map<InstanceState *, SurfaceNext> gNext;

/** The next layer's functions for the instance of `handle` (an instance or a physical device): loadOffscreenInstance's. */
SurfaceNext &nextOf(const void *handle) {
  InstanceState *instance = findInstance(dispatchKey(handle));
  std::lock_guard<std::mutex> guard(gNextLock);
  return gNext[instance];
}

OffscreenSurface *findSurface(VkSurfaceKHR surface) {
  std::lock_guard<std::mutex> guard(gSurfaceLock);
  auto it = gSurfaces.find((uint64_t)surface);
  return it == gSurfaces.end() ? nullptr : it->second;
}

VkSurfaceKHR registerSurface(OffscreenSurface *s) {
  std::lock_guard<std::mutex> guard(gSurfaceLock);
  // The handle is the object's address: unique while it lives, as the loader's own surface handles are.
  auto handle = (uint64_t)(uintptr_t)s;
  gSurfaces[handle] = s;
  return (VkSurfaceKHR)handle;
}

/** WARPTRACE_OFFSCREEN=1: every window surface is the layer's; =0: never, not even where the device cannot present. */
bool forced() { return settings().offscreen == Settings::Offscreen::Always; }
bool allowed() { return settings().offscreen != Settings::Offscreen::Never; }

/** Whether any queue family of any physical device can present to `surface` (the loader's). */
bool deviceCanPresent(SurfaceNext &n, VkInstance instance, VkSurfaceKHR surface) {
  if (!n.EnumeratePhysicalDevices || !n.GetPhysicalDeviceSurfaceSupportKHR) return true;
  uint32_t count = 0;
  if (n.EnumeratePhysicalDevices(instance, &count, nullptr) != VK_SUCCESS) return true;
  std::vector<VkPhysicalDevice> physicals(count);
  if (n.EnumeratePhysicalDevices(instance, &count, physicals.data()) < 0) return true;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t families = 0;
    n.instance->d.GetPhysicalDeviceQueueFamilyProperties(physicals[i], &families, nullptr);
    for (uint32_t f = 0; f < families; f++) {
      VkBool32 supported = VK_FALSE;
      if (n.GetPhysicalDeviceSurfaceSupportKHR(physicals[i], f, surface, &supported) == VK_SUCCESS && supported) return true;
    }
  }
  return false;
}

/**
 * A window surface: created below unless offscreen is forced; the layer's own where
 * creating it failed or no device can present to it (the loader's surface is kept to
 * be destroyed with it).
 */
template <typename Create>
VkResult createWindowSurface(VkInstance instance, SurfaceKind kind, void *connection, unsigned long window, Create createBelow,
                             VkSurfaceKHR *out) {
  SurfaceNext &n = nextOf(instance);
  VkSurfaceKHR below = VK_NULL_HANDLE;
  if (!forced()) {
    VkResult r = createBelow(&below);
    if (r == VK_SUCCESS && deviceCanPresent(n, instance, below)) {
      *out = below;
      return r;
    }
    if (!allowed()) {
      if (r == VK_SUCCESS) *out = below;
      return r;
    }
    if (r == VK_SUCCESS) logLine("no device can present to this window: the layer presents offscreen (its own images)");
    else logLine("the window surface could not be created (VkResult %d): the layer presents offscreen (its own images)", (int)r), below = VK_NULL_HANDLE;
  } else {
    logLine("window surface presented offscreen (WARPTRACE_OFFSCREEN=1): the layer's own images, nothing shown");
  }
  auto *s = new OffscreenSurface();
  s->kind = kind;
  s->below = below;
  s->connection = connection;
  s->window = window;
  *out = registerSurface(s);
  return VK_SUCCESS;
}

bool windowSize(const OffscreenSurface &s, VkExtent2D &extent) {
  if (s.kind == SurfaceKind::Xcb) return xcbWindowSize(s.connection, (uint32_t)s.window, extent);
  if (s.kind == SurfaceKind::Xlib) return xlibWindowSize(s.connection, s.window, extent);
  return false;  // headless and Wayland: the swapchain decides (as on Wayland itself)
}

/** The formats offered, in the order Mesa's X11 presentation offers its first two; those the device can render to. */
std::vector<VkFormat> offeredFormats(VkPhysicalDevice physical) {
  static const VkFormat kFormats[] = {VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM};
  SurfaceNext &n = nextOf(physical);
  std::vector<VkFormat> formats;
  for (VkFormat f : kFormats) {
    VkFormatProperties p{};
    n.GetPhysicalDeviceFormatProperties(physical, f, &p);
    if (p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) formats.push_back(f);
  }
  return formats;
}

VkSurfaceCapabilitiesKHR capabilities(VkPhysicalDevice physical, const OffscreenSurface &s) {
  VkPhysicalDeviceProperties props{};
  nextOf(physical).instance->d.GetPhysicalDeviceProperties(physical, &props);
  VkSurfaceCapabilitiesKHR c{};
  c.minImageCount = 2;
  c.maxImageCount = 16;
  VkExtent2D size;
  if (windowSize(s, size)) {
    c.currentExtent = c.minImageExtent = c.maxImageExtent = size;
  } else {
    // Undefined: the app's swapchain sets the size (Mesa's headless and Wayland surfaces say the same).
    c.currentExtent = {0xFFFFFFFFu, 0xFFFFFFFFu};
    c.minImageExtent = {1, 1};
    c.maxImageExtent = {props.limits.maxImageDimension2D, props.limits.maxImageDimension2D};
  }
  c.maxImageArrayLayers = 1;
  c.supportedTransforms = c.currentTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
  c.supportedCompositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR | VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR |
                              VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR | VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR;
  c.supportedUsageFlags = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                          VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
  // Storage only where every offered format allows it (B8G8R8A8 often does not).
  bool storage = true;
  for (VkFormat f : offeredFormats(physical)) {
    VkFormatProperties p{};
    nextOf(physical).GetPhysicalDeviceFormatProperties(physical, f, &p);
    storage = storage && (p.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT);
  }
  if (storage) c.supportedUsageFlags |= VK_IMAGE_USAGE_STORAGE_BIT;
  return c;
}

/** The usual two-call enumeration: fills up to *count of `items` and says VK_INCOMPLETE when they do not all fit. */
template <typename T, typename Fill>
VkResult enumerate(const std::vector<T> &items, uint32_t *count, void *out, Fill fill) {
  if (!out) {
    *count = (uint32_t)items.size();
    return VK_SUCCESS;
  }
  uint32_t n = *count < items.size() ? *count : (uint32_t)items.size();
  for (uint32_t i = 0; i < n; i++) fill(i, items[i]);
  *count = n;
  return n < items.size() ? VK_INCOMPLETE : VK_SUCCESS;
}

const VkPresentModeKHR kPresentModes[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR};

// --- the hooks

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateHeadlessSurfaceEXT(VkInstance instance, const VkHeadlessSurfaceCreateInfoEXT *info,
                                                             const VkAllocationCallbacks *allocator, VkSurfaceKHR *out) {
  *out = registerSurface(new OffscreenSurface());
  logLine("headless surface: the layer's own (VK_EXT_headless_surface)");
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateXcbSurfaceKHR(VkInstance instance, const VkXcbSurfaceCreateInfoKHR *info,
                                                        const VkAllocationCallbacks *allocator, VkSurfaceKHR *out) {
  SurfaceNext &n = nextOf(instance);
  return createWindowSurface(instance, SurfaceKind::Xcb, info->connection, info->window,
                             [&](VkSurfaceKHR *below) { return n.CreateXcbSurfaceKHR(instance, info, allocator, below); }, out);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateXlibSurfaceKHR(VkInstance instance, const VkXlibSurfaceCreateInfoKHR *info,
                                                         const VkAllocationCallbacks *allocator, VkSurfaceKHR *out) {
  SurfaceNext &n = nextOf(instance);
  return createWindowSurface(instance, SurfaceKind::Xlib, info->dpy, info->window,
                             [&](VkSurfaceKHR *below) { return n.CreateXlibSurfaceKHR(instance, info, allocator, below); }, out);
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkCreateWaylandSurfaceKHR(VkInstance instance, const VkWaylandSurfaceCreateInfoKHR *info,
                                                            const VkAllocationCallbacks *allocator, VkSurfaceKHR *out) {
  SurfaceNext &n = nextOf(instance);
  return createWindowSurface(instance, SurfaceKind::Wayland, info->display, 0,
                             [&](VkSurfaceKHR *below) { return n.CreateWaylandSurfaceKHR(instance, info, allocator, below); }, out);
}

VKAPI_ATTR void VKAPI_CALL wl_vkDestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface, const VkAllocationCallbacks *allocator) {
  SurfaceNext &n = nextOf(instance);
  OffscreenSurface *s = nullptr;
  {
    std::lock_guard<std::mutex> guard(gSurfaceLock);
    auto it = gSurfaces.find((uint64_t)surface);
    if (it != gSurfaces.end()) s = it->second, gSurfaces.erase(it);
  }
  if (!s) return n.DestroySurfaceKHR(instance, surface, allocator);
  if (s->below) n.DestroySurfaceKHR(instance, s->below, allocator);
  delete s;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice physical, uint32_t family, VkSurfaceKHR surface,
                                                                       VkBool32 *supported) {
  if (!findSurface(surface)) return nextOf(physical).GetPhysicalDeviceSurfaceSupportKHR(physical, family, surface, supported);
  *supported = VK_TRUE;  // any queue can complete an offscreen present (an empty submit)
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice physical, VkSurfaceKHR surface,
                                                                            VkSurfaceCapabilitiesKHR *out) {
  OffscreenSurface *s = findSurface(surface);
  if (!s) return nextOf(physical).GetPhysicalDeviceSurfaceCapabilitiesKHR(physical, surface, out);
  *out = capabilities(physical, *s);
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetPhysicalDeviceSurfaceCapabilities2KHR(VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR *info,
                                                                             VkSurfaceCapabilities2KHR *out) {
  OffscreenSurface *s = findSurface(info->surface);
  if (!s) return nextOf(physical).GetPhysicalDeviceSurfaceCapabilities2KHR(physical, info, out);
  out->surfaceCapabilities = capabilities(physical, *s);
  for (auto *ext = (VkBaseOutStructure *)out->pNext; ext; ext = ext->pNext)
    if (ext->sType == VK_STRUCTURE_TYPE_SURFACE_PROTECTED_CAPABILITIES_KHR) ((VkSurfaceProtectedCapabilitiesKHR *)ext)->supportsProtected = VK_FALSE;
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice physical, VkSurfaceKHR surface, uint32_t *count,
                                                                       VkSurfaceFormatKHR *formats) {
  if (!findSurface(surface)) return nextOf(physical).GetPhysicalDeviceSurfaceFormatsKHR(physical, surface, count, formats);
  return enumerate(offeredFormats(physical), count, formats,
                   [&](uint32_t i, VkFormat f) { formats[i] = {f, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR}; });
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetPhysicalDeviceSurfaceFormats2KHR(VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR *info,
                                                                        uint32_t *count, VkSurfaceFormat2KHR *formats) {
  if (!findSurface(info->surface)) return nextOf(physical).GetPhysicalDeviceSurfaceFormats2KHR(physical, info, count, formats);
  return enumerate(offeredFormats(physical), count, formats,
                   [&](uint32_t i, VkFormat f) { formats[i].surfaceFormat = {f, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR}; });
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice physical, VkSurfaceKHR surface, uint32_t *count,
                                                                            VkPresentModeKHR *modes) {
  if (!findSurface(surface)) return nextOf(physical).GetPhysicalDeviceSurfacePresentModesKHR(physical, surface, count, modes);
  std::vector<VkPresentModeKHR> all(std::begin(kPresentModes), std::end(kPresentModes));
  return enumerate(all, count, modes, [&](uint32_t i, VkPresentModeKHR m) { modes[i] = m; });
}

VKAPI_ATTR VkResult VKAPI_CALL wl_vkGetPhysicalDevicePresentRectanglesKHR(VkPhysicalDevice physical, VkSurfaceKHR surface, uint32_t *count,
                                                                          VkRect2D *rects) {
  OffscreenSurface *s = findSurface(surface);
  if (!s) return nextOf(physical).GetPhysicalDevicePresentRectanglesKHR(physical, surface, count, rects);
  VkExtent2D size;
  std::vector<VkRect2D> all;
  if (windowSize(*s, size)) all.push_back({{0, 0}, size});
  return enumerate(all, count, rects, [&](uint32_t i, VkRect2D r) { rects[i] = r; });
}

// Presentation support before a surface exists: an offscreen window always has it (unless WARPTRACE_OFFSCREEN=0).
VKAPI_ATTR VkBool32 VKAPI_CALL wl_vkGetPhysicalDeviceXcbPresentationSupportKHR(VkPhysicalDevice physical, uint32_t family,
                                                                               xcb_connection_t *connection, xcb_visualid_t visual) {
  return allowed() || nextOf(physical).GetPhysicalDeviceXcbPresentationSupportKHR(physical, family, connection, visual);
}

VKAPI_ATTR VkBool32 VKAPI_CALL wl_vkGetPhysicalDeviceXlibPresentationSupportKHR(VkPhysicalDevice physical, uint32_t family, Display *dpy,
                                                                                VisualID visual) {
  return allowed() || nextOf(physical).GetPhysicalDeviceXlibPresentationSupportKHR(physical, family, dpy, visual);
}

VKAPI_ATTR VkBool32 VKAPI_CALL wl_vkGetPhysicalDeviceWaylandPresentationSupportKHR(VkPhysicalDevice physical, uint32_t family,
                                                                                   struct wl_display *display) {
  return allowed() || nextOf(physical).GetPhysicalDeviceWaylandPresentationSupportKHR(physical, family, display);
}

}  // namespace

void loadOffscreenInstance(InstanceState *instance, PFN_vkGetInstanceProcAddr gipa) {
  SurfaceNext n;
  n.instance = instance;
#define WTL_LOAD(name) n.name = (PFN_vk##name)gipa(instance->instance, "vk" #name);
  WTL_SURFACE_FUNCTIONS(WTL_LOAD)
#undef WTL_LOAD
  std::lock_guard<std::mutex> guard(gNextLock);
  gNext[instance] = n;
}

bool isOffscreenSurface(VkSurfaceKHR surface) { return findSurface(surface) != nullptr; }

bool removeLayerProvidedExtensions(std::vector<const char *> &extensions) {
  size_t before = extensions.size();
  for (size_t i = extensions.size(); i-- > 0;)
    if (!strcmp(extensions[i], VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME)) extensions.erase(extensions.begin() + i);
  return extensions.size() != before;
}

#define WTL_HOOK(name) \
  if (!strcmp(pName, #name)) return (PFN_vkVoidFunction)wl_##name;

PFN_vkVoidFunction findOffscreenInstanceHook(const char *pName, PFN_vkVoidFunction next) {
  WTL_HOOK(vkCreateHeadlessSurfaceEXT)
  if (!next) return nullptr;
  WTL_HOOK(vkCreateXcbSurfaceKHR)
  WTL_HOOK(vkCreateXlibSurfaceKHR)
  WTL_HOOK(vkCreateWaylandSurfaceKHR)
  WTL_HOOK(vkDestroySurfaceKHR)
  WTL_HOOK(vkGetPhysicalDeviceSurfaceSupportKHR)
  WTL_HOOK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR)
  WTL_HOOK(vkGetPhysicalDeviceSurfaceCapabilities2KHR)
  WTL_HOOK(vkGetPhysicalDeviceSurfaceFormatsKHR)
  WTL_HOOK(vkGetPhysicalDeviceSurfaceFormats2KHR)
  WTL_HOOK(vkGetPhysicalDeviceSurfacePresentModesKHR)
  WTL_HOOK(vkGetPhysicalDevicePresentRectanglesKHR)
  WTL_HOOK(vkGetPhysicalDeviceXcbPresentationSupportKHR)
  WTL_HOOK(vkGetPhysicalDeviceXlibPresentationSupportKHR)
  WTL_HOOK(vkGetPhysicalDeviceWaylandPresentationSupportKHR)
  return nullptr;
}

#undef WTL_HOOK

}  // namespace wtl
