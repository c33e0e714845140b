// A CPU run of an instrumented wrapper's prologue: from its first instruction to the
// entry point's call, as one lane (the first: a broadcast returns its own value) with
// the given built-ins and draw-id block. It answers whether the lane read the start
// clock, i.e. whether its warp records: the spirv-sample test compares that with
// shared-schema/sample-layout.ts's warpSampled for the keys the contract defines.
import type { SpirvModule } from '../../instrument/model/binary.js';
import { parseFunctions } from '../../instrument/model/functions.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { Decoration, Op } from '../../instrument/model/spec.js';

/** A built-in's value: a 32-bit integer's bits, or a float vector's components. */
export type BuiltinValue = number | readonly number[];

export interface PrologueInputs {
  /** The draw-id block's words (binding + 1): word 0 the draw id, words 10-11 the sampling rates. */
  readonly drawWords: readonly number[];
  /** By BuiltIn decoration value. */
  readonly builtins: ReadonlyMap<number, BuiltinValue>;
}

type Value = number | boolean | readonly number[] | { readonly variable: number; readonly index: number | null };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Whether the entry point `name`'s wrapper reads its start clock before it calls the entry point. */
export function prologueReadsClock(module: SpirvModule, name: string, inputs: PrologueInputs, binding = 0): boolean {
  const editor = new ModuleEditor(module);
  const entry = editor.entryPoints().find((e) => e.name === name)!;
  const wrapper = parseFunctions(editor.section(Section.Function)).functions.find((f) => f.id === entry.functionId)!;
  const builtIns = editor.decorationValues(Decoration.BuiltIn);
  const bindings = editor.decorationValues(Decoration.Binding);
  const values = new Map<number, Value>();
  const floatTypes = new Set<number>();
  const typeOf = new Map<number, number>();
  for (const inst of module.instructions) {
    const w = inst.words;
    if (inst.opcode === Op.TypeFloat) floatTypes.add(w[1]!);
    if (inst.opcode === Op.TypeVector && floatTypes.has(w[2]!)) floatTypes.add(w[1]!);
    if (inst.opcode === Op.Constant) values.set(w[2]!, w[3]!);
    if (inst.opcode === Op.ConstantTrue || inst.opcode === Op.ConstantFalse) values.set(w[2]!, inst.opcode === Op.ConstantTrue);
  }
  const num = (id: number) => values.get(id) as number;
  const blocks = new Map(wrapper.blocks.map((b) => [b.label, b]));
  let previous = 0;
  let block = wrapper.blocks[0]!;
  for (;;) {
    let next: number | null = null;
    for (const inst of block.body) {
      const w = inst.words;
      const set = (v: Value) => {
        typeOf.set(w[2]!, w[1]!);
        values.set(w[2]!, v);
      };
      const binary = (f: (a: number, b: number) => number) => set(f(num(w[3]!), num(w[4]!)) >>> 0);
      switch (inst.opcode) {
        case Op.ReadClockKHR:
          return true;
        case Op.FunctionCall:
          return false;
        case Op.AccessChain:
          set({ variable: w[3]!, index: w.length > 4 ? num(w[w.length - 1]!) : null });
          break;
        case Op.Load: {
          const pointer = values.get(w[3]!) as { variable: number; index: number | null } | undefined;
          const variable = pointer?.variable ?? w[3]!;
          if (bindings.get(variable) === binding + 1) set(inputs.drawWords[pointer?.index ?? 0] ?? 0);
          else if (builtIns.has(variable)) set(inputs.builtins.get(builtIns.get(variable)!) ?? fail(`built-in ${builtIns.get(variable)} not given`));
          else fail(`load of %${variable}`);
          break;
        }
        case Op.CompositeExtract:
          set((values.get(w[3]!) as readonly number[])[w[4]!]!);
          break;
        case Op.ConvertFToU:
          set(Math.trunc(num(w[3]!)) >>> 0);
          break;
        case Op.Bitcast:
          if (floatTypes.has(typeOf.get(w[3]!) ?? -1)) {
            f32[0] = num(w[3]!);
            set(u32[0]!);
          } else set(num(w[3]!) >>> 0);
          break;
        case Op.GroupNonUniformBroadcastFirst:
          set(values.get(w[4]!)!);
          break;
        case Op.SubgroupFirstInvocationKHR:
          set(values.get(w[3]!)!);
          break;
        case Op.IAdd:
          binary((a, b) => a + b);
          break;
        case Op.IMul:
          binary((a, b) => Math.imul(a, b));
          break;
        case Op.UDiv:
          binary((a, b) => Math.floor(a / b));
          break;
        case Op.BitwiseXor:
          binary((a, b) => a ^ b);
          break;
        case Op.BitwiseOr:
          binary((a, b) => a | b);
          break;
        case Op.BitwiseAnd:
          binary((a, b) => a & b);
          break;
        case Op.ShiftRightLogical:
          binary((a, b) => a >>> b);
          break;
        case Op.ShiftLeftLogical:
          binary((a, b) => a << b);
          break;
        case Op.INotEqual:
          set(num(w[3]!) !== num(w[4]!));
          break;
        case Op.ULessThanEqual:
          set(num(w[3]!) <= num(w[4]!));
          break;
        case Op.Phi: {
          let k = 3;
          while (w[k + 1] !== previous) k += 2;
          set(values.get(w[k]!)!);
          break;
        }
        case Op.SelectionMerge:
        case Op.Store:
          break;
        case Op.Branch:
          next = w[1]!;
          break;
        case Op.BranchConditional:
          next = values.get(w[1]!) === true ? w[2]! : w[3]!;
          break;
        default:
          fail(`opcode ${inst.opcode} in the prologue`);
      }
    }
    if (next === null) fail(`block %${block.label} does not branch`);
    previous = block.label;
    block = blocks.get(next)!;
  }
}

function fail(message: string): never {
  throw new Error(`prologue: ${message}`);
}
