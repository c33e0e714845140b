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
 * (none for untraced draws) and, in a graphics stage, adds the draw-id block's word for
 * that stage (one begin function per stage among the traced entry points), and
 * `warptrace_blocks_leave()` after it, which closes the last block's time.
 */
import {
  BLOCK_BASE_SPEC_ID,
  BLOCK_BINDING_OFFSET,
  BLOCK_CELL_WORDS,
  BLOCK_ENTER_FUNCTION,
  BLOCK_HEADER_BYTES,
  BLOCK_MARK_PREFIX,
  BlockCellWord,
  BlockHeaderWord,
  DRAW_BLOCK_ROW_WORD,
  NO_BLOCK_ROW,
  drawBlockStageWord,
} from '../../shared-schema/block-layout.js';
import { decodeString, encodeString, instruction, type Instruction } from '../model/binary.js';
import { FunctionCode } from '../model/function-code.js';
import { parseFunctions, reachableFrom, writeFunctions, type Block } from '../model/functions.js';
import { Section } from '../model/module.js';
import { Capability, Decoration, MemoryModel, MemorySemantics, Op, Scope, StorageClass } from '../model/spec.js';
import { InstrumentError } from '../errors.js';
import type { InstrumentPass, PassContext, SubgroupMode } from './pass.js';
import { ballotAndElection } from './subgroup-code.js';
import { isHelperLane } from './record-slot.js';

/** Counts of one cell, added to the table at once (ids of the code being emitted; the constant 0 adds nothing). */
type FlushCounts = (g: FunctionCode, counts: { cell: number; executions: number; lanes: number; ticks: number }) => void;

/**
 * Instructions after which the invocation may be gone (an accepted report that ends the ray, a discard or terminate
 * the endings pass left in place, a demote whose lane's atomics no longer count, an ending it did not defer): the
 * last block's time is closed before them.
 */
const MAY_END: ReadonlySet<number> = new Set([
  Op.ReportIntersectionKHR,
  Op.Kill,
  Op.TerminateInvocation,
  Op.DemoteToHelperInvocation,
  Op.IgnoreIntersectionKHR,
  Op.TerminateRayKHR,
  Op.IgnoreIntersectionNV,
  Op.TerminateRayNV,
  Op.EmitMeshTasksEXT,
]);

/** 64-bit counters per cell (BLOCK_CELL_WORDS u32 words). */
const COUNTERS_PER_CELL = BLOCK_CELL_WORDS / 2;
/** The clock bits below this vary within a few cycles of one another: the copy comes from the bits above. */
const COPY_CLOCK_SHIFT = 3;
import { UNTRACED_DRAW } from './record-wrapper.js';

/** What the wrapper calls around the entry point, and the globals those calls reach (for the entry's interface). */
export interface BlockHooks {
  /** void warptrace_blocks_begin(): the draw's row (or none) into a private variable. */
  readonly begin: number;
  /** void warptrace_blocks_leave(): the last block's ticks up to now. */
  readonly leave: number;
  readonly globals: readonly number[];
}

/**
 * u32 words of the draw-id block the block code reads in a module whose traced entry points have these stages:
 * the draw id and the row, and up to the highest graphics stage's stage word.
 */
export function blockDrawIdWords(stages: readonly string[]): number {
  return Math.max(DRAW_BLOCK_ROW_WORD + 1, ...stages.map((stage) => (drawBlockStageWord(stage) ?? 0) + 1));
}

export const blocksPass: InstrumentPass = {
  name: 'blocks',
  declare(context) {
    if (!context.options.blocks) return;
    // The counters are 64-bit atomics (the device feature shaderBufferInt64Atomics).
    context.editor.addCapability(Capability.Int64);
    context.editor.addCapability(Capability.Int64Atomics);
  },
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
  const cells = privateUint(context, 'warptrace_block_cells', 0);
  const copyMask = privateUint(context, 'warptrace_block_copy_mask', 0);
  const nonSemantic = nonSemanticSets(context);

  const leave = editor.allocId();
  let count = 0;
  for (const f of profiled) {
    f.blocks.forEach((block, i) => {
      const at = insertionPoint(block, i === 0, nonSemantic);
      const call = instruction(Op.FunctionCall, [decl.void, editor.allocId(), enter, decl.u32(count++)]);
      // The last block's time is closed before anything that may end the invocation where it stands.
      const rest = block.body.slice(at).flatMap((inst) => (MAY_END.has(inst.opcode) ? [instruction(Op.FunctionCall, [decl.void, editor.allocId(), leave]), inst] : [inst]));
      block.body = [...block.body.slice(0, at), call, ...rest];
    });
  }
  editor.replaceSection(Section.Function, writeFunctions(section));

  const scope = options.subgroupClock ? Scope.Subgroup : Scope.Device;
  const atomicScope = editor.memoryModel()[1] === MemoryModel.Vulkan ? Scope.QueueFamily : Scope.Device;
  const fragmentEntry = context.entries.find((e) => e.stage === 'FS');
  const helperTest = fragmentOnly && fragmentEntry !== undefined ? { viaInstruction: editor.hasCapability(Capability.DemoteToHelperInvocation), entryInterface: fragmentEntry.interfaceIds } : null;
  const code = new BlockCode(context, { rowBase, previous, previousClock, cells, copyMask, scope, atomicScope, mode, helperTest });
  // One begin per stage word among the entries (a graphics stage's, or none): each entry's wrapper calls its own.
  const beginOf = new Map<number | null, number>(context.entries.map((e) => [drawBlockStageWord(e.stage), 0]));
  for (const stageWord of beginOf.keys()) beginOf.set(stageWord, editor.allocId());
  code.enterFunction(enter);
  for (const [stageWord, begin] of beginOf) code.beginFunction(begin, stageWord);
  code.leaveFunction(leave);
  editor.append(Section.Function, ...code.g.code);
  editor.addName(enter, BLOCK_ENTER_FUNCTION);
  for (const begin of beginOf.values()) editor.addName(begin, 'warptrace_blocks_begin');
  editor.addName(leave, 'warptrace_blocks_leave');
  const globals = [...code.g.globals];
  for (const e of context.entries) context.recordParts.get(e.index)!.blocks = { begin: beginOf.get(drawBlockStageWord(e.stage))!, leave, globals };

  const mark = `${BLOCK_MARK_PREFIX}${count} per=${mode === 'none' ? 'invocation' : 'warp'} clock=${options.subgroupClock ? 'sm' : 'device'}`;
  editor.append(Section.DebugSource, instruction(Op.String, [editor.allocId(), ...encodeString(mark)]));
  context.notes.push(`blocks: ${count} basic block${count === 1 ? '' : 's'} counted per ${mode === 'none' ? 'invocation' : 'warp'}`);
}

/** One subgroup mode for the module's block code: the calls may run in any traced entry's stage. */
function blockMode(modes: readonly SubgroupMode[]): SubgroupMode {
  if (modes.includes('none')) return 'none';
  return modes.includes('khr-ballot') ? 'khr-ballot' : 'core';
}

export function privateUint(context: PassContext, name: string, initial: number): number {
  const { editor, decl } = context;
  const variable = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.uint), id, StorageClass.Private, decl.u32(initial)]);
  editor.addName(variable, name);
  return variable;
}

export function nonSemanticSets(context: PassContext): Set<number> {
  const sets = new Set<number>();
  for (const inst of context.editor.section(Section.ExtInstImport)) if (decodeString(inst.words, 2).value.startsWith('NonSemantic.')) sets.add(inst.words[1]!);
  return sets;
}

/** After the block's OpPhis (and the first block's OpVariables), with the debug lines among them. */
export function insertionPoint(block: Block, first: boolean, nonSemantic: ReadonlySet<number>): number {
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
  /** Private copies of the table's header words CELLS and COPY_MASK, read once by begin(). */
  readonly cells: number;
  readonly copyMask: number;
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
        const flush = this.flusher(now);
        this.closePrevious(now, flush);
        flush(g, { cell, executions: decl.u32(1), lanes, ticks: decl.u32(0) });
      });
      g.op(Op.Store, g.global(plan.previous), cell);
      g.op(Op.Store, g.global(plan.previousClock), now);
    });
    g.op(Op.Return);
    g.op(Op.FunctionEnd);
  }

  /**
   * void begin(): row = traced draw with a row ? blockRow + base (+ the stage's draw-id word, where `stageWord`
   * is not null) : none.
   */
  beginFunction(id: number, stageWord: number | null): void {
    const { g, plan, context } = this;
    const { decl } = g;
    const base = this.baseConstant();
    g.op(Op.Function, decl.void, id, 0, decl.voidFunction);
    g.label(g.id());
    const draw = g.global(decl.drawIdBlock(context.options.set, context.options.binding + 1));
    const word = (member: number) => g.value(Op.Load, decl.uint, g.value(Op.AccessChain, decl.pointer(StorageClass.Uniform, decl.uint), draw, decl.u32(member)));
    const drawId = word(0);
    const blockRow = word(DRAW_BLOCK_ROW_WORD);
    const has = g.value(Op.LogicalAnd, decl.bool, g.value(Op.INotEqual, decl.bool, drawId, decl.u32(UNTRACED_DRAW)), g.value(Op.INotEqual, decl.bool, blockRow, decl.u32(NO_BLOCK_ROW)));
    const moduleBase = stageWord === null ? base : g.value(Op.IAdd, decl.uint, base, word(stageWord));
    const first = g.value(Op.IAdd, decl.uint, blockRow, moduleBase);
    g.op(Op.Store, g.global(plan.rowBase), g.value(Op.Select, decl.uint, has, first, decl.u32(NO_BLOCK_ROW)));
    const header = (word: number) => g.value(Op.Load, decl.uint, this.headerWord(word));
    g.op(Op.Store, g.global(plan.cells), header(BlockHeaderWord.CELLS));
    g.op(Op.Store, g.global(plan.copyMask), header(BlockHeaderWord.COPY_MASK));
    g.op(Op.Return);
    g.op(Op.FunctionEnd);
  }

  private base: number | null = null;
  /** The module's first cell within the row: the specialization constant, declared once for every begin. */
  private baseConstant(): number {
    if (this.base !== null) return this.base;
    const { editor } = this.g.decl;
    const base = editor.declare(Op.SpecConstant, (c: number) => [this.g.decl.uint, c, 0]);
    editor.decorate(base, Decoration.SpecId, BLOCK_BASE_SPEC_ID);
    editor.addName(base, 'warptrace_block_base');
    this.base = base;
    return base;
  }

  /**
   * void leave(): the last block's ticks up to now. Called after the entry point, and before anything that may end
   * the invocation inside it (a report that accepts a hit that ends the ray, a discard the endings pass leaves in
   * place, a demote): the time after it, if the invocation goes on, counts from now.
   */
  leaveFunction(id: number): void {
    const { g, plan } = this;
    const { decl } = g;
    g.op(Op.Function, decl.void, id, 0, decl.voidFunction);
    g.label(g.id());
    const row = g.value(Op.Load, decl.uint, g.global(plan.rowBase));
    g.ifThen(g.value(Op.INotEqual, decl.bool, row, decl.u32(NO_BLOCK_ROW)), () => {
      const now = g.clockLow(plan.scope);
      const flush = this.flusher(now);
      this.onceOrPerInvocation(() => this.closePrevious(now, flush));
      g.op(Op.Store, g.global(plan.previousClock), now);
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
    const mode = plan.mode;
    const perWarp = () => {
      const { ballot, elected } = ballotAndElection(g, mode);
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
    const isHelper = isHelperLane(g, helper.viaInstruction);
    g.ifThen(g.value(Op.LogicalNot, decl.bool, isHelper), perWarp);
  }

  /**
   * The first cell of the table copy this warp counts into now: COPY_MASK + 1 copies (a power of two) of CELLS cells,
   * picked by the clock's low bits, spread warps that run one block at once over as many addresses (one address took
   * every warp's atomics: ray tracing 21x its frame on the H100, 7.9x with copies), and the host sums them.
   */
  private copyBase(now: number): number {
    const { g, plan } = this;
    const { decl } = g;
    const pick = g.value(Op.BitwiseAnd, decl.uint, g.value(Op.ShiftRightLogical, decl.uint, now, decl.u32(COPY_CLOCK_SHIFT)), g.value(Op.Load, decl.uint, g.global(plan.copyMask)));
    return g.value(Op.IMul, decl.uint, pick, g.value(Op.Load, decl.uint, g.global(plan.cells)));
  }

  /** The previous block (if any) gains the ticks since this warp entered it. */
  private closePrevious(now: number, flush: FlushCounts): void {
    const { g, plan } = this;
    const { decl } = g;
    const previous = g.value(Op.Load, decl.uint, g.global(plan.previous));
    g.ifThen(g.value(Op.INotEqual, decl.bool, previous, decl.u32(NO_BLOCK_ROW)), () => {
      const ticks = g.value(Op.ISub, decl.uint, now, g.value(Op.Load, decl.uint, g.global(plan.previousClock)));
      flush(g, { cell: previous, executions: decl.u32(0), lanes: decl.u32(0), ticks });
    });
  }

  /** Counts of one cell to the table copy `now` picks, or to DROPPED when the cell lies past it. */
  private flusher(now: number): FlushCounts {
    return (g, counts) => {
      const { decl } = g;
      const slot = g.value(Op.IAdd, decl.uint, this.copyBase(now), counts.cell);
      const fits = this.fits(counts.cell, slot);
      const zero = decl.u32(0);
      g.ifThen(fits, () => {
        if (counts.executions !== zero) this.addCounter(slot, BlockCellWord.EXECUTIONS_LO, counts.executions);
        if (counts.lanes !== zero) this.addCounter(slot, BlockCellWord.LANES_LO, counts.lanes);
        if (counts.ticks !== zero) this.addCounter(slot, BlockCellWord.TICKS_LO, counts.ticks);
      });
      if (counts.executions === zero) return;
      g.ifThen(g.value(Op.LogicalNot, decl.bool, fits), () => {
        g.value(Op.AtomicIAdd, decl.uint, this.headerWord(BlockHeaderWord.DROPPED), decl.u32(this.plan.atomicScope), decl.u32(MemorySemantics.Relaxed), counts.executions);
      });
    };
  }

  /** cell < CELLS, and its slot in the copy lies in the buffer (its real length: a wrong header cannot write past it). */
  private fits(cell: number, slot: number): number {
    const { g, plan } = this;
    const { decl } = g;
    const counters = g.value(Op.ArrayLength, decl.uint, g.global(this.table), BLOCK_HEADER_BYTES / 4);
    const inBuffer = g.value(Op.ULessThan, decl.bool, slot, g.value(Op.UDiv, decl.uint, counters, decl.u32(COUNTERS_PER_CELL)));
    const inRow = g.value(Op.ULessThan, decl.bool, cell, g.value(Op.Load, decl.uint, g.global(plan.cells)));
    return g.value(Op.LogicalAnd, decl.bool, inRow, inBuffer);
  }

  /**
   * The 64-bit counter at `word` (its low word) of cell `slot` += value, by a 64-bit atomic whose result is
   * unused: the GPU sends it and goes on (a 32-bit add that needs its old value for the carry waits for the round
   * trip: 69x an aqt frame on the H100, whose graphics warps run on 4 SMs).
   */
  private addCounter(slot: number, word: number, value: number): void {
    const { g, plan } = this;
    const { decl } = g;
    const index = g.value(Op.IAdd, decl.uint, g.value(Op.IMul, decl.uint, slot, decl.u32(COUNTERS_PER_CELL)), decl.u32(word / 2));
    const pointer = g.value(Op.AccessChain, decl.pointer(decl.traceStorageClass, decl.ulong), g.global(this.table), decl.u32(BLOCK_HEADER_BYTES / 4), index);
    const wide = g.value(Op.UConvert, decl.ulong, value);
    g.value(Op.AtomicIAdd, decl.ulong, pointer, decl.u32(plan.atomicScope), decl.u32(MemorySemantics.Relaxed), wide);
  }

  private headerWord(word: number): number {
    const { g } = this;
    const { decl } = g;
    return g.value(Op.AccessChain, decl.pointer(decl.traceStorageClass, decl.uint), g.global(this.table), decl.u32(word));
  }
}
