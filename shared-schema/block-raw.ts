/**
 * The .wtraw block-profile section (README "Block profiles", block-layout.ts):
 * the metadata's `blocks` key and the section's bytes, checked against each
 * other before anything is allocated. Gives the modules' SPIR-V, the rows
 * and the cells as three columns of exact doubles; which cells are whose
 * blocks needs the modules' block counts (block-profile.ts).
 */
import { BLOCK_CELL_BYTES, BLOCK_CELL_WORDS, BlockCellWord } from './block-layout.js';
import { describeValue, fail } from './errors.js';
import { readArray, readInteger, readObject, readString } from './fields.js';
import { paddedSection } from './wtraw-writer.js';

/** Modules one capture may carry (a pipeline has a few; a frame's pipelines a few thousand). */
export const MAX_BLOCK_MODULES = 65_536;
/** Largest block section accepted (bytes): far above a real table, small enough to never exhaust memory. */
export const MAX_BLOCK_BYTES = 1024 * 1024 * 1024;
const U32_MAX = 0xffffffff;

/** A module of the row: its first cell within the row. */
export interface RawRowModule {
  readonly module: number;
  readonly offset: number;
}

/** A draw's row: its first cell in the table. */
export interface RawBlockRow {
  readonly draw: number;
  readonly cell: number;
  readonly modules: readonly RawRowModule[];
}

export interface RawBlockSection {
  readonly cells: number;
  readonly dropped: number;
  readonly unprofiledDraws: number;
  readonly subgroupSize: number;
  /** Each module's name and instrumented SPIR-V (a view into the file). */
  readonly modules: readonly { readonly name: string; readonly spirv: Uint8Array }[];
  readonly rows: readonly RawBlockRow[];
  /** Per cell: executions, lanes and ticks (hi × 2^32 + lo, each below 2^53). */
  readonly executions: Float64Array;
  readonly lanes: Float64Array;
  readonly ticks: Float64Array;
}

/** The metadata's `blocks` key, as far as it can be checked without the section. */
interface BlockMetadata {
  readonly cells: number;
  readonly dropped: number;
  readonly unprofiledDraws: number;
  readonly subgroupSize: number;
  readonly modules: readonly { readonly name: string; readonly bytes: number }[];
  readonly rows: readonly RawBlockRow[];
}

const FIELD = 'metadata.blocks';

function readBlockMetadata(value: unknown, drawCount: number): BlockMetadata {
  const o = readObject(value, FIELD);
  const cells = readInteger(o, 'cells', FIELD, 0, Math.floor(MAX_BLOCK_BYTES / BLOCK_CELL_BYTES));
  const modules = readArray(o, 'modules', FIELD, MAX_BLOCK_MODULES).map((m, i) => {
    const f = `${FIELD}.modules[${i}]`;
    const mo = readObject(m, f);
    const bytes = readInteger(mo, 'bytes', f, 20, MAX_BLOCK_BYTES);
    // SPIR-V is a stream of 32-bit words.
    if (bytes % 4 !== 0) fail('bad-value', `${f}.bytes`, `${bytes} is not a whole number of 32-bit words`);
    return { name: readString(mo, 'name', f), bytes };
  });
  const seen = new Set<number>();
  const rows = readArray(o, 'rows', FIELD, drawCount).map((r, i): RawBlockRow => {
    const f = `${FIELD}.rows[${i}]`;
    const ro = readObject(r, f);
    const draw = readInteger(ro, 'draw', f, 0, drawCount - 1);
    if (seen.has(draw)) fail('bad-value', `${f}.draw`, `draw ${draw} has a row already`);
    seen.add(draw);
    const rowModules = readArray(ro, 'modules', f, modules.length).map((m, k): RawRowModule => {
      const mf = `${f}.modules[${k}]`;
      const mo = readObject(m, mf);
      return { module: readInteger(mo, 'module', mf, 0, modules.length - 1), offset: readInteger(mo, 'offset', mf, 0, cells) };
    });
    const once = new Set(rowModules.map((m) => m.module));
    if (once.size !== rowModules.length) fail('bad-value', `${f}.modules`, 'a module appears twice in one row');
    return { draw, cell: readInteger(ro, 'cell', f, 0, cells), modules: rowModules };
  });
  return {
    cells,
    dropped: readInteger(o, 'dropped', FIELD, 0, U32_MAX),
    unprofiledDraws: readInteger(o, 'unprofiledDraws', FIELD, 0, drawCount),
    subgroupSize: readInteger(o, 'subgroupSize', FIELD, 1, 128),
    modules,
    rows: [...rows].sort((a, b) => a.draw - b.draw),
  };
}

/**
 * The block section of a .wtraw: `section` the BLOCK_BYTES after the
 * records (empty when none), `blocks` the metadata's key. Null when the file
 * has neither; one without the other is refused, unless the key describes
 * an empty profile (no module, no cell), which has no section.
 */
export function readBlockSection(section: Uint8Array, blocks: unknown, drawCount: number): RawBlockSection | null {
  if (blocks === undefined || blocks === null) {
    if (section.length !== 0) fail('bad-value', FIELD, `missing, but header.blockBytes declares a ${section.length}-byte block section`);
    return null;
  }
  const meta = readBlockMetadata(blocks, drawCount);
  let expected = meta.cells * BLOCK_CELL_BYTES;
  for (const m of meta.modules) expected += paddedSection(m.bytes);
  // A profile no draw got a row in (every draw untraced, or traced without one) holds no module and no cell: no section.
  if (section.length === 0 && expected > 0) fail('bad-value', 'header.blockBytes', `0, but ${FIELD} describes a block profile`);
  if (section.length !== expected) {
    fail('size-mismatch', 'header.blockBytes', `${section.length} bytes, but ${FIELD} describes ${expected} (modules padded to 8 bytes, then ${meta.cells} cells of ${BLOCK_CELL_BYTES})`);
  }
  let at = 0;
  const modules = meta.modules.map((m) => {
    const spirv = section.subarray(at, at + m.bytes);
    at += paddedSection(m.bytes);
    return { name: m.name, spirv };
  });
  const view = new DataView(section.buffer, section.byteOffset + at, meta.cells * BLOCK_CELL_BYTES);
  const executions = new Float64Array(meta.cells);
  const lanes = new Float64Array(meta.cells);
  const ticks = new Float64Array(meta.cells);
  const counter = (cell: number, lo: number, name: string): number => {
    const base = cell * BLOCK_CELL_WORDS;
    const value = view.getUint32((base + lo + 1) * 4, true) * 2 ** 32 + view.getUint32((base + lo) * 4, true);
    // 2^53 executions or SM cycles is months of GPU time: a larger count is no count.
    if (value > Number.MAX_SAFE_INTEGER) fail('bad-value', `blocks.cells[${cell}].${name}`, `${describeValue(value)} is past 2^53`);
    return value;
  };
  for (let c = 0; c < meta.cells; c++) {
    executions[c] = counter(c, BlockCellWord.EXECUTIONS_LO, 'executions');
    lanes[c] = counter(c, BlockCellWord.LANES_LO, 'lanes');
    ticks[c] = counter(c, BlockCellWord.TICKS_LO, 'ticks');
  }
  const { cells, dropped, unprofiledDraws, subgroupSize, rows } = meta;
  return { cells, dropped, unprofiledDraws, subgroupSize, modules, rows, executions, lanes, ticks };
}

