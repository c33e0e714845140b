/*
 * warptrace_wtraw.h: wtWriteWtraw, the .wtraw file after the capture's fence: the header, the metadata
 * (warptrace_metadata.h), the draws' timestamps in the device clock's time base, the records and the
 * block and ray-event sections, through a temporary file renamed into place. Separate because it is the
 * readback and the binary layout (shared-schema/raw-layout.ts), not the JSON.
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_WTRAW_IMPLEMENTED)
#define WARPTRACE_WTRAW_IMPLEMENTED

static void wtPutU32_(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void wtPutU64_(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

int wtWriteWtraw(wtTracer *t, const char *path, const wtCaptureInfo *info, wtCaptureStats *stats, char *err, size_t errSize) {
  if (t->overflowDraws) {
    snprintf(err, errSize, "%u draws past the tracer's maxDraws (%u): create the tracer with a larger maxDraws", t->overflowDraws,
             t->maxDraws);
    return -1;
  }
  if (!t->readbackCoherent) {
    VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = t->readbackMemory;
    range.size = VK_WHOLE_SIZE;
    vkInvalidateMappedMemoryRanges(t->device, 1, &range);
  }
  const uint32_t *words = (const uint32_t *)t->readbackMap;
  uint32_t counter = words[WT_BUFFER_WORD_COUNT];
  uint32_t kept = counter < t->capacity ? counter : t->capacity;

  /* Timestamps: query 0 = capture start, then (begin, end) per draw id (per slot under wtSetDrawTable). */
  uint32_t queryCount = 1 + 2 * (t->tableSlots ? t->maxDraws : t->drawCount);
  uint64_t *ticks = (uint64_t *)calloc(queryCount * 2, sizeof(uint64_t));
  int haveStart = 0;
  if (!ticks) {
    snprintf(err, errSize, "out of host memory");
    return -1;
  }
  if (t->queries) {
    /* Each query: value, availability. */
    VkResult r = vkGetQueryPoolResults(t->device, t->queries, 0, queryCount, queryCount * 2 * sizeof(uint64_t), ticks,
                                       2 * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (r != VK_SUCCESS && r != VK_NOT_READY) {
      free(ticks);
      snprintf(err, errSize, "vkGetQueryPoolResults failed (%d)", (int)r);
      return -1;
    }
    uint64_t mask = t->caps.timestampValidBits >= 64 ? ~0ull : ((1ull << t->caps.timestampValidBits) - 1);
    /* Into the device clock's time base (wtCheckClocks), so the decoder can compare them with shader clocks. */
    int64_t shift = t->clocksChecked ? t->clocks.timestampShiftTicks : 0;
    for (uint32_t q = 0; q < queryCount; q++) {
      uint64_t v = ticks[2 * q] & mask;
      int ok = ticks[2 * q + 1] != 0 && (shift >= 0 || v >= (uint64_t)(-shift));
      ticks[2 * q] = ok ? v + (uint64_t)shift : WT_WTRAW_NO_TIMESTAMP;
    }
    haveStart = ticks[0] != WT_WTRAW_NO_TIMESTAMP;
  }

  size_t tmpLen = strlen(path) + 16;
  char *tmp = (char *)malloc(tmpLen);
  if (!tmp) {
    free(ticks);
    snprintf(err, errSize, "out of host memory");
    return -1;
  }
  snprintf(tmp, tmpLen, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    snprintf(err, errSize, "cannot write %s", tmp);
    free(tmp);
    free(ticks);
    return -1;
  }
  /* Metadata goes first into a temporary stream so its length is known. */
  FILE *meta = tmpfile();
  int bad = meta == NULL || wtWriteMetadata_(t, meta, info, ticks[0], haveStart) != 0;
  long metaLen = bad ? 0 : ftell(meta);
  unsigned char header[WT_WTRAW_HEADER_BYTES] = {0};
  wtPutU32_(header + 4 * WT_WTRAW_WORD_MAGIC, WT_WTRAW_MAGIC);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_VERSION, WT_WTRAW_VERSION);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_HEADER_BYTES, WT_WTRAW_HEADER_BYTES);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_METADATA_BYTES, (uint32_t)metaLen);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_RECORD_BYTES, WT_RECORD_BYTES);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_RECORD_COUNT, kept);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_COUNTER, counter);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_CAPACITY, t->capacity);
  wtPutU32_(header + 4 * WT_WTRAW_WORD_TIMESTAMP_COUNT, t->queries ? wtDrawsWritten_(t) : 0);
  uint64_t blockBytes = t->blocks ? wtBlocksSectionBytes_(t) : 0;
  if (blockBytes > 0xffffffffull) bad = 1;
  wtPutU32_(header + 4 * WT_WTRAW_WORD_BLOCK_BYTES, (uint32_t)blockBytes);
  uint64_t rayBytes = t->rays ? wtRaysSectionBytes_(t) : 0;
  if (rayBytes > 0xffffffffull) bad = 1;
  wtPutU32_(header + 4 * WT_WTRAW_WORD_RAY_EVENT_BYTES, (uint32_t)rayBytes);
  if (!bad) bad = fwrite(header, 1, sizeof header, f) != sizeof header;
  if (!bad) {
    rewind(meta);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, meta)) > 0)
      if (fwrite(buf, 1, n, f) != n) bad = 1;
    static const char spaces[WT_WTRAW_SECTION_ALIGN] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    size_t pad = (WT_WTRAW_SECTION_ALIGN - (size_t)metaLen % WT_WTRAW_SECTION_ALIGN) % WT_WTRAW_SECTION_ALIGN;
    if (fwrite(spaces, 1, pad, f) != pad) bad = 1;
  }
  if (!bad && t->queries) {
    for (uint32_t d = 0; d < wtDrawsWritten_(t) && !bad; d++) {
      unsigned char pair[16];
      uint32_t q = wtQuerySlot_(t, d);
      uint32_t endQuery = t->tableEndQueries ? t->tableEndQueries[d] : 2 + 2 * q;
      uint64_t b = ticks[2 * (1 + 2 * q)], e = endQuery < queryCount ? ticks[2 * endQuery] : WT_WTRAW_NO_TIMESTAMP;
      if (b == WT_WTRAW_NO_TIMESTAMP || e == WT_WTRAW_NO_TIMESTAMP) b = e = WT_WTRAW_NO_TIMESTAMP;
      wtPutU64_(pair, b);
      wtPutU64_(pair + 8, e);
      bad = fwrite(pair, 1, 16, f) != 16;
    }
  }
  if (!bad) {
    /* Little-endian hosts write the records as they are. */
    const unsigned char *records = (const unsigned char *)(words + WT_BUFFER_HEADER_WORDS);
    bad = fwrite(records, WT_RECORD_BYTES, kept, f) != kept;
  }
  if (!bad && t->blocks) bad = wtBlocksWriteSection_(t, f, (const uint32_t *)((const char *)t->readbackMap + t->traceBytes));
  if (!bad && t->rays) bad = wtRaysWriteSection_(t, f);
  if (meta) fclose(meta);
  if (fclose(f) != 0) bad = 1;
  free(ticks);
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    snprintf(err, errSize, "cannot write %s", path);
    free(tmp);
    return -1;
  }
  free(tmp);
  if (stats) {
    stats->counter = counter;
    stats->capacity = t->capacity;
    stats->kept = kept;
    stats->draws = wtDrawsWritten_(t);
  }
  return 0;
}

#endif /* WARPTRACE_WTRAW_IMPLEMENTED */
