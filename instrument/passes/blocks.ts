/**
 * The blocks pass (`--blocks`): a block profile per draw (shared-schema/block-layout.ts,
 * README "Block profiles"). Every basic block of the functions the traced entry points
 * reach calls `warptrace_block_enter(b)` first thing (after its OpPhis and, in a
 * function's first block, its OpVariables): a call, not inline code, because a branch
 * there would split the block, and a split loop header or a block named by a later
 * OpPhi would no longer be the same block. The call counts the warp's execution and
 * live lanes into the block's cell of the draw's row, and adds the clock ticks since the
 * warp's previous block entry to that block's cell. The wrapper (record-wrapper.ts)
 * calls `warptrace_blocks_begin()` before the entry point, which picks the draw's row
 * (none for untraced draws), and `warptrace_blocks_leave()` after it, which closes the
 * last block's time.
 */
import { BLOCK_BASE_SPEC_ID, BLOCK_BINDING_OFFSET, BLOCK_CELL_WORDS, BLOCK_ENTER_FUNCTION, BLOCK_HEADER_BYTES, BLOCK_MARK_PREFIX, BlockCellWord, BlockHeaderWord, DRAW_BLOCK_ROW_WORD, NO_BLOCK_ROW } from '../../shared-schema/block-layout.js';
import { decodeString, encodeString, instruction, type Instruction } from '../model/binary.js';
import { FunctionCode } from '../model/function-code.js';
import { parseFunctions, reachableFrom, writeFunctions, type Block } from '../model/functions.js';
import { Section } from '../model/module.js';
import { BuiltIn, Capability, Decoration, MemoryModel, MemorySemantics, Op, Scope, StorageClass } from '../model/spec.js';
import { InstrumentError } from '../errors.js';
import type { InstrumentPass, PassContext, SubgroupMode } from './pass.js';
import { UNTRACED_DRAW } from './record-wrapper.js';

/** What the wrapper calls around the entry point, and the globals those calls reach (for the entry's interface). */
export interface BlockHooks {
  /** void warptrace_blocks_begin(): the draw's row (or none) into a private variable. */
  readonly begin: number;
  /** void warptrace_blocks_leave(): the last block's ticks up to now. */
  readonly leave: number;
  readonly globals: readonly number[];
}

export const blocksPass: InstrumentPass = {
  name: 'blocks',
  transform(context) {
    if (!context.options.blocks) return;
    instrumentBlocks(context);
  },
};

function instrumentBlocks(context: PassContext): void {
  const { editor, decl, options } = context;
  if ([...editor.decorationValues(Decoration.SpecId).values()].includes(BLOCK_BASE_SPEC_ID)) {
    throw new InstrumentError(`the module already uses SpecId ${BLOCK_BASE_SPEC_ID} (0x${BLOCK_BASE_SPEC_ID.toString(16)}), which block profiles need for the module's first cell`);
  }
  const section = parseFunctions(editor.section(Section.Function));
  const byId = new Map(section.functions.map((f) => [f.id, f]));
  const traced = new Set(context.entries.flatMap((e) => [...reachableFrom(e.functionId, byId)]));
  const shared = new Set(context.untracedEntries.flatMap((e) => [...reachableFrom(e.functionId, byId)]));
  // Earlier passes' helpers (deferred endings' kill_if_discarded...) are ours, not the app's.
  const ours = (id: number) => editor.nameOf(id)?.startsWith('warptrace_') === true;
  const app = section.functions.filter((f) => traced.has(f.id) && !ours(f.id));
  const profiled = app.filter((f) => !shared.has(f.id));
  if (profiled.length < app.length) {
    context.notes.push('blocks: functions an untraced entry point also calls are not profiled');
  }

  const mode = blockMode(context.entries.map((e) => e.subgroup));
  const fragmentOnly = context.entries.every((e) => e.stage === 'FS');
  const enter = editor.allocId();
  const rowBase = privateUint(context, 'warptrace_block_row', NO_BLOCK_ROW);
  const previous = privateUint(context, 'warptrace_block_previous', NO_BLOCK_ROW);
  const previousClock = privateUint(context, 'warptrace_block_clock', 0);
  const nonSemantic = nonSemanticSets(context);

  let count = 0;
  for (const f of profiled) {
    f.blocks.forEach((block, i) => {
      const at = insertionPoint(block, i === 0, nonSemantic);
      const call = instruction(Op.FunctionCall, [decl.void, editor.allocId(), enter, decl.u32(count++)]);
      block.body = [...block.body.slice(0, at), call, ...block.body.slice(at)];
    });
  }
  editor.replaceSection(Section.Function, writeFunctions(section));

  const scope = options.subgroupClock ? Scope.Subgroup : Scope.Device;
  const atomicScope = editor.memoryModel()[1] === MemoryModel.Vulkan ? Scope.QueueFamily : Scope.Device;
  const fragmentEntry = context.entries.find((e) => e.stage === 'FS');
  const helperTest = fragmentOnly && fragmentEntry !== undefined ? { viaInstruction: editor.hasCapability(Capability.DemoteToHelperInvocation), entryInterface: fragmentEntry.interfaceIds } : null;
  const code = new BlockCode(context, { rowBase, previous, previousClock, scope, atomicScope, mode, helperTest });
  const begin = editor.allocId();
  const leave = editor.allocId();
  code.enterFunction(enter);
  code.beginFunction(begin);
  code.leaveFunction(leave);
  editor.append(Section.Function, ...code.g.code);
  editor.addName(enter, BLOCK_ENTER_FUNCTION);
  editor.addName(begin, 'warptrace_blocks_begin');
  editor.addName(leave, 'warptrace_blocks_leave');
  const hooks: BlockHooks = { begin, leave, globals: [...code.g.globals] };
  for (const e of context.entries) context.recordParts.get(e.index)!.blocks = hooks;

  const mark = `${BLOCK_MARK_PREFIX}${count} per=${mode === 'none' ? 'invocation' : 'warp'} clock=${options.subgroupClock ? 'sm' : 'device'}`;
  editor.append(Section.DebugSource, instruction(Op.String, [editor.allocId(), ...encodeString(mark)]));
  context.notes.push(`blocks: ${count} basic block${count === 1 ? '' : 's'} counted per ${mode === 'none' ? 'invocation' : 'warp'}`);
}

/** One subgroup mode for the module's block code: the calls may run in any traced entry's stage. */
function blockMode(modes: readonly SubgroupMode[]): SubgroupMode {
  if (modes.includes('none')) return 'none';
  return modes.includes('khr-ballot') ? 'khr-ballot' : 'core';
}

function privateUint(context: PassContext, name: string, initial: number): number {
  const { editor, decl } = context;
  const variable = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.uint), id, StorageClass.Private, decl.u32(initial)]);
  editor.addName(variable, name);
  return variable;
}

function nonSemanticSets(context: PassContext): Set<number> {
  const sets = new Set<number>();
  for (const inst of context.editor.section(Section.ExtInstImport)) if (decodeString(inst.words, 2).value.startsWith('NonSemantic.')) sets.add(inst.words[1]!);
  return sets;
}

/** After the block's OpPhis (and the first block's OpVariables), with the debug lines among them. */
function insertionPoint(block: Block, first: boolean, nonSemantic: ReadonlySet<number>): number {
  const leading = (i: Instruction) =>
    i.opcode === Op.Phi || i.opcode === Op.Line || i.opcode === Op.NoLine || (first && i.opcode === Op.Variable) || (i.opcode === Op.ExtInst && nonSemantic.has(i.words[3]!));
  let at = 0;
  let last = 0;
  // Only Phi/Variable must precede the call; debug instructions after the last of them stay after the call too.
  while (at < block.body.length && leading(block.body[at]!)) {
    const op = block.body[at]!.opcode;
    at++;
    if (op === Op.Phi || op === Op.Variable) last = at;
  }
  return last;
}

interface BlockPlan {
  readonly rowBase: number;
  readonly previous: number;
  readonly previousClock: number;
  readonly scope: number;
  readonly atomicScope: number;
  readonly mode: SubgroupMode;
  readonly helperTest: { readonly viaInstruction: boolean; readonly entryInterface: readonly number[] } | null;
}

/** The three functions' code. */
class BlockCode {
  readonly g: FunctionCode;
  private readonly table: number;
  constructor(
    private readonly context: PassContext,
    private readonly plan: BlockPlan,
  ) {
    this.g = new FunctionCode(context.decl, plan.helperTest !== null, plan.helperTest?.entryInterface ?? []);
    this.table = context.decl.blockTable(context.options.set, context.options.binding + BLOCK_BINDING_OFFSET);
  }

  /** void enter(uint b): count this execution in cell row + b, close the previous block's time. */
  enterFunction(id: number): void {
    const { g, plan } = this;
    const { decl } = g;
    const block = g.id();
    g.op(Op.Function, decl.void, id, 0, decl.editor.type(Op.TypeFunction, [decl.void, decl.uint]));
    g.op(Op.FunctionParameter, decl.uint, block);
    g.label(g.id());
    const row = g.value(Op.Load, decl.uint, g.global(plan.rowBase));
    g.ifThen(g.value(Op.INotEqual, decl.bool, row, decl.u32(NO_BLOCK_ROW)), () => {
      const now = g.clockLow(plan.scope);
      const cell = g.value(Op.IAdd, decl.uint, row, block);
      this.onceOrPerInvocation((lanes) => {
        this.countExecution(cell, lanes);
        this.closePrevious(now);
      });
      g.op(Op.Store, g.global(plan.previous), cell);
      g.op(Op.Store, g.global(plan.previousClock), now);
    });
    g.op(Op.Return);
    g.op(Op.FunctionEnd);
  }

  /** void begin(): row = traced draw with a row ? blockRow + base : none. */
  beginFunction(id: number): void {
    const { g, plan, context } = this;
    const { decl } = g;
    const { editor } = decl;
    const base = editor.declare(Op.SpecConstant, (c: number) => [decl.uint, c, 0]);
    editor.decorate(base, Decoration.SpecId, BLOCK_BASE_SPEC_ID);
    editor.addName(base, 'warptrace_block_base');
    g.op(Op.Function, decl.void, id, 0, decl.voidFunction);
    g.label(g.id());
    const draw = g.global(decl.drawIdBlock(context.options.set, context.options.binding + 1));
    const word = (member: number) => g.value(Op.Load, decl.uint, g.value(Op.AccessChain, decl.pointer(StorageClass.Uniform, decl.uint), draw, decl.u32(member)));
    const drawId = word(0);
    const blockRow = word(DRAW_BLOCK_ROW_WORD);
    const has = g.value(Op.LogicalAnd, decl.bool, g.value(Op.INotEqual, decl.bool, drawId, decl.u32(UNTRACED_DRAW)), g.value(Op.INotEqual, decl.bool, blockRow, decl.u32(NO_BLOCK_ROW)));
    const first = g.value(Op.IAdd, decl.uint, blockRow, base);
    g.op(Op.Store, g.global(plan.rowBase), g.value(Op.Select, decl.uint, has, first, decl.u32(NO_BLOCK_ROW)));
    g.op(Op.Return);
    g.op(Op.FunctionEnd);
  }

  /** void leave(): the last block's ticks up to the end of the entry point. */
  leaveFunction(id: number): void {
    const { g, plan } = this;
    const { decl } = g;
    g.op(Op.Function, decl.void, id, 0, decl.voidFunction);
    g.label(g.id());
    const row = g.value(Op.Load, decl.uint, g.global(plan.rowBase));
    g.ifThen(g.value(Op.INotEqual, decl.bool, row, decl.u32(NO_BLOCK_ROW)), () => {
      const now = g.clockLow(plan.scope);
      this.onceOrPerInvocation(() => this.closePrevious(now));
    });
    g.op(Op.Return);
    g.op(Op.FunctionEnd);
  }

  /** `then(live lanes)` once per warp (its elected live lane), or in every invocation with 1 lane. */
  private onceOrPerInvocation(then: (lanes: number) => void): void {
    const { g, plan } = this;
    const { decl } = g;
    if (plan.mode === 'none') {
      then(decl.u32(1));
      return;
    }
    const perWarp = () => {
      let ballot: number;
      let elected: number;
      if (plan.mode === 'core') {
        ballot = g.value(Op.GroupNonUniformBallot, decl.uvec4, decl.u32(Scope.Subgroup), decl.true);
        elected = g.value(Op.GroupNonUniformElect, decl.bool, decl.u32(Scope.Subgroup));
      } else {
        ballot = g.value(Op.SubgroupBallotKHR, decl.uvec4, decl.true);
        const lane = g.loadUint(g.builtin(BuiltIn.SubgroupLocalInvocationId, 'uint'));
        elected = g.value(Op.IEqual, decl.bool, lane, g.value(Op.SubgroupFirstInvocationKHR, decl.uint, lane));
      }
      const bits = (c: number) => g.value(Op.BitCount, decl.uint, g.value(Op.CompositeExtract, decl.uint, ballot, c));
      const lanes = g.value(Op.IAdd, decl.uint, bits(0), bits(1));
      g.ifThen(elected, () => then(lanes));
    };
    const helper = plan.helperTest;
    if (helper === null) {
      perWarp();
      return;
    }
    // Helper invocations' atomics are discarded: an elected helper would lose the warp's count.
    const isHelper = helper.viaInstruction ? g.value(Op.IsHelperInvocationEXT, decl.bool) : g.load(g.builtin(BuiltIn.HelperInvocation, 'bool'));
    g.ifThen(g.value(Op.LogicalNot, decl.bool, isHelper), perWarp);
  }

  private countExecution(cell: number, lanes: number): void {
    const { g } = this;
    const { decl } = g;
    const fits = this.fits(cell);
    g.ifThen(fits, () => {
      this.addWithCarry(cell, BlockCellWord.EXECUTIONS_LO, decl.u32(1));
      this.addWithCarry(cell, BlockCellWord.LANES_LO, lanes);
    });
    g.ifThen(g.value(Op.LogicalNot, decl.bool, fits), () => {
      this.atomicAdd(this.headerWord(BlockHeaderWord.DROPPED), decl.u32(1));
    });
  }

  /** The previous block's cell (if any) gains the ticks since this warp entered it. */
  private closePrevious(now: number): void {
    const { g, plan } = this;
    const { decl } = g;
    const previous = g.value(Op.Load, decl.uint, g.global(plan.previous));
    const known = g.value(Op.LogicalAnd, decl.bool, g.value(Op.INotEqual, decl.bool, previous, decl.u32(NO_BLOCK_ROW)), this.fits(previous));
    g.ifThen(known, () => {
      const ticks = g.value(Op.ISub, decl.uint, now, g.value(Op.Load, decl.uint, g.global(plan.previousClock)));
      this.addWithCarry(previous, BlockCellWord.TICKS_LO, ticks);
    });
  }

  /** cell < the table's cells (its real length, not the host's CELLS word). */
  private fits(cell: number): number {
    const { g } = this;
    const { decl } = g;
    const words = g.value(Op.ArrayLength, decl.uint, g.global(this.table), BLOCK_HEADER_BYTES / 4);
    return g.value(Op.ULessThan, decl.bool, cell, g.value(Op.UDiv, decl.uint, words, decl.u32(BLOCK_CELL_WORDS)));
  }

  /** The 64-bit (low, high) counter at `word` of `cell` += value: the high word takes the low word's carry. */
  private addWithCarry(cell: number, word: number, value: number): void {
    const { g } = this;
    const { decl } = g;
    const index = g.value(Op.IAdd, decl.uint, g.value(Op.IMul, decl.uint, cell, decl.u32(BLOCK_CELL_WORDS)), decl.u32(word));
    const old = this.atomicAdd(this.cellWord(index), value);
    const carried = g.value(Op.ULessThan, decl.bool, g.value(Op.IAdd, decl.uint, old, value), old);
    g.ifThen(carried, () => {
      this.atomicAdd(this.cellWord(g.value(Op.IAdd, decl.uint, index, decl.u32(1))), decl.u32(1));
    });
  }

  private atomicAdd(pointer: number, value: number): number {
    const { g, plan } = this;
    const { decl } = g;
    return g.value(Op.AtomicIAdd, decl.uint, pointer, decl.u32(plan.atomicScope), decl.u32(MemorySemantics.Relaxed), value);
  }

  private cellWord(index: number): number {
    const { g } = this;
    const { decl } = g;
    return g.value(Op.AccessChain, decl.pointer(decl.traceStorageClass, decl.uint), g.global(this.table), decl.u32(BLOCK_HEADER_BYTES / 4), index);
  }

  private headerWord(word: number): number {
    const { g } = this;
    const { decl } = g;
    return g.value(Op.AccessChain, decl.pointer(decl.traceStorageClass, decl.uint), g.global(this.table), decl.u32(word));
  }
}
