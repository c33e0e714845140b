// A small SPIR-V interpreter for the instrumenter's own helper functions (the ray-event functions, the block
// profile's begin) and its entry-point wrappers: u32 arithmetic, comparisons, selects, structured branches with
// OpPhi, calls, private variables, built-in inputs, one storage buffer of u32 words (its header members and
// runtime array of scalars or vectors), the draw-id uniform block and scalar specialization constants at their
// defaults. Lavapipe has no ray-tracing pipelines, so the tests run the emitted functions here, invocation by
// invocation, as the GPU would call them; runWarp runs a wrapper in every lane of a warp, the lanes' subgroup
// operations meeting where they all arrive (spirv-warp.ts). Any other opcode throws: the tests then fail rather
// than guess.
import { decodeString, parseSpirv, type Instruction } from '../../instrument/model/binary.js';
import { parseFunctions, type FunctionCode } from '../../instrument/model/functions.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { Decoration, Op, Scope, StorageClass } from '../../instrument/model/spec.js';

type Pointer = { readonly space: 'private'; readonly variable: number } | { readonly space: 'buffer' | 'uniform'; readonly word: number } | { readonly space: 'input'; readonly builtIn: number };
export type Value = number | boolean | readonly number[] | Pointer;

/** One invocation's state: its private variables and the values of its built-in inputs (by BuiltIn). */
export interface Invocation {
  readonly privates: Map<number, number>;
  readonly inputs: ReadonlyMap<number, Value>;
}

/** A subgroup operation an invocation waits at: the instruction, and this lane's operand (none for an election). */
export interface GroupWait {
  readonly inst: Instruction;
  readonly operand: number | boolean | null;
}

/** GLSL.std.450 instructions the wrappers use (the screen position's box). */
const Glsl = { UMin: 38, FindUMsb: 75 } as const;

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
  /** Input variables decorated BuiltIn: their built-in. */
  private readonly inputs = new Map<number, number>();
  private readonly glsl: number | null;
  /** What OpReadClockKHR reads: a counter, so every read is later than the one before. */
  private ticks = 0;

  /**
   * The storage buffer's and the uniform block's variables by their OpNames; the buffer's runtime array is its
   * member `headerWords`, of `elementWords` words an element (a uvec4: 4).
   */
  constructor(bytes: Uint8Array, bufferName: string, uniformName: string, private readonly headerWords: number, private readonly elementWords = 1) {
    const editor = new ModuleEditor(parseSpirv(bytes));
    const builtIns = editor.decorationValues(Decoration.BuiltIn);
    for (const f of parseFunctions(editor.section(Section.Function)).functions) this.functions.set(f.id, f);
    for (const inst of editor.section(Section.Global)) {
      const w = inst.words;
      // A specialization constant takes its default: the tests run modules unspecialized.
      if (inst.opcode === Op.Constant || inst.opcode === Op.SpecConstant) this.constants.set(w[2]!, w[3]!);
      else if (inst.opcode === Op.ConstantTrue || inst.opcode === Op.ConstantFalse) this.constants.set(w[2]!, inst.opcode === Op.ConstantTrue);
      else if (inst.opcode === Op.Undef) this.constants.set(w[2]!, [0, 0, 0, 0]);
      else if (inst.opcode === Op.Variable && w[3] === StorageClass.Private) this.privateInitial.set(w[2]!, w.length > 4 ? (this.constants.get(w[4]!) as number) : 0);
      else if (inst.opcode === Op.Variable && w[3] === StorageClass.Input && builtIns.has(w[2]!)) this.inputs.set(w[2]!, builtIns.get(w[2]!)!);
    }
    const glsl = editor.section(Section.ExtInstImport).find((i) => i.opcode === Op.ExtInstImport && decodeString(i.words, 2).value === 'GLSL.std.450');
    this.glsl = glsl?.words[1] ?? null;
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
    const steps = this.run(memory, { privates, inputs: new Map() }, this.idOf(name), args, new Set());
    const step = steps.next();
    if (!step.done) throw new Error('a subgroup operation outside a warp');
    return step.value;
  }

  /**
   * Function `id` in one invocation, as steps: it yields at each subgroup operation and goes on with the
   * result it is given (spirv-warp.ts runs a warp's lanes this way). Calls of the functions in `stubs`
   * return at once (the application's own entry point, whose code is not the instrumenter's).
   */
  *run(memory: DeviceMemory, invocation: Invocation, id: number, args: readonly Value[], stubs: ReadonlySet<number>): Generator<GroupWait, Value | undefined, Value> {
    const { privates, inputs } = invocation;
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
      const builtIn = this.inputs.get(v);
      if (builtIn !== undefined) return { space: 'input', builtIn };
      throw new Error(`%${v} has no value`);
    };
    const u = (v: number) => value(v) as number;
    const b = (v: number) => value(v) as boolean;
    const load = (p: Pointer): Value => {
      if (p.space === 'private') return privates.get(p.variable)!;
      if (p.space !== 'input') return (p.space === 'buffer' ? memory.buffer : memory.uniform)[check(p, memory)]!;
      const input = inputs.get(p.builtIn);
      if (input === undefined) throw new Error(`built-in ${p.builtIn} has no value in this invocation`);
      return input;
    };
    const store = (p: Pointer, v: Value): void => {
      if (p.space === 'private') privates.set(p.variable, (v as number) >>> 0);
      else if (p.space === 'buffer') {
        const words = typeof v === 'number' ? [v] : (v as readonly number[]);
        words.forEach((word, k) => (memory.buffer[check({ space: 'buffer', word: p.word + k }, memory)] = word));
      } else throw new Error(`a store into the ${p.space} block`);
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
            store(value(w[1]!) as Pointer, value(w[2]!));
            break;
          case Op.AccessChain: {
            const base = value(w[3]!) as Pointer;
            if (base.space === 'private' || base.space === 'input') throw new Error(`an access chain into a ${base.space} variable`);
            const [member, element] = [u(w[4]!), w.length > 5 ? u(w[5]!) : 0];
            set({ space: base.space, word: base.space === 'buffer' && member === this.headerWords ? this.headerWords + element * this.elementWords : member });
            break;
          }
          case Op.ArrayLength:
            set((memory.buffer.length - this.headerWords) / this.elementWords);
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
          case Op.UDiv:
            if (u(w[4]!) === 0) throw new Error('a division by 0');
            set(Math.floor(u(w[3]!) / u(w[4]!)));
            break;
          case Op.ShiftRightLogical:
            if (u(w[4]!) >= 32) throw new Error('a shift by 32 or more');
            set(u(w[3]!) >>> u(w[4]!));
            break;
          case Op.ShiftLeftLogical:
            if (u(w[4]!) >= 32) throw new Error('a shift by 32 or more');
            set((u(w[3]!) << u(w[4]!)) >>> 0);
            break;
          case Op.Bitcast:
            set(u(w[3]!) >>> 0);
            break;
          case Op.ExtInst: {
            if (w[3] !== this.glsl) throw new Error(`extended instruction set %${w[3]} is not GLSL.std.450`);
            if (w[4] === Glsl.UMin) set(Math.min(u(w[5]!), u(w[6]!)));
            else if (w[4] === Glsl.FindUMsb) set(u(w[5]!) === 0 ? 0xffffffff : 31 - Math.clz32(u(w[5]!)));
            else throw new Error(`the interpreter does not run GLSL.std.450 instruction ${w[4]}`);
            break;
          }
          case Op.ReadClockKHR:
            set([this.ticks++, 0]);
            break;
          case Op.GroupNonUniformElect:
          case Op.GroupNonUniformBallot:
          case Op.GroupNonUniformUMin:
          case Op.GroupNonUniformUMax:
            if (u(w[3]!) !== Scope.Subgroup) throw new Error(`a group operation of scope ${u(w[3]!)}`);
            set(yield { inst, operand: inst.opcode === Op.GroupNonUniformElect ? null : inst.opcode === Op.GroupNonUniformBallot ? b(w[4]!) : u(w[5]!) });
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
            const old = load(p) as number;
            const v = u(w[6]!);
            store(p, inst.opcode === Op.AtomicIAdd ? (old + v) >>> 0 : inst.opcode === Op.AtomicUMax ? Math.max(old, v) : Math.min(old, v));
            set(old);
            break;
          }
          case Op.FunctionCall: {
            if (stubs.has(w[3]!)) break;
            const result = yield* this.run(memory, invocation, w[3]!, Array.from(w.subarray(4), value), stubs);
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
