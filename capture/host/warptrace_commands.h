/*
 * warptrace_commands.h: what the tracer records into the command buffer around a capture and each draw
 * (wtCmdBeginCapture, wtCmdBeginDraw, wtCmdEndDraw, wtCmdEndCapture) and the per-draw settings read
 * there (wtSetDrawTimestamps, wtSetDrawTarget). Separate because this is the per-capture path: the
 * resources exist, the readback comes later (warptrace_wtraw.h).
 * Part of warptrace.h's implementation, which includes it under WARPTRACE_IMPLEMENTATION; do not include it alone.
 */
#if defined(WARPTRACE_IMPLEMENTED) && !defined(WARPTRACE_COMMANDS_IMPLEMENTED)
#define WARPTRACE_COMMANDS_IMPLEMENTED

static void wtBarrier_(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                       VkAccessFlags dstAccess) {
  VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

void wtCmdBeginCapture(wtTracer *t, VkCommandBuffer cmd) {
  t->drawCount = 0;
  t->openDraw = WT_NO_DRAW;
  t->overflowDraws = 0;
  t->captureOpen = VK_TRUE;
  uint32_t header[WT_BUFFER_HEADER_WORDS] = {0};
  header[WT_BUFFER_WORD_CAPACITY] = t->capacity;
  /* Earlier shader writes (a previous capture) must land before the reset. */
  wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
             VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdUpdateBuffer(cmd, t->traceBuffer, 0, sizeof header, header);
  if (t->blocks) wtBlocksCmdBegin_(t, cmd);
  if (t->rays) wtRaysCmdBegin_(t, cmd);
  wtBarrier_(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
             VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  if (t->queries) {
    vkCmdResetQueryPool(cmd, t->queries, 0, 1 + 2 * t->maxDraws);
    /* Time 0: once everything before the capture has finished. */
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->queries, 0);
  }
}

uint32_t wtCmdBeginDraw(wtTracer *t, VkCommandBuffer cmd, VkPipelineBindPoint bindPoint, VkPipelineLayout layout, uint32_t set,
                        const char *label, wtDrawKind kind) {
  if (t->drawCount >= t->maxDraws) {
    t->overflowDraws++;
    t->openDraw = WT_NO_DRAW;
    return WT_NO_DRAW;
  }
  uint32_t d = t->drawCount++;
  snprintf(t->labels[d].text, sizeof t->labels[d].text, "%s", label ? label : "");
  t->labels[d].kind = kind;
  t->labels[d].targetWidth = t->labels[d].targetHeight = 0;
  t->openDraw = d;
  uint32_t offset = (uint32_t)(d * t->uboStride);
  vkCmdBindDescriptorSets(cmd, bindPoint, layout, set, 1, &t->set, 1, &offset);
  /* Written before the front end launches the draw: a lower bound of its warps. */
  if (t->queries && !t->noDrawTimestamps) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, t->queries, 1 + 2 * d);
  return d;
}

void wtCmdEndDraw(wtTracer *t, VkCommandBuffer cmd) {
  /* Written once every earlier command has finished: an upper bound of the draw's warps. */
  if (t->openDraw != WT_NO_DRAW && t->queries && !t->noDrawTimestamps) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->queries, 2 + 2 * t->openDraw);
  t->openDraw = WT_NO_DRAW;
}

void wtSetDrawTimestamps(wtTracer *t, VkBool32 enabled) { t->noDrawTimestamps = !enabled; }

void wtSetDrawTarget(wtTracer *t, uint32_t drawId, uint32_t width, uint32_t height) {
  if (drawId >= t->maxDraws) return;
  t->labels[drawId].targetWidth = width;
  t->labels[drawId].targetHeight = height;
}

void wtCmdEndCapture(wtTracer *t, VkCommandBuffer cmd) {
  wtBarrier_(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
             VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferCopy region = {0, 0, t->traceBytes};
  vkCmdCopyBuffer(cmd, t->traceBuffer, t->readbackBuffer, 1, &region);
  if (t->blocks) wtBlocksCmdEnd_(t, cmd);
  if (t->rays) wtRaysCmdEnd_(t, cmd);
  wtBarrier_(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  t->captureOpen = VK_FALSE;
}

#endif /* WARPTRACE_COMMANDS_IMPLEMENTED */
