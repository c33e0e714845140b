/**
 * Appending one 32-byte record to the trace buffer: a slot from the COUNT atomic, bounded by the buffer's real
 * length like the GLSL library (not the host-written CAPACITY word), then two 16-byte stores. A warp's record
 * (record-wrapper.ts) and a mark (mark-code.ts) are written the same way.
 */
import { BufferWord } from '../../shared-schema/raw-layout.js';
import { RECORDS_MEMBER, RECORD_VECTOR_WORDS, VECTORS_PER_RECORD } from '../model/declarations.js';
import type { FunctionCode } from '../model/function-code.js';
import { BuiltIn, MemorySemantics, Op } from '../model/spec.js';

/**
 * `trace`: the trace buffer variable; `traceUint`: its uint pointer type. `words()` builds the record's
 * eight words inside the branch that has a slot (so nothing of it runs for a record past the buffer).
 */
export function appendRecord(g: FunctionCode, trace: number, traceUint: number, atomicScope: number, words: () => number[]): void {
  const { decl } = g;
  const countPtr = g.value(Op.AccessChain, traceUint, trace, decl.u32(BufferWord.COUNT));
  const slot = g.value(Op.AtomicIAdd, decl.uint, countPtr, decl.u32(atomicScope), decl.u32(MemorySemantics.Relaxed), decl.u32(1));
  const vectors = g.value(Op.ArrayLength, decl.uint, trace, RECORDS_MEMBER);
  const capacity = g.value(Op.UDiv, decl.uint, vectors, decl.u32(VECTORS_PER_RECORD));
  const fits = g.value(Op.ULessThan, decl.bool, slot, capacity);
  g.ifThen(fits, () => {
    const record = words();
    const first = g.value(Op.IMul, decl.uint, slot, decl.u32(VECTORS_PER_RECORD));
    const recordVector = decl.pointer(decl.traceStorageClass, decl.uvec4);
    for (let v = 0; v < VECTORS_PER_RECORD; v++) {
      const index = v === 0 ? first : g.value(Op.IAdd, decl.uint, first, decl.u32(v));
      const value = g.value(Op.CompositeConstruct, decl.uvec4, ...record.slice(v * RECORD_VECTOR_WORDS, (v + 1) * RECORD_VECTOR_WORDS));
      g.op(Op.Store, g.value(Op.AccessChain, recordVector, trace, decl.u32(RECORDS_MEMBER), index), value);
    }
  });
}

/** Whether this fragment lane is a helper (its stores are discarded): OpIsHelperInvocationEXT in modules that demote, else the built-in. */
export function isHelperLane(g: FunctionCode, viaInstruction: boolean): number {
  return viaInstruction ? g.value(Op.IsHelperInvocationEXT, g.decl.bool) : g.load(g.builtin(BuiltIn.HelperInvocation, 'bool'));
}
