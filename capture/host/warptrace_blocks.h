/*
 * warptrace_blocks.h: block profiles for warptrace.h (shared-schema/README.md, "Block profiles").
 * Included by warptrace.h; do not include it alone.
 *
 * Modules instrumented with `warptrace instrument --blocks` count, per basic block, warp
 * executions, live lanes and clock ticks into a table of cells. The host:
 *   1. creates the tracer with wtTracerInfo.blockCells > 0 (the table, at binding + WT_BLOCK_BINDING_OFFSET),
 *   2. registers each instrumented module's SPIR-V (wtRegisterBlockModule) and lays a pipeline's
 *      modules out one after another (wtLayoutBlockRow), giving each stage the specialization
 *      constant WT_BLOCK_BASE_SPEC_ID = its offset,
 *   3. after each wtCmdBeginDraw gives the draw its row (wtSetDrawBlockRow);
 * wtWriteWtraw then adds the modules and the cells to the .wtraw.
 */
#ifndef WARPTRACE_BLOCKS_H
#define WARPTRACE_BLOCKS_H

#ifdef __cplusplus
extern "C" {
#endif

/* A module without the "warptrace-blocks=N" mark (or a table that is off): it takes no cells. */
/* Copies of the block table the GPU counts into (the most, and their bytes at most): warptrace_blocks.h wtBlocksCreate_. */
#ifndef WT_BLOCK_MAX_COPIES
#define WT_BLOCK_MAX_COPIES 64u
#endif
#ifndef WT_BLOCK_COPY_BYTES
#define WT_BLOCK_COPY_BYTES (256ull << 20)
#endif
#define WT_NO_BLOCK_MODULE 0xffffffffu

/* One module of a draw's row: a wtRegisterBlockModule handle and its first cell within the row. */
typedef struct wtBlockRowModule {
  uint32_t module;
  uint32_t offset;
} wtBlockRowModule;

/* N of the module's `OpString "warptrace-blocks=N ..."`: its instrumented blocks; 0 without the mark or for bytes that are not SPIR-V. */
uint32_t wtSpirvBlockCount(const uint32_t *code, size_t codeBytes);
/*
 * Copies an instrumented module's SPIR-V (the bytes the pipeline is built from; the .wtraw carries them
 * for the decoder) under `name` (e.g. "divergence.comp"). Returns its handle, or WT_NO_BLOCK_MODULE when
 * the module has no mark or the tracer has no block table. Register a module once; handles last as long
 * as the tracer.
 */
uint32_t wtRegisterBlockModule(wtTracer *tracer, const char *name, const uint32_t *code, size_t codeBytes);
/* The module's blocks (its cells in a row); 0 for WT_NO_BLOCK_MODULE. */
uint32_t wtBlockModuleCount(const wtTracer *tracer, uint32_t module);
/*
 * A pipeline's row, its modules one after another: offsets[i] = the cells of modules[0..i-1]
 * (WT_NO_BLOCK_MODULE takes none and gets 0). Returns the row's cells.
 */
uint32_t wtLayoutBlockRow(const wtTracer *tracer, const uint32_t *modules, uint32_t count, uint32_t *offsets);
/* Bytes of data wtBlockSpecialization writes for a stage whose own specialization is `own` (NULL: none). */
size_t wtBlockSpecializationDataBytes(const VkSpecializationInfo *own);
/*
 * The stage's specialization with WT_BLOCK_BASE_SPEC_ID = offset (the module's first cell in the row) added after
 * its own constants (an entry of `own` for that id is left out: the instrumenter refused modules that use it). It is
 * written into `entries` (room for own->mapEntryCount + 1) and `data` (wtBlockSpecializationDataBytes(own) bytes),
 * which `out`, the stage's new pSpecializationInfo, points at.
 */
void wtBlockSpecialization(const VkSpecializationInfo *own, uint32_t offset, VkSpecializationMapEntry *entries, void *data,
                           VkSpecializationInfo *out);
/*
 * Gives draw `drawId` (wtCmdBeginDraw's id, this capture) a row of max(offset + N) cells from the table
 * and writes its first cell into the draw-id block (word WT_DRAW_BLOCK_ROW_WORD), read when the draw
 * runs: call between submits, as the table is host memory. Entries of WT_NO_BLOCK_MODULE are ignored.
 * shareKey != 0: draws with the same key in one capture share one row (e.g. the pipeline handle: a
 * profile per pipeline); 0: a row of its own. Returns the row's first cell, or WT_NO_BLOCK_ROW: no
 * module has blocks, the draw id is WT_NO_DRAW, or the table is full (the draw then counts as
 * unprofiled in the metadata).
 */
uint32_t wtSetDrawBlockRow(wtTracer *tracer, uint32_t drawId, const wtBlockRowModule *modules, uint32_t count, uint64_t shareKey);

#ifdef __cplusplus
}
#endif

#endif /* WARPTRACE_BLOCKS_H */

/* ------------------------------------------------------------------------ */
#if defined(WARPTRACE_IMPLEMENTATION) && defined(WT_BLOCKS_IMPLEMENT_) && !defined(WARPTRACE_BLOCKS_IMPLEMENTED)
#define WARPTRACE_BLOCKS_IMPLEMENTED

typedef struct wtBlockModule_ {
  char name[96];
  uint32_t *code;
  size_t bytes;
  uint32_t blocks;
} wtBlockModule_;

typedef struct wtBlockRow_ {
  uint32_t drawId, cell, firstModule, moduleCount;
  uint64_t shareKey;
} wtBlockRow_;

struct wtBlockTable_ {
  uint32_t cells;         /* the table's size (wtTracerInfo.blockCells) */
  uint32_t copies;        /* copies of it on the GPU (a power of two), summed when written: see wtBlocksCreate_ */
  wtBlockModule_ *modules;
  uint32_t moduleCount, moduleCapacity;
  /* This capture: rows handed out (one per profiled draw), their modules, cells used, draws without room. */
  wtBlockRow_ *rows;
  uint32_t rowCount;
  wtBlockRowModule *rowModules;
  uint32_t rowModuleCount, rowModuleCapacity;
  uint32_t cellsUsed, unprofiledDraws;
};

uint32_t wtSpirvBlockCount(const uint32_t *code, size_t codeBytes) {
  static const char prefix[] = "warptrace-blocks=";
  size_t words = codeBytes / 4;
  if (!code || words < 5 || code[0] != 0x07230203u) return 0;
  for (size_t i = 5; i < words;) {
    uint32_t count = code[i] >> 16, opcode = code[i] & 0xffffu;
    if (count == 0 || i + count > words) return 0;
    /* OpString: result id, then the literal (nul-terminated, little-endian bytes in words). */
    if (opcode == 7 && count > 2) {
      const char *text = (const char *)(code + i + 2);
      size_t room = (count - 2) * 4;
      if (memchr(text, 0, room) && strncmp(text, prefix, sizeof prefix - 1) == 0) {
        const char *p = text + sizeof prefix - 1;
        uint64_t n = 0;
        if (*p < '0' || *p > '9') return 0;
        while (*p >= '0' && *p <= '9' && n <= 0xffffffffu) n = n * 10 + (uint64_t)(*p++ - '0');
        return n > 0xffffffffu || (*p != 0 && *p != ' ') ? 0 : (uint32_t)n;
      }
    }
    /* Debug strings come before the functions: past the first OpFunction (54) there is none. */
    if (opcode == 54) return 0;
    i += count;
  }
  return 0;
}

/* Creates the table (called by wtInitTracer_ when blockCells > 0). */
static VkResult wtBlocksCreate_(wtTracer *t, VkPhysicalDevice pd, uint32_t cells) {
  t->blocks = (struct wtBlockTable_ *)calloc(1, sizeof *t->blocks);
  if (!t->blocks) return VK_ERROR_OUT_OF_HOST_MEMORY;
  t->blocks->cells = cells;
  t->blocks->rows = (wtBlockRow_ *)calloc(t->maxDraws, sizeof *t->blocks->rows);
  if (!t->blocks->rows) return VK_ERROR_OUT_OF_HOST_MEMORY;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);
  /* Warps that run one block at once all count into its cell: on one address their atomics serialise (69x an aqt
     frame on the H100). Up to WT_BLOCK_MAX_COPIES copies, within WT_BLOCK_COPY_BYTES and the descriptor's range,
     spread them; each block entry picks one by its clock, and the copies are summed when written. */
  VkDeviceSize copyBytes = (VkDeviceSize)cells * WT_BLOCK_CELL_WORDS * 4, most = props.limits.maxStorageBufferRange;
  if (most > WT_BLOCK_COPY_BYTES) most = WT_BLOCK_COPY_BYTES;
  t->blocks->copies = 1;
  while (t->blocks->copies < WT_BLOCK_MAX_COPIES && WT_BLOCK_HEADER_WORDS * 4ull + copyBytes * t->blocks->copies * 2 <= most) t->blocks->copies *= 2;
  t->blockBytes = WT_BLOCK_HEADER_WORDS * 4ull + copyBytes * t->blocks->copies;
  if (t->blockBytes > props.limits.maxStorageBufferRange) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  /* Device memory, as the trace buffer: the shaders' atomics stay on the GPU. */
  return wtMakeBuffer_(t, pd, t->blockBytes,
                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | t->addressUsage,
                       0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &t->blockBuffer, &t->blockMemory, NULL);
}

static void wtBlocksDestroy_(wtTracer *t) {
  struct wtBlockTable_ *b = t->blocks;
  if (t->blockBuffer) vkDestroyBuffer(t->device, t->blockBuffer, t->allocator);
  if (t->blockMemory) vkFreeMemory(t->device, t->blockMemory, t->allocator);
  if (!b) return;
  for (uint32_t m = 0; m < b->moduleCount; m++) free(b->modules[m].code);
  free(b->modules);
  free(b->rows);
  free(b->rowModules);
  free(b);
  t->blocks = NULL;
}

/* Writes cells[i] (NULL: WT_NO_BLOCK_ROW) into word WT_DRAW_BLOCK_ROW_WORD of each draw-id entry drawIds[i] (host-coherent memory). */
static void wtBlocksWriteRowWords_(wtTracer *t, const uint32_t *drawIds, size_t idStride, uint32_t count, const uint32_t *cells) {
  void *map = NULL;
  if (count == 0 || vkMapMemory(t->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map) != VK_SUCCESS) return;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t d = *(const uint32_t *)((const char *)drawIds + i * idStride);
    ((uint32_t *)((char *)map + d * t->uboStride))[WT_DRAW_BLOCK_ROW_WORD] = cells ? cells[i] : WT_NO_BLOCK_ROW;
  }
  vkUnmapMemory(t->device, t->drawIdMemory);
}

/* At capture begin (between the trace buffer's barriers): zeroes the table, forgets the last capture's rows. */
static void wtBlocksCmdBegin_(wtTracer *t, VkCommandBuffer cmd) {
  struct wtBlockTable_ *b = t->blocks;
  /* A draw id of the last capture without a row this time must not count into its old row. */
  if (b->rowCount) wtBlocksWriteRowWords_(t, &b->rows[0].drawId, sizeof b->rows[0], b->rowCount, NULL);
  b->rowCount = b->rowModuleCount = b->cellsUsed = b->unprofiledDraws = 0;
  uint32_t header[WT_BLOCK_HEADER_WORDS] = {0};
  header[WT_BLOCK_WORD_CELLS] = b->cells;
  header[WT_BLOCK_WORD_COPY_MASK] = b->copies - 1;
  vkCmdFillBuffer(cmd, t->blockBuffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdUpdateBuffer(cmd, t->blockBuffer, 0, sizeof header, header);
}

/* At capture end (after the trace buffer's barrier): the table goes to the readback buffer after the records. */
static void wtBlocksCmdEnd_(wtTracer *t, VkCommandBuffer cmd) {
  VkBufferCopy region = {0, t->traceBytes, t->blockBytes};
  vkCmdCopyBuffer(cmd, t->blockBuffer, t->readbackBuffer, 1, &region);
}

uint32_t wtRegisterBlockModule(wtTracer *t, const char *name, const uint32_t *code, size_t codeBytes) {
  struct wtBlockTable_ *b = t->blocks;
  uint32_t blocks = wtSpirvBlockCount(code, codeBytes);
  if (!b || blocks == 0) return WT_NO_BLOCK_MODULE;
  if (b->moduleCount == b->moduleCapacity) {
    uint32_t capacity = b->moduleCapacity ? 2 * b->moduleCapacity : 16;
    wtBlockModule_ *grown = (wtBlockModule_ *)realloc(b->modules, capacity * sizeof *grown);
    if (!grown) return WT_NO_BLOCK_MODULE;
    b->modules = grown, b->moduleCapacity = capacity;
  }
  wtBlockModule_ *m = &b->modules[b->moduleCount];
  size_t bytes = codeBytes / 4 * 4;
  m->code = (uint32_t *)malloc(bytes);
  if (!m->code) return WT_NO_BLOCK_MODULE;
  memcpy(m->code, code, bytes);
  m->bytes = bytes;
  m->blocks = blocks;
  snprintf(m->name, sizeof m->name, "%s", name ? name : "");
  return b->moduleCount++;
}

uint32_t wtBlockModuleCount(const wtTracer *t, uint32_t module) {
  return t->blocks && module < t->blocks->moduleCount ? t->blocks->modules[module].blocks : 0;
}

size_t wtBlockSpecializationDataBytes(const VkSpecializationInfo *own) {
  size_t bytes = own && own->pData ? own->dataSize : 0;
  return (bytes + 3) / 4 * 4 + sizeof(uint32_t);
}

void wtBlockSpecialization(const VkSpecializationInfo *own, uint32_t offset, VkSpecializationMapEntry *entries, void *data,
                           VkSpecializationInfo *out) {
  size_t ownBytes = own && own->pData ? own->dataSize : 0, at = (ownBytes + 3) / 4 * 4;
  uint32_t count = 0;
  if (own)
    for (uint32_t i = 0; i < own->mapEntryCount; i++)
      if (own->pMapEntries[i].constantID != WT_BLOCK_BASE_SPEC_ID) entries[count++] = own->pMapEntries[i];
  memset(data, 0, at);
  if (ownBytes) memcpy(data, own->pData, ownBytes);
  memcpy((char *)data + at, &offset, sizeof offset);
  entries[count].constantID = WT_BLOCK_BASE_SPEC_ID;
  entries[count].offset = (uint32_t)at;
  entries[count].size = sizeof offset;
  out->mapEntryCount = count + 1;
  out->pMapEntries = entries;
  out->dataSize = at + sizeof offset;
  out->pData = data;
}

uint32_t wtLayoutBlockRow(const wtTracer *t, const uint32_t *modules, uint32_t count, uint32_t *offsets) {
  uint32_t cells = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t n = wtBlockModuleCount(t, modules[i]);
    offsets[i] = n ? cells : 0;
    cells += n;
  }
  return cells;
}

uint32_t wtSetDrawBlockRow(wtTracer *t, uint32_t drawId, const wtBlockRowModule *modules, uint32_t count, uint64_t shareKey) {
  struct wtBlockTable_ *b = t->blocks;
  if (!b || drawId >= t->maxDraws || b->rowCount >= t->maxDraws) return WT_NO_BLOCK_ROW;
  uint64_t cells = 0;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t n = wtBlockModuleCount(t, modules[i].module);
    if (n && (uint64_t)modules[i].offset + n > cells) cells = (uint64_t)modules[i].offset + n;
    kept += n ? 1 : 0;
  }
  if (kept == 0) return WT_NO_BLOCK_ROW;
  uint32_t cell = WT_NO_BLOCK_ROW;
  for (uint32_t r = 0; shareKey && r < b->rowCount && cell == WT_NO_BLOCK_ROW; r++)
    if (b->rows[r].shareKey == shareKey) cell = b->rows[r].cell;
  if (cell == WT_NO_BLOCK_ROW) {
    if (cells > b->cells - b->cellsUsed) {
      b->unprofiledDraws++;
      return WT_NO_BLOCK_ROW;
    }
    cell = b->cellsUsed;
    b->cellsUsed += (uint32_t)cells;
  }
  if (b->rowModuleCount + kept > b->rowModuleCapacity) {
    uint32_t capacity = 2 * (b->rowModuleCount + kept);
    wtBlockRowModule *grown = (wtBlockRowModule *)realloc(b->rowModules, capacity * sizeof *grown);
    if (!grown) return WT_NO_BLOCK_ROW;
    b->rowModules = grown, b->rowModuleCapacity = capacity;
  }
  wtBlockRow_ *row = &b->rows[b->rowCount++];
  row->drawId = drawId, row->cell = cell, row->shareKey = shareKey;
  row->firstModule = b->rowModuleCount, row->moduleCount = kept;
  for (uint32_t i = 0; i < count; i++)
    if (wtBlockModuleCount(t, modules[i].module)) b->rowModules[b->rowModuleCount++] = modules[i];
  wtBlocksWriteRowWords_(t, &drawId, sizeof drawId, 1, &cell);
  return cell;
}

/* The file's draw of a draw id: itself, or under wtSetDrawTable the draw whose slot it is (WT_NO_DRAW: none). */
static uint32_t wtBlocksFileDraw_(const wtTracer *t, uint32_t drawId) {
  if (!t->tableSlots) return drawId < t->drawCount ? drawId : WT_NO_DRAW;
  for (uint32_t d = 0; d < t->tableDraws; d++)
    if (t->tableSlots[d] == drawId) return d;
  return WT_NO_DRAW;
}

/*
 * Each module's index in the file (malloc'ed, moduleCount entries; the caller frees it), WT_NO_BLOCK_MODULE for a
 * module in no row of a written draw: only modules of rows go to the file, in handle order. NULL: out of memory.
 */
static uint32_t *wtBlocksFileModules_(const wtTracer *t) {
  const struct wtBlockTable_ *b = t->blocks;
  uint32_t *index = (uint32_t *)malloc((b->moduleCount ? b->moduleCount : 1) * sizeof *index);
  if (!index) return NULL;
  for (uint32_t m = 0; m < b->moduleCount; m++) index[m] = WT_NO_BLOCK_MODULE;
  for (uint32_t r = 0; r < b->rowCount; r++) {
    if (wtBlocksFileDraw_(t, b->rows[r].drawId) == WT_NO_DRAW) continue;
    for (uint32_t i = 0; i < b->rows[r].moduleCount; i++) index[b->rowModules[b->rows[r].firstModule + i].module] = 0;
  }
  uint32_t next = 0;
  for (uint32_t m = 0; m < b->moduleCount; m++)
    if (index[m] != WT_NO_BLOCK_MODULE) index[m] = next++;
  return index;
}

/* The section's length: the written modules (each padded to 8 bytes), then the cells handed out. */
static uint64_t wtBlocksSectionBytes_(const wtTracer *t) {
  const struct wtBlockTable_ *b = t->blocks;
  uint32_t *index = wtBlocksFileModules_(t);
  if (!index) return ~0ull;
  uint64_t bytes = (uint64_t)b->cellsUsed * WT_BLOCK_CELL_WORDS * 4;
  for (uint32_t m = 0; m < b->moduleCount; m++)
    if (index[m] != WT_NO_BLOCK_MODULE) bytes += (b->modules[m].bytes + 7) / 8 * 8;
  free(index);
  return bytes;
}

/* The metadata's "blocks" member (README "Block profiles"). */
static void wtBlocksWriteMetadata_(const wtTracer *t, FILE *f, const uint32_t *table) {
  const struct wtBlockTable_ *b = t->blocks;
  uint32_t *index = wtBlocksFileModules_(t);
  if (!index) return; /* the section's length is then out of range: wtWriteWtraw fails */
  fprintf(f, ",\n  \"blocks\": {\n    \"cells\": %u, \"dropped\": %u, \"unprofiledDraws\": %u, \"subgroupSize\": %u,\n    \"modules\": [",
          b->cellsUsed, table[WT_BLOCK_WORD_DROPPED], b->unprofiledDraws, t->caps.subgroupSize);
  for (uint32_t m = 0; m < b->moduleCount; m++) {
    if (index[m] == WT_NO_BLOCK_MODULE) continue;
    fprintf(f, "%s\n      { \"name\": ", index[m] ? "," : "");
    wtJsonString_(f, b->modules[m].name);
    fprintf(f, ", \"bytes\": %llu }", (unsigned long long)b->modules[m].bytes);
  }
  fprintf(f, "\n    ],\n    \"rows\": [");
  uint32_t rowsWritten = 0;
  for (uint32_t r = 0; r < b->rowCount; r++) {
    const wtBlockRow_ *row = &b->rows[r];
    uint32_t draw = wtBlocksFileDraw_(t, row->drawId);
    if (draw == WT_NO_DRAW) continue;
    fprintf(f, "%s\n      { \"draw\": %u, \"cell\": %u, \"modules\": [", rowsWritten++ ? "," : "", draw, row->cell);
    for (uint32_t i = 0; i < row->moduleCount; i++) {
      const wtBlockRowModule *rm = &b->rowModules[row->firstModule + i];
      fprintf(f, "%s{ \"module\": %u, \"offset\": %u }", i ? ", " : " ", index[rm->module], rm->offset);
    }
    fprintf(f, " ] }");
  }
  fprintf(f, "\n    ]\n  }");
  free(index);
}

/* The section (wtBlocksSectionBytes_ long); returns nonzero on a write error. */
static int wtBlocksWriteSection_(const wtTracer *t, FILE *f, const uint32_t *table) {
  const struct wtBlockTable_ *b = t->blocks;
  static const unsigned char zeros[8] = {0};
  uint32_t *index = wtBlocksFileModules_(t);
  int bad = index == NULL;
  for (uint32_t m = 0; m < b->moduleCount && !bad; m++) {
    if (index[m] == WT_NO_BLOCK_MODULE) continue;
    size_t pad = (8 - b->modules[m].bytes % 8) % 8;
    bad = fwrite(b->modules[m].code, 1, b->modules[m].bytes, f) != b->modules[m].bytes || fwrite(zeros, 1, pad, f) != pad;
  }
  free(index);
  /* Each cell the sum of its copies (64-bit low/high pairs), written little-endian as the GPU laid them out. */
  const uint32_t *copies = table + WT_BLOCK_HEADER_WORDS;
  for (uint32_t c = 0; c < b->cellsUsed && !bad; c++) {
    uint32_t cell[WT_BLOCK_CELL_WORDS] = {0};
    for (uint32_t w = 0; w + 1 < WT_BLOCK_CELL_WORDS; w += 2) {
      uint64_t sum = 0;
      for (uint32_t k = 0; k < b->copies; k++) {
        const uint32_t *src = copies + ((size_t)k * b->cells + c) * WT_BLOCK_CELL_WORDS;
        sum += (uint64_t)src[w] | (uint64_t)src[w + 1] << 32;
      }
      cell[w] = (uint32_t)sum, cell[w + 1] = (uint32_t)(sum >> 32);
    }
    bad = fwrite(cell, 1, sizeof cell, f) != sizeof cell;
  }
  return bad;
}

#endif /* WARPTRACE_BLOCKS_IMPLEMENTED */
