// Reading an instrumented module for the ray-event tests: its functions, the ray-event functions by
// name, constants, built-in variables, and the calls of one function.
import { decodeString, parseSpirv, type Instruction } from '../../instrument/model/binary.js';
import { parseFunctions, type FunctionCode } from '../../instrument/model/functions.js';
import { ModuleEditor, Section } from '../../instrument/model/module.js';
import { Decoration, Op } from '../../instrument/model/spec.js';
import { RAY_FUNCTIONS, type RayFunction } from '../../instrument/passes/ray-event-code.js';

export class ReadModule {
  readonly editor: ModuleEditor;
  readonly functions: FunctionCode[];
  private readonly byName = new Map<string, number[]>();

  constructor(bytes: Uint8Array) {
    this.editor = new ModuleEditor(parseSpirv(bytes));
    this.functions = parseFunctions(this.editor.section(Section.Function)).functions;
    for (const inst of this.editor.section(Section.DebugName)) {
      if (inst.opcode !== Op.Name) continue;
      const name = decodeString(inst.words, 2).value;
      this.byName.set(name, [...(this.byName.get(name) ?? []), inst.words[1]!]);
    }
  }

  /** Ids named `name` (OpName). */
  named(name: string): number[] {
    return this.byName.get(name) ?? [];
  }

  /** The one ray-event function `name`, or null when the module has none. */
  rayFunction(name: RayFunction): number | null {
    const ids = this.named(RAY_FUNCTIONS[name]);
    if (ids.length > 1) throw new Error(`${ids.length} functions named ${RAY_FUNCTIONS[name]}`);
    return ids[0] ?? null;
  }

  /** Whether `inst` calls the ray-event function `name`. */
  calls(inst: Instruction | undefined, name: RayFunction): boolean {
    const id = this.rayFunction(name);
    return inst !== undefined && id !== null && inst.opcode === Op.FunctionCall && inst.words[3] === id;
  }

  functionOf(id: number): FunctionCode {
    const f = this.functions.find((g) => g.id === id);
    if (f === undefined) throw new Error(`no function %${id}`);
    return f;
  }

  body(id: number): Instruction[] {
    return this.functionOf(id).blocks.flatMap((b) => b.body);
  }

  /** An OpConstant's value (u32), or null for any other id. */
  constant(id: number): number | null {
    const def = this.editor.globalDef(id);
    return def?.opcode === Op.Constant ? def.words[3]! : null;
  }

  /** The BuiltIn decoration of a variable, or null. */
  builtinOf(variable: number): number | null {
    return this.editor.decorationValues(Decoration.BuiltIn).get(variable) ?? null;
  }

  /** Instructions (anywhere in the module) that use `id` as an operand after their result. */
  uses(id: number): number {
    let n = 0;
    for (const inst of this.editor.build().instructions) {
      const from = resultOperandsFrom(inst);
      for (let k = from; k < inst.words.length; k++) if (inst.words[k] === id) n++;
    }
    return n;
  }
}

/** The first operand word after the result id (type and result skipped, for the instructions the tests ask about). */
function resultOperandsFrom(inst: Instruction): number {
  switch (inst.opcode) {
    case Op.Name:
    case Op.Decorate:
    case Op.MemberName:
    case Op.MemberDecorate:
      return inst.words.length; // debug and annotation: not uses
    case Op.Store:
    case Op.Branch:
    case Op.BranchConditional:
    case Op.ReturnValue:
    case Op.SelectionMerge:
    case Op.LoopMerge:
      return 1;
    default:
      return 3;
  }
}
