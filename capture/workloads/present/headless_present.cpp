// wt-headless-present FRAMES: a windowless app that presents through
// VK_EXT_headless_surface, for the capture layer's offscreen presentation
// (capture/layer/src/offscreen_*.cpp). Drivers without the extension (NVIDIA,
// Debian 12's lavapipe) get it from the layer under `warptrace capture
// --offscreen`. Like a careful app it checks the instance extension list before
// creating its instance, then draws one triangle per frame (moved by the frame
// number) into the swapchain's image and presents it, two frames in flight,
// acquire signalling a semaphore and a fence. Prints one JSON line; exit 0.
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "triangle_frag.h"
#include "triangle_vert.h"

static void check(VkResult r, const char *what) {
  if (r == VK_SUCCESS) return;
  std::fprintf(stderr, "wt-headless-present: %s failed (VkResult %d)\n", what, (int)r);
  std::exit(1);
}

static bool hasInstanceExtension(const char *name) {
  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> all(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, all.data());
  for (const auto &e : all)
    if (!std::strcmp(e.extensionName, name)) return true;
  return false;
}

static VkShaderModule shader(VkDevice device, const uint32_t *code, size_t bytes) {
  VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  ci.codeSize = bytes;
  ci.pCode = code;
  VkShaderModule module;
  check(vkCreateShaderModule(device, &ci, nullptr, &module), "vkCreateShaderModule");
  return module;
}

static VkPipeline trianglePipeline(VkDevice device, VkRenderPass pass, VkPipelineLayout layout, VkExtent2D extent) {
  VkShaderModule vert = shader(device, kTriangleVert, sizeof kTriangleVert), frag = shader(device, kTriangleFrag, sizeof kTriangleFrag);
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}, {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT, stages[0].module = vert, stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT, stages[1].module = frag, stages[1].pName = "main";
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkViewport viewport{0, 0, (float)extent.width, (float)extent.height, 0, 1};
  VkRect2D scissor{{0, 0}, extent};
  VkPipelineViewportStateCreateInfo view{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  view.viewportCount = view.scissorCount = 1;
  view.pViewports = &viewport;
  view.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.lineWidth = 1;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xf;
  VkPipelineColorBlendStateCreateInfo blending{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blending.attachmentCount = 1;
  blending.pAttachments = &blend;
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.stageCount = 2;
  ci.pStages = stages;
  ci.pVertexInputState = &input;
  ci.pInputAssemblyState = &assembly;
  ci.pViewportState = &view;
  ci.pRasterizationState = &raster;
  ci.pMultisampleState = &multisample;
  ci.pColorBlendState = &blending;
  ci.layout = layout;
  ci.renderPass = pass;
  VkPipeline pipeline;
  check(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline), "vkCreateGraphicsPipelines");
  vkDestroyShaderModule(device, vert, nullptr);
  vkDestroyShaderModule(device, frag, nullptr);
  return pipeline;
}

int main(int argc, char **argv) {
  uint32_t frames = argc > 1 ? (uint32_t)std::strtoul(argv[1], nullptr, 10) : 10;
  if (!hasInstanceExtension(VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME)) {
    std::fprintf(stderr, "wt-headless-present: the instance offers no VK_EXT_headless_surface (run it under `warptrace capture --offscreen`)\n");
    return 1;
  }
  const char *instanceExtensions[] = {VK_KHR_SURFACE_EXTENSION_NAME, VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME};
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "wt-headless-present";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  ici.enabledExtensionCount = 2;
  ici.ppEnabledExtensionNames = instanceExtensions;
  VkInstance instance;
  check(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance");
  auto createHeadless = (PFN_vkCreateHeadlessSurfaceEXT)vkGetInstanceProcAddr(instance, "vkCreateHeadlessSurfaceEXT");
  if (!createHeadless) check(VK_ERROR_EXTENSION_NOT_PRESENT, "vkGetInstanceProcAddr(vkCreateHeadlessSurfaceEXT)");
  VkHeadlessSurfaceCreateInfoEXT hci{VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
  VkSurfaceKHR surface;
  check(createHeadless(instance, &hci, nullptr, &surface), "vkCreateHeadlessSurfaceEXT");

  uint32_t count = 1;
  VkPhysicalDevice physical;
  if (vkEnumeratePhysicalDevices(instance, &count, &physical) < 0 || count == 0) check(VK_ERROR_INITIALIZATION_FAILED, "vkEnumeratePhysicalDevices");
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
  uint32_t family = UINT32_MAX;
  for (uint32_t i = 0; i < families && family == UINT32_MAX; i++) {
    VkBool32 present = VK_FALSE;
    check(vkGetPhysicalDeviceSurfaceSupportKHR(physical, i, surface, &present), "vkGetPhysicalDeviceSurfaceSupportKHR");
    if (present && (props[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) family = i;
  }
  if (family == UINT32_MAX) check(VK_ERROR_INITIALIZATION_FAILED, "finding a graphics queue that presents to the surface");
  VkSurfaceCapabilitiesKHR caps;
  check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical, surface, &caps), "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  uint32_t formatCount = 0;
  vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &formatCount, nullptr);
  std::vector<VkSurfaceFormatKHR> formats(formatCount);
  check(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &formatCount, formats.data()), "vkGetPhysicalDeviceSurfaceFormatsKHR");
  if (formatCount == 0) check(VK_ERROR_FORMAT_NOT_SUPPORTED, "vkGetPhysicalDeviceSurfaceFormatsKHR (none)");
  VkSurfaceFormatKHR format = formats[0];
  for (const auto &f : formats)
    if (f.format == VK_FORMAT_B8G8R8A8_UNORM) format = f;
  // An undefined current extent (0xFFFFFFFF) lets the swapchain choose, as on Wayland.
  VkExtent2D extent = caps.currentExtent.width == 0xFFFFFFFFu ? VkExtent2D{160, 120} : caps.currentExtent;

  float priority = 1;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  const char *deviceExtensions[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qi;
  dci.enabledExtensionCount = 1;
  dci.ppEnabledExtensionNames = deviceExtensions;
  VkDevice device;
  check(vkCreateDevice(physical, &dci, nullptr, &device), "vkCreateDevice");
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  VkSwapchainCreateInfoKHR sci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  sci.surface = surface;
  sci.minImageCount = caps.maxImageCount == 0 || caps.minImageCount + 1 <= caps.maxImageCount ? caps.minImageCount + 1 : caps.maxImageCount;
  sci.imageFormat = format.format;
  sci.imageColorSpace = format.colorSpace;
  sci.imageExtent = extent;
  sci.imageArrayLayers = 1;
  sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  sci.preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
  sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  sci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
  sci.clipped = VK_TRUE;
  VkSwapchainKHR swapchain;
  check(vkCreateSwapchainKHR(device, &sci, nullptr, &swapchain), "vkCreateSwapchainKHR");
  uint32_t imageCount = 0;
  vkGetSwapchainImagesKHR(device, swapchain, &imageCount, nullptr);
  std::vector<VkImage> images(imageCount);
  check(vkGetSwapchainImagesKHR(device, swapchain, &imageCount, images.data()), "vkGetSwapchainImagesKHR");

  VkAttachmentDescription colour{};
  colour.format = format.format;
  colour.samples = VK_SAMPLE_COUNT_1_BIT;
  colour.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  colour.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  colour.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  colour.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  colour.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &ref;
  // The image is written only after the acquire semaphore's wait (at the colour output stage).
  VkSubpassDependency dependency{VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                 0, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0};
  VkRenderPassCreateInfo rpi{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  rpi.attachmentCount = 1;
  rpi.pAttachments = &colour;
  rpi.subpassCount = 1;
  rpi.pSubpasses = &subpass;
  rpi.dependencyCount = 1;
  rpi.pDependencies = &dependency;
  VkRenderPass pass;
  check(vkCreateRenderPass(device, &rpi, nullptr, &pass), "vkCreateRenderPass");
  std::vector<VkImageView> views(imageCount);
  std::vector<VkFramebuffer> framebuffers(imageCount);
  for (uint32_t i = 0; i < imageCount; i++) {
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = images[i];
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format.format;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    check(vkCreateImageView(device, &vi, nullptr, &views[i]), "vkCreateImageView");
    VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fi.renderPass = pass;
    fi.attachmentCount = 1;
    fi.pAttachments = &views[i];
    fi.width = extent.width;
    fi.height = extent.height;
    fi.layers = 1;
    check(vkCreateFramebuffer(device, &fi, nullptr, &framebuffers[i]), "vkCreateFramebuffer");
  }
  VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(float)};
  VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  VkPipelineLayout layout;
  check(vkCreatePipelineLayout(device, &li, nullptr, &layout), "vkCreatePipelineLayout");
  VkPipeline pipeline = trianglePipeline(device, pass, layout, extent);

  const uint32_t kInFlight = 2;
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = family;
  VkCommandPool pool;
  check(vkCreateCommandPool(device, &pci, nullptr, &pool), "vkCreateCommandPool");
  VkCommandBuffer cbs[kInFlight];
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.commandBufferCount = kInFlight;
  check(vkAllocateCommandBuffers(device, &ai, cbs), "vkAllocateCommandBuffers");
  VkSemaphore acquired[kInFlight], rendered[kInFlight];
  VkFence done[kInFlight], acquireFence;
  VkSemaphoreCreateInfo semi{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(vkCreateFence(device, &fci, nullptr, &acquireFence), "vkCreateFence");
  fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  for (uint32_t i = 0; i < kInFlight; i++) {
    check(vkCreateSemaphore(device, &semi, nullptr, &acquired[i]), "vkCreateSemaphore");
    check(vkCreateSemaphore(device, &semi, nullptr, &rendered[i]), "vkCreateSemaphore");
    check(vkCreateFence(device, &fci, nullptr, &done[i]), "vkCreateFence");
  }

  for (uint32_t frame = 0; frame < frames; frame++) {
    uint32_t slot = frame % kInFlight, index = 0;
    check(vkWaitForFences(device, 1, &done[slot], VK_TRUE, UINT64_MAX), "vkWaitForFences");
    check(vkResetFences(device, 1, &done[slot]), "vkResetFences");
    check(vkAcquireNextImageKHR(device, swapchain, UINT64_MAX, acquired[slot], acquireFence, &index), "vkAcquireNextImageKHR");
    check(vkWaitForFences(device, 1, &acquireFence, VK_TRUE, UINT64_MAX), "vkWaitForFences (acquire)");
    check(vkResetFences(device, 1, &acquireFence), "vkResetFences (acquire)");
    VkCommandBuffer cb = cbs[slot];
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    check(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
    VkClearValue clear{};
    clear.color = {{0.1f, 0.1f, 0.15f, 1}};
    VkRenderPassBeginInfo rb{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rb.renderPass = pass;
    rb.framebuffer = framebuffers[index];
    rb.renderArea = {{0, 0}, extent};
    rb.clearValueCount = 1;
    rb.pClearValues = &clear;
    vkCmdBeginRenderPass(cb, &rb, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    float offset = (float)(frame % 8) * 0.05f - 0.2f;
    vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof offset, &offset);
    vkCmdDraw(cb, 3, 1, 0, 0);
    vkCmdEndRenderPass(cb);
    check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    VkPipelineStageFlags wait = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &acquired[slot];
    si.pWaitDstStageMask = &wait;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &rendered[slot];
    check(vkQueueSubmit(queue, 1, &si, done[slot]), "vkQueueSubmit");
    VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    pi.waitSemaphoreCount = 1;
    pi.pWaitSemaphores = &rendered[slot];
    pi.swapchainCount = 1;
    pi.pSwapchains = &swapchain;
    pi.pImageIndices = &index;
    check(vkQueuePresentKHR(queue, &pi), "vkQueuePresentKHR");
  }
  check(vkDeviceWaitIdle(device), "vkDeviceWaitIdle");
  for (uint32_t i = 0; i < kInFlight; i++) {
    vkDestroySemaphore(device, acquired[i], nullptr);
    vkDestroySemaphore(device, rendered[i], nullptr);
    vkDestroyFence(device, done[i], nullptr);
  }
  vkDestroyFence(device, acquireFence, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  vkDestroyPipeline(device, pipeline, nullptr);
  vkDestroyPipelineLayout(device, layout, nullptr);
  for (uint32_t i = 0; i < imageCount; i++) vkDestroyFramebuffer(device, framebuffers[i], nullptr), vkDestroyImageView(device, views[i], nullptr);
  vkDestroyRenderPass(device, pass, nullptr);
  vkDestroySwapchainKHR(device, swapchain, nullptr);
  vkDestroyDevice(device, nullptr);
  vkDestroySurfaceKHR(instance, surface, nullptr);
  vkDestroyInstance(instance, nullptr);
  std::printf("{\"presented\": %u, \"images\": %u, \"format\": %d, \"width\": %u, \"height\": %u}\n", frames, imageCount, (int)format.format,
              extent.width, extent.height);
  return 0;
}
