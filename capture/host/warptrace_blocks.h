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
 * wtWriteWtraw then adds the modules and the cells to the .wtraw. Libraries' modules: wtSetDrawBlockStageOffsets.
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
/*
 * Pipelines linked from libraries, whose modules keep WT_BLOCK_BASE_SPEC_ID at 0: writes offsets[k], the first cell
 * in the row of the draw's module of graphics stage k (WT_BLOCK_STAGE_VS..MESH), into its draw-id word
 * WT_DRAW_BLOCK_STAGE_WORD + k, which that module adds (0 for other draws; reset at wtCmdBeginCapture). Between submits.
 */
void wtSetDrawBlockStageOffsets(wtTracer *tracer, uint32_t drawId, const uint32_t offsets[WT_BLOCK_STAGE_COUNT]);

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
  int stageOffsetsWritten; /* some draw's stage words hold offsets: the next capture zeroes them */
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

/* Writes offsets (NULL: zeros) into the stage words of draw d, or of every draw for WT_NO_DRAW (host-coherent memory). */
static void wtBlocksWriteStageWords_(wtTracer *t, uint32_t d, const uint32_t *offsets) {
  static const uint32_t zeros[WT_BLOCK_STAGE_COUNT] = {0};
  void *map = NULL;
  if (vkMapMemory(t->device, t->drawIdMemory, 0, VK_WHOLE_SIZE, 0, &map) != VK_SUCCESS) return;
  for (uint32_t i = d == WT_NO_DRAW ? 0 : d; i < (d == WT_NO_DRAW ? t->maxDraws : d + 1); i++)
    memcpy((uint32_t *)((char *)map + i * t->uboStride) + WT_DRAW_BLOCK_STAGE_WORD, offsets ? offsets : zeros, sizeof zeros);
  vkUnmapMemory(t->device, t->drawIdMemory);
  t->blocks->stageOffsetsWritten = offsets != NULL;
}

/* At capture begin (between the trace buffer's barriers): zeroes the table, forgets the last capture's rows. */
static void wtBlocksCmdBegin_(wtTracer *t, VkCommandBuffer cmd) {
  struct wtBlockTable_ *b = t->blocks;
  /* A draw id of the last capture without a row this time must not count into its old row, nor at its old offsets. */
  if (b->rowCount) wtBlocksWriteRowWords_(t, &b->rows[0].drawId, sizeof b->rows[0], b->rowCount, NULL);
  if (b->stageOffsetsWritten) wtBlocksWriteStageWords_(t, WT_NO_DRAW, NULL);
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

void wtSetDrawBlockStageOffsets(wtTracer *t, uint32_t drawId, const uint32_t offsets[WT_BLOCK_STAGE_COUNT]) {
  if (t->blocks && drawId < t->maxDraws) wtBlocksWriteStageWords_(t, drawId, offsets);
}

/* The .wtraw section: warptrace_blocks_file.h. */
#include "warptrace_blocks_file.h"

#endif /* WARPTRACE_BLOCKS_IMPLEMENTED */
