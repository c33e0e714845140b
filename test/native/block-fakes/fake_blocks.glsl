// Hand-written stand-ins for `warptrace instrument --blocks` (test/node/capture-blocks.test.ts):
// each shader marks itself with the OpString "warptrace-blocks=N ..." (a debugPrintfEXT format
// string no driver prints) and counts its blocks into the block table as the README's "Block
// profiles" says, so the host library and the harness are checked apart from the instrumenter.
// glslang refuses the real SpecId (0x57540001): the test patches SpecId 77 into it.
#extension GL_EXT_debug_printf : require
#extension GL_KHR_shader_subgroup_ballot : require

layout(constant_id = 77) const uint kBlockBase = 0u;
layout(std430, set = 7, binding = 2) buffer BlockTable { uint dropped; uint cells; uint reserved[2]; uint words[]; } blockTable;
layout(std140, set = 7, binding = 1) uniform DrawIdBlock { uint drawId; uint row; } drawIdBlock;

void countCell(uint block, uint executions, uint lanes) {
  if (drawIdBlock.row == 0xffffffffu) return;
  uint cell = drawIdBlock.row + kBlockBase + block;
  if ((cell + 1u) * 8u > uint(blockTable.words.length())) {
    atomicAdd(blockTable.dropped, executions);
    return;
  }
  atomicAdd(blockTable.words[cell * 8u + 0u], executions);
  atomicAdd(blockTable.words[cell * 8u + 2u], lanes);
}

// Once per warp: the elected lane counts the live lanes (helpers left out).
void enterPerWarp(uint block, bool live) {
  uint lanes = subgroupBallotBitCount(subgroupBallot(live));
  if (subgroupElect()) countCell(block, 1u, lanes);
}
