/**
 * Deferred discard: fragment lanes that discard (OpKill, OpTerminateInvocation)
 * set a private flag and return at once instead, every caller returns right
 * after a call that discarded, and the wrapper kills them after the epilogue.
 * So a warp whose lanes all discard still writes its record, and a discarded
 * lane runs nothing of the shader after its discard, as before.
 *
 *   ...; OpKill                    ->  OpStore %discarded %true; OpReturn
 *   %r = OpFunctionCall %T %f ...  ->  %r = OpFunctionCall ...; %d = OpLoad %discarded
 *   (rest of block)                    OpSelectionMerge %rest; OpBranchConditional %d %ret %rest
 *                                      %ret: OpReturn(Value %undef)   %rest: (rest of block)
 */
import { instruction, type Instruction } from './binary.js';
import type { CommonDeclarations } from './declarations.js';
import { InstrumentError } from './errors.js';
import { parseFunctions, reachableFrom, writeFunctions, type Block, type FunctionCode } from './functions.js';
import { Section, type EntryPoint } from './module.js';
import { Op, StorageClass } from './spec.js';

export interface DeferredDiscard {
  /** Private bool: this invocation discarded. */
  readonly flag: number;
  /** How the wrapper ends a discarded invocation: the module's own instruction. */
  readonly killOpcode: number;
  /** Functions that may discard (directly or through calls). */
  readonly functions: ReadonlySet<number>;
}

/**
 * Rewrites the module's discards for the instrumented fragment entry points;
 * null when none of their functions discards.
 */
export function deferDiscards(decl: CommonDeclarations, fragmentEntries: readonly EntryPoint[], otherEntries: readonly EntryPoint[]): DeferredDiscard | null {
  const { editor } = decl;
  const section = parseFunctions(editor.section(Section.Function));
  const { functions } = section;
  const byId = new Map(functions.map((f) => [f.id, f]));
  const isDiscard = (i: Instruction) => i.opcode === Op.Kill || i.opcode === Op.TerminateInvocation;
  const reachable = new Set(fragmentEntries.flatMap((e) => [...reachableFrom(e.functionId, byId)]));
  const discarding = new Set(functions.filter((f) => reachable.has(f.id) && f.blocks.some((b) => b.body.some(isDiscard))).map((f) => f.id));
  if (discarding.size === 0) return null;

  // Callers of discarding functions discard too (to a fixpoint: no recursion in shaders, but be safe).
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of functions) {
      if (discarding.has(f.id) || !reachable.has(f.id)) continue;
      if (f.blocks.some((b) => b.body.some((i) => i.opcode === Op.FunctionCall && discarding.has(i.words[3]!)))) {
        discarding.add(f.id);
        changed = true;
      }
    }
  }
  for (const other of otherEntries) {
    const shared = [...reachableFrom(other.functionId, byId)].find((id) => discarding.has(id));
    if (shared !== undefined) {
      throw new InstrumentError(`entry point "${other.name}" is not instrumented but calls function %${shared}, which discards; instrument it too, or use --discard kill`);
    }
  }

  const usesTerminate = functions.some((f) => discarding.has(f.id) && f.blocks.some((b) => b.body.some((i) => i.opcode === Op.TerminateInvocation)));
  const killOpcode = usesTerminate ? Op.TerminateInvocation : Op.Kill;
  const flag = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.bool), id, StorageClass.Private, decl.constantFalse]);
  editor.addName(flag, 'warptrace_discarded');
  const context: RewriteContext = { decl, flag, discarding, killOpcode, killIfDiscarded: null };
  for (const f of functions) if (discarding.has(f.id)) rewriteFunction(context, f);
  const extra = context.killIfDiscarded === null ? [] : [context.killIfDiscarded];
  editor.replaceSection(Section.Function, writeFunctions({ functions: [...functions, ...extra], trailer: section.trailer }));
  return { flag, killOpcode, functions: discarding };
}

interface RewriteContext {
  readonly decl: CommonDeclarations;
  readonly flag: number;
  readonly discarding: ReadonlySet<number>;
  readonly killOpcode: number;
  /** `void f() { if (discarded) kill; }`, made on first use. */
  killIfDiscarded: FunctionCode | null;
}

/**
 * A continue construct must reach its back edge: no early return there. A
 * discarding call inside one is followed by a call of a function that kills
 * the lanes that discarded (they record nothing, as with --discard kill).
 */
function killIfDiscardedFunction(context: RewriteContext): number {
  if (context.killIfDiscarded === null) {
    const { decl, flag } = context;
    const { editor } = decl;
    const id = editor.allocId();
    const [entry, kill, done, discarded] = [editor.allocId(), editor.allocId(), editor.allocId(), editor.allocId()];
    context.killIfDiscarded = {
      prefix: [],
      id,
      returnType: decl.void,
      header: [instruction(Op.Function, [decl.void, id, 0, decl.voidFunction])],
      blocks: [
        { label: entry, body: [instruction(Op.Load, [decl.bool, discarded, flag]), instruction(Op.SelectionMerge, [done, 0]), instruction(Op.BranchConditional, [discarded, kill, done])] },
        { label: kill, body: [instruction(context.killOpcode, [])] },
        { label: done, body: [instruction(Op.Return, [])] },
      ],
    };
    editor.addName(id, 'warptrace_kill_if_discarded');
  }
  return context.killIfDiscarded.id;
}

function rewriteFunction(context: RewriteContext, f: FunctionCode): void {
  const { decl, flag, discarding } = context;
  const { editor } = decl;
  const inContinue = continueConstructBlocks(f);
  const returnVoid = editor.globalDef(f.returnType)?.opcode === Op.TypeVoid;
  const earlyReturn = (): Instruction => (returnVoid ? instruction(Op.Return, []) : instruction(Op.ReturnValue, [decl.undef(f.returnType)]));
  const renamed = new Map<number, number>();
  const blocks: Block[] = [];
  for (const block of f.blocks) {
    let piece: Block = { label: block.label, body: [] };
    const moved = new Set<Instruction>();
    for (const [at, inst] of block.body.entries()) {
      if (moved.has(inst)) continue;
      if ((inst.opcode === Op.Kill || inst.opcode === Op.TerminateInvocation) && !inContinue.has(block.label)) {
        piece.body.push(instruction(Op.Store, [flag, decl.true]), earlyReturn());
        continue;
      }
      piece.body.push(inst);
      if (inst.opcode !== Op.FunctionCall || !discarding.has(inst.words[3]!)) continue;
      if (inContinue.has(block.label)) {
        piece.body.push(instruction(Op.FunctionCall, [decl.void, editor.allocId(), killIfDiscardedFunction(context)]));
        continue;
      }

      // Split after the call: return at once if it discarded.
      const rest = block.body.slice(at + 1);
      const discarded = editor.allocId();
      const ret = editor.allocId();
      const next = editor.allocId();
      piece.body.push(instruction(Op.Load, [decl.bool, discarded, flag]));
      const loopMerge = rest.find((i) => i.opcode === Op.LoopMerge);
      if (loopMerge !== undefined && piece.label === block.label) {
        // A loop header keeps its OpLoopMerge; the header's own branch moves to the next piece.
        checkHeaderBranch(f, block, loopMerge, rest.at(-1)!);
        moved.add(loopMerge);
        piece.body.push(loopMerge);
      } else if (loopMerge !== undefined) {
        throw new InstrumentError(`function %${f.id}: cannot defer a discard in loop header block %${block.label}`);
      } else {
        piece.body.push(instruction(Op.SelectionMerge, [next, 0]));
      }
      piece.body.push(instruction(Op.BranchConditional, [discarded, ret, next]));
      blocks.push(piece, { label: ret, body: [earlyReturn()] });
      piece = { label: next, body: [] };
    }
    blocks.push(piece);
    if (piece.label !== block.label) renamed.set(block.label, piece.label);
  }
  // Successors' OpPhi name the block that now branches to them: the last piece.
  for (const b of blocks) {
    b.body = b.body.map((inst) => {
      if (inst.opcode !== Op.Phi) return inst;
      const operands = Array.from(inst.words.subarray(1));
      let changed = false;
      for (let k = 3; k < operands.length; k += 2) {
        const to = renamed.get(operands[k]!);
        if (to !== undefined) {
          operands[k] = to;
          changed = true;
        }
      }
      return changed ? instruction(Op.Phi, operands) : inst;
    });
  }
  f.blocks = blocks;
}

/** After the split, a loop header's conditional branch stands alone: it must be a break or a continue. */
function checkHeaderBranch(f: FunctionCode, block: Block, loopMerge: Instruction, terminator: Instruction): void {
  if (terminator.opcode === Op.Branch) return;
  const mergeBlock = loopMerge.words[1];
  const continueTarget = loopMerge.words[2];
  if (terminator.opcode === Op.BranchConditional) {
    const targets = [terminator.words[2], terminator.words[3]];
    if (targets.includes(mergeBlock) || targets.includes(continueTarget)) return;
  }
  throw new InstrumentError(`function %${f.id}: loop header %${block.label} calls a function that discards and branches in a way the discard deferral cannot restructure; use --discard kill`);
}

/** Labels of blocks inside some loop's continue construct (conservatively: reachable from the continue target without passing the header or merge). */
function continueConstructBlocks(f: FunctionCode): Set<number> {
  const successors = new Map<number, number[]>();
  const labels = new Set(f.blocks.map((b) => b.label));
  for (const b of f.blocks) {
    const t = b.body.at(-1);
    let targets: number[] = [];
    if (t?.opcode === Op.Branch) targets = [t.words[1]!];
    else if (t?.opcode === Op.BranchConditional) targets = [t.words[2]!, t.words[3]!];
    else if (t?.opcode === Op.Switch) targets = Array.from(t.words.subarray(2)).filter((w) => labels.has(w)); // literals that look like labels only widen the set
    successors.set(b.label, targets);
  }
  const out = new Set<number>();
  for (const b of f.blocks) {
    const merge = b.body.find((i) => i.opcode === Op.LoopMerge);
    if (merge === undefined) continue;
    const [mergeBlock, continueTarget] = [merge.words[1]!, merge.words[2]!];
    const stack = [continueTarget];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const label = stack.pop()!;
      if (seen.has(label) || label === mergeBlock || (label === b.label && label !== continueTarget)) continue;
      seen.add(label);
      out.add(label);
      for (const s of successors.get(label) ?? []) if (s !== b.label || continueTarget === b.label) stack.push(s);
    }
  }
  return out;
}
