/*
 * warptrace_caps.h: what the device offers and what to enable on it (wtQueryCaps, wtUnsupportedReason,
 * wtShaderDefines, wtPrepareDevice, wtPrepareBlockDevice). Separate because it runs before any tracer
 * exists: it reads only the physical device.
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_CAPS_IMPLEMENTED)
#define WARPTRACE_CAPS_IMPLEMENTED

static int wtHasExtension_(const VkExtensionProperties *exts, uint32_t count, const char *name) {
  for (uint32_t i = 0; i < count; i++)
    if (strcmp(exts[i].extensionName, name) == 0) return 1;
  return 0;
}

static const char *wtVendorName_(uint32_t id) {
  switch (id) {
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x13b5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x106b: return "Apple";
    case 0x10005: return "Mesa";
    default: return "";
  }
}

void wtQueryCaps(VkPhysicalDevice pd, wtCaps *caps) {
  memset(caps, 0, sizeof *caps);
  uint32_t extCount = 0;
  vkEnumerateDeviceExtensionProperties(pd, NULL, &extCount, NULL);
  VkExtensionProperties *exts = (VkExtensionProperties *)calloc(extCount ? extCount : 1, sizeof *exts);
  vkEnumerateDeviceExtensionProperties(pd, NULL, &extCount, exts);
  caps->hasShaderClockExtension = wtHasExtension_(exts, extCount, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  caps->hasSmBuiltinsExtension = wtHasExtension_(exts, extCount, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  caps->hasAtomicInt64Extension = wtHasExtension_(exts, extCount, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME);
  int hasDriverProps = wtHasExtension_(exts, extCount, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  free(exts);

  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smProps = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceSubgroupProperties subgroup = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  if (caps->hasSmBuiltinsExtension) {
    smProps.pNext = props.pNext;
    props.pNext = &smProps;
  }
  VkPhysicalDeviceProperties basic;
  vkGetPhysicalDeviceProperties(pd, &basic);
  if (hasDriverProps || basic.apiVersion >= VK_API_VERSION_1_2) {
    driver.pNext = props.pNext;
    props.pNext = &driver;
  }
  vkGetPhysicalDeviceProperties2(pd, &props);
  const VkPhysicalDeviceProperties *p = &props.properties;
  snprintf(caps->deviceName, sizeof caps->deviceName, "%s", p->deviceName);
  snprintf(caps->vendor, sizeof caps->vendor, "%s", wtVendorName_(p->vendorID));
  caps->vendorId = p->vendorID;
  caps->deviceId = p->deviceID;
  caps->apiVersion = p->apiVersion;
  caps->driverVersion = p->driverVersion;
  snprintf(caps->driverName, sizeof caps->driverName, "%s", driver.driverName);
  if (p->vendorID == 0x10de) {
    snprintf(caps->driverVersionText, sizeof caps->driverVersionText, "%u.%u.%u", p->driverVersion >> 22,
             (p->driverVersion >> 14) & 0xff, (p->driverVersion >> 6) & 0xff);
  } else {
    snprintf(caps->driverVersionText, sizeof caps->driverVersionText, "%u.%u.%u", VK_API_VERSION_MAJOR(p->driverVersion),
             VK_API_VERSION_MINOR(p->driverVersion), VK_API_VERSION_PATCH(p->driverVersion));
  }
  if (driver.driverInfo[0] != 0 && strlen(driver.driverInfo) < 40) {
    size_t n = strlen(caps->driverVersionText);
    snprintf(caps->driverVersionText + n, sizeof caps->driverVersionText - n, " (%s)", driver.driverInfo);
  }
  caps->smCount = caps->hasSmBuiltinsExtension ? smProps.shaderSMCount : 0;
  caps->warpsPerSm = caps->hasSmBuiltinsExtension ? smProps.shaderWarpsPerSM : 0;
  caps->subgroupSize = subgroup.subgroupSize;
  VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;
  caps->subgroupStages = (subgroup.supportedOperations & needed) == needed ? subgroup.supportedStages : 0;
  caps->subgroupArithmetic = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
  caps->timestampPeriod = p->limits.timestampPeriod;
  caps->timestampComputeAndGraphics = p->limits.timestampComputeAndGraphics;
  caps->maxBoundDescriptorSets = p->limits.maxBoundDescriptorSets;
  caps->minUniformBufferOffsetAlignment = p->limits.minUniformBufferOffsetAlignment;

  VkPhysicalDeviceShaderClockFeaturesKHR clock = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
  VkPhysicalDeviceShaderAtomicInt64Features int64 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
  VkPhysicalDeviceFeatures2 features = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  if (caps->hasAtomicInt64Extension || caps->apiVersion >= VK_API_VERSION_1_2) {
    int64.pNext = features.pNext;
    features.pNext = &int64;
  }
  if (caps->hasShaderClockExtension) {
    clock.pNext = features.pNext;
    features.pNext = &clock;
  }
  if (caps->hasSmBuiltinsExtension) {
    sm.pNext = features.pNext;
    features.pNext = &sm;
  }
  vkGetPhysicalDeviceFeatures2(pd, &features);
  caps->subgroupClock = clock.shaderSubgroupClock;
  caps->deviceClock = clock.shaderDeviceClock;
  caps->smBuiltins = sm.shaderSMBuiltins;
  caps->bufferInt64Atomics = int64.shaderBufferInt64Atomics;
  caps->vertexPipelineStoresAndAtomics = features.features.vertexPipelineStoresAndAtomics;
  caps->fragmentStoresAndAtomics = features.features.fragmentStoresAndAtomics;
  caps->tessellationShader = features.features.tessellationShader;
  caps->geometryShader = features.features.geometryShader;

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, NULL);
  VkQueueFamilyProperties *families = (VkQueueFamilyProperties *)calloc(familyCount ? familyCount : 1, sizeof *families);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, families);
  for (uint32_t i = 0; i < familyCount; i++) {
    VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    if ((families[i].queueFlags & want) == want) {
      caps->timestampValidBits = families[i].timestampValidBits;
      break;
    }
  }
  free(families);
}

const char *wtUnsupportedReason(const wtCaps *caps, VkShaderStageFlags traced) {
  if (traced == 0) traced = WT_ALL_STAGES_;
  if (!caps->hasShaderClockExtension) return "the device lacks VK_KHR_shader_clock (shaders cannot read a clock)";
  if (!caps->subgroupClock && !caps->deviceClock) return "VK_KHR_shader_clock offers neither shaderSubgroupClock nor shaderDeviceClock";
  if ((traced & (VK_SHADER_STAGE_ALL_GRAPHICS & ~VK_SHADER_STAGE_FRAGMENT_BIT)) && !caps->vertexPipelineStoresAndAtomics)
    return "the device lacks vertexPipelineStoresAndAtomics (VS/TCS/TES/GS cannot write trace records)";
  if ((traced & VK_SHADER_STAGE_FRAGMENT_BIT) && !caps->fragmentStoresAndAtomics)
    return "the device lacks fragmentStoresAndAtomics (fragment shaders cannot write trace records)";
  if (caps->maxBoundDescriptorSets <= WT_DEFAULT_SET)
    return "maxBoundDescriptorSets is too small for the trace set (compile the shaders with a lower -DWT_SET)";
  return NULL;
}

int wtShaderDefines(const wtCaps *caps, VkShaderStageFlagBits stage, char *out, size_t outSize) {
  /* The screen position takes record word 3 (lanes 32..63 otherwise) and, per subgroup, min/max. */
  int subgroup = (caps->subgroupStages & stage) ? 1 : 0;
  int position = caps->subgroupSize <= 32 && (!subgroup || caps->subgroupArithmetic);
  return snprintf(out, outSize, "-DWT_ENABLE -DWT_SUBGROUP_CLOCK=%d -DWT_DEVICE_CLOCK=%d -DWT_SM_BUILTINS=%d -DWT_SUBGROUP=%d%s",
                  caps->subgroupClock ? 1 : 0, caps->deviceClock ? 1 : 0, caps->smBuiltins ? 1 : 0, subgroup,
                  position ? "" : " -DWT_POSITION=0");
}

void wtPrepareDevice(const wtCaps *caps, wtDeviceSetup *setup, const void **pNextChain, VkPhysicalDeviceFeatures *features) {
  memset(setup, 0, sizeof *setup);
  setup->clockFeatures.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  setup->smFeatures.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV;
  if (caps->hasShaderClockExtension) {
    setup->extensions[setup->extensionCount++] = VK_KHR_SHADER_CLOCK_EXTENSION_NAME;
    setup->clockFeatures.shaderSubgroupClock = caps->subgroupClock;
    setup->clockFeatures.shaderDeviceClock = caps->deviceClock;
    setup->clockFeatures.pNext = (void *)*pNextChain;
    *pNextChain = &setup->clockFeatures;
  }
  if (caps->hasSmBuiltinsExtension && caps->smBuiltins) {
    setup->extensions[setup->extensionCount++] = VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME;
    setup->smFeatures.shaderSMBuiltins = VK_TRUE;
    setup->smFeatures.pNext = (void *)*pNextChain;
    *pNextChain = &setup->smFeatures;
  }
  if (features) {
    features->vertexPipelineStoresAndAtomics |= caps->vertexPipelineStoresAndAtomics;
    features->fragmentStoresAndAtomics |= caps->fragmentStoresAndAtomics;
  }
}

int wtPrepareBlockDevice(const wtCaps *caps, wtDeviceSetup *setup, const void **pNextChain) {
  if (!caps->bufferInt64Atomics) return 0;
  setup->int64Features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
  setup->int64Features.shaderBufferInt64Atomics = VK_TRUE;
  if (caps->apiVersion < VK_API_VERSION_1_2) setup->extensions[setup->extensionCount++] = VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME;
  setup->int64Features.pNext = (void *)*pNextChain;
  *pNextChain = &setup->int64Features;
  return 1;
}

#endif /* WARPTRACE_CAPS_IMPLEMENTED */
