// Reads the block-profile section of a .wtraw for the capture tests (README "Block profiles"),
// independently of the decoder: header word BLOCK_BYTES, the metadata's "blocks", then each
// module's SPIR-V padded to 8 bytes and the cells.
import assert from 'node:assert/strict';
import { BLOCK_CELL_BYTES, BlockCellWord } from '../../shared-schema/block-layout.js';
import { WtrawHeaderWord, WTRAW_SECTION_ALIGN } from '../../shared-schema/index.js';

export interface RawBlockRow {
  readonly draw: number;
  readonly cell: number;
  readonly modules: readonly { readonly module: number; readonly offset: number }[];
}

export interface RawBlocksMetadata {
  readonly cells: number;
  readonly dropped: number;
  readonly unprofiledDraws: number;
  readonly subgroupSize: number;
  readonly modules: readonly { readonly name: string; readonly bytes: number }[];
  readonly rows: readonly RawBlockRow[];
}

export interface RawCell {
  readonly executions: number;
  readonly lanes: number;
  readonly ticks: number;
}

export interface RawBlocks {
  readonly metadata: Record<string, unknown>;
  readonly blocks: RawBlocksMetadata | undefined;
  readonly blockBytes: number;
  readonly moduleBytes: readonly Uint8Array[];
  readonly cells: readonly RawCell[];
}

const padded = (n: number) => Math.ceil(n / WTRAW_SECTION_ALIGN) * WTRAW_SECTION_ALIGN;

export function readRawBlocks(raw: Uint8Array): RawBlocks {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const word = (w: number) => view.getUint32(w * 4, true);
  const headerBytes = word(WtrawHeaderWord.HEADER_BYTES);
  const metadataBytes = word(WtrawHeaderWord.METADATA_BYTES);
  const metadata = JSON.parse(new TextDecoder().decode(raw.subarray(headerBytes, headerBytes + metadataBytes))) as Record<string, unknown>;
  const blockBytes = word(WtrawHeaderWord.BLOCK_BYTES);
  const recordsEnd = headerBytes + padded(metadataBytes) + word(WtrawHeaderWord.TIMESTAMP_COUNT) * 16 + word(WtrawHeaderWord.RECORD_COUNT) * word(WtrawHeaderWord.RECORD_BYTES);
  assert.equal(raw.length, recordsEnd + blockBytes, 'the file is as long as its header says');
  const blocks = metadata['blocks'] as RawBlocksMetadata | undefined;
  const moduleBytes: Uint8Array[] = [];
  const cells: RawCell[] = [];
  if (blocks !== undefined) {
    let at = recordsEnd;
    for (const m of blocks.modules) {
      moduleBytes.push(raw.subarray(at, at + m.bytes));
      at += padded(m.bytes);
    }
    assert.equal(recordsEnd + blockBytes - at, blocks.cells * BLOCK_CELL_BYTES, 'the section ends with the cells handed out');
    const u64 = (cellAt: number, low: number) => view.getUint32(cellAt + low * 4, true) + view.getUint32(cellAt + low * 4 + 4, true) * 2 ** 32;
    for (let c = 0; c < blocks.cells; c++, at += BLOCK_CELL_BYTES) {
      cells.push({ executions: u64(at, BlockCellWord.EXECUTIONS_LO), lanes: u64(at, BlockCellWord.LANES_LO), ticks: u64(at, BlockCellWord.TICKS_LO) });
    }
  }
  return { metadata, blocks, blockBytes, moduleBytes, cells };
}
