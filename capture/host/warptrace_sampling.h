/*
 * warptrace_sampling.h: warp sampling rates (shared-schema/sample-layout.ts): wtSetSampling writes them
 * into the draw-id table, wtParseSampleRate reads "STAGE=N", and the metadata's "sampling" member says
 * what was chosen. Separate because the rates, their text form and their record in the metadata are one
 * concern that the capture commands do not touch.
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_SAMPLING_IMPLEMENTED)
#define WARPTRACE_SAMPLING_IMPLEMENTED

VkResult wtSetSampling(wtTracer *t, uint32_t stage, uint32_t log2Every, double budget) {
  if (stage > WT_STAGE_CALLABLE || log2Every > WT_MAX_SAMPLE_LOG2) return VK_ERROR_UNKNOWN;
  uint32_t word = stage >> 3, shift = WT_SAMPLE_LOG2_BITS * (stage & 7u);
  uint32_t words[WT_SAMPLE_WORDS];
  memcpy(words, t->sampleWords, sizeof words);
  words[word] = (words[word] & ~(15u << shift)) | (log2Every << shift);
  void *map = NULL;
  VkResult r = vkMapMemory(t->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map);
  if (r != VK_SUCCESS) return r;  /* the shaders keep the old rates, and so does the metadata */
  for (uint32_t d = 0; d < t->maxDraws; d++) {
    uint32_t *entry = (uint32_t *)((char *)map + d * t->uboStride);
    for (uint32_t w = 0; w < WT_SAMPLE_WORDS; w++) entry[WT_DRAW_SAMPLE_WORD + w] = words[w];
  }
  vkUnmapMemory(t->device, t->drawIdMemory);
  memcpy(t->sampleWords, words, sizeof words);
  t->samplingBudget = budget > 0 ? budget : 0;
  return VK_SUCCESS;
}

int wtParseSampleRate(const char *text, size_t length, uint32_t *stage, uint32_t *log2Every) {
  size_t eq = 0;
  uint64_t n = 0;
  while (eq < length && text[eq] != '=') eq++;
  if (eq + 1 >= length) return 0;
  for (size_t i = eq + 1; i < length; i++) {
    if (text[i] < '0' || text[i] > '9' || n > (1u << WT_MAX_SAMPLE_LOG2)) return 0;
    n = n * 10 + (uint64_t)(text[i] - '0');
  }
  if (n == 0 || n > (1u << WT_MAX_SAMPLE_LOG2) || (n & (n - 1)) != 0) return 0;
  for (uint32_t s = 0; s <= WT_STAGE_CALLABLE; s++) {
    if (strlen(wtAllStageNames_[s]) != eq || strncmp(wtAllStageNames_[s], text, eq) != 0) continue;
    uint32_t log2 = 0;
    while ((1ull << log2) < n) log2++;
    *stage = s;
    *log2Every = log2;
    return 1;
  }
  return 0;
}

/* The metadata's "sampling" member (shared-schema WarpSampling), or nothing when every warp records. */
static void wtWriteSamplingMetadata_(const wtTracer *t, FILE *f) {
  int any = 0;
  for (uint32_t s = 0; s <= WT_STAGE_CALLABLE; s++) {
    uint32_t k = (t->sampleWords[s >> 3] >> (WT_SAMPLE_LOG2_BITS * (s & 7u))) & 15u;
    if (!k) continue;
    fprintf(f, any ? ", \"%s\": %u" : ",\n  \"sampling\": { \"every\": { \"%s\": %u", wtAllStageNames_[s], 1u << k);
    any = 1;
  }
  if (!any) return;
  /* Whole and ten-thousandths printed as integers: %f follows the app's locale (a decimal comma breaks the JSON). */
  unsigned long long scaled = (unsigned long long)(t->samplingBudget * 10000.0 + 0.5);
  if (t->samplingBudget > 0) fprintf(f, " }, \"chosenBy\": \"budget\", \"budget\": %llu.%04llu }", scaled / 10000, scaled % 10000);
  else fprintf(f, " }, \"chosenBy\": \"flag\", \"budget\": null }");
}

#endif /* WARPTRACE_SAMPLING_IMPLEMENTED */
