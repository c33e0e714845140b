/*
 * warptrace_resources.h: the tracer's Vulkan objects: the trace, readback and draw-id buffers, the
 * descriptor set that binds them (and the optional block and ray-event tables), the timestamp queries;
 * wtCreateTracer, wtDestroyTracer, wtMaxCapacity and the set layouts. Separate because it runs once per
 * tracer, apart from the per-capture commands that use what it makes.
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_RESOURCES_IMPLEMENTED)
#define WARPTRACE_RESOURCES_IMPLEMENTED

uint32_t wtMaxCapacity(VkPhysicalDevice physicalDevice) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physicalDevice, &props);
  uint64_t records = ((uint64_t)props.limits.maxStorageBufferRange - WT_BUFFER_HEADER_WORDS * 4ull) / WT_RECORD_BYTES;
  return records > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)records;
}

static int wtFindMemory_(VkPhysicalDevice pd, uint32_t typeBits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
      VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
      if (!(typeBits & (1u << i)) || (f & want) != want) continue;
      if (pass == 0 && (f & avoid)) continue;
      return (int)i;
    }
  }
  return -1;
}

static VkResult wtMakeBuffer_(wtTracer *t, VkPhysicalDevice pd, VkDeviceSize size, VkBufferUsageFlags usage,
                              VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer, VkBuffer *buffer, VkDeviceMemory *memory,
                              VkMemoryPropertyFlags *got) {
  VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  VkResult r = vkCreateBuffer(t->device, &bi, t->allocator, buffer);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(t->device, *buffer, &req);
  int type = wtFindMemory_(pd, req.memoryTypeBits, want | prefer, 0);
  if (type < 0) type = wtFindMemory_(pd, req.memoryTypeBits, want, 0);
  if (type < 0) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  if (got) *got = mp.memoryTypes[type].propertyFlags;
  VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = (uint32_t)type;
  /* A buffer with a device address needs memory that has one. */
  VkMemoryAllocateFlagsInfo flags = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) ai.pNext = &flags;
  r = vkAllocateMemory(t->device, &ai, t->allocator, memory);
  if (r != VK_SUCCESS) return r;
  return vkBindBufferMemory(t->device, *buffer, *memory, 0);
}

/* Creates the tracer's resources; on failure the caller destroys what exists. */
static VkResult wtInitTracer_(wtTracer *t, const wtTracerInfo *info) {
  VkResult r;
#define WT_TRY_(expr)              \
  do {                             \
    r = (expr);                    \
    if (r != VK_SUCCESS) return r; \
  } while (0)
  VkShaderStageFlags stages = info->stages ? info->stages : WT_ALL_STAGES_;
  VkDeviceSize align = info->caps->minUniformBufferOffsetAlignment;
  /* Each draw's block covers every word a shader may read (the block profile's stage words included). */
  t->uboStride = align < WT_DRAW_ID_BLOCK_BYTES ? WT_DRAW_ID_BLOCK_BYTES : align;
  t->traceBytes = WT_BUFFER_HEADER_WORDS * 4ull + (VkDeviceSize)t->capacity * WT_RECORD_BYTES;
  /* The shaders see the trace buffer through one storage-buffer descriptor: a range past the device's limit is
     undefined (llvmpipe, 128 MiB, crashed the app). Ask for at most wtMaxCapacity(). */
  if (t->capacity > wtMaxCapacity(info->physicalDevice)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  t->labels = (wtLabel_ *)calloc(t->maxDraws, sizeof *t->labels);
  if (!t->labels) return VK_ERROR_OUT_OF_HOST_MEMORY;
  /* The trace buffer lives in device memory: shaders' stores stay on the GPU. */
  WT_TRY_(wtMakeBuffer_(t, info->physicalDevice, t->traceBytes,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                            t->addressUsage,
                        0,
                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &t->traceBuffer, &t->traceMemory, NULL));
  if (info->blockCells) WT_TRY_(wtBlocksCreate_(t, info->physicalDevice, info->blockCells));
  if (info->rayEventRows) WT_TRY_(wtRaysCreate_(t, info->physicalDevice, info));
  VkMemoryPropertyFlags got = 0;
  /* The block table comes back behind the records, the ray-event rows behind it. */
  WT_TRY_(wtMakeBuffer_(t, info->physicalDevice, t->traceBytes + t->blockBytes + (t->rays ? wtRaysReadBytes_(t->rays) : 0), VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                        VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &t->readbackBuffer, &t->readbackMemory, &got));
  t->readbackCoherent = (got & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  WT_TRY_(vkMapMemory(t->device, t->readbackMemory, 0, VK_WHOLE_SIZE, 0, &t->readbackMap));
  WT_TRY_(wtMakeBuffer_(t, info->physicalDevice, t->uboStride * t->maxDraws, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | t->addressUsage,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, &t->drawIdBuffer,
                        &t->drawIdMemory, NULL));
  /* Entry d holds draw id d: binding at offset d * stride gives a draw its id. No block row until
     wtSetDrawBlockRow gives one (also without a table: a module with blocks then counts nothing); stage
     offsets 0 until wtSetDrawBlockStageOffsets writes them. */
  void *map = NULL;
  WT_TRY_(vkMapMemory(t->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map));
  memset(map, 0, (size_t)(t->uboStride * t->maxDraws));
  for (uint32_t d = 0; d < t->maxDraws; d++) {
    uint32_t *entry = (uint32_t *)((char *)map + d * t->uboStride);
    entry[0] = d;
    entry[WT_DRAW_BLOCK_ROW_WORD] = WT_NO_BLOCK_ROW;
    entry[WT_DRAW_RAY_ROW_WORD] = WT_NO_RAY_ROW;
  }
  vkUnmapMemory(t->device, t->drawIdMemory);

  VkDescriptorSetLayoutBinding b[4];
  memset(b, 0, sizeof b);
  b[0].binding = t->binding;
  b[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  b[0].descriptorCount = 1;
  b[0].stageFlags = stages;
  b[1].binding = t->binding + 1;
  b[1].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
  b[1].descriptorCount = 1;
  b[1].stageFlags = stages;
  /* The optional tables follow at their offsets: a binding number may stay unused (blocks off, ray events on). */
  uint32_t bindings = 2;
  if (t->blocks) {
    b[bindings] = b[0];
    b[bindings++].binding = t->binding + WT_BLOCK_BINDING_OFFSET;
  }
  if (t->rays) {
    b[bindings] = b[0];
    b[bindings++].binding = t->binding + WT_RAY_EVENT_BINDING_OFFSET;
  }
  VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = bindings;
  li.pBindings = b;
  WT_TRY_(vkCreateDescriptorSetLayout(t->device, &li, t->allocator, &t->setLayout));
  VkDescriptorSetLayoutCreateInfo empty = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  WT_TRY_(vkCreateDescriptorSetLayout(t->device, &empty, t->allocator, &t->emptySetLayout));
  VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings - 1}, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1}};
  VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pi.maxSets = 1;
  pi.poolSizeCount = 2;
  pi.pPoolSizes = sizes;
  WT_TRY_(vkCreateDescriptorPool(t->device, &pi, t->allocator, &t->pool));
  VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = t->pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &t->setLayout;
  WT_TRY_(vkAllocateDescriptorSets(t->device, &ai, &t->set));
  VkDescriptorBufferInfo traceInfo = {t->traceBuffer, 0, t->traceBytes};
  VkDescriptorBufferInfo drawInfo = {t->drawIdBuffer, 0, WT_DRAW_ID_BLOCK_BYTES};
  VkDescriptorBufferInfo blockInfo = {t->blockBuffer, 0, VK_WHOLE_SIZE};
  VkDescriptorBufferInfo rayInfo = {t->rayBuffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w[4];
  memset(w, 0, sizeof w);
  for (int i = 0; i < 4; i++) {
    w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w[i].dstSet = t->set;
    w[i].descriptorCount = 1;
  }
  w[0].dstBinding = t->binding;
  w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w[0].pBufferInfo = &traceInfo;
  w[1].dstBinding = t->binding + 1;
  w[1].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
  w[1].pBufferInfo = &drawInfo;
  uint32_t writes = 2;
  if (t->blocks) {
    w[writes] = w[0];
    w[writes].dstBinding = t->binding + WT_BLOCK_BINDING_OFFSET;
    w[writes++].pBufferInfo = &blockInfo;
  }
  if (t->rays) {
    w[writes] = w[0];
    w[writes].dstBinding = t->binding + WT_RAY_EVENT_BINDING_OFFSET;
    w[writes++].pBufferInfo = &rayInfo;
  }
  vkUpdateDescriptorSets(t->device, writes, w, 0, NULL);
  if (t->caps.timestampValidBits > 0) {
    VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 1 + 2 * t->maxDraws;
    WT_TRY_(vkCreateQueryPool(t->device, &qi, t->allocator, &t->queries));
  }
#undef WT_TRY_
  return VK_SUCCESS;
}

VkResult wtCreateTracer(const wtTracerInfo *info, wtTracer **out) {
  *out = NULL;
  wtTracer *t = (wtTracer *)calloc(1, sizeof *t);
  if (!t) return VK_ERROR_OUT_OF_HOST_MEMORY;
  t->device = info->device;
  t->allocator = info->allocator;
  t->caps = *info->caps;
  t->capacity = info->capacity ? info->capacity : WT_DEFAULT_CAPACITY;
  t->maxDraws = info->maxDraws ? info->maxDraws : WT_DEFAULT_MAX_DRAWS;
  t->binding = info->binding;
  t->addressUsage = info->deviceAddress ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0;
  VkResult r = wtInitTracer_(t, info);
  if (r != VK_SUCCESS) {
    wtDestroyTracer(t);
    return r;
  }
  *out = t;
  return VK_SUCCESS;
}

void wtDestroyTracer(wtTracer *t) {
  if (!t) return;
  VkDevice d = t->device;
  if (t->queries) vkDestroyQueryPool(d, t->queries, t->allocator);
  if (t->pool) vkDestroyDescriptorPool(d, t->pool, t->allocator);
  if (t->setLayout) vkDestroyDescriptorSetLayout(d, t->setLayout, t->allocator);
  if (t->emptySetLayout) vkDestroyDescriptorSetLayout(d, t->emptySetLayout, t->allocator);
  VkBuffer buffers[3] = {t->traceBuffer, t->readbackBuffer, t->drawIdBuffer};
  VkDeviceMemory memories[3] = {t->traceMemory, t->readbackMemory, t->drawIdMemory};
  for (int i = 0; i < 3; i++) {
    if (buffers[i]) vkDestroyBuffer(d, buffers[i], t->allocator);
    if (memories[i]) vkFreeMemory(d, memories[i], t->allocator);
  }
  wtBlocksDestroy_(t);
  wtRaysDestroy_(t);
  free(t->labels);
  free(t);
}

VkDescriptorSetLayout wtTracerSetLayout(const wtTracer *t) { return t->setLayout; }
VkDescriptorSetLayout wtTracerEmptySetLayout(const wtTracer *t) { return t->emptySetLayout; }

#endif /* WARPTRACE_RESOURCES_IMPLEMENTED */
