/**
 * Deferred endings: instructions that end an invocation before it returns
 * from its entry point would skip the wrapper's record. Fragment discards
 * (OpKill, OpTerminateInvocation), any-hit OpIgnoreIntersection /
 * OpTerminateRay (KHR terminators, NV instructions followed by a branch) and
 * the task shader's OpEmitMeshTasksEXT instead set a private flag (and save
 * what they need) and return at once; every caller returns right after a call
 * that ended; the wrapper writes the record, then performs the ending with the
 * module's own instruction. So a warp whose lanes all end early still writes
 * its record, and an ended lane runs nothing of the shader after its ending.
 *
 *   ...; OpKill                    ->  OpStore %ended %true; OpReturn
 *   %r = OpFunctionCall %T %f ...  ->  %r = OpFunctionCall ...; %d = OpLoad %ended
 *   (rest of block)                    OpSelectionMerge %rest; OpBranchConditional %d %ret %rest
 *                                      %ret: OpReturn(Value %undef)   %rest: (rest of block)
 *
 * Several kinds of ending in one kind (any-hit: ignore and terminate) also store
 * which one in a private uint; OpEmitMeshTasksEXT stores its group counts in
 * private uints (its payload, a TaskPayloadWorkgroupEXT variable, is global).
 */
import { instruction, type Instruction } from '../model/binary.js';
import type { CommonDeclarations } from '../model/declarations.js';
import { InstrumentError } from '../errors.js';
import { parseFunctions, reachableFrom, writeFunctions, type Block, type FunctionCode } from '../model/functions.js';
import { Section, type EntryPoint } from '../model/module.js';
import { Op, StorageClass } from '../model/spec.js';

/** What is deferred in one kind of entry point. */
export interface EndingKind {
  /** The instructions deferred. */
  readonly opcodes: readonly number[];
  /** Opcodes that are not block terminators (NV ray tracing): the rest of their block must be one OpBranch. */
  readonly followedByBranch: readonly number[];
  /** The instruction the wrapper ends with, for an opcode found (fragment: one kill for both discards). */
  readonly endWith: (opcode: number, used: ReadonlySet<number>) => number;
  /** For messages: "discards", "ends the invocation". */
  readonly verb: string;
  /** The flag's OpName. */
  readonly flagName: string;
  /** What to do instead, for refusals. */
  readonly advice: string;
}

export const FRAGMENT_DISCARD: EndingKind = {
  opcodes: [Op.Kill, Op.TerminateInvocation],
  followedByBranch: [],
  endWith: (_opcode, used) => (used.has(Op.TerminateInvocation) ? Op.TerminateInvocation : Op.Kill),
  verb: 'discards',
  flagName: 'warptrace_discarded',
  advice: 'or use --discard kill',
};

export const ANY_HIT_ENDINGS: EndingKind = {
  opcodes: [Op.IgnoreIntersectionKHR, Op.TerminateRayKHR, Op.IgnoreIntersectionNV, Op.TerminateRayNV],
  followedByBranch: [Op.IgnoreIntersectionNV, Op.TerminateRayNV],
  endWith: (opcode) => opcode,
  verb: 'ignores the intersection or terminates the ray',
  flagName: 'warptrace_hit_ended',
  advice: 'or instrument the other entry point too',
};

export const TASK_EMIT: EndingKind = {
  opcodes: [Op.EmitMeshTasksEXT],
  followedByBranch: [],
  endWith: (opcode) => opcode,
  verb: 'emits mesh tasks',
  flagName: 'warptrace_tasks_emitted',
  advice: 'or instrument the other entry point too',
};

/** One operand of a deferred ending: a saved value (private variable) or a global id used as is. */
type SavedOperand = { readonly variable: number; readonly type: number } | { readonly id: number };

interface Ending {
  /** The instruction the wrapper performs. */
  readonly opcode: number;
  /** The value of the `which` variable for it (the original opcode). */
  readonly code: number;
  readonly operands: readonly SavedOperand[];
  /** Not a block terminator (NV ray tracing): a branch follows it. */
  readonly branchAfter: boolean;
}

export interface DeferredEndings {
  /** Private bool: this invocation ended early. */
  readonly flag: number;
  /** Private uint holding the original opcode, when several endings occur; else null. */
  readonly which: number | null;
  readonly endings: readonly Ending[];
  /** Functions that may end the invocation (directly or through calls). */
  readonly functions: ReadonlySet<number>;
}

/**
 * Rewrites the module's endings of `kind` in the functions the entry points
 * reach; null when none of them has one.
 */
export function deferEndings(decl: CommonDeclarations, kind: EndingKind, entries: readonly EntryPoint[], otherEntries: readonly EntryPoint[]): DeferredEndings | null {
  const { editor } = decl;
  const section = parseFunctions(editor.section(Section.Function));
  const { functions } = section;
  const byId = new Map(functions.map((f) => [f.id, f]));
  const isEnding = (i: Instruction) => kind.opcodes.includes(i.opcode);
  const reachable = new Set(entries.flatMap((e) => [...reachableFrom(e.functionId, byId)]));
  const ending = new Set(functions.filter((f) => reachable.has(f.id) && f.blocks.some((b) => b.body.some(isEnding))).map((f) => f.id));
  if (ending.size === 0) return null;

  // Callers of ending functions end too (to a fixpoint: no recursion in shaders, but be safe).
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of functions) {
      if (ending.has(f.id) || !reachable.has(f.id)) continue;
      if (f.blocks.some((b) => b.body.some((i) => i.opcode === Op.FunctionCall && ending.has(i.words[3]!)))) {
        ending.add(f.id);
        changed = true;
      }
    }
  }
  for (const other of otherEntries) {
    const shared = [...reachableFrom(other.functionId, byId)].find((id) => ending.has(id));
    if (shared !== undefined) {
      throw new InstrumentError(`entry point "${other.name}" is not instrumented but calls function %${shared}, which ${kind.verb}; instrument it too, ${kind.advice}`);
    }
  }

  const found = functions.filter((f) => ending.has(f.id)).flatMap((f) => f.blocks.flatMap((b) => b.body.filter(isEnding)));
  const used = new Set(found.map((i) => i.opcode));
  const endings = new Map<number, Ending>();
  for (const opcode of kind.opcodes) {
    if (!used.has(opcode)) continue;
    const end = kind.endWith(opcode, used);
    const same = [...endings.values()].find((e) => e.opcode === end);
    if (same !== undefined) continue;
    const operands = savedOperands(decl, found.filter((i) => i.opcode === opcode));
    endings.set(opcode, { opcode: end, code: opcode, operands, branchAfter: kind.followedByBranch.includes(end) });
  }
  const flag = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.bool), id, StorageClass.Private, decl.constantFalse]);
  editor.addName(flag, kind.flagName);
  let which: number | null = null;
  if (endings.size > 1) {
    which = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.uint), id, StorageClass.Private, decl.u32(0)]);
    editor.addName(which, `${kind.flagName}_by`);
  }
  const deferred: DeferredEndings = { flag, which, endings: [...endings.values()], functions: ending };
  const endingOf = (opcode: number): Ending => endings.get(opcode) ?? [...endings.values()].find((e) => e.opcode === kind.endWith(opcode, used))!;
  const context: RewriteContext = { decl, kind, deferred, endingOf, endIfEnded: null };
  for (const f of functions) if (ending.has(f.id)) rewriteFunction(context, f);
  const extra = context.endIfEnded === null ? [] : [context.endIfEnded];
  editor.replaceSection(Section.Function, writeFunctions({ functions: [...functions, ...extra], trailer: section.trailer }));
  return deferred;
}

/** The operands an ending needs later: values (group counts) go to private variables; a global pointer (the payload) must be the same everywhere. */
function savedOperands(decl: CommonDeclarations, instances: readonly Instruction[]): SavedOperand[] {
  const { editor } = decl;
  const first = instances[0]!;
  const count = first.words.length - 1;
  if (instances.some((i) => i.words.length - 1 !== count)) throw new InstrumentError(`the module's ${opcodeName(first.opcode)} instructions take different operand counts`);
  const out: SavedOperand[] = [];
  for (let k = 1; k <= count; k++) {
    const global = editor.globalDef(first.words[k]!);
    if (global?.opcode === Op.Variable) {
      if (instances.some((i) => i.words[k] !== first.words[k])) throw new InstrumentError(`the module's ${opcodeName(first.opcode)} instructions name different variables`);
      out.push({ id: first.words[k]! });
    } else {
      // Group counts are 32-bit unsigned integers (SPV_EXT_mesh_shader).
      const variable = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.uint), id, StorageClass.Private]);
      editor.addName(variable, `warptrace_saved_${k}`);
      out.push({ variable, type: decl.uint });
    }
  }
  return out;
}

function opcodeName(opcode: number): string {
  for (const [name, value] of Object.entries(Op)) if (value === opcode) return `Op${name}`;
  return `opcode ${opcode}`;
}

/**
 * `if (ended [&& which == code]) { <ending> }` for each ending, as instructions
 * continuing the current block; the last label opened stays open for the caller.
 */
export function endingCode(decl: CommonDeclarations, deferred: DeferredEndings, allocId: () => number): Instruction[] {
  const out: Instruction[] = [];
  for (const e of deferred.endings) {
    let condition = allocId();
    out.push(instruction(Op.Load, [decl.bool, condition, deferred.flag]));
    if (deferred.which !== null) {
      const which = allocId();
      const is = allocId();
      const both = allocId();
      out.push(instruction(Op.Load, [decl.uint, which, deferred.which]), instruction(Op.IEqual, [decl.bool, is, which, decl.u32(e.code)]), instruction(Op.LogicalAnd, [decl.bool, both, condition, is]));
      condition = both;
    }
    const end = allocId();
    const next = allocId();
    out.push(instruction(Op.SelectionMerge, [next, 0]), instruction(Op.BranchConditional, [condition, end, next]), instruction(Op.Label, [end]));
    const operands = e.operands.map((o) => {
      if ('id' in o) return o.id;
      const value = allocId();
      out.push(instruction(Op.Load, [o.type, value, o.variable]));
      return value;
    });
    out.push(instruction(e.opcode, operands));
    if (e.branchAfter) out.push(instruction(Op.Branch, [next]));
    out.push(instruction(Op.Label, [next]));
  }
  return out;
}

/** Private variables an ending reads or writes (the entry point's interface lists them from SPIR-V 1.4). */
export function endingGlobals(deferred: DeferredEndings): number[] {
  const saved = deferred.endings.flatMap((e) => e.operands.flatMap((o) => ('variable' in o ? [o.variable] : [o.id])));
  return [deferred.flag, ...(deferred.which === null ? [] : [deferred.which]), ...saved];
}

interface RewriteContext {
  readonly decl: CommonDeclarations;
  readonly kind: EndingKind;
  readonly deferred: DeferredEndings;
  readonly endingOf: (opcode: number) => Ending;
  /** `void f() { if (ended) <ending>; }`, made on first use. */
  endIfEnded: FunctionCode | null;
}

/**
 * A continue construct must reach its back edge: no early return there. A
 * call that ended inside one is followed by a call of a function that ends
 * those lanes at once (they record nothing, as with --discard kill).
 */
function endIfEndedFunction(context: RewriteContext): number {
  if (context.endIfEnded === null) {
    const { decl } = context;
    const { editor } = decl;
    const id = editor.allocId();
    const code = [
      instruction(Op.Function, [decl.void, id, 0, decl.voidFunction]),
      instruction(Op.Label, [editor.allocId()]),
      ...endingCode(decl, context.deferred, () => editor.allocId()),
      instruction(Op.Return, []),
      instruction(Op.FunctionEnd, []),
    ];
    context.endIfEnded = parseFunctions(code).functions[0]!;
    editor.addName(id, context.kind === FRAGMENT_DISCARD ? 'warptrace_kill_if_discarded' : `${context.kind.flagName}_end`);
  }
  return context.endIfEnded.id;
}

/** The stores that replace an ending: the flag, which ending, its operands. */
function deferStores(context: RewriteContext, inst: Instruction): Instruction[] {
  const { decl, deferred } = context;
  const e = context.endingOf(inst.opcode);
  const out = [instruction(Op.Store, [deferred.flag, decl.true])];
  if (deferred.which !== null) out.push(instruction(Op.Store, [deferred.which, decl.u32(e.code)]));
  e.operands.forEach((o, k) => {
    if ('variable' in o) out.push(instruction(Op.Store, [o.variable, inst.words[k + 1]!]));
  });
  return out;
}

function rewriteFunction(context: RewriteContext, f: FunctionCode): void {
  const { decl, deferred, kind } = context;
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
      if (kind.opcodes.includes(inst.opcode) && !inContinue.has(block.label)) {
        if (kind.followedByBranch.includes(inst.opcode)) checkFollowedByBranch(f, block, at);
        piece.body.push(...deferStores(context, inst), earlyReturn());
        for (const rest of block.body.slice(at + 1)) moved.add(rest);
        continue;
      }
      piece.body.push(inst);
      if (inst.opcode !== Op.FunctionCall || !deferred.functions.has(inst.words[3]!)) continue;
      if (inContinue.has(block.label)) {
        piece.body.push(instruction(Op.FunctionCall, [decl.void, editor.allocId(), endIfEndedFunction(context)]));
        continue;
      }

      // Split after the call: return at once if it ended.
      const rest = block.body.slice(at + 1);
      const ended = editor.allocId();
      const ret = editor.allocId();
      const next = editor.allocId();
      piece.body.push(instruction(Op.Load, [decl.bool, ended, deferred.flag]));
      const loopMerge = rest.find((i) => i.opcode === Op.LoopMerge);
      if (loopMerge !== undefined && piece.label === block.label) {
        // A loop header keeps its OpLoopMerge; the header's own branch moves to the next piece.
        checkHeaderBranch(f, block, loopMerge, rest.at(-1)!, kind);
        moved.add(loopMerge);
        piece.body.push(loopMerge);
      } else if (loopMerge !== undefined) {
        throw new InstrumentError(`function %${f.id}: cannot defer an ending in loop header block %${block.label}`);
      } else {
        piece.body.push(instruction(Op.SelectionMerge, [next, 0]));
      }
      piece.body.push(instruction(Op.BranchConditional, [ended, ret, next]));
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

/**
 * An NV ray-tracing ending is an ordinary instruction: glslang follows it with
 * the block's branch, which the early return replaces. Anything else after it,
 * or an OpPhi that names the block, would lose a definition or a predecessor.
 */
function checkFollowedByBranch(f: FunctionCode, block: Block, at: number): void {
  const rest = block.body.slice(at + 1);
  const namesBlock = f.blocks.some((b) => b.body.some((i) => i.opcode === Op.Phi && Array.from(i.words.subarray(3)).some((w, k) => k % 2 === 1 && w === block.label)));
  if (rest.length !== 1 || rest[0]!.opcode !== Op.Branch || namesBlock) {
    throw new InstrumentError(`function %${f.id}: block %${block.label} continues after ${opcodeName(block.body[at]!.opcode)}; only a branch may follow it`);
  }
}

/** After the split, a loop header's conditional branch stands alone: it must be a break or a continue. */
function checkHeaderBranch(f: FunctionCode, block: Block, loopMerge: Instruction, terminator: Instruction, kind: EndingKind): void {
  if (terminator.opcode === Op.Branch) return;
  const mergeBlock = loopMerge.words[1];
  const continueTarget = loopMerge.words[2];
  if (terminator.opcode === Op.BranchConditional) {
    const targets = [terminator.words[2], terminator.words[3]];
    if (targets.includes(mergeBlock) || targets.includes(continueTarget)) return;
  }
  const advice = kind === FRAGMENT_DISCARD ? '; use --discard kill' : '';
  throw new InstrumentError(`function %${f.id}: loop header %${block.label} calls a function that ${kind.verb} and branches in a way the deferral cannot restructure${advice}`);
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
