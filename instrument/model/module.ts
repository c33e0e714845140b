/**
 * A SPIR-V module split into its logical layout sections (spec §2.4), with
 * what an editing pass needs: id allocation from the bound, find-or-add for
 * capabilities, extensions, types and constants (existing ones are reused:
 * spirv-val rejects duplicate non-aggregate types), and appends to the right
 * section. It never mutates the parsed module: instructions are replaced,
 * not edited, so the input stays untouched whatever happens.
 */
import { SpirvFormatError, decodeString, encodeString, instruction, type Instruction, type SpirvModule } from './binary.js';
import { InstrumentError } from '../errors.js';
import { MAX_ID_BOUND, Op } from './spec.js';

/** Logical layout sections, in module order. */
export const Section = {
  Capability: 0,
  Extension: 1,
  ExtInstImport: 2,
  MemoryModel: 3,
  EntryPoint: 4,
  ExecutionMode: 5,
  DebugSource: 6,
  DebugName: 7,
  DebugProcessed: 8,
  Annotation: 9,
  Global: 10,
  Function: 11,
} as const;
type SectionIndex = (typeof Section)[keyof typeof Section];
const SECTION_COUNT = 12;

function sectionOf(opcode: number): SectionIndex | null {
  switch (opcode) {
    case Op.Capability:
      return Section.Capability;
    case Op.Extension:
      return Section.Extension;
    case Op.ExtInstImport:
      return Section.ExtInstImport;
    case Op.MemoryModel:
      return Section.MemoryModel;
    case Op.EntryPoint:
      return Section.EntryPoint;
    case Op.ExecutionMode:
    case Op.ExecutionModeId:
      return Section.ExecutionMode;
    case Op.String:
    case Op.Source:
    case Op.SourceExtension:
    case Op.SourceContinued:
      return Section.DebugSource;
    case Op.Name:
    case Op.MemberName:
      return Section.DebugName;
    case Op.ModuleProcessed:
      return Section.DebugProcessed;
    case Op.Decorate:
    case Op.MemberDecorate:
    case Op.DecorationGroup:
    case Op.GroupDecorate:
    case Op.GroupMemberDecorate:
    case Op.DecorateId:
    case Op.DecorateString:
    case Op.MemberDecorateString:
      return Section.Annotation;
    case Op.Function:
      return Section.Function;
    default:
      return null; // a global (type, constant, variable, OpLine...) or, after the first OpFunction, function code
  }
}

export interface EntryPoint {
  /** Index in the entry-point section. */
  readonly index: number;
  readonly executionModel: number;
  readonly functionId: number;
  readonly name: string;
  readonly interfaceIds: readonly number[];
}

export interface GlobalVariable {
  readonly id: number;
  readonly pointerTypeId: number;
  readonly storageClass: number;
}

export class ModuleEditor {
  version: number;
  readonly generator: number;
  readonly schema: number;
  readonly littleEndian: boolean;
  private bound: number;
  /** The input's bound: the ids from it up to `bound` are the editor's own. */
  private readonly inputBound: number;
  private readonly sections: Instruction[][];

  constructor(module: SpirvModule) {
    this.version = module.header.version;
    this.generator = module.header.generator;
    this.schema = module.header.schema;
    this.littleEndian = module.littleEndian;
    this.bound = module.header.bound;
    this.inputBound = module.header.bound;
    this.sections = Array.from({ length: SECTION_COUNT }, () => []);
    let current: SectionIndex = Section.Capability;
    let offset = 5;
    for (const inst of module.instructions) {
      const section: SectionIndex = current === Section.Function ? Section.Function : (sectionOf(inst.opcode) ?? (inst.opcode === Op.Nop ? current : Section.Global));
      if (section < current) {
        throw new SpirvFormatError(`instruction with opcode ${inst.opcode} is out of the module's logical layout order`, offset);
      }
      current = section;
      this.sections[section]!.push(inst);
      offset += inst.words.length;
    }
  }

  /**
   * The edited module. Every new id comes from allocId, and this is the one way
   * out, so no pass can write a bound past SPIR-V's limit: a module whose bound
   * leaves too little room is refused, not renumbered (which words of an
   * extended instruction set such as OpenCL.DebugInfo.100 are ids is not known
   * here, so renumbering could change a literal; spirv-opt --compact-ids can).
   */
  build(): SpirvModule {
    if (this.bound > MAX_ID_BOUND) {
      const needed = this.bound - this.inputBound;
      const room = Math.max(0, MAX_ID_BOUND - this.inputBound);
      throw new InstrumentError(
        `the module's id bound ${this.inputBound} leaves room for ${room} new id${room === 1 ? '' : 's'}, and tracing needs ${needed} ` +
          `(SPIR-V's id bound limit is ${MAX_ID_BOUND} (0x3FFFFF), the least Vulkan implementations accept; spirv-opt --compact-ids renumbers a module's ids compactly)`,
      );
    }
    return {
      header: { version: this.version, generator: this.generator, bound: this.bound, schema: this.schema },
      instructions: this.sections.flat(),
      littleEndian: this.littleEndian,
    };
  }

  allocId(): number {
    return this.bound++;
  }

  section(index: SectionIndex): readonly Instruction[] {
    return this.sections[index]!;
  }

  replaceSection(index: SectionIndex, instructions: readonly Instruction[]): void {
    this.sections[index] = [...instructions];
  }

  append(index: SectionIndex, ...instructions: Instruction[]): void {
    this.sections[index]!.push(...instructions);
  }

  // --- module-level declarations -------------------------------------------

  hasCapability(capability: number): boolean {
    return this.sections[Section.Capability]!.some((i) => i.words[1] === capability);
  }

  addCapability(capability: number): void {
    if (!this.hasCapability(capability)) this.append(Section.Capability, instruction(Op.Capability, [capability]));
  }

  extensions(): string[] {
    return this.sections[Section.Extension]!.map((i) => decodeString(i.words, 1).value);
  }

  addExtension(name: string): void {
    if (!this.extensions().includes(name)) this.append(Section.Extension, instruction(Op.Extension, encodeString(name)));
  }

  /** The id of `OpExtInstImport "name"`, imported now if the module lacks it. */
  extInstImport(name: string): number {
    for (const inst of this.sections[Section.ExtInstImport]!) if (decodeString(inst.words, 2).value === name) return inst.words[1]!;
    const id = this.allocId();
    this.append(Section.ExtInstImport, instruction(Op.ExtInstImport, [id, ...encodeString(name)]));
    return id;
  }

  /** [addressing model, memory model] */
  memoryModel(): [number, number] {
    const inst = this.sections[Section.MemoryModel]![0];
    if (inst === undefined) throw new SpirvFormatError('module has no OpMemoryModel');
    return [inst.words[1]!, inst.words[2]!];
  }

  entryPoints(): EntryPoint[] {
    return this.sections[Section.EntryPoint]!.map((inst, index) => {
      const { value: name, next } = decodeString(inst.words, 3);
      return {
        index,
        executionModel: inst.words[1]!,
        functionId: inst.words[2]!,
        name,
        interfaceIds: Array.from(inst.words.subarray(next)),
      };
    });
  }

  replaceEntryPoint(index: number, functionId: number, interfaceIds: readonly number[]): void {
    const old = this.sections[Section.EntryPoint]![index]!;
    const { next } = decodeString(old.words, 3);
    const nameWords = Array.from(old.words.subarray(3, next));
    this.sections[Section.EntryPoint]![index] = instruction(Op.EntryPoint, [old.words[1]!, functionId, ...nameWords, ...interfaceIds]);
  }

  // --- names and decorations ---------------------------------------------------

  addName(id: number, name: string): void {
    this.append(Section.DebugName, instruction(Op.Name, [id, ...encodeString(name)]));
  }

  addMemberName(id: number, member: number, name: string): void {
    this.append(Section.DebugName, instruction(Op.MemberName, [id, member, ...encodeString(name)]));
  }

  nameOf(id: number): string | null {
    for (const inst of this.sections[Section.DebugName]!) {
      if (inst.opcode === Op.Name && inst.words[1] === id) return decodeString(inst.words, 2).value;
    }
    return null;
  }

  moduleProcessed(): string[] {
    return this.sections[Section.DebugProcessed]!.map((i) => decodeString(i.words, 1).value);
  }

  decorate(id: number, decoration: number, ...literals: number[]): void {
    this.append(Section.Annotation, instruction(Op.Decorate, [id, decoration, ...literals]));
  }

  memberDecorate(id: number, member: number, decoration: number, ...literals: number[]): void {
    this.append(Section.Annotation, instruction(Op.MemberDecorate, [id, member, decoration, ...literals]));
  }

  /** Values of `OpDecorate id decoration value` for every decorated id (first literal only). */
  decorationValues(decoration: number): Map<number, number> {
    const out = new Map<number, number>();
    for (const inst of this.sections[Section.Annotation]!) {
      if ((inst.opcode === Op.Decorate || inst.opcode === Op.DecorateId) && inst.words[2] === decoration) out.set(inst.words[1]!, inst.words[3] ?? 0);
    }
    return out;
  }

  isDecorated(id: number): boolean {
    for (const inst of this.sections[Section.Annotation]!) {
      if (inst.opcode === Op.GroupDecorate || inst.opcode === Op.GroupMemberDecorate) {
        if (Array.from(inst.words.subarray(2)).includes(id)) return true;
      } else if (inst.opcode !== Op.DecorationGroup && inst.words[1] === id) return true;
    }
    return false;
  }

  // --- types, constants, variables -------------------------------------------

  /** The definition of a global result id (type, constant, variable), or undefined. */
  globalDef(id: number): Instruction | undefined {
    for (const inst of this.sections[Section.Global]!) if (resultIdOf(inst) === id) return inst;
    return undefined;
  }

  globalVariables(): GlobalVariable[] {
    const out: GlobalVariable[] = [];
    for (const inst of this.sections[Section.Global]!) {
      if (inst.opcode === Op.Variable) out.push({ id: inst.words[2]!, pointerTypeId: inst.words[1]!, storageClass: inst.words[3]! });
    }
    return out;
  }

  /**
   * A type with these operands: an existing undecorated one, else a new one
   * appended to the globals. Only for non-aggregate types (aggregates carry
   * decorations, so the instrumenter declares its own).
   */
  type(opcode: number, operands: readonly number[]): number {
    for (const inst of this.sections[Section.Global]!) {
      if (inst.opcode === opcode && sameOperands(inst.words, 2, operands) && !this.isDecorated(inst.words[1]!)) return inst.words[1]!;
    }
    const id = this.allocId();
    this.append(Section.Global, instruction(opcode, [id, ...operands]));
    return id;
  }

  /** An OpConstant (or OpConstantTrue/False) of `typeId`, reused when one exists. */
  constant(opcode: number, typeId: number, values: readonly number[] = []): number {
    for (const inst of this.sections[Section.Global]!) {
      if (inst.opcode === opcode && inst.words[1] === typeId && sameOperands(inst.words, 3, values)) return inst.words[2]!;
    }
    const id = this.allocId();
    this.append(Section.Global, instruction(opcode, [typeId, id, ...values]));
    return id;
  }

  /** Appends a global (a new aggregate type or a variable) and returns its id. */
  declare(opcode: number, build: (id: number) => number[]): number {
    const id = this.allocId();
    this.append(Section.Global, instruction(opcode, build(id)));
    return id;
  }

  // --- functions ---------------------------------------------------------------

  functionIds(): number[] {
    return this.sections[Section.Function]!.filter((i) => i.opcode === Op.Function).map((i) => i.words[2]!);
  }

  /** Instructions of function `id`, from OpFunction to OpFunctionEnd, or null. */
  functionRange(id: number): { start: number; end: number } | null {
    const code = this.sections[Section.Function]!;
    for (let i = 0; i < code.length; i++) {
      if (code[i]!.opcode === Op.Function && code[i]!.words[2] === id) {
        for (let j = i + 1; j < code.length; j++) if (code[j]!.opcode === Op.FunctionEnd) return { start: i, end: j + 1 };
        throw new SpirvFormatError(`function %${id} has no OpFunctionEnd`);
      }
    }
    return null;
  }
}

function sameOperands(words: Uint32Array, from: number, operands: readonly number[]): boolean {
  if (words.length - from !== operands.length) return false;
  for (let i = 0; i < operands.length; i++) if (words[from + i] !== operands[i]! >>> 0) return false;
  return true;
}

/** Result id of a global-section instruction, for the opcodes that define one. */
function resultIdOf(inst: Instruction): number | undefined {
  const op = inst.opcode;
  // Types put the result id first (OpTypeForwardPointer has none).
  if ((op >= Op.TypeVoid && op <= Op.TypePipe) || op === Op.TypePipeStorage || op === Op.TypeNamedBarrier || op === Op.TypeRayQueryKHR || op === Op.TypeAccelerationStructureKHR) {
    return inst.words[1];
  }
  if (op === Op.TypeForwardPointer) return undefined;
  if (op === Op.Line || op === Op.NoLine) return undefined;
  // Constants, spec constants, variables, OpUndef, OpExtInst: result type, then result id.
  return inst.words.length > 2 ? inst.words[2] : undefined;
}

