/*
 * warptrace_blocks_file.h: the block profile's part of the .wtraw (shared-schema/README.md, "Block profiles"):
 * the metadata's "blocks" member and the section of modules and cells. Included by warptrace_blocks.h's
 * implementation; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTATION) && defined(WT_BLOCKS_IMPLEMENT_) && !defined(WARPTRACE_BLOCKS_FILE_IMPLEMENTED)
#define WARPTRACE_BLOCKS_FILE_IMPLEMENTED

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

#endif /* WARPTRACE_BLOCKS_FILE_IMPLEMENTED */
