/**
 * Renders raw-layout.ts and the stage codes as GLSL and C headers, so the
 * shader library and the host library cannot drift from the decoder.
 * `npm run gen:layout` writes them; a test fails when the committed files differ.
 */
import {
  BUFFER_HEADER_BYTES,
  BufferWord,
  PackedIds,
  RAW_UNKNOWN_SLOT,
  RAW_UNKNOWN_SM,
  RECORD_BYTES,
  RECORD_WORDS,
  RecordFlag,
  RecordWord,
  WTRAW_HEADER_BYTES,
  WTRAW_MAGIC,
  WTRAW_SECTION_ALIGN,
  WTRAW_VERSION,
  WtrawHeaderWord,
} from './raw-layout.js';
import { MAX_POSITION_COORD, MAX_POSITION_LOG2, NO_POSITION, PositionBits } from './position.js';
import { STAGES } from './stages.js';
import { MARK_KIND_SHIFT, MARK_SITE_MASK, MARK_STAGE, MAX_MARKS, MarkKind, MarkWord } from './mark-layout.js';
import {
  DRAW_RAY_ROW_WORD,
  MAX_RAY_SCALE,
  NO_RAY_ROW,
  RAY_CELL_WORDS,
  RAY_EVENT_BINDING_OFFSET,
  RAY_EVENT_HEADER_WORDS,
  RAY_ROW_HEADER_WORDS,
  RAY_SCRATCH_ACCEPTED_MASK,
  RAY_SCRATCH_CLOSEST_HIT_RAN,
  RAY_SCRATCH_FINAL_ACCEPTED,
  RAY_SCRATCH_WORDS,
  RayCellWord,
  RayEventHeaderWord,
  RayRowHeaderWord,
  RayScratchWord,
} from './ray-event-layout.js';
import {
  BLOCK_BASE_SPEC_ID,
  BLOCK_BINDING_OFFSET,
  BLOCK_CELL_WORDS,
  BLOCK_HEADER_BYTES,
  BLOCK_STAGES,
  BlockCellWord,
  BlockHeaderWord,
  DRAW_BLOCK_ROW_WORD,
  DRAW_BLOCK_STAGE_WORD,
  DRAW_ID_BLOCK_BYTES,
  NO_BLOCK_ROW,
} from './block-layout.js';
import { DRAW_SAMPLE_WORD, MAX_SAMPLE_LOG2, SAMPLE_KEY_GOLDEN, SAMPLE_LOG2_BITS, SAMPLE_WORDS } from './sample-layout.js';

interface Define {
  readonly name: string;
  readonly value: number;
  readonly comment?: string;
}

function layoutDefines(): Define[] {
  const defs: Define[] = [
    { name: 'WT_BUFFER_HEADER_WORDS', value: BUFFER_HEADER_BYTES / 4 },
    { name: 'WT_BUFFER_WORD_COUNT', value: BufferWord.COUNT, comment: 'atomic: records attempted' },
    { name: 'WT_BUFFER_WORD_CAPACITY', value: BufferWord.CAPACITY, comment: 'records that fit' },
    { name: 'WT_RECORD_WORDS', value: RECORD_WORDS },
    { name: 'WT_RECORD_BYTES', value: RECORD_BYTES },
  ];
  for (const [key, value] of Object.entries(RecordWord)) defs.push({ name: `WT_WORD_${key}`, value });
  for (const [key, value] of Object.entries(PackedIds)) defs.push({ name: `WT_IDS_${key}`, value });
  for (const [key, value] of Object.entries(RecordFlag)) defs.push({ name: `WT_FLAG_${key}`, value });
  // The screen position word (position.ts), in record word 3 when WT_FLAG_POSITION is set.
  for (const [key, value] of Object.entries(PositionBits)) defs.push({ name: `WT_POS_${key}`, value });
  defs.push({ name: 'WT_NO_POSITION', value: NO_POSITION, comment: 'no position (x0 = y0 = 8191)' });
  defs.push({ name: 'WT_MAX_POSITION_COORD', value: MAX_POSITION_COORD, comment: 'largest x0 / y0' });
  defs.push({ name: 'WT_MAX_POSITION_LOG2', value: MAX_POSITION_LOG2, comment: 'footprints up to 128 px' });
  defs.push({ name: 'WT_UNKNOWN_SM', value: RAW_UNKNOWN_SM });
  defs.push({ name: 'WT_UNKNOWN_SLOT', value: RAW_UNKNOWN_SLOT });
  for (const s of STAGES) defs.push({ name: `WT_STAGE_${s.name}`, value: s.code, comment: s.title });
  // Marks (mark-layout.ts).
  defs.push({ name: 'WT_STAGE_MARK', value: MARK_STAGE, comment: 'a mark record, not a shader stage' });
  for (const [key, value] of Object.entries(MarkWord)) defs.push({ name: `WT_MARK_WORD_${key}`, value });
  defs.push({ name: 'WT_MAX_MARKS', value: MAX_MARKS, comment: 'marks per invocation at most' });
  defs.push({ name: 'WT_MARK_KIND_SHIFT', value: MARK_KIND_SHIFT });
  defs.push({ name: 'WT_MARK_SITE_MASK', value: MARK_SITE_MASK });
  for (const [key, value] of Object.entries(MarkKind)) defs.push({ name: `WT_MARK_KIND_${key}`, value });
  // Block profiles (block-layout.ts).
  defs.push({ name: 'WT_BLOCK_BINDING_OFFSET', value: BLOCK_BINDING_OFFSET, comment: 'block table at the trace binding + this' });
  defs.push({ name: 'WT_BLOCK_HEADER_WORDS', value: BLOCK_HEADER_BYTES / 4 });
  for (const [key, value] of Object.entries(BlockHeaderWord)) defs.push({ name: `WT_BLOCK_WORD_${key}`, value });
  defs.push({ name: 'WT_BLOCK_CELL_WORDS', value: BLOCK_CELL_WORDS });
  for (const [key, value] of Object.entries(BlockCellWord)) defs.push({ name: `WT_CELL_${key}`, value });
  defs.push({ name: 'WT_DRAW_BLOCK_ROW_WORD', value: DRAW_BLOCK_ROW_WORD, comment: "draw-id block word: the draw's first cell" });
  defs.push({ name: 'WT_NO_BLOCK_ROW', value: NO_BLOCK_ROW, comment: 'a draw without a row' });
  defs.push({ name: 'WT_BLOCK_BASE_SPEC_ID', value: BLOCK_BASE_SPEC_ID, comment: "SpecId: the module's first cell within the row" });
  defs.push({ name: 'WT_DRAW_BLOCK_STAGE_WORD', value: DRAW_BLOCK_STAGE_WORD, comment: 'draw-id block word of WT_BLOCK_STAGE_VS: + WT_BLOCK_STAGE_x is stage x\'s offset in the row' });
  defs.push({ name: 'WT_BLOCK_STAGE_COUNT', value: BLOCK_STAGES.length, comment: 'graphics stages with a draw-id stage word' });
  BLOCK_STAGES.forEach((stage, k) => defs.push({ name: `WT_BLOCK_STAGE_${stage}`, value: k }));
  defs.push({ name: 'WT_DRAW_ID_BLOCK_BYTES', value: DRAW_ID_BLOCK_BYTES, comment: "a draw's draw-id block: the descriptor's range, the stride's least" });
  // Ray events (ray-event-layout.ts).
  defs.push({ name: 'WT_RAY_EVENT_BINDING_OFFSET', value: RAY_EVENT_BINDING_OFFSET, comment: 'ray-event table at the trace binding + this' });
  defs.push({ name: 'WT_RAY_EVENT_HEADER_WORDS', value: RAY_EVENT_HEADER_WORDS });
  for (const [key, value] of Object.entries(RayEventHeaderWord)) defs.push({ name: `WT_RAY_WORD_${key}`, value });
  defs.push({ name: 'WT_RAY_ROW_HEADER_WORDS', value: RAY_ROW_HEADER_WORDS });
  for (const [key, value] of Object.entries(RayRowHeaderWord)) defs.push({ name: `WT_RAY_ROW_${key}`, value });
  defs.push({ name: 'WT_RAY_CELL_WORDS', value: RAY_CELL_WORDS });
  for (const [key, value] of Object.entries(RayCellWord)) defs.push({ name: `WT_RAY_CELL_${key}`, value });
  defs.push({ name: 'WT_RAY_SCRATCH_WORDS', value: RAY_SCRATCH_WORDS });
  for (const [key, value] of Object.entries(RayScratchWord)) defs.push({ name: `WT_RAY_SCRATCH_${key}`, value });
  defs.push({ name: 'WT_RAY_SCRATCH_ACCEPTED_MASK', value: RAY_SCRATCH_ACCEPTED_MASK });
  defs.push({ name: 'WT_RAY_SCRATCH_CLOSEST_HIT_RAN', value: RAY_SCRATCH_CLOSEST_HIT_RAN });
  defs.push({ name: 'WT_RAY_SCRATCH_FINAL_ACCEPTED', value: RAY_SCRATCH_FINAL_ACCEPTED });
  defs.push({ name: 'WT_MAX_RAY_SCALE', value: MAX_RAY_SCALE, comment: 'largest binning: 2^this launch pixels per cell side' });
  defs.push({ name: 'WT_DRAW_RAY_ROW_WORD', value: DRAW_RAY_ROW_WORD, comment: "draw-id block word: the trace-rays call's ray-event row" });
  defs.push({ name: 'WT_NO_RAY_ROW', value: NO_RAY_ROW, comment: 'a draw without a ray-event row' });
  // Warp sampling (sample-layout.ts).
  defs.push({ name: 'WT_DRAW_SAMPLE_WORD', value: DRAW_SAMPLE_WORD, comment: "draw-id block word of stage codes 0-7's log2 sampling rates (4 bits each); + 1: codes 8-15" });
  defs.push({ name: 'WT_SAMPLE_WORDS', value: SAMPLE_WORDS });
  defs.push({ name: 'WT_SAMPLE_LOG2_BITS', value: SAMPLE_LOG2_BITS });
  defs.push({ name: 'WT_MAX_SAMPLE_LOG2', value: MAX_SAMPLE_LOG2, comment: 'one warp in 32,768' });
  defs.push({ name: 'WT_SAMPLE_KEY_GOLDEN', value: SAMPLE_KEY_GOLDEN, comment: 'spreads a second warp-key component' });
  return defs;
}

/** Masks and sentinels read best in hex, counts and indices in decimal. */
function literal(name: string, value: number): string {
  return /MASK|MAGIC|UNKNOWN|NO_POSITION|NO_BLOCK_ROW|NO_RAY_ROW|SPEC_ID|RAN|ACCEPTED|GOLDEN/.test(name) ? `0x${value.toString(16)}` : String(value);
}

const banner = (source: string) =>
  `// Generated from shared-schema/raw-layout.ts and stages.ts by \`npm run gen:layout\`.\n` +
  `// Do not edit: ${source} must match the decoder (a test checks it).\n`;

export function renderGlslLayout(): string {
  const lines = [banner('this file'), '#ifndef WARPTRACE_LAYOUT_GLSL', '#define WARPTRACE_LAYOUT_GLSL', ''];
  for (const d of layoutDefines()) {
    const suffix = d.comment === undefined ? '' : ` // ${d.comment}`;
    lines.push(`#define ${d.name} ${literal(d.name, d.value)}u${suffix}`);
  }
  lines.push('', '#endif // WARPTRACE_LAYOUT_GLSL', '');
  return lines.join('\n');
}

export function renderCLayout(): string {
  const defs = [
    ...layoutDefines(),
    { name: 'WT_WTRAW_MAGIC', value: WTRAW_MAGIC, comment: '"WTRW" little-endian' },
    { name: 'WT_WTRAW_VERSION', value: WTRAW_VERSION },
    { name: 'WT_WTRAW_HEADER_BYTES', value: WTRAW_HEADER_BYTES },
    { name: 'WT_WTRAW_SECTION_ALIGN', value: WTRAW_SECTION_ALIGN },
    ...Object.entries(WtrawHeaderWord).map(([key, value]) => ({ name: `WT_WTRAW_WORD_${key}`, value })),
  ];
  const lines = [banner('this file'), '#ifndef WARPTRACE_LAYOUT_H', '#define WARPTRACE_LAYOUT_H', ''];
  for (const d of defs) {
    const suffix = d.comment === undefined ? '' : ` /* ${d.comment} */`;
    lines.push(`#define ${d.name} ${literal(d.name, d.value)}u${suffix}`);
  }
  lines.push('#define WT_WTRAW_NO_TIMESTAMP 0xffffffffffffffffull', '', '#endif /* WARPTRACE_LAYOUT_H */', '');
  return lines.join('\n');
}

/** Where the generated headers live, relative to the package root. */
export const GLSL_LAYOUT_PATH = 'capture/shaders/warptrace_layout.glsl';
export const C_LAYOUT_PATH = 'capture/host/warptrace_layout.h';
