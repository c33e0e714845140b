/**
 * Code generation for one entry point's wrapper (Vulkan Vision style):
 *
 *   void wrapper() {
 *     drawId = draw.drawId;                  // the draw-id block (binding + 1), uniform over the draw
 *     traced = drawId != UNTRACED_DRAW;      // every stage: the host marks draws it does not trace
 *     sampled = traced && rate picks warp;   // sampling 'runtime' (sample-code.ts); 'none': sampled = traced
 *     start = sampled ? clock() : 0;         // subgroup clock, else device clock
 *     original_entry();                      // one call: its code is compiled as the app's
 *     if (sampled) {
 *      end = clock(); device = deviceClock();
 *      if (!helper) {                        // fragment shaders only
 *        mask = ballot(true);                // per warp; per invocation: mask = 1
 *        if (elect()) {
 *          slot = atomicAdd(buf.count, 1);   // Device (QueueFamily) scope, relaxed
 *          if (slot < buf.records.length() / 2) { buf.records[2 slot] = ...; buf.records[2 slot + 1] = ...; }
 *        }
 *      }
 *     }
 *     if (ended) end;                       // deferred discard / any-hit ending / task emit, see endings.ts
 *   }
 *
 * The record words are placed by shared-schema's RecordWord, so the layout
 * is the GLSL library's by construction.
 */
import { RAW_UNKNOWN_SLOT, RAW_UNKNOWN_SM, RECORD_WORDS, RecordFlag, RecordWord, packIds, PackedIds } from '../../shared-schema/raw-layout.js';
import type { Instruction } from '../model/binary.js';
import { CommonDeclarations } from '../model/declarations.js';
import { FunctionCode } from '../model/function-code.js';
import { endingCode, endingGlobals, type DeferredEndings } from './ending-deferral.js';
import type { CustomIdSource, InstrumentedStage, PositionStage, SamplingMode } from '../options.js';
import { ownBox, positionWords, subgroupBox, type PixelBox } from './position-code.js';
import { customId } from './custom-id-code.js';
import { sampleDecision } from './sample-code.js';
import { stageCode } from '../options.js';
import { Stage } from '../../shared-schema/stages.js';
import { BuiltIn, Op, Scope, StorageClass } from '../model/spec.js';

import type { SubgroupMode } from './pass.js';
import type { BlockHooks } from './blocks.js';
import { ballotAndElection } from './subgroup-code.js';
import { appendRecord, isHelperLane } from './record-slot.js';
import type { MarkHooks } from './marks.js';
import type { RayEventHooks } from './ray-events.js';
import { reorderFunctions, reportRecordFunction, type RecordPointHelpers, type ReorderRecord, type ReportRecord } from './record-points.js';

export type { ReorderRecord, ReportRecord } from './record-points.js';

export interface WrapperPlan {
  readonly stage: InstrumentedStage;
  readonly originalFunction: number;
  /** The entry point's interface ids (its own built-in variables are reused). */
  readonly entryInterface: readonly number[];
  readonly subgroup: SubgroupMode;
  readonly smBuiltins: boolean;
  readonly subgroupClock: boolean;
  readonly deviceClock: boolean;
  readonly customId: CustomIdSource;
  /** Memory scope of the slot atomic: Device, or QueueFamily under the Vulkan memory model. */
  readonly atomicScope: number;
  /** Fragment: use OpIsHelperInvocationEXT (modules that demote) instead of the HelperInvocation built-in. */
  readonly helperViaInstruction: boolean;
  readonly set: number;
  readonly binding: number;
  /** Deferred endings (discard, any-hit ignore/terminate, task emit): performed after the record. */
  readonly ending: DeferredEndings | null;
  /** 'runtime': the warp decides whether it records before its first clock (sample-code.ts); 'none': every warp records. */
  readonly sampling: SamplingMode;
  /** Private bool the wrapper stores the decision into, for record points and marks inside the entry point; else null. */
  readonly sampledFlag: number | null;
  /** Record the warp's screen position (word 3 and RecordFlag.POSITION) from this stage's pixel; null: none. */
  readonly position: PositionStage | null;
  /** TaskNV / MeshNV: no NumWorkgroups built-in (one-dimensional launches): workgroup-id is gl_WorkGroupID.x. */
  readonly nvMesh: boolean;
  /** Intersection shaders that report: record at the first report (passes/intersection-reports.ts); else null. */
  readonly reportRecord: ReportRecord | null;
  /** Ray generation that reorders: a record ends at each reorder point (passes/reorders.ts); else null. */
  readonly reorder: ReorderRecord | null;
  /** Block profiles: begin before the entry point, leave after it (passes/blocks.ts); else null. */
  readonly blocks: BlockHooks | null;
  /** Marks (passes/marks.ts): the start clock goes into their variable too; else null. */
  readonly marks: MarkHooks | null;
  /** Ray events (passes/ray-events.ts): only the globals their code reaches, for the interface; else null. */
  readonly rayEvents: RayEventHooks | null;
}

export interface Wrapper {
  readonly functionId: number;
  readonly code: Instruction[];
  /** Global variables the wrapper uses (for OpEntryPoint's interface). */
  readonly globals: number[];
  /** The record flags this wrapper writes. */
  readonly flags: number;
}

export function recordFlags(plan: Pick<WrapperPlan, 'subgroup' | 'subgroupClock' | 'deviceClock'>): number {
  return (plan.subgroupClock ? RecordFlag.SM_CLOCK : 0) | (plan.deviceClock ? RecordFlag.DEVICE_CLOCK : 0) | (plan.subgroup === 'none' ? RecordFlag.PER_INVOCATION : 0);
}

export function emitWrapper(decl: CommonDeclarations, plan: WrapperPlan): Wrapper {
  const g = new FunctionCode(decl, plan.stage === 'FS', plan.entryInterface);
  const fragment = plan.stage === 'FS';
  const flags = recordFlags(plan);
  const functionId = g.id();
  g.op(Op.Function, decl.void, functionId, 0, decl.voidFunction);
  g.label(g.id());

  // The draw id is read once, before anything else: it is the record's DRAW_ID word and the untraced-draw test.
  const drawId = loadDrawId(g, plan);

  // A draw the host does not trace (outside `--draws A..B`; every launch of a ray-tracing pipeline the
  // capture layer instrumented in place, outside the captured frame) has UNTRACED_DRAW in its slot of
  // the draw-id table. The whole draw reads that one uniform, so the branch is uniform: its warps run
  // the entry point with no clock read, helper test, sampling hash, ballot, election, atomic or store
  // (clock reads around the call cost a small ray-tracing frame 8% on the H200). Ordinary draws pay
  // one compare and branch on the id they store anyway.
  // The entry point is called once, outside both branches: a second call site changed how the driver compiled
  // it (two pixels of a ray-traced frame 1 LSB off on the H200), and an instrumented pipeline that draws every
  // frame (ray tracing, instrumented in place) must render what the app's own does.
  // A warp the draw's sampling rate leaves out (sample-code.ts) takes the same path as an untraced draw's.
  const traced = tracedDraw(g, drawId);
  const sampled = plan.sampling === 'runtime' ? sampleDecision(g, plan, drawId, traced) : traced;
  if (plan.sampledFlag !== null) g.op(Op.Store, g.global(plan.sampledFlag), sampled);
  const start = g.ifThenValue(decl.uint, sampled, () => primaryClock(g, plan), decl.u32(0));
  const report = plan.reportRecord;
  const reorder = plan.reorder;
  // Intersection shaders whose reports may end them record at the first report instead (reportRecordFunction);
  // ray generation that reorders records at each reorder point and restarts the clock after it (reorderFunctions).
  // Marks name their warp by this start clock (the marks pass reuses a report's or reorder's variable).
  const startVariable = report?.start ?? reorder?.start ?? plan.marks?.start;
  if (startVariable !== undefined) g.op(Op.Store, g.global(startVariable), start);
  for (const id of plan.marks?.globals ?? []) g.global(id);
  for (const id of plan.rayEvents?.globals ?? []) g.global(id);
  const blocks = plan.blocks;
  if (blocks !== null) {
    for (const id of blocks.globals) g.global(id);
    g.value(Op.FunctionCall, decl.void, blocks.begin);
  }
  g.value(Op.FunctionCall, decl.void, plan.originalFunction);
  // Before the record: its code is the wrapper's, not the last block's.
  if (blocks !== null) g.value(Op.FunctionCall, decl.void, blocks.leave);
  const recordHere = report === null ? sampled : g.value(Op.LogicalAnd, decl.bool, sampled, g.value(Op.LogicalNot, decl.bool, loadBool(g, report.recorded)));
  const startHere = reorder === null ? () => start : () => g.value(Op.Load, decl.uint, g.global(reorder.start));
  g.ifThen(recordHere, () => recordEndingNow(g, plan, flags, startHere, drawId));
  if (plan.ending !== null) {
    // Lanes that ended early took part in the record above; end them now.
    for (const id of endingGlobals(plan.ending)) g.global(id);
    g.code.push(...endingCode(decl, plan.ending, () => g.id()));
  }
  g.op(Op.Return);
  g.op(Op.FunctionEnd);
  const flag = plan.sampledFlag;
  const helpers: RecordPointHelpers = {
    recording: flag === null ? tracedDraw : (f) => loadBool(f, flag),
    loadDrawId: (f) => loadDrawId(f, plan),
    clockNow: (f) => primaryClock(f, plan),
    recordNow: (f, startNow, drawIdNow) => recordEndingNow(f, plan, flags, startNow, drawIdNow),
  };
  const extra = [report === null ? null : reportRecordFunction(decl, plan, report, helpers), reorder === null ? null : reorderFunctions(decl, plan, reorder, helpers)];
  const parts = extra.filter((e) => e !== null);
  return { functionId, code: [...g.code, ...parts.flatMap((p) => p.code)], globals: [...new Set([...g.globals, ...parts.flatMap((p) => p.globals)])], flags };
}

/** Word 0 of the draw-id block: the draw id the host gave this draw (binding + 1). */
export function loadDrawId(g: FunctionCode, plan: Pick<WrapperPlan, 'set' | 'binding'>): number {
  const { decl } = g;
  const drawPtr = g.value(Op.AccessChain, decl.pointer(StorageClass.Uniform, decl.uint), g.global(decl.drawIdBlock(plan.set, plan.binding + 1)), decl.u32(0));
  return g.value(Op.Load, decl.uint, drawPtr);
}

/** Whether the draw is traced: its draw id is not UNTRACED_DRAW. */
export function tracedDraw(g: FunctionCode, drawId: number): number {
  return g.value(Op.INotEqual, g.decl.bool, drawId, g.decl.u32(UNTRACED_DRAW));
}

/** The clock of CLOCK_START and CLOCK_END: the subgroup (SM) clock, else the device clock. */
export function primaryClock(g: FunctionCode, plan: Pick<WrapperPlan, 'subgroupClock'>): number {
  return g.clockLow(plan.subgroupClock ? Scope.Subgroup : Scope.Device);
}

function loadBool(g: FunctionCode, variable: number): number {
  return g.value(Op.Load, g.decl.bool, g.global(variable));
}

/** The end clocks (first: nothing of the record before them), then the record of the lanes active here. */
function recordEndingNow(g: FunctionCode, plan: WrapperPlan, flags: number, start: () => number, drawId: number): void {
  const end = primaryClock(g, plan);
  // Without the SM clock, CLOCK_START/END are device ticks already and DEVICE_CLOCK stays 0 (as in the GLSL library).
  const device = plan.subgroupClock && plan.deviceClock ? g.clockLow(Scope.Device) : g.decl.u32(0);
  emitRecord(g, plan, flags, { start: start(), end, device, drawId });
}

/** The record of the lanes active here, from these clocks and draw id (after the entry point, or at a report). */
function emitRecord(g: FunctionCode, plan: WrapperPlan, flags: number, v: { start: number; end: number; device: number; drawId: number }): void {
  const { decl } = g;
  const fragment = plan.stage === 'FS';
  const { start, end, device, drawId } = v;
  const trace = g.global(decl.traceBuffer(plan.set, plan.binding));
  const traceUint = decl.pointer(decl.traceStorageClass, decl.uint);
  const writeRecord = (maskLo: () => number, maskHi: () => number, box: (() => PixelBox) | null) => {
    appendRecord(g, trace, traceUint, plan.atomicScope, () => {
      const words = new Array<number>(RECORD_WORDS);
      words[RecordWord.CLOCK_START] = start;
      words[RecordWord.CLOCK_END] = end;
      words[RecordWord.DEVICE_CLOCK] = device;
      words[RecordWord.ACTIVE_MASK_HI] = maskHi();
      words[RecordWord.PACKED_IDS] = reorderedStage(g, plan, packedIds(g, plan, flags));
      if (box !== null) {
        const { word3, ids } = positionWords(g, box(), words[RecordWord.ACTIVE_MASK_HI], words[RecordWord.PACKED_IDS]);
        words[RecordWord.POSITION] = word3;
        words[RecordWord.PACKED_IDS] = ids;
      }
      words[RecordWord.DRAW_ID] = drawId;
      words[RecordWord.CUSTOM_ID] = customId(g, plan.customId, plan.nvMesh);
      words[RecordWord.ACTIVE_MASK_LO] = maskLo();
      return words;
    });
  };

  const perWarp = (subgroup: Exclude<SubgroupMode, 'none'>) => {
    const { ballot, elected } = ballotAndElection(g, subgroup);
    // The position's min and max take every active lane: before the election.
    const box = plan.position === null ? null : subgroupBox(g, plan.position);
    g.ifThen(elected, () =>
      writeRecord(
        () => g.value(Op.CompositeExtract, decl.uint, ballot, 0),
        () => g.value(Op.CompositeExtract, decl.uint, ballot, 1),
        box === null ? null : () => box,
      ),
    );
  };
  const position = plan.position;
  const subgroup = plan.subgroup;
  const record = subgroup === 'none' ? () => writeRecord(() => decl.u32(1), () => decl.u32(0), position === null ? null : () => ownBox(g, position)) : () => perWarp(subgroup);
  if (!fragment) {
    record();
    return;
  }
  // Helper invocations' stores are discarded: an elected helper would lose the warp's record.
  const helper = isHelperLane(g, plan.helperViaInstruction);
  g.ifThen(g.value(Op.LogicalNot, decl.bool, helper), record);
}

/**
 * The draw id the host writes into a draw's slot of the draw-id table for a draw it does
 * not trace (the layer: draws outside `--draws A..B`); that draw's wrappers write no record.
 * Never a real draw id: the decoders accept at most MAX_DRAWS (10,000,000, shared-schema/errors.ts)
 * draws, and the host library's tables hold far fewer (WT_DEFAULT_MAX_DRAWS 4096); it is also the
 * host library's WT_NO_DRAW (capture/host/warptrace.h).
 */
export const UNTRACED_DRAW = 0xffffffff;

/** RAYGEN (8, 0b1000) becomes RAYGEN_REORDERED (14, 0b1110) by OR: the invocation passed a reorder point. */
const REORDERED_STAGE_BITS = (Stage.RAYGEN_REORDERED & ~Stage.RAYGEN) << PackedIds.STAGE_SHIFT;

/** The packed ids with the stage RAYGEN_REORDERED once the invocation passed a reorder point (plan.reorder). */
function reorderedStage(g: FunctionCode, plan: WrapperPlan, ids: number): number {
  if (plan.reorder === null) return ids;
  const { decl } = g;
  const bits = g.value(Op.Select, decl.uint, loadBool(g, plan.reorder.reordered), decl.u32(REORDERED_STAGE_BITS), decl.u32(0));
  return g.value(Op.BitwiseOr, decl.uint, ids, bits);
}

function packedIds(g: FunctionCode, plan: WrapperPlan, flags: number): number {
  return packedIdsOf(g, plan.smBuiltins, stageCode(plan.stage), flags);
}

/** PACKED_IDS of `stage` (a mark's: MARK_STAGE) with this SM and warp slot, or the unknown ones without SM built-ins. */
export function packedIdsOf(g: FunctionCode, smBuiltins: boolean, stage: number, flags: number): number {
  const { decl } = g;
  if (!smBuiltins) return decl.u32(packIds(RAW_UNKNOWN_SM, RAW_UNKNOWN_SLOT, stage, flags));
  const sm = g.value(Op.BitwiseAnd, decl.uint, g.loadUint(g.builtin(BuiltIn.SMIDNV, 'uint')), decl.u32(PackedIds.SM_MASK));
  const warp = g.value(Op.BitwiseAnd, decl.uint, g.loadUint(g.builtin(BuiltIn.WarpIDNV, 'uint')), decl.u32(PackedIds.SLOT_MASK));
  const ids = g.value(Op.BitwiseOr, decl.uint, g.value(Op.ShiftLeftLogical, decl.uint, warp, decl.u32(PackedIds.SLOT_SHIFT)), sm);
  return g.value(Op.BitwiseOr, decl.uint, ids, decl.u32(packIds(0, 0, stage, flags)));
}
