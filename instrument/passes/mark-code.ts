/**
 * The mark function of the marks pass (passes/marks.ts): `void warptrace_mark(uint id)` writes one mark
 * record (shared-schema/mark-layout.ts) the way the wrapper writes a warp's record (record-wrapper.ts):
 *
 *   drawId = draw.drawId;
 *   if (sampled) {                             // the wrapper's decision (sample-code.ts); sampling 'none': drawId != UNTRACED_DRAW
 *     now = clock();                           // the record clock (subgroup, else device)
 *     n = marks;                               // private: this invocation's marks so far
 *     if (n < MAX_MARKS) {                     // lanes past their bound leave before the ballot
 *       marks = n + 1;
 *      if (!helper) {                          // fragment shaders only
 *       mask = ballot(true);                   // per warp; per invocation: mask = 1
 *       if (elect()) {
 *         slot = atomicAdd(buf.count, 1);      // Device (QueueFamily) scope, relaxed
 *         if (slot < buf.records.length() / 2)
 *           buf.records[2 slot], [2 slot + 1] = (now, start, id, mask.y), (ids | MARK_STAGE, drawId, n, mask.x);
 *       }
 *      }
 *     }
 *   }
 *
 * `start` is the private variable the wrapper stores its start clock into (a reorder restarts it), so a mark
 * names the record its warp writes. One function per way of combining lanes: the calls may sit in code that
 * several entry points of one kind reach.
 */
import { RECORD_WORDS } from '../../shared-schema/raw-layout.js';
import { MARK_STAGE, MAX_MARKS, MarkWord } from '../../shared-schema/mark-layout.js';
import type { CommonDeclarations } from '../model/declarations.js';
import { FunctionCode } from '../model/function-code.js';
import { Op } from '../model/spec.js';
import type { SubgroupMode } from './pass.js';
import { ballotAndElection } from './subgroup-code.js';
import { loadDrawId, packedIdsOf, primaryClock, recordFlags, tracedDraw } from './record-wrapper.js';
import { appendRecord, isHelperLane } from './record-slot.js';

export interface MarkFunctionPlan {
  readonly functionId: number;
  readonly subgroup: SubgroupMode;
  /** Fragment: helper lanes neither write nor count. */
  readonly fragment: boolean;
  /** Fragment: OpIsHelperInvocationEXT (modules that demote) instead of the HelperInvocation built-in. */
  readonly helperViaInstruction: boolean;
  /** An entry point's interface: its own built-in variables are reused. */
  readonly entryInterface: readonly number[];
  /** Private uint: the start clock of the warp's record. */
  readonly start: number;
  /** Private bool: the wrapper's decision that its warp records (sampling 'runtime'); null: the untraced-draw test. */
  readonly sampledFlag: number | null;
  /** Private uint: marks this invocation wrote. */
  readonly counter: number;
  readonly smBuiltins: boolean;
  readonly subgroupClock: boolean;
  readonly deviceClock: boolean;
  readonly atomicScope: number;
  readonly set: number;
  readonly binding: number;
}

/** The function's code and the globals it reaches (for the entry points' interfaces). */
export function emitMarkFunction(decl: CommonDeclarations, plan: MarkFunctionPlan): { code: FunctionCode['code']; globals: number[] } {
  const g = new FunctionCode(decl, plan.fragment, plan.entryInterface);
  const id = g.id();
  g.op(Op.Function, decl.void, plan.functionId, 0, decl.editor.type(Op.TypeFunction, [decl.void, decl.uint]));
  g.op(Op.FunctionParameter, decl.uint, id);
  g.label(g.id());
  const drawId = loadDrawId(g, plan);
  const flag = plan.sampledFlag;
  g.ifThen(flag === null ? tracedDraw(g, drawId) : g.value(Op.Load, decl.bool, g.global(flag)), () => {
    const now = primaryClock(g, plan);
    const sequence = g.value(Op.Load, decl.uint, g.global(plan.counter));
    g.ifThen(g.value(Op.ULessThan, decl.bool, sequence, decl.u32(MAX_MARKS)), () => {
      g.op(Op.Store, g.global(plan.counter), g.value(Op.IAdd, decl.uint, sequence, decl.u32(1)));
      const write = (maskLo: number, maskHi: number) => writeMark(g, plan, { now, id, drawId, sequence, maskLo, maskHi });
      const subgroup = plan.subgroup;
      const lanes = subgroup === 'none' ? () => write(decl.u32(1), decl.u32(0)) : () => perWarp(g, subgroup, write);
      if (!plan.fragment) {
        lanes();
        return;
      }
      // Helper invocations' stores are discarded: an elected helper would lose the mark.
      const helper = isHelperLane(g, plan.helperViaInstruction);
      g.ifThen(g.value(Op.LogicalNot, decl.bool, helper), lanes);
    });
  });
  g.op(Op.Return);
  g.op(Op.FunctionEnd);
  return { code: g.code, globals: [...g.globals] };
}

/** The ballot of the lanes here and `write(mask)` in the elected one. */
function perWarp(g: FunctionCode, mode: Exclude<SubgroupMode, 'none'>, write: (maskLo: number, maskHi: number) => void): void {
  const { decl } = g;
  const { ballot, elected } = ballotAndElection(g, mode);
  g.ifThen(elected, () => write(g.value(Op.CompositeExtract, decl.uint, ballot, 0), g.value(Op.CompositeExtract, decl.uint, ballot, 1)));
}

/** The slot, bounded by the buffer's real length as the records are, and the mark's two 16-byte stores. */
function writeMark(g: FunctionCode, plan: MarkFunctionPlan, v: { now: number; id: number; drawId: number; sequence: number; maskLo: number; maskHi: number }): void {
  const { decl } = g;
  const trace = g.global(decl.traceBuffer(plan.set, plan.binding));
  appendRecord(g, trace, decl.pointer(decl.traceStorageClass, decl.uint), plan.atomicScope, () => {
    const words = new Array<number>(RECORD_WORDS);
    words[MarkWord.CLOCK] = v.now;
    words[MarkWord.WARP_START] = g.value(Op.Load, decl.uint, g.global(plan.start));
    words[MarkWord.ID] = v.id;
    words[MarkWord.ACTIVE_MASK_HI] = v.maskHi;
    words[MarkWord.PACKED_IDS] = packedIdsOf(g, plan.smBuiltins, MARK_STAGE, recordFlags(plan));
    words[MarkWord.DRAW_ID] = v.drawId;
    words[MarkWord.SEQUENCE] = v.sequence;
    words[MarkWord.ACTIVE_MASK_LO] = v.maskLo;
    return words;
  });
}
