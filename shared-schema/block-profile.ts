/**
 * From a .wtraw block section to the model's BlockProfile: each module
 * described from its SPIR-V (by the caller's describer: instrument/block-map.ts
 * in the CLI; without one, only the module's block mark is read), each draw's
 * row cut into its modules' counts, every count checked.
 */
import { BLOCK_MARK_PREFIX } from './block-layout.js';
import type { BlockClock, BlockCounting, BlockCounts, BlockProfile, BlockRow, BlockSite, DescribeModule, ModuleDescription } from './block-model.js';
import type { RawBlockSection } from './block-raw.js';
import { TraceFormatError, fail } from './errors.js';

/** Blocks one module may number: far above any real shader. */
export const MAX_MODULE_BLOCKS = 1_000_000;

/** The block mark's fields (`warptrace-blocks=N per=warp|invocation clock=sm|device`). */
export interface BlockMark {
  readonly blocks: number;
  readonly per: BlockCounting;
  readonly clock: BlockClock;
}

/** Parses a module's block mark; null when `text` is not one. Keys it does not know are ignored (later additions). */
export function parseBlockMark(text: string): BlockMark | null {
  if (!text.startsWith(BLOCK_MARK_PREFIX)) return null;
  const fields = new Map(text.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const));
  const count = fields.get(BLOCK_MARK_PREFIX.slice(0, -1)) ?? '';
  const per = fields.get('per');
  const clock = fields.get('clock');
  if (!/^\d{1,7}$/.test(count) || Number(count) > MAX_MODULE_BLOCKS) return null;
  if (per !== 'warp' && per !== 'invocation') return null;
  if (clock !== 'sm' && clock !== 'device') return null;
  return { blocks: Number(count), per, clock };
}

const SPIRV_MAGIC = 0x07230203;
const OP_STRING = 7;

/**
 * The least description: the block mark only (blocks without functions or
 * lines, no stages). What a decoder composed without instrument/ gets; the
 * counts are whole either way.
 */
export function describeByMark(spirv: Uint8Array): ModuleDescription {
  const view = new DataView(spirv.buffer, spirv.byteOffset, spirv.byteLength);
  if (spirv.length < 20 || spirv.length % 4 !== 0) throw new Error(`${spirv.length} bytes are no SPIR-V module`);
  const little = view.getUint32(0, true) === SPIRV_MAGIC;
  if (!little && view.getUint32(0, false) !== SPIRV_MAGIC) throw new Error('not a SPIR-V module (no magic number)');
  const words = spirv.length / 4;
  for (let at = 5; at < words; ) {
    const first = view.getUint32(at * 4, little);
    const count = first >>> 16;
    if (count === 0 || at + count > words) throw new Error(`instruction at word ${at} runs past the module`);
    if ((first & 0xffff) === OP_STRING && count > 2) {
      const bytes = spirv.subarray((at + 2) * 4, (at + count) * 4);
      const end = bytes.indexOf(0);
      const mark = parseBlockMark(new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end)));
      if (mark !== null) {
        const site: BlockSite = { function: '?', file: null, line: null, column: null, text: null };
        return { stages: [], per: mark.per, clock: mark.clock, blocks: new Array<BlockSite>(mark.blocks).fill(site), sources: [] };
      }
    }
    at += count;
  }
  throw new Error(`no "${BLOCK_MARK_PREFIX}N ..." string: not instrumented with --blocks`);
}

/** Refuses counts no GPU could have summed: more lanes than the executions had. */
export function checkLanes(executions: Float64Array, lanes: Float64Array, subgroupSize: number, field: string): void {
  for (let b = 0; b < executions.length; b++) {
    if ((lanes[b] as number) > (executions[b] as number) * subgroupSize) {
      fail('bad-value', `${field}.lanes[${b}]`, `${lanes[b]} lanes in ${executions[b]} executions of at most ${subgroupSize} lanes`);
    }
  }
}

/** The model's profile of a checked raw section, each module described by `describe`. */
export function blockProfileOf(section: RawBlockSection, describe: DescribeModule = describeByMark): BlockProfile {
  const modules = section.modules.map((m, i) => {
    let description: ModuleDescription;
    try {
      description = describe(m.spirv);
    } catch (error) {
      // The SPIR-V came with the file: a module it cannot describe is the file's fault.
      if (error instanceof TraceFormatError) throw error;
      return fail('bad-value', `metadata.blocks.modules[${i}]`, `its SPIR-V: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (description.blocks.length > MAX_MODULE_BLOCKS) fail('too-large', `metadata.blocks.modules[${i}]`, `${description.blocks.length} blocks`);
    return { name: m.name, ...description };
  });
  const rows = section.rows.map((row, r): BlockRow => {
    const counts = row.modules.map(({ module, offset }, k): BlockCounts => {
      const field = `metadata.blocks.rows[${r}].modules[${k}]`;
      const n = (modules[module] as { blocks: readonly BlockSite[] }).blocks.length;
      const from = row.cell + offset;
      if (from + n > section.cells) fail('bad-value', `${field}.offset`, `cells ${from}..${from + n - 1} of module ${module}'s ${n} blocks lie past the table's ${section.cells}`);
      const out = { module, executions: section.executions.slice(from, from + n), lanes: section.lanes.slice(from, from + n), ticks: section.ticks.slice(from, from + n) };
      checkLanes(out.executions, out.lanes, section.subgroupSize, field);
      return out;
    });
    return { draw: row.draw, modules: counts };
  });
  return { subgroupSize: section.subgroupSize, dropped: section.dropped, unprofiledDraws: section.unprofiledDraws, modules, rows };
}
