/**
 * Records that end before the entry point returns: an intersection shader's lanes at
 * their first report (passes/intersection-reports.ts), a ray-generation shader's lanes
 * at each reorder point (passes/reorders.ts). The wrapper (record-wrapper.ts) writes
 * the record itself through RecordPointHelpers.
 */
import type { Instruction } from '../model/binary.js';
import type { CommonDeclarations } from '../model/declarations.js';
import { FunctionCode } from '../model/function-code.js';
import { Op } from '../model/spec.js';
import type { WrapperPlan } from './record-wrapper.js';

/** What the wrapper lends these functions: its draw-id load, its warp's decision to record, and its record. */
export interface RecordPointHelpers {
  /** Whether this invocation's warp records: the wrapper's sampling decision (sample-code.ts), else the untraced-draw test. */
  recording(g: FunctionCode, drawId: number): number;
  loadDrawId(g: FunctionCode): number;
  /** The start and end clock (subgroup, else device) read now. */
  clockNow(g: FunctionCode): number;
  /** The end clocks now, then the record of the lanes active here, from `start`. */
  recordNow(g: FunctionCode, start: () => number, drawId: number): void;
}

/** The ids of an intersection shader's record at its reports. */
export interface ReportRecord {
  /** void record_at_report(): called before every OpReportIntersectionKHR. */
  readonly functionId: number;
  /** Private bool: this invocation's lanes are recorded already. */
  readonly recorded: number;
  /** Private uint: the wrapper's start clock. */
  readonly start: number;
}

/** The ids of a ray-generation shader's records around its reorder points. */
export interface ReorderRecord {
  /** void record_at_reorder(): called before every reorder point. */
  readonly before: number;
  /** void restart_after_reorder(): called after every reorder point. */
  readonly after: number;
  /** Private bool: this invocation passed a reorder point (its records are RAYGEN_REORDERED). */
  readonly reordered: number;
  /** Private uint: the start clock of the invocation's current record. */
  readonly start: number;
}

/**
 * `void record_at_report() { if (!recorded) { recorded = true; if (sampled) record(start, now) } }`, called
 * before every OpReportIntersectionKHR (passes/intersection-reports.ts): a report that accepts the hit of a
 * terminate-on-first-hit ray, or whose any-hit shader terminates the ray, ends the invocation inside the call.
 * Its lanes are recorded there, once, the record ending at their first report; lanes that never report are
 * recorded by the wrapper after the entry point, as before.
 */
export function reportRecordFunction(decl: CommonDeclarations, plan: Pick<WrapperPlan, 'entryInterface'>, report: ReportRecord, h: RecordPointHelpers): { code: Instruction[]; globals: number[] } {
  const g = new FunctionCode(decl, false, plan.entryInterface);
  g.op(Op.Function, decl.void, report.functionId, 0, decl.voidFunction);
  g.label(g.id());
  g.ifThen(g.value(Op.LogicalNot, decl.bool, g.value(Op.Load, decl.bool, g.global(report.recorded))), () => {
    g.op(Op.Store, report.recorded, decl.true);
    const drawId = h.loadDrawId(g);
    g.ifThen(h.recording(g, drawId), () => h.recordNow(g, () => g.value(Op.Load, decl.uint, g.global(report.start)), drawId));
  });
  g.op(Op.Return);
  g.op(Op.FunctionEnd);
  return { code: g.code, globals: [...g.globals] };
}

/**
 * `void record_at_reorder() { if (sampled) record(start, now) }` and
 * `void restart_after_reorder() { reordered = true; start = sampled ? clock() : 0 }`, called around every
 * reorder point (passes/reorders.ts). A record of a reordered invocation is RAYGEN_REORDERED (emitRecord).
 * `sampled` is the lane's own warp's decision in the wrapper: after a reorder its new warp's sampled lanes
 * record together (the mask then holds only them).
 */
export function reorderFunctions(decl: CommonDeclarations, plan: Pick<WrapperPlan, 'entryInterface'>, reorder: ReorderRecord, h: RecordPointHelpers): { code: Instruction[]; globals: number[] } {
  const g = new FunctionCode(decl, false, plan.entryInterface);
  g.op(Op.Function, decl.void, reorder.before, 0, decl.voidFunction);
  g.label(g.id());
  const drawBefore = h.loadDrawId(g);
  g.ifThen(h.recording(g, drawBefore), () => h.recordNow(g, () => g.value(Op.Load, decl.uint, g.global(reorder.start)), drawBefore));
  g.op(Op.Return);
  g.op(Op.FunctionEnd);
  g.op(Op.Function, decl.void, reorder.after, 0, decl.voidFunction);
  g.label(g.id());
  g.op(Op.Store, g.global(reorder.reordered), decl.true);
  const restart = g.ifThenValue(decl.uint, h.recording(g, h.loadDrawId(g)), () => h.clockNow(g), decl.u32(0));
  g.op(Op.Store, g.global(reorder.start), restart);
  g.op(Op.Return);
  g.op(Op.FunctionEnd);
  return { code: g.code, globals: [...g.globals] };
}

