// A small SPIR-V interpreter for the instrumenter's own helper functions (the ray-event functions, the block
// profile's begin): u32 arithmetic, comparisons, selects, structured branches with OpPhi, calls, private
// variables, one storage buffer of u32 words (its header members and runtime array), the draw-id uniform block
// and scalar specialization constants at their defaults. Lavapipe has no ray-tracing pipelines, so the tests
// run the emitted functions here, invocation by invocation, as the GPU would call them. Any other opcode
// throws: the tests then fail rather than guess.
import { decodeString, parseSpirv } from '../../instrument/model/binary.js';
import { parseFunctions, type FunctionCode } from '../../instrument/model/functions.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { Op, StorageClass } from '../../instrument/model/spec.js';

type Pointer = { readonly space: 'private'; readonly variable: number } | { readonly space: 'buffer' | 'uniform'; readonly word: number };
type Value = number | boolean | readonly number[] | Pointer;

/** What every invocation shares: the storage buffer's words and the uniform block's. */
export interface DeviceMemory {
  /** The storage buffer: its header members, then its runtime array. */
  readonly buffer: Uint32Array;
  readonly uniform: Uint32Array;
}

export class SpirvInterpreter {
  private readonly functions = new Map<number, FunctionCode>();
  private readonly constants = new Map<number, Value>();
  private readonly privateInitial = new Map<number, number>();
  private readonly names = new Map<string, number>();
  private readonly buffer: number;
  private readonly uniform: number;

  /** The storage buffer's and the uniform block's variables by their OpNames; the buffer's runtime array is its member `headerWords`. */
  constructor(bytes: Uint8Array, bufferName: string, uniformName: string, private readonly headerWords: number) {
    const editor = new ModuleEditor(parseSpirv(bytes));
    for (const f of parseFunctions(editor.section(Section.Function)).functions) this.functions.set(f.id, f);
    for (const inst of editor.section(Section.Global)) {
      const w = inst.words;
      // A specialization constant takes its default: the tests run modules unspecialized.
      if (inst.opcode === Op.Constant || inst.opcode === Op.SpecConstant) this.constants.set(w[2]!, w[3]!);
      else if (inst.opcode === Op.ConstantTrue || inst.opcode === Op.ConstantFalse) this.constants.set(w[2]!, inst.opcode === Op.ConstantTrue);
      else if (inst.opcode === Op.Undef) this.constants.set(w[2]!, [0, 0, 0, 0]);
      else if (inst.opcode === Op.Variable && w[3] === StorageClass.Private) this.privateInitial.set(w[2]!, w.length > 4 ? (this.constants.get(w[4]!) as number) : 0);
    }
    for (const inst of editor.section(Section.DebugName)) if (inst.opcode === Op.Name) this.names.set(decodeString(inst.words, 2).value, inst.words[1]!);
    this.buffer = this.idOf(bufferName);
    this.uniform = this.idOf(uniformName);
  }

  /** The id OpName gives `name`. */
  idOf(name: string): number {
    const id = this.names.get(name);
    if (id === undefined) throw new Error(`no OpName "${name}" in the module`);
    return id;
  }

  /** A fresh invocation: its private variables at their initial values. */
  invocation(): Map<number, number> {
    return new Map(this.privateInitial);
  }

  /** Calls the function named `name` in one invocation; its return value (a u32, or a vector as an array). */
  call(memory: DeviceMemory, privates: Map<number, number>, name: string, ...args: (number | readonly number[])[]): Value | undefined {
    return this.run(memory, privates, this.idOf(name), args);
  }

  private run(memory: DeviceMemory, privates: Map<number, number>, id: number, args: readonly Value[]): Value | undefined {
    const f = this.functions.get(id);
    if (f === undefined) throw new Error(`no function %${id}`);
    const local = new Map<number, Value>();
    const parameters = f.header.filter((i) => i.opcode === Op.FunctionParameter);
    if (parameters.length !== args.length) throw new Error(`%${id} takes ${parameters.length} arguments, not ${args.length}`);
    parameters.forEach((p, k) => local.set(p.words[2]!, args[k]!));
    const value = (v: number): Value => {
      const found = local.get(v) ?? this.constants.get(v);
      if (found !== undefined) return found;
      if (v === this.buffer) return { space: 'buffer', word: 0 };
      if (v === this.uniform) return { space: 'uniform', word: 0 };
      if (this.privateInitial.has(v)) return { space: 'private', variable: v };
      throw new Error(`%${v} has no value`);
    };
    const u = (v: number) => value(v) as number;
    const b = (v: number) => value(v) as boolean;
    const load = (p: Pointer): number => (p.space === 'private' ? privates.get(p.variable)! : (p.space === 'buffer' ? memory.buffer : memory.uniform)[check(p, memory)]!);
    const store = (p: Pointer, v: number): void => {
      if (p.space === 'private') privates.set(p.variable, v >>> 0);
      else if (p.space === 'buffer') memory.buffer[check(p, memory)] = v;
      else throw new Error('a store into the uniform block');
    };
    const blocks = new Map(f.blocks.map((block) => [block.label, block]));
    let block = f.blocks[0]!;
    let previous = 0;
    for (;;) {
      let next: number | null = null;
      for (const inst of block.body) {
        const w = inst.words;
        const set = (v: Value) => local.set(w[2]!, v);
        switch (inst.opcode) {
          case Op.Phi: {
            const k = Array.from(w.subarray(4)).findIndex((parent, i) => i % 2 === 0 && parent === previous);
            if (k < 0) throw new Error(`OpPhi %${w[2]} names no predecessor %${previous}`);
            set(value(w[3 + k]!));
            break;
          }
          case Op.SelectionMerge:
          case Op.LoopMerge:
            break;
          case Op.Load:
            set(load(value(w[3]!) as Pointer));
            break;
          case Op.Store:
            store(value(w[1]!) as Pointer, u(w[2]!));
            break;
          case Op.AccessChain: {
            const base = value(w[3]!) as Pointer;
            if (base.space === 'private') throw new Error('an access chain into a private variable');
            const [member, element] = [u(w[4]!), w.length > 5 ? u(w[5]!) : 0];
            set({ space: base.space, word: base.space === 'buffer' && member === this.headerWords ? this.headerWords + element : member });
            break;
          }
          case Op.ArrayLength:
            set(memory.buffer.length - this.headerWords);
            break;
          case Op.CompositeExtract:
            set((value(w[3]!) as readonly number[])[w[4]!]!);
            break;
          case Op.CompositeConstruct:
            set(Array.from(w.subarray(3), u));
            break;
          case Op.IAdd:
            set((u(w[3]!) + u(w[4]!)) >>> 0);
            break;
          case Op.ISub:
            set((u(w[3]!) - u(w[4]!)) >>> 0);
            break;
          case Op.IMul:
            set(Math.imul(u(w[3]!), u(w[4]!)) >>> 0);
            break;
          case Op.ShiftRightLogical:
            if (u(w[4]!) >= 32) throw new Error('a shift by 32 or more');
            set(u(w[3]!) >>> u(w[4]!));
            break;
          case Op.BitwiseAnd:
            set((u(w[3]!) & u(w[4]!)) >>> 0);
            break;
          case Op.BitwiseOr:
            set((u(w[3]!) | u(w[4]!)) >>> 0);
            break;
          case Op.IEqual:
            set(u(w[3]!) === u(w[4]!));
            break;
          case Op.INotEqual:
            set(u(w[3]!) !== u(w[4]!));
            break;
          case Op.ULessThan:
            set(u(w[3]!) < u(w[4]!));
            break;
          case Op.ULessThanEqual:
            set(u(w[3]!) <= u(w[4]!));
            break;
          case Op.LogicalAnd:
            set(b(w[3]!) && b(w[4]!));
            break;
          case Op.LogicalNot:
            set(!b(w[3]!));
            break;
          case Op.Select:
            set(b(w[3]!) ? value(w[4]!) : value(w[5]!));
            break;
          case Op.AtomicIAdd:
          case Op.AtomicUMax:
          case Op.AtomicUMin: {
            const p = value(w[3]!) as Pointer;
            const old = load(p);
            const v = u(w[6]!);
            store(p, inst.opcode === Op.AtomicIAdd ? (old + v) >>> 0 : inst.opcode === Op.AtomicUMax ? Math.max(old, v) : Math.min(old, v));
            set(old);
            break;
          }
          case Op.FunctionCall: {
            const result = this.run(memory, privates, w[3]!, Array.from(w.subarray(4), value));
            if (result !== undefined) set(result);
            break;
          }
          case Op.Branch:
            next = w[1]!;
            break;
          case Op.BranchConditional:
            next = b(w[1]!) ? w[2]! : w[3]!;
            break;
          case Op.Return:
            return undefined;
          case Op.ReturnValue:
            return value(w[1]!);
          default:
            throw new Error(`the interpreter does not run opcode ${inst.opcode}`);
        }
      }
      if (next === null) throw new Error(`block %${block.label} has no terminator`);
      previous = block.label;
      block = blocks.get(next)!;
    }
  }
}

/** A word index inside its memory: an access past it is a bug of the code under test. */
function check(p: Pointer & { readonly word: number }, memory: DeviceMemory): number {
  const words = p.space === 'buffer' ? memory.buffer : memory.uniform;
  if (p.word < 0 || p.word >= words.length) throw new Error(`an access to ${p.space} word ${p.word} past its ${words.length} words`);
  return p.word;
}
