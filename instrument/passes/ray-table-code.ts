/**
 * Code helpers of the ray-event functions (ray-event-code.ts): the ray-event table's header words and word array,
 * the draw-id block's words, bounds, atomics and u32 arithmetic, emitted into one FunctionCode.
 */
import { RAY_EVENT_HEADER_WORDS } from '../../shared-schema/ray-event-layout.js';
import type { FunctionCode } from '../model/function-code.js';
import { MemorySemantics, Op, StorageClass } from '../model/spec.js';

/** `warptrace_ray_scratch`: the pixel has no scratch entry (past SCRATCH_PIXELS or the buffer); below it, entries. */
export const SCRATCH_UNCOUNTED = 0xfffffffe;

export class RayTableCode {
  constructor(
    protected readonly g: FunctionCode,
    /** The ray-event table's and the draw-id block's variables. */
    protected readonly table: number,
    protected readonly draw: number,
    /** Memory scope of the atomics: Device, or QueueFamily under the Vulkan memory model. */
    protected readonly scope: number,
  ) {}

  /** OpFunction, its parameters (their ids returned) and the first label. */
  protected begin(id: number, returnType: number, parameters: readonly number[]): number[] {
    const { g } = this;
    g.op(Op.Function, returnType, id, 0, g.decl.editor.type(Op.TypeFunction, [returnType, ...parameters]));
    const ids = parameters.map((type) => g.value(Op.FunctionParameter, type));
    g.label(g.id());
    return ids;
  }

  protected end(value?: number): void {
    if (value === undefined) this.g.op(Op.Return);
    else this.g.op(Op.ReturnValue, value);
    this.g.op(Op.FunctionEnd);
  }

  protected restore(entry: number, saved: number): void {
    const { g } = this;
    const { decl } = g;
    g.op(Op.Store, this.word(entry), g.value(Op.CompositeExtract, decl.uint, saved, 0));
    g.op(Op.Store, this.word(this.add(entry, decl.u32(1))), g.value(Op.CompositeExtract, decl.uint, saved, 1));
  }

  protected hasScratch(entry: number): number {
    return this.g.value(Op.ULessThan, this.g.decl.bool, entry, this.g.decl.u32(SCRATCH_UNCOUNTED));
  }

  /** `count` words from `index` lie in the word array (its real length, whatever the header says). */
  protected inBuffer(index: number, count: number, length: number): number {
    const { g } = this;
    const { decl } = g;
    const inside = g.value(Op.ULessThan, decl.bool, index, length);
    return g.value(Op.LogicalAnd, decl.bool, inside, g.value(Op.ULessThanEqual, decl.bool, decl.u32(count), g.value(Op.ISub, decl.uint, length, index)));
  }

  protected all(...conditions: number[]): number {
    return conditions.reduce((a, b) => this.g.value(Op.LogicalAnd, this.g.decl.bool, a, b));
  }

  protected atomic(opcode: number, pointer: number, value: number): void {
    const { decl } = this.g;
    this.g.value(opcode, decl.uint, pointer, decl.u32(this.scope), decl.u32(MemorySemantics.Relaxed), value);
  }

  protected drawWord(member: number): number {
    const { g } = this;
    const { decl } = g;
    return g.value(Op.Load, decl.uint, g.value(Op.AccessChain, decl.pointer(StorageClass.Uniform, decl.uint), g.global(this.draw), decl.u32(member)));
  }

  protected header(word: number): number {
    const { decl } = this.g;
    return this.g.value(Op.AccessChain, decl.pointer(decl.traceStorageClass, decl.uint), this.g.global(this.table), decl.u32(word));
  }

  protected word(index: number): number {
    const { decl } = this.g;
    return this.g.value(Op.AccessChain, decl.pointer(decl.traceStorageClass, decl.uint), this.g.global(this.table), decl.u32(RAY_EVENT_HEADER_WORDS), index);
  }

  protected length(): number {
    return this.g.value(Op.ArrayLength, this.g.decl.uint, this.g.global(this.table), RAY_EVENT_HEADER_WORDS);
  }

  protected components(vector: number): [number, number, number] {
    const { g } = this;
    const c = (i: number) => g.value(Op.CompositeExtract, g.decl.uint, vector, i);
    return [c(0), c(1), c(2)];
  }

  protected load(pointer: number): number {
    return this.g.value(Op.Load, this.g.decl.uint, pointer);
  }

  protected privateValue(variable: number): number {
    return this.load(this.g.global(variable));
  }

  protected add(a: number, b: number): number {
    return this.g.value(Op.IAdd, this.g.decl.uint, a, b);
  }

  protected mul(a: number, b: number): number {
    return this.g.value(Op.IMul, this.g.decl.uint, a, b);
  }

  protected shift(a: number, b: number): number {
    return this.g.value(Op.ShiftRightLogical, this.g.decl.uint, a, b);
  }
}
