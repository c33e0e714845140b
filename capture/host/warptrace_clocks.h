/*
 * warptrace_clocks.h: the clock check (wtCheckClocks): how the shaders' device clock relates to the
 * timestamp queries, sampled on the GPU with the embedded capture/host/clockcheck.comp, and the fit of
 * those samples (wtFitClockSamples, also run alone by test/native/clock-fit-driver.c). Separate because it
 * is a one-off calibration with its own pipeline, outside any capture.
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_CLOCKS_IMPLEMENTED)
#define WARPTRACE_CLOCKS_IMPLEMENTED

/* ---- clock check ---- */

/* capture/host/clockcheck.comp, compiled and stripped (see that file). */
static const uint32_t wtClockCheckSpirv_[] = {
    0x07230203, 0x00010300, 0x0008000b, 0x00000022, 0x00000000, 0x00020011, 0x00000001, 0x00020011,
    0x000013bf, 0x0007000a, 0x5f565053, 0x5f52484b, 0x64616873, 0x635f7265, 0x6b636f6c, 0x00000000,
    0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000,
    0x00000001, 0x0005000f, 0x00000005, 0x00000004, 0x6e69616d, 0x00000000, 0x00060010, 0x00000004,
    0x00000011, 0x00000001, 0x00000001, 0x00000001, 0x00040047, 0x00000008, 0x00000006, 0x00000004,
    0x00040047, 0x0000000a, 0x00000006, 0x00000010, 0x00050048, 0x0000000b, 0x00000000, 0x00000023,
    0x00000000, 0x00050048, 0x0000000b, 0x00000001, 0x00000023, 0x00000010, 0x00030047, 0x0000000b,
    0x00000002, 0x00040047, 0x0000000d, 0x00000022, 0x00000000, 0x00040047, 0x0000000d, 0x00000021,
    0x00000000, 0x00050048, 0x00000010, 0x00000000, 0x00000023, 0x00000000, 0x00030047, 0x00000010,
    0x00000002, 0x00040047, 0x00000021, 0x0000000b, 0x00000019, 0x00020013, 0x00000002, 0x00030021,
    0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000000, 0x0004002b, 0x00000006,
    0x00000007, 0x00000004, 0x0004001c, 0x00000008, 0x00000006, 0x00000007, 0x00040017, 0x00000009,
    0x00000006, 0x00000004, 0x0003001d, 0x0000000a, 0x00000009, 0x0004001e, 0x0000000b, 0x00000008,
    0x0000000a, 0x00040020, 0x0000000c, 0x0000000c, 0x0000000b, 0x0004003b, 0x0000000c, 0x0000000d,
    0x0000000c, 0x00040015, 0x0000000e, 0x00000020, 0x00000001, 0x0004002b, 0x0000000e, 0x0000000f,
    0x00000001, 0x0003001e, 0x00000010, 0x00000006, 0x00040020, 0x00000011, 0x00000009, 0x00000010,
    0x0004003b, 0x00000011, 0x00000012, 0x00000009, 0x0004002b, 0x0000000e, 0x00000013, 0x00000000,
    0x00040020, 0x00000014, 0x00000009, 0x00000006, 0x00040017, 0x00000017, 0x00000006, 0x00000002,
    0x0004002b, 0x00000006, 0x00000018, 0x00000001, 0x0004002b, 0x00000006, 0x0000001a, 0x00000000,
    0x00040020, 0x0000001e, 0x0000000c, 0x00000009, 0x00040017, 0x00000020, 0x00000006, 0x00000003,
    0x0006002c, 0x00000020, 0x00000021, 0x00000018, 0x00000018, 0x00000018, 0x00050036, 0x00000002,
    0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x00050041, 0x00000014, 0x00000015,
    0x00000012, 0x00000013, 0x0004003d, 0x00000006, 0x00000016, 0x00000015, 0x000413c0, 0x00000017,
    0x00000019, 0x00000018, 0x00050051, 0x00000006, 0x0000001b, 0x00000019, 0x00000000, 0x00050051,
    0x00000006, 0x0000001c, 0x00000019, 0x00000001, 0x00070050, 0x00000009, 0x0000001d, 0x0000001b,
    0x0000001c, 0x0000001a, 0x0000001a, 0x00060041, 0x0000001e, 0x0000001f, 0x0000000d, 0x0000000f,
    0x00000016, 0x0003003e, 0x0000001f, 0x0000001d, 0x000100fd, 0x00010038,
};

#define WT_CLOCK_SAMPLES_ 16u
/* Brackets may overlap by this much and still agree: a device-clock step (32 ns on NVIDIA) and rounding. */
#define WT_CLOCK_AGREE_NS_ 64.0

/* Busy-waits about `ms` milliseconds of CPU time (portable C99). */
static void wtSpin_(long ms) {
  clock_t until = clock() + (clock_t)(ms * (long)CLOCKS_PER_SEC / 1000);
  while (clock() < until) {
  }
}

static int wtCompareDoubles_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Intersection of brackets [t - k·d] over the samples in `use`; returns whether it is (nearly) non-empty. */
static int wtIntersect_(const double *before, const double *after, const double *dev, const unsigned char *use, uint32_t n, double k,
                        double *lo, double *hi) {
  *lo = -1e300, *hi = 1e300;
  for (uint32_t i = 0; i < n; i++) {
    if (!use[i]) continue;
    if (before[i] - k * dev[i] > *lo) *lo = before[i] - k * dev[i];
    if (after[i] - k * dev[i] < *hi) *hi = after[i] - k * dev[i];
  }
  return *lo <= *hi + WT_CLOCK_AGREE_NS_;
}

void wtFitClockSamples(const uint64_t *beforeTicks, const uint64_t *afterTicks, const uint64_t *deviceTicks, uint32_t n,
                       double period, wtClockCheck *out) {
  double before[WT_CLOCK_SAMPLES_], after[WT_CLOCK_SAMPLES_], dev[WT_CLOCK_SAMPLES_], widths[WT_CLOCK_SAMPLES_];
  unsigned char use[WT_CLOCK_SAMPLES_];
  memset(out, 0, sizeof *out);
  out->deviceNsPerTick = 1;
  out->sharedTimeBase = VK_TRUE;
  if (n == 0) return;
  if (n > WT_CLOCK_SAMPLES_) n = WT_CLOCK_SAMPLES_;
  if (!(period > 0)) period = 1;
  /* Relative to the first sample, so doubles stay exact at epoch-scale values (NVIDIA: ns since 1970). The device
     clock is unwrapped by signed 32-bit steps between consecutive reads: right for 64-bit and 32-bit clocks alike. */
  int64_t unwrapped = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i) unwrapped += (int32_t)(uint32_t)(deviceTicks[i] - deviceTicks[i - 1]);
    before[i] = (double)(int64_t)(beforeTicks[i] - beforeTicks[0]) * period;
    after[i] = (double)(int64_t)(afterTicks[i] - beforeTicks[0]) * period;
    dev[i] = (double)unwrapped;
    widths[i] = after[i] - before[i];
    use[i] = 1;
  }
  double sorted[WT_CLOCK_SAMPLES_];
  memcpy(sorted, widths, n * sizeof(double));
  qsort(sorted, n, sizeof(double), wtCompareDoubles_);
  double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  out->samples = n;
  out->samplesUsed = n;
  out->widestBracketNs = sorted[n - 1];
  out->medianBracketNs = median;
  double k = 1, lo, hi;
  /* At rate 1 every bracket, however wide, holds the true offset: if they all agree, that is the answer. */
  if (wtIntersect_(before, after, dev, use, n, 1, &lo, &hi)) {
    out->fit = WT_CLOCK_FIT_UNIT_RATE;
  } else {
    /* Another rate: fit it on the narrow brackets (a wide one says little about when the clock was read). */
    uint32_t kept = 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (uint32_t i = 0; i < n; i++) {
      use[i] = widths[i] <= 4 * median + 1000;
      if (!use[i]) continue;
      double mid = 0.5 * (before[i] + after[i]);
      kept++, sx += dev[i], sy += mid, sxx += dev[i] * dev[i], sxy += dev[i] * mid;
    }
    double det = kept * sxx - sx * sx;
    double fitted = kept >= 4 && det > 0 ? (kept * sxy - sx * sy) / det : 0;
    out->samplesUsed = kept;
    if (fitted > 0 && wtIntersect_(before, after, dev, use, n, fitted, &lo, &hi)) {
      k = fitted;
      out->fit = WT_CLOCK_FIT_RATE;
    } else {
      /* No line through every narrow bracket: keep rate 1 and the brackets' mean offset, and say so. */
      double mean = 0;
      for (uint32_t i = 0; i < n; i++)
        if (use[i]) mean += (0.5 * (before[i] + after[i]) - dev[i]) / kept;
      lo = hi = mean;
      out->fit = WT_CLOCK_FIT_DISAGREE;
    }
  }
  if (lo > hi) lo = hi = 0.5 * (lo + hi); /* overlapping within a clock step */
  /* Back to absolute values: timestamp ns - k · device ns at the first sample, exact when both count ns. */
  long double base = (long double)beforeTicks[0] * (long double)period - (long double)k * (long double)deviceTicks[0];
  out->deviceNsPerTick = k;
  out->offsetLowNs = (double)(base + lo);
  out->offsetHighNs = (double)(base + hi);
  out->sharedTimeBase = base + lo - WT_CLOCK_AGREE_NS_ <= 0 && 0 <= base + hi + WT_CLOCK_AGREE_NS_;
  long double shift = out->sharedTimeBase ? 0 : -(base + 0.5 * (lo + hi)) / period;
  out->timestampShiftTicks = (int64_t)(shift < 0 ? shift - 0.5 : shift + 0.5);
}

/* Records `count` clock samples starting at slot `first` (timestamps around each unless `timed` is 0), submits, waits. */
static VkResult wtSampleClocks_(wtTracer *t, VkQueue queue, VkCommandPool pool, VkPipeline pipeline, VkPipelineLayout layout,
                                VkQueryPool queries, VkFence fence, uint32_t first, uint32_t count, int timed, int readBack) {
  VkDevice d = t->device;
  VkResult r;
  VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  if ((r = vkAllocateCommandBuffers(d, &ai, &cmd)) != VK_SUCCESS) return r;
  VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if ((r = vkBeginCommandBuffer(cmd, &bi)) != VK_SUCCESS) return r;
  if (timed) vkCmdResetQueryPool(cmd, queries, 2 * first, 2 * count);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  uint32_t zero = 0;
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &t->set, 1, &zero);
  for (uint32_t i = first; i < first + count; i++) {
    wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
               VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * i);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &i);
    vkCmdDispatch(cmd, 1, 1, 1);
    wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
               VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * i + 1);
  }
  if (readBack) {
    VkBufferCopy region = {WT_BUFFER_HEADER_WORDS * 4, WT_BUFFER_HEADER_WORDS * 4, WT_CLOCK_SAMPLES_ * 16};
    wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
               VK_ACCESS_TRANSFER_READ_BIT);
    vkCmdCopyBuffer(cmd, t->traceBuffer, t->readbackBuffer, 1, &region);
    wtBarrier_(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  if ((r = vkEndCommandBuffer(cmd)) != VK_SUCCESS) return r;
  VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  if ((r = vkResetFences(d, 1, &fence)) != VK_SUCCESS) return r;
  if ((r = vkQueueSubmit(queue, 1, &si, fence)) != VK_SUCCESS) return r;
  return vkWaitForFences(d, 1, &fence, VK_TRUE, 10ull * 1000 * 1000 * 1000);
}

VkResult wtCheckClocks(wtTracer *t, VkQueue queue, uint32_t family, wtClockCheck *out) {
  memset(out, 0, sizeof *out);
  out->deviceNsPerTick = 1;
  out->sharedTimeBase = VK_TRUE;
  if (!t->caps.deviceClock || !t->queries || t->capacity < WT_CLOCK_SAMPLES_) return VK_SUCCESS;
  VkDevice d = t->device;
  VkResult r;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = sizeof wtClockCheckSpirv_;
  mi.pCode = wtClockCheckSpirv_;
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
  VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.setLayoutCount = 1;
  li.pSetLayouts = &t->setLayout;
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  VkComputePipelineCreateInfo ci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.pName = "main";
  VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = family;
  VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qi.queryCount = 2 * WT_CLOCK_SAMPLES_;
  VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  uint64_t ticks[2 * WT_CLOCK_SAMPLES_];
  uint32_t half = WT_CLOCK_SAMPLES_ / 2;
#define WT_TRY_(expr)               \
  do {                              \
    r = (expr);                     \
    if (r != VK_SUCCESS) goto done; \
  } while (0)
  WT_TRY_(vkCreateShaderModule(d, &mi, t->allocator, &module));
  WT_TRY_(vkCreatePipelineLayout(d, &li, t->allocator, &layout));
  ci.stage.module = module;
  ci.layout = layout;
  WT_TRY_(vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &ci, t->allocator, &pipeline));
  WT_TRY_(vkCreateCommandPool(d, &pi, t->allocator, &pool));
  WT_TRY_(vkCreateQueryPool(d, &qi, t->allocator, &queries));
  WT_TRY_(vkCreateFence(d, &fi, t->allocator, &fence));
  /* Warm-up, untimed: whatever the driver does on a pipeline's first dispatch happens here, not inside a bracket. */
  WT_TRY_(wtSampleClocks_(t, queue, pool, pipeline, layout, queries, fence, 0, 1, 0, 0));
  /* Two batches 20 ms apart, so a rate other than 1 can be measured. */
  WT_TRY_(wtSampleClocks_(t, queue, pool, pipeline, layout, queries, fence, 0, half, 1, 0));
  wtSpin_(20);
  WT_TRY_(wtSampleClocks_(t, queue, pool, pipeline, layout, queries, fence, half, half, 1, 1));
  WT_TRY_(vkGetQueryPoolResults(d, queries, 0, 2 * WT_CLOCK_SAMPLES_, sizeof ticks, ticks, sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  if (!t->readbackCoherent) {
    VkMappedMemoryRange mr = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    mr.memory = t->readbackMemory;
    mr.size = VK_WHOLE_SIZE;
    vkInvalidateMappedMemoryRanges(d, 1, &mr);
  }
  {
    const uint32_t *rec = (const uint32_t *)t->readbackMap + WT_BUFFER_HEADER_WORDS;
    uint64_t mask = t->caps.timestampValidBits >= 64 ? ~0ull : ((1ull << t->caps.timestampValidBits) - 1);
    uint64_t before[WT_CLOCK_SAMPLES_], after[WT_CLOCK_SAMPLES_], dev[WT_CLOCK_SAMPLES_];
    for (uint32_t i = 0; i < WT_CLOCK_SAMPLES_; i++) {
      dev[i] = (uint64_t)rec[4 * i] | ((uint64_t)rec[4 * i + 1] << 32);
      before[i] = ticks[2 * i] & mask;
      after[i] = ticks[2 * i + 1] & mask;
    }
    wtFitClockSamples(before, after, dev, WT_CLOCK_SAMPLES_, t->caps.timestampPeriod, out);
  }
  t->clocks = *out;
  t->clocksChecked = VK_TRUE;
done:
#undef WT_TRY_
  if (fence) vkDestroyFence(d, fence, t->allocator);
  if (queries) vkDestroyQueryPool(d, queries, t->allocator);
  if (pool) vkDestroyCommandPool(d, pool, t->allocator);
  if (pipeline) vkDestroyPipeline(d, pipeline, t->allocator);
  if (layout) vkDestroyPipelineLayout(d, layout, t->allocator);
  if (module) vkDestroyShaderModule(d, module, t->allocator);
  return r;
}

#endif /* WARPTRACE_CLOCKS_IMPLEMENTED */
