/**
 * Block-profile sections as a capture host writes them (README "Block
 * profiles"), for tests and synthetic captures: the metadata's `blocks` key
 * and the section's bytes (RawCapture.blockSection).
 */
import { BLOCK_CELL_BYTES, BLOCK_CELL_WORDS, BLOCK_MARK_PREFIX, BlockCellWord } from './block-layout.js';
import type { BlockClock, BlockCounting } from './block-model.js';
import type { RawBlockRow } from './block-raw.js';
import { paddedSection } from './wtraw-writer.js';

/** One cell's counters (bigint for values past 2^53). */
export interface SyntheticCell {
  readonly executions: number | bigint;
  readonly lanes: number | bigint;
  readonly ticks: number | bigint;
}

export interface SyntheticBlockSection {
  readonly modules: readonly { readonly name: string; readonly spirv: Uint8Array }[];
  readonly rows: readonly RawBlockRow[];
  readonly cells: readonly SyntheticCell[];
  readonly subgroupSize: number;
  readonly dropped?: number;
  readonly unprofiledDraws?: number;
}

/** The metadata's `blocks` key and the section's bytes. */
export function blockSectionOf(input: SyntheticBlockSection): { blocks: object; section: Uint8Array } {
  const modulesBytes = input.modules.reduce((sum, m) => sum + paddedSection(m.spirv.length), 0);
  const section = new Uint8Array(modulesBytes + input.cells.length * BLOCK_CELL_BYTES);
  const view = new DataView(section.buffer);
  let at = 0;
  for (const m of input.modules) {
    section.set(m.spirv, at);
    at += paddedSection(m.spirv.length);
  }
  input.cells.forEach((cell, c) => {
    const put = (lo: number, value: number | bigint) => {
      const v = BigInt(value);
      const word = at + (c * BLOCK_CELL_WORDS + lo) * 4;
      view.setUint32(word, Number(v & 0xffffffffn), true);
      view.setUint32(word + 4, Number(v >> 32n), true);
    };
    put(BlockCellWord.EXECUTIONS_LO, cell.executions);
    put(BlockCellWord.LANES_LO, cell.lanes);
    put(BlockCellWord.TICKS_LO, cell.ticks);
  });
  const blocks = {
    cells: input.cells.length,
    dropped: input.dropped ?? 0,
    unprofiledDraws: input.unprofiledDraws ?? 0,
    subgroupSize: input.subgroupSize,
    modules: input.modules.map((m) => ({ name: m.name, bytes: m.spirv.length })),
    rows: input.rows,
  };
  return { blocks, section };
}

/**
 * The least module a block section can carry: a SPIR-V header and the block
 * mark (what describeByMark reads), no code.
 */
export function markedModule(blocks: number, per: BlockCounting, clock: BlockClock): Uint8Array {
  const text = new TextEncoder().encode(`${BLOCK_MARK_PREFIX}${blocks} per=${per} clock=${clock}`);
  const stringWords = Math.floor(text.length / 4) + 1;
  const words = new Uint32Array(5 + 2 + stringWords);
  words.set([0x07230203, 0x00010300, 0, 2, 0]);
  // OpString %1 "warptrace-blocks=..."
  words[5] = ((2 + stringWords) << 16) | 7;
  words[6] = 1;
  const bytes = new Uint8Array(words.buffer);
  bytes.set(text, 7 * 4);
  return bytes;
}
