/*
 * warptrace_rays.h: ray events for warptrace.h (shared-schema/README.md, "Ray events").
 * Included by warptrace.h; do not include it alone.
 *
 * Ray-tracing modules instrumented with `warptrace instrument --ray-events` count, per launch pixel of a
 * trace-rays call, trace calls, intersection/any-hit/closest-hit/miss/callable invocations, ignored and useless
 * any-hits into a table of rows. The host:
 *   1. creates the tracer with wtTracerInfo.rayEventRows > 0 (the table, at binding + WT_RAY_EVENT_BINDING_OFFSET),
 *   2. after each wtCmdBeginDraw of a trace-rays call gives it a row (wtSetDrawRayRow);
 * wtWriteWtraw then adds the rows to the .wtraw.
 */
#ifndef WARPTRACE_RAYS_H
#define WARPTRACE_RAYS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults of wtTracerInfo.rayEventCells (1280 x 720 at one cell per pixel) and .rayEventScratchPixels (2560 x 1440). */
#ifndef WT_DEFAULT_RAY_CELLS
#define WT_DEFAULT_RAY_CELLS (1u << 20)
#endif
#ifndef WT_DEFAULT_RAY_SCRATCH
#define WT_DEFAULT_RAY_SCRATCH (1u << 22)
#endif
/* Rows at most: their headers are written with one vkCmdUpdateBuffer (65536 bytes at most). */
#define WT_MAX_RAY_ROWS 1024u

/*
 * Gives the trace-rays call `drawId` (wtCmdBeginDraw's id, or its slot under wtSetDrawTable) a row of the table and
 * writes the row's index into its draw-id block (word WT_DRAW_RAY_ROW_WORD): call between submits, as that block is
 * host memory. shareKey != 0: calls with the same key in one capture share one row (one per pipeline, or the same
 * call in each captured frame); 0: a row of its own. Returns the row, or WT_NO_RAY_ROW: no table, the draw id is
 * WT_NO_DRAW, or the table is full (the call then counts as unprofiled in the metadata).
 */
uint32_t wtSetDrawRayRow(wtTracer *tracer, uint32_t drawId, uint64_t shareKey);

#ifdef __cplusplus
}
#endif

#endif /* WARPTRACE_RAYS_H */

/* ------------------------------------------------------------------------ */
#if defined(WARPTRACE_IMPLEMENTATION) && defined(WT_RAYS_IMPLEMENT_) && !defined(WARPTRACE_RAYS_IMPLEMENTED)
#define WARPTRACE_RAYS_IMPLEMENTED

typedef struct wtRayRow_ {
  uint32_t drawId, row;
  uint64_t shareKey;
} wtRayRow_;

struct wtRayTable_ {
  uint32_t cells, rows, scratch;
  /* This capture: rows handed out (a call may share its row with earlier ones), calls without room. */
  wtRayRow_ *given;
  uint32_t givenCount, rowsUsed, unprofiledLaunches;
};

/* The part that comes back: the header, the row headers and the rows (the scratch stays on the GPU). */
static VkDeviceSize wtRaysReadBytes_(const struct wtRayTable_ *r) {
  return ((VkDeviceSize)WT_RAY_EVENT_HEADER_WORDS + (VkDeviceSize)r->rows * WT_RAY_ROW_HEADER_WORDS +
          (VkDeviceSize)r->rows * r->cells * WT_RAY_CELL_WORDS) *
         4;
}

/* Creates the table (called by wtInitTracer_ when rayEventRows > 0). */
static VkResult wtRaysCreate_(wtTracer *t, VkPhysicalDevice pd, const wtTracerInfo *info) {
  t->rays = (struct wtRayTable_ *)calloc(1, sizeof *t->rays);
  if (!t->rays) return VK_ERROR_OUT_OF_HOST_MEMORY;
  struct wtRayTable_ *r = t->rays;
  r->rows = info->rayEventRows < WT_MAX_RAY_ROWS ? info->rayEventRows : WT_MAX_RAY_ROWS;
  r->cells = info->rayEventCells ? info->rayEventCells : WT_DEFAULT_RAY_CELLS;
  r->scratch = info->rayEventScratchPixels ? info->rayEventScratchPixels : WT_DEFAULT_RAY_SCRATCH;
  r->given = (wtRayRow_ *)calloc(t->maxDraws, sizeof *r->given);
  if (!r->given) return VK_ERROR_OUT_OF_HOST_MEMORY;
  t->rayBytes = wtRaysReadBytes_(r) + (VkDeviceSize)r->scratch * WT_RAY_SCRATCH_WORDS * 4;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);
  /* One storage-buffer descriptor covers the table: past the device's range the shaders' indices are undefined. */
  if (t->rayBytes > props.limits.maxStorageBufferRange) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  return wtMakeBuffer_(t, pd, t->rayBytes,
                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | t->addressUsage,
                       0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &t->rayBuffer, &t->rayMemory, NULL);
}

static void wtRaysDestroy_(wtTracer *t) {
  if (t->rayBuffer) vkDestroyBuffer(t->device, t->rayBuffer, t->allocator);
  if (t->rayMemory) vkFreeMemory(t->device, t->rayMemory, t->allocator);
  if (!t->rays) return;
  free(t->rays->given);
  free(t->rays);
  t->rays = NULL;
}

/* Writes `row` into word WT_DRAW_RAY_ROW_WORD of draw-id entries drawIds[i] (host-coherent memory). */
static void wtRaysWriteRowWords_(wtTracer *t, const uint32_t *drawIds, size_t idStride, uint32_t count, uint32_t row) {
  void *map = NULL;
  if (count == 0 || vkMapMemory(t->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map) != VK_SUCCESS) return;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t d = *(const uint32_t *)((const char *)drawIds + i * idStride);
    ((uint32_t *)((char *)map + d * t->uboStride))[WT_DRAW_RAY_ROW_WORD] = row;
  }
  vkUnmapMemory(t->device, t->drawIdMemory);
}

/* At capture begin (between the trace buffer's barriers): zeroes the table, sets its header, forgets the last rows. */
static void wtRaysCmdBegin_(wtTracer *t, VkCommandBuffer cmd) {
  struct wtRayTable_ *r = t->rays;
  /* A draw id of the last capture without a row this time must not count into its old row. */
  if (r->givenCount) wtRaysWriteRowWords_(t, &r->given[0].drawId, sizeof r->given[0], r->givenCount, WT_NO_RAY_ROW);
  r->givenCount = r->rowsUsed = r->unprofiledLaunches = 0;
  uint32_t words = WT_RAY_EVENT_HEADER_WORDS + r->rows * WT_RAY_ROW_HEADER_WORDS;
  uint32_t *head = (uint32_t *)calloc(words, sizeof *head);
  vkCmdFillBuffer(cmd, t->rayBuffer, 0, VK_WHOLE_SIZE, 0);
  if (!head) return; /* CELLS 0: every event is dropped, and says so */
  head[WT_RAY_WORD_CELLS] = r->cells;
  head[WT_RAY_WORD_ROWS] = r->rows;
  head[WT_RAY_WORD_SCRATCH_PIXELS] = r->scratch;
  /* The launch sizes' minima start high so the shaders' atomic min finds the smallest. */
  for (uint32_t row = 0; row < r->rows; row++) {
    uint32_t *h = head + WT_RAY_EVENT_HEADER_WORDS + row * WT_RAY_ROW_HEADER_WORDS;
    h[WT_RAY_ROW_MIN_WIDTH] = h[WT_RAY_ROW_MIN_HEIGHT] = h[WT_RAY_ROW_MIN_DEPTH] = 0xffffffffu;
  }
  vkCmdUpdateBuffer(cmd, t->rayBuffer, 0, words * 4ull, head);
  free(head);
}

/* At capture end (after the trace buffer's barrier): header, row headers and rows go to the readback buffer. */
static void wtRaysCmdEnd_(wtTracer *t, VkCommandBuffer cmd) {
  VkBufferCopy region = {0, t->traceBytes + t->blockBytes, wtRaysReadBytes_(t->rays)};
  vkCmdCopyBuffer(cmd, t->rayBuffer, t->readbackBuffer, 1, &region);
}

uint32_t wtSetDrawRayRow(wtTracer *t, uint32_t drawId, uint64_t shareKey) {
  struct wtRayTable_ *r = t->rays;
  if (!r || drawId >= t->maxDraws || r->givenCount >= t->maxDraws) return WT_NO_RAY_ROW;
  uint32_t row = WT_NO_RAY_ROW;
  for (uint32_t i = 0; shareKey && i < r->givenCount && row == WT_NO_RAY_ROW; i++)
    if (r->given[i].shareKey == shareKey) row = r->given[i].row;
  if (row == WT_NO_RAY_ROW) {
    if (r->rowsUsed >= r->rows) {
      r->unprofiledLaunches++;
      return WT_NO_RAY_ROW;
    }
    row = r->rowsUsed++;
  }
  wtRayRow_ *g = &r->given[r->givenCount++];
  g->drawId = drawId, g->row = row, g->shareKey = shareKey;
  wtRaysWriteRowWords_(t, &drawId, sizeof drawId, 1, row);
  return row;
}

/* The file's draw of a draw id (wtBlocksFileDraw_ of warptrace_blocks.h, which is always included). */
static uint32_t wtRaysFileDraw_(const wtTracer *t, uint32_t drawId) { return wtBlocksFileDraw_(t, drawId); }

/* The first given entry of `row` whose draw the file keeps (its draw in the file); WT_NO_DRAW: none. */
static uint32_t wtRaysRowDraw_(const wtTracer *t, uint32_t row) {
  const struct wtRayTable_ *r = t->rays;
  for (uint32_t i = 0; i < r->givenCount; i++) {
    if (r->given[i].row != row) continue;
    uint32_t draw = wtRaysFileDraw_(t, r->given[i].drawId);
    if (draw != WT_NO_DRAW) return draw;
  }
  return WT_NO_DRAW;
}

/* The cells of a row the file carries (README "Ray events"): the largest launch's grid; all with mixed sizes; none unlaunched. */
static uint32_t wtRaysRowCells_(const struct wtRayTable_ *r, const uint32_t *rowHeader) {
  if (rowHeader[WT_RAY_ROW_LAUNCHES] == 0) return 0;
  uint32_t w = rowHeader[WT_RAY_ROW_MAX_WIDTH], h = rowHeader[WT_RAY_ROW_MAX_HEIGHT], d = rowHeader[WT_RAY_ROW_MAX_DEPTH];
  if (w != rowHeader[WT_RAY_ROW_MIN_WIDTH] || h != rowHeader[WT_RAY_ROW_MIN_HEIGHT] || d != rowHeader[WT_RAY_ROW_MIN_DEPTH]) return r->cells;
  for (uint32_t s = 0; s <= WT_MAX_RAY_SCALE; s++) {
    uint64_t cells = (uint64_t)((w + (1u << s) - 1) >> s) * ((h + (1u << s) - 1) >> s) * d;
    if (cells <= r->cells) return (uint32_t)cells;
  }
  /* Too large even binned: the shaders dropped its events; its totals stay in the header's DROPPED. */
  return 0;
}

static const uint32_t *wtRaysTable_(const wtTracer *t) {
  return (const uint32_t *)((const char *)t->readbackMap + t->traceBytes + t->blockBytes);
}
static const uint32_t *wtRaysRowHeader_(const wtTracer *t, uint32_t row) {
  return wtRaysTable_(t) + WT_RAY_EVENT_HEADER_WORDS + row * WT_RAY_ROW_HEADER_WORDS;
}

static uint64_t wtRaysSectionBytes_(const wtTracer *t) {
  const struct wtRayTable_ *r = t->rays;
  uint64_t bytes = 0;
  for (uint32_t row = 0; row < r->rowsUsed; row++)
    if (wtRaysRowDraw_(t, row) != WT_NO_DRAW) bytes += WT_RAY_ROW_HEADER_WORDS * 4ull + (uint64_t)wtRaysRowCells_(r, wtRaysRowHeader_(t, row)) * WT_RAY_CELL_WORDS * 4;
  return bytes;
}

/* The metadata's "rayEvents" member (README "Ray events"): rows in row order, each with its first kept draw. */
static void wtRaysWriteMetadata_(const wtTracer *t, FILE *f) {
  const struct wtRayTable_ *r = t->rays;
  const uint32_t *table = wtRaysTable_(t);
  fprintf(f,
          ",\n  \"rayEvents\": {\n    \"cellsPerRow\": %u, \"dropped\": %u, \"uncountedTraversals\": %u, \"unprofiledLaunches\": %u,\n"
          "    \"rows\": [",
          r->cells, table[WT_RAY_WORD_DROPPED], table[WT_RAY_WORD_UNCOUNTED_TRAVERSALS], r->unprofiledLaunches);
  uint32_t written = 0;
  for (uint32_t row = 0; row < r->rowsUsed; row++) {
    uint32_t draw = wtRaysRowDraw_(t, row);
    if (draw == WT_NO_DRAW) continue;
    fprintf(f, "%s\n      { \"draw\": %u, \"cells\": %u }", written++ ? "," : "", draw, wtRaysRowCells_(r, wtRaysRowHeader_(t, row)));
  }
  fprintf(f, "\n    ]\n  }");
}

/* The section (wtRaysSectionBytes_ long); returns nonzero on a write error. */
static int wtRaysWriteSection_(const wtTracer *t, FILE *f) {
  const struct wtRayTable_ *r = t->rays;
  const uint32_t *rows = wtRaysTable_(t) + WT_RAY_EVENT_HEADER_WORDS + r->rows * WT_RAY_ROW_HEADER_WORDS;
  /* 16 KiB at a time: the layer writes from the app's thread, whose stack may be small. */
#define WT_RAY_WRITE_CHUNK 512u
  const uint32_t CHUNK = WT_RAY_WRITE_CHUNK;
  uint32_t out[WT_RAY_WRITE_CHUNK * WT_RAY_CELL_WORDS];
  int bad = 0;
  for (uint32_t row = 0; row < r->rowsUsed && !bad; row++) {
    if (wtRaysRowDraw_(t, row) == WT_NO_DRAW) continue;
    const uint32_t *head = wtRaysRowHeader_(t, row);
    const uint32_t *planes = rows + (size_t)row * r->cells * WT_RAY_CELL_WORDS;
    uint32_t n = wtRaysRowCells_(r, head);
    bad = fwrite(head, 4, WT_RAY_ROW_HEADER_WORDS, f) != WT_RAY_ROW_HEADER_WORDS;
    /* The GPU keeps each counter in a plane of the row; the file interleaves a cell's counters (little-endian hosts). */
    for (uint32_t first = 0; first < n && !bad; first += CHUNK) {
      uint32_t count = n - first < CHUNK ? n - first : CHUNK;
      for (uint32_t c = 0; c < count; c++)
        for (uint32_t w = 0; w < WT_RAY_CELL_WORDS; w++) out[c * WT_RAY_CELL_WORDS + w] = planes[(size_t)w * r->cells + first + c];
      bad = fwrite(out, 4, (size_t)count * WT_RAY_CELL_WORDS, f) != (size_t)count * WT_RAY_CELL_WORDS;
    }
  }
  return bad;
}

#endif /* WARPTRACE_RAYS_IMPLEMENTED */
