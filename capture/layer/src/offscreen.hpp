// Presenting without a display (WARPTRACE_OFFSCREEN, `warptrace capture --offscreen`):
// surfaces the layer answers for itself (offscreen_surface.cpp) and swapchains of
// ordinary images whose presents the layer completes (offscreen_swapchain.cpp).
#pragma once

#include <vector>

#include "state.hpp"

namespace wtl {

/**
 * The layer's wrapper of an instance-level surface function (surface creation,
 * destruction and queries), or null. `next` is what the next layer offers: most
 * wrappers are returned only where it exists; vkCreateHeadlessSurfaceEXT always
 * (the layer provides VK_EXT_headless_surface itself).
 */
PFN_vkVoidFunction findOffscreenInstanceHook(const char *name, PFN_vkVoidFunction next);

/** The layer's wrapper of a device-level swapchain function that only offscreen swapchains need (acquire), or null. */
PFN_vkVoidFunction findOffscreenDeviceHook(const char *name);

/**
 * At vkCreateInstance: drops the instance extensions the layer provides itself
 * (VK_EXT_headless_surface) from the list passed down; true if one was dropped.
 */
bool removeLayerProvidedExtensions(std::vector<const char *> &extensions);

/**
 * At vkCreateInstance: the next layer's surface functions. Only then: once the
 * instance exists, the loader's instance terminator answers from the layers'
 * table, which would lead back into the layer.
 */
void loadOffscreenInstance(InstanceState *instance, PFN_vkGetInstanceProcAddr gipa);

/** Whether `surface` is one the layer answers for (created offscreen, or a window the device cannot present to). */
bool isOffscreenSurface(VkSurfaceKHR surface);

/** vkCreateSwapchainKHR on an offscreen surface: ordinary images with memory, registered for WARPTRACE_IMAGE. */
VkResult createOffscreenSwapchain(DeviceState *device, const VkSwapchainCreateInfoKHR *info, VkSwapchainKHR *out);

/** Destroys `swapchain` if it is an offscreen one (true), after its pending presents. */
bool destroyOffscreenSwapchain(DeviceState *device, VkSwapchainKHR swapchain);

/** vkGetSwapchainImagesKHR for an offscreen swapchain (true, with `result` set); false: not one of them. */
bool offscreenSwapchainImages(DeviceState *device, VkSwapchainKHR swapchain, uint32_t *count, VkImage *images, VkResult &result);

/**
 * The end of vkQueuePresentKHR, after the frame logic: presents that name no
 * offscreen swapchain go to the next layer; offscreen images are handed back once
 * the present's wait semaphores are signalled (an empty submit that signals a fence
 * per image, which the next acquire of that image waits for).
 */
VkResult presentSwapchains(DeviceState *device, VkQueue queue, const VkPresentInfoKHR *info);

/** An X window's size (xcb connection / Xlib Display) through the app's own libxcb / libX11 (offscreen_window.cpp); false if unknown. */
bool xcbWindowSize(void *connection, uint32_t window, VkExtent2D &extent);
bool xlibWindowSize(void *display, unsigned long window, VkExtent2D &extent);

/** At vkDestroyDevice: what is left of the device's offscreen swapchains. */
void releaseOffscreenSwapchains(DeviceState *device);

}  // namespace wtl
