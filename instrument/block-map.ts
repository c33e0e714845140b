/**
 * Block maps: what an instrumented module's SPIR-V says about each block
 * that `--blocks` numbered (shared-schema README "Block profiles"). Block b
 * is where the module calls `warptrace_block_enter(b)`; its site is:
 *
 * - the function the call is in (OpName, else "%id");
 * - the first line information in the block: the first `OpLine`, or
 *   `NonSemantic.Shader.DebugInfo.100` `DebugLine`, with a line above 0
 *   (glslang writes line 0 for a function's prologue), from the start of the
 *   SPIR-V block to its end (or, were a block to call twice, from this call
 *   to the next). Line information is not carried in from other blocks: a
 *   block without its own has no line (SPIR-V ends an OpLine's scope at the
 *   block's end), and gets a short disassembly (its opcode names) instead;
 * - the module's stages (its entry points), how it counts and its clock
 *   (the `warptrace-blocks=N per=... clock=...` mark), and the source text
 *   it embeds (OpSource / OpSourceContinued, DebugSource / DebugSourceContinued),
 *   glslang's preamble of `// OpModuleProcessed` lines and `#line 1` removed
 *   so the text's lines are the file's.
 *
 * describeBlocks is the DescribeModule the CLI hands the decoder.
 */
import { STAGE_OF_EXECUTION_MODEL } from './model/execution-models.js';
import { BLOCK_ENTER_FUNCTION, BLOCK_MARK_PREFIX } from '../shared-schema/block-layout.js';
import type { BlockSite, ModuleDescription, SourceText } from '../shared-schema/block-model.js';
import { parseBlockMark, type BlockMark } from '../shared-schema/block-profile.js';
import type { StageName } from '../shared-schema/stages.js';
import { decodeString, parseSpirv, type Instruction } from './model/binary.js';
import { opcodeName } from './model/opcode-names.js';
import { Op } from './model/spec.js';

/** A module whose blocks cannot be mapped (no mark, a block numbered twice...). */
export class BlockMapError extends Error {
  override readonly name = 'BlockMapError';
}

const DEBUG_INFO_SET = 'NonSemantic.Shader.DebugInfo.100';
/** NonSemantic.Shader.DebugInfo.100 instruction numbers. */
const DebugInfo = { Source: 35, SourceContinued: 102, Line: 103 } as const;
/** Opcode names listed in a block's disassembly, at most. */
const TEXT_OPCODES = 24;

interface Location {
  readonly file: string;
  readonly line: number;
  readonly column: number | null;
}

/** What the module's declarations say: names, strings, 32-bit constants, sources, the mark. */
class Declarations {
  readonly strings = new Map<number, string>();
  readonly names = new Map<number, string>();
  readonly constants = new Map<number, number>();
  /** DebugSource result id → its file's OpString id. */
  readonly debugSources = new Map<number, number>();
  readonly stages: StageName[] = [];
  readonly sources: { file: string; text: string }[] = [];
  debugSet: number | null = null;
  mark: BlockMark | null = null;

  read(inst: Instruction): void {
    const w = inst.words;
    switch (inst.opcode) {
      case Op.String: {
        const text = decodeString(w, 2).value;
        this.strings.set(w[1]!, text);
        if (text.startsWith(BLOCK_MARK_PREFIX)) {
          this.mark = parseBlockMark(text);
          if (this.mark === null) throw new BlockMapError(`malformed block mark "${text.slice(0, 80)}"`);
        }
        break;
      }
      case Op.Name:
        this.names.set(w[1]!, decodeString(w, 2).value);
        break;
      case Op.Constant:
        this.constants.set(w[2]!, w[3]!);
        break;
      case Op.ExtInstImport:
        if (decodeString(w, 2).value === DEBUG_INFO_SET) this.debugSet = w[1]!;
        break;
      case Op.EntryPoint: {
        const stage = STAGE_OF_EXECUTION_MODEL.get(w[1]!);
        if (stage !== undefined && !this.stages.includes(stage)) this.stages.push(stage);
        break;
      }
      case Op.Source:
        // OpSource lang version [file] [source]: the text only with a file to name it.
        if (w.length > 4) this.sources.push({ file: this.strings.get(w[3]!) ?? `%${w[3]}`, text: decodeString(w, 4).value });
        break;
      case Op.SourceContinued: {
        const last = this.sources[this.sources.length - 1];
        if (last !== undefined) last.text += decodeString(w, 1).value;
        break;
      }
      case Op.ExtInst:
        if (w[3] === this.debugSet) this.readDebug(w);
        break;
    }
  }

  /** DebugSource File [Text], DebugSourceContinued Text (operands are ids). */
  private readDebug(w: Uint32Array): void {
    if (w[4] === DebugInfo.Source && w.length > 5) {
      this.debugSources.set(w[2]!, w[5]!);
      const text = w.length > 6 ? this.strings.get(w[6]!) : undefined;
      if (text !== undefined) this.sources.push({ file: this.strings.get(w[5]!) ?? `%${w[5]}`, text });
    } else if (w[4] === DebugInfo.SourceContinued && w.length > 5) {
      const last = this.sources[this.sources.length - 1];
      if (last !== undefined) last.text += this.strings.get(w[5]!) ?? '';
    }
  }

  /** The location an OpLine or DebugLine gives (null: none, or line 0). */
  locationOf(inst: Instruction): Location | null {
    const w = inst.words;
    if (inst.opcode === Op.Line) {
      const file = this.strings.get(w[1]!);
      return file === undefined || w[2] === 0 ? null : { file, line: w[2]!, column: w[3] === 0 ? null : w[3]! };
    }
    if (inst.opcode === Op.ExtInst && w[3] === this.debugSet && w[4] === DebugInfo.Line && w.length >= 10) {
      const fileId = this.debugSources.get(w[5]!);
      const file = fileId === undefined ? undefined : this.strings.get(fileId);
      const line = this.constants.get(w[6]!);
      const column = this.constants.get(w[8]!);
      return file === undefined || line === undefined || line === 0 ? null : { file, line, column: column === undefined || column === 0 ? null : column };
    }
    return null;
  }

  isDebug(inst: Instruction): boolean {
    return inst.opcode === Op.Line || inst.opcode === Op.NoLine || (inst.opcode === Op.ExtInst && this.debugSet !== null && inst.words[3] === this.debugSet);
  }
}

/** glslang's preamble ("// OpModuleProcessed ..." lines, then "#line 1"), which shifts the text's lines off the file's. */
function withoutPreamble(text: string): string {
  const preamble = /^(?:\/\/ OpModuleProcessed[^\n]*\n)+#line 1\n/.exec(text);
  return preamble === null ? text : text.slice(preamble[0].length);
}

/** The opcode names of a block's code, shortened past TEXT_OPCODES. */
function disassembly(code: readonly Instruction[]): string {
  const names = code.slice(0, TEXT_OPCODES).map((i) => opcodeName(i.opcode));
  return code.length > TEXT_OPCODES ? `${names.join(' ')} … (${code.length} instructions)` : names.join(' ');
}

/** The blocks, sources and stages of an instrumented module (DescribeModule for shared-schema's decoder). */
export function describeBlocks(bytes: Uint8Array): ModuleDescription {
  const { instructions } = parseSpirv(bytes);
  const decl = new Declarations();
  let firstFunction = instructions.findIndex((i) => i.opcode === Op.Function);
  if (firstFunction < 0) firstFunction = instructions.length;
  for (let k = 0; k < firstFunction; k++) decl.read(instructions[k]!);
  const mark = decl.mark;
  if (mark === null) throw new BlockMapError(`no "${BLOCK_MARK_PREFIX}N ..." string: not instrumented with --blocks`);
  let enter: number | null = null;
  for (const [id, name] of decl.names) if (name === BLOCK_ENTER_FUNCTION) enter = id;
  if (enter === null && mark.blocks > 0) throw new BlockMapError(`no function named ${BLOCK_ENTER_FUNCTION}`);

  const sites: (BlockSite | undefined)[] = new Array<BlockSite | undefined>(mark.blocks);
  let fn = 0;
  let block: Instruction[] = [];
  const closeBlock = () => {
    const calls: number[] = [];
    block.forEach((inst, k) => {
      if (inst.opcode === Op.FunctionCall && inst.words[3] === enter) calls.push(k);
    });
    calls.forEach((at, k) => {
      const b = decl.constants.get(block[at]!.words[4]!);
      if (b === undefined) throw new BlockMapError(`a ${BLOCK_ENTER_FUNCTION} call in %${fn} takes no constant`);
      if (b >= mark.blocks) throw new BlockMapError(`block ${b} is past the mark's ${mark.blocks} blocks`);
      if (sites[b] !== undefined) throw new BlockMapError(`block ${b} is entered at two places`);
      const segment = block.slice(k === 0 ? 0 : at, calls[k + 1] ?? block.length);
      let location: Location | null = null;
      for (const inst of segment) if ((location = decl.locationOf(inst)) !== null) break;
      const code = segment.filter((inst) => !decl.isDebug(inst) && !(inst.opcode === Op.FunctionCall && inst.words[3] === enter));
      sites[b] = {
        function: decl.names.get(fn) ?? `%${fn}`,
        file: location?.file ?? null,
        line: location?.line ?? null,
        column: location?.column ?? null,
        text: location === null ? disassembly(code) : null,
      };
    });
    block = [];
  };
  for (let k = firstFunction; k < instructions.length; k++) {
    const inst = instructions[k]!;
    if (inst.opcode === Op.Function) fn = inst.words[2]!;
    else if (inst.opcode === Op.Label || inst.opcode === Op.FunctionEnd) closeBlock();
    else block.push(inst);
  }
  closeBlock();
  const missing = sites.findIndex((s) => s === undefined);
  if (missing >= 0) throw new BlockMapError(`block ${missing} of ${mark.blocks} is never entered`);
  const seen = new Set<string>();
  const sources: SourceText[] = [];
  for (const s of decl.sources) {
    if (seen.has(s.file)) continue;
    seen.add(s.file);
    sources.push({ file: s.file, text: withoutPreamble(s.text) });
  }
  return { stages: decl.stages, per: mark.per, clock: mark.clock, blocks: sites as BlockSite[], sources };
}
