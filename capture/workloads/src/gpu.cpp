#define WARPTRACE_IMPLEMENTATION
#include "gpu.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

void fatal(const char *format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fputs("wt-capture-vk: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::exit(1);
}

void check(VkResult result, const char *what) {
  if (result != VK_SUCCESS) fatal("%s failed (VkResult %d)", what, static_cast<int>(result));
}

VkInstance createInstance(bool vulkan10) {
  uint32_t version = 0;
  // The loader may be missing its 1.1 entry point on very old systems.
  if (!vulkan10 && (vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_1))
    fatal("no Vulkan device: the Vulkan loader is older than 1.1");
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "wt-capture-vk";
  app.apiVersion = vulkan10 ? VK_API_VERSION_1_0 : VK_API_VERSION_1_3;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  VkResult r = vkCreateInstance(&ci, nullptr, &instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) fatal("no Vulkan device: no Vulkan driver (ICD) was found");
  check(r, "vkCreateInstance");
  return instance;
}

std::vector<VkPhysicalDevice> physicalDevices(VkInstance instance) {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count) vkEnumeratePhysicalDevices(instance, &count, devices.data());
  return devices;
}

static int graphicsComputeFamily(VkPhysicalDevice pd) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
  for (uint32_t i = 0; i < count; i++) {
    VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    if ((families[i].queueFlags & want) == want) return static_cast<int>(i);
  }
  return -1;
}

Gpu createGpu(int index, bool wantExecutableStats, bool tracing, uint32_t needs, bool vulkan10) {
  // A 1.0 app is an ordinary one: nothing beyond Vulkan 1.0 (no feature structs, no extension).
  if (vulkan10 && (wantExecutableStats || tracing || needs)) fatal("internal: --vulkan-1.0 is for --app workloads without extra features");
  Gpu gpu;
  gpu.vulkan10 = vulkan10;
  gpu.instance = createInstance(vulkan10);
  std::vector<VkPhysicalDevice> devices = physicalDevices(gpu.instance);
  if (devices.empty()) fatal("no Vulkan device: the loader found no physical device");
  if (index >= static_cast<int>(devices.size())) fatal("no Vulkan device %d (found %zu)", index, devices.size());
  if (index < 0) {
    int best = -1, bestScore = -1;
    for (size_t i = 0; i < devices.size(); i++) {
      if (graphicsComputeFamily(devices[i]) < 0) continue;
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devices[i], &p);
      int score = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 3 : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2 : 1;
      if (score > bestScore) best = static_cast<int>(i), bestScore = score;
    }
    if (best < 0) fatal("no Vulkan device with a graphics + compute queue");
    index = best;
  }
  gpu.physical = devices[static_cast<size_t>(index)];
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gpu.physical, &props);
  if (!vulkan10 && props.apiVersion < VK_API_VERSION_1_3)
    fatal("%s supports Vulkan %u.%u; the reference workloads need 1.3 (dynamic rendering)", props.deviceName,
          VK_API_VERSION_MAJOR(props.apiVersion), VK_API_VERSION_MINOR(props.apiVersion));
  int family = graphicsComputeFamily(gpu.physical);
  if (family < 0) fatal("%s has no graphics + compute queue", props.deviceName);
  gpu.family = static_cast<uint32_t>(family);
  if (tracing) {
    wtQueryCaps(gpu.physical, &gpu.caps);
    if (const char *why = wtUnsupportedReason(&gpu.caps, 0)) fatal("%s: %s", gpu.caps.deviceName, why);
  }
  VkPhysicalDeviceFeatures supported;
  vkGetPhysicalDeviceFeatures(gpu.physical, &supported);
  if (!supported.tessellationShader) fatal("%s lacks the tessellationShader feature", props.deviceName);
  if (!supported.geometryShader) fatal("%s lacks the geometryShader feature", props.deviceName);

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = gpu.family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;

  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  v13.dynamicRendering = VK_TRUE;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &v13;
  features.features.tessellationShader = VK_TRUE;
  features.features.geometryShader = VK_TRUE;
  // Tracing: the shader clock, SM builtins and stores in VS/FS; an ordinary app (--app) asks for none of it.
  wtDeviceSetup setup{};
  if (tracing) {
    const void *chain = features.pNext;
    wtPrepareDevice(&gpu.caps, &setup, &chain, &features.features);
    // Block profiles' counters are 64-bit atomics: asked for wherever the device has them (--blocks needs them).
    wtPrepareBlockDevice(&gpu.caps, &setup, &chain);
    features.pNext = const_cast<void *>(chain);
  }

  std::vector<const char *> extensions(setup.extensions, setup.extensions + setup.extensionCount);
  OptionalFeatures optional;
  if (needs) {
    void *chain = features.pNext;
    requireOptionalFeatures(gpu.physical, needs, optional, &chain);
    features.pNext = chain;
    extensions.insert(extensions.end(), optional.extensions.begin(), optional.extensions.end());
    gpu.needs = needs;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (wantExecutableStats) {
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(gpu.physical, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> available(count);
    vkEnumerateDeviceExtensionProperties(gpu.physical, nullptr, &count, available.data());
    for (auto &e : available)
      if (std::strcmp(e.extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0) gpu.executableStats = true;
    if (gpu.executableStats) {
      extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
      executable.pipelineExecutableInfo = VK_TRUE;
      executable.pNext = features.pNext;
      features.pNext = &executable;
    }
  }
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  // VkPhysicalDeviceFeatures2 in the chain is 1.1 (or VK_KHR_get_physical_device_properties2): a 1.0 app names the core features alone.
  if (vulkan10) dci.pEnabledFeatures = &features.features;
  else dci.pNext = &features;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qi;
  dci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  dci.ppEnabledExtensionNames = extensions.data();
  check(vkCreateDevice(gpu.physical, &dci, nullptr, &gpu.device), "vkCreateDevice");
  vkGetDeviceQueue(gpu.device, gpu.family, 0, &gpu.queue);

  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pi.queueFamilyIndex = gpu.family;
  check(vkCreateCommandPool(gpu.device, &pi, nullptr, &gpu.commandPool), "vkCreateCommandPool");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(vkCreateFence(gpu.device, &fi, nullptr, &gpu.fence), "vkCreateFence");
  return gpu;
}

void destroyGpu(Gpu &gpu) {
  if (gpu.device) {
    vkDeviceWaitIdle(gpu.device);
    vkDestroyFence(gpu.device, gpu.fence, nullptr);
    vkDestroyCommandPool(gpu.device, gpu.commandPool, nullptr);
    vkDestroyDevice(gpu.device, nullptr);
  }
  if (gpu.instance) vkDestroyInstance(gpu.instance, nullptr);
  gpu = Gpu{};
}

static uint32_t memoryType(Gpu &gpu, uint32_t bits, VkMemoryPropertyFlags want) {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(gpu.physical, &mp);
  for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
    if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
  for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
    if (bits & (1u << i)) return i;
  fatal("no memory type for a buffer");
}

Buffer createBuffer(Gpu &gpu, VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible) {
  Buffer b;
  b.size = size;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  check(vkCreateBuffer(gpu.device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(gpu.device, b.buffer, &req);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) ai.pNext = &flags;
  ai.memoryTypeIndex = memoryType(gpu, req.memoryTypeBits,
                                  hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                              : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  check(vkAllocateMemory(gpu.device, &ai, nullptr, &b.memory), "vkAllocateMemory");
  check(vkBindBufferMemory(gpu.device, b.buffer, b.memory, 0), "vkBindBufferMemory");
  if (hostVisible) check(vkMapMemory(gpu.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.map), "vkMapMemory");
  return b;
}

void destroyBuffer(Gpu &gpu, Buffer &b) {
  if (b.buffer) vkDestroyBuffer(gpu.device, b.buffer, nullptr);
  if (b.memory) vkFreeMemory(gpu.device, b.memory, nullptr);
  b = Buffer{};
}

Image createImage(Gpu &gpu, uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect) {
  Image img;
  img.format = format;
  VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ii.imageType = VK_IMAGE_TYPE_2D;
  ii.format = format;
  ii.extent = {width, height, 1};
  ii.mipLevels = 1;
  ii.arrayLayers = 1;
  ii.samples = VK_SAMPLE_COUNT_1_BIT;
  ii.tiling = VK_IMAGE_TILING_OPTIMAL;
  ii.usage = usage;
  check(vkCreateImage(gpu.device, &ii, nullptr, &img.image), "vkCreateImage");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(gpu.device, img.image, &req);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) ai.pNext = &flags;
  ai.memoryTypeIndex = memoryType(gpu, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  check(vkAllocateMemory(gpu.device, &ai, nullptr, &img.memory), "vkAllocateMemory");
  check(vkBindImageMemory(gpu.device, img.image, img.memory, 0), "vkBindImageMemory");
  VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vi.image = img.image;
  vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vi.format = format;
  vi.subresourceRange = {aspect, 0, 1, 0, 1};
  check(vkCreateImageView(gpu.device, &vi, nullptr, &img.view), "vkCreateImageView");
  return img;
}

void destroyImage(Gpu &gpu, Image &img) {
  if (img.view) vkDestroyImageView(gpu.device, img.view, nullptr);
  if (img.image) vkDestroyImage(gpu.device, img.image, nullptr);
  if (img.memory) vkFreeMemory(gpu.device, img.memory, nullptr);
  img = Image{};
}

VkCommandBuffer beginCommands(Gpu &gpu) {
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = gpu.commandPool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  check(vkAllocateCommandBuffers(gpu.device, &ai, &cmd), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
  return cmd;
}

void submitAndWait(Gpu &gpu, VkCommandBuffer cmd) {
  check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  check(vkResetFences(gpu.device, 1, &gpu.fence), "vkResetFences");
  check(vkQueueSubmit(gpu.queue, 1, &si, gpu.fence), "vkQueueSubmit");
  VkResult r = vkWaitForFences(gpu.device, 1, &gpu.fence, VK_TRUE, 120ull * 1000 * 1000 * 1000);
  if (r == VK_TIMEOUT) fatal("the GPU did not finish a frame within 120 s");
  if (r == VK_ERROR_DEVICE_LOST) fatal("the GPU was lost (device lost) while running a frame");
  check(r, "vkWaitForFences");
  vkFreeCommandBuffers(gpu.device, gpu.commandPool, 1, &cmd);
}

void fullBarrier(VkCommandBuffer cmd) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
}

std::vector<uint32_t> readSpirv(const std::string &path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fatal("missing shader %s", path.c_str());
  std::streamsize size = in.tellg();
  if (size <= 0 || size % 4 != 0) fatal("%s is not SPIR-V (%lld bytes)", path.c_str(), static_cast<long long>(size));
  std::vector<uint32_t> words(static_cast<size_t>(size) / 4);
  in.seekg(0);
  in.read(reinterpret_cast<char *>(words.data()), size);
  if (words[0] != 0x07230203u) fatal("%s is not SPIR-V (bad magic)", path.c_str());
  return words;
}

VkShaderModule loadShaderModule(Gpu &gpu, const std::string &path) {
  std::vector<uint32_t> words = readSpirv(path);
  VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  ci.codeSize = words.size() * 4;
  ci.pCode = words.data();
  VkShaderModule module;
  VkResult r = vkCreateShaderModule(gpu.device, &ci, nullptr, &module);
  if (r != VK_SUCCESS) fatal("the driver rejected %s (VkResult %d)", path.c_str(), static_cast<int>(r));
  return module;
}

std::string jsonEscape(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

void markDrawUntraced(Gpu &gpu, wtTracer *tracer, uint32_t draw) {
  // The tracer's fields are visible here (WARPTRACE_IMPLEMENTATION), as in the layer's tracer_glue.cpp.
  if (draw >= tracer->maxDraws) fatal("--skip-draw %u: the draw-id table holds %u draws", draw, tracer->maxDraws);
  void *map = nullptr;
  check(vkMapMemory(gpu.device, tracer->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map), "mapping the draw-id table");
  *reinterpret_cast<uint32_t *>(static_cast<char *>(map) + draw * tracer->uboStride) = WT_NO_DRAW;
  vkUnmapMemory(gpu.device, tracer->drawIdMemory);
}
