/**
 * One function's code under construction: instructions appended in order,
 * result ids from the module's bound, the globals it touches (for the entry
 * point's interface) and the built-ins it reads.
 */
import { instruction, type Instruction } from './binary.js';
import type { BuiltinShape, BuiltinVariable, CommonDeclarations } from './declarations.js';
import { Op } from './spec.js';

/** Accumulates one function's instructions, allocating result ids from the module. */
export class FunctionCode {
  readonly code: Instruction[] = [];
  readonly globals = new Set<number>();
  constructor(
    readonly decl: CommonDeclarations,
    private readonly fragment: boolean,
    private readonly entryInterface: readonly number[],
  ) {}

  id(): number {
    return this.decl.editor.allocId();
  }
  op(opcode: number, ...operands: number[]): void {
    this.code.push(instruction(opcode, operands));
  }
  value(opcode: number, type: number, ...operands: number[]): number {
    const id = this.id();
    this.op(opcode, type, id, ...operands);
    return id;
  }
  /** The block being emitted (its OpLabel id): an OpPhi names its predecessors by it. */
  private currentLabel = 0;
  label(id: number): void {
    this.currentLabel = id;
    this.op(Op.Label, id);
  }
  global(variable: number): number {
    this.globals.add(variable);
    return variable;
  }
  builtin(builtIn: number, shape: BuiltinShape): BuiltinVariable {
    return this.decl.builtin(builtIn, shape, this.fragment, this.entryInterface);
  }
  load(builtin: BuiltinVariable): number {
    return this.value(Op.Load, builtin.typeId, this.global(builtin.id));
  }
  loadUint(builtin: BuiltinVariable): number {
    const value = this.load(builtin);
    return builtin.shape === 'int' ? this.value(Op.Bitcast, this.decl.uint, value) : value;
  }
  clockLow(scope: number): number {
    const clock = this.value(Op.ReadClockKHR, this.decl.uvec2, this.decl.u32(scope));
    return this.value(Op.CompositeExtract, this.decl.uint, clock, 0);
  }
  /** A structured `if (condition) { then() }`. */
  ifThen(condition: number, then: () => void): void {
    const body = this.id();
    const merge = this.id();
    this.op(Op.SelectionMerge, merge, 0);
    this.op(Op.BranchConditional, condition, body, merge);
    this.label(body);
    then();
    this.op(Op.Branch, merge);
    this.label(merge);
  }
  /**
   * `condition ? then() : otherwise` as a value: `then` emits its code in a structured `if`, and the merge block
   * takes its result or `otherwise` (a constant) with OpPhi.
   */
  ifThenValue(type: number, condition: number, then: () => number, otherwise: number): number {
    const header = this.currentLabel;
    const body = this.id();
    const merge = this.id();
    this.op(Op.SelectionMerge, merge, 0);
    this.op(Op.BranchConditional, condition, body, merge);
    this.label(body);
    const value = then();
    const bodyEnd = this.currentLabel;
    this.op(Op.Branch, merge);
    this.label(merge);
    return this.value(Op.Phi, type, value, bodyEnd, otherwise, header);
  }

}
