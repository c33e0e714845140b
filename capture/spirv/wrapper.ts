/**
 * Code generation for one entry point's wrapper (Vulkan Vision style):
 *
 *   void wrapper() {
 *     start = clock();                      // subgroup clock, else device clock
 *     original_entry();
 *     end = clock(); device = deviceClock();
 *     if (!helper) {                         // fragment shaders only
 *       mask = ballot(true);                 // per warp; per invocation: mask = 1
 *       if (elect()) {
 *         slot = atomicAdd(buf.count, 1);    // Device (QueueFamily) scope, relaxed
 *         if (slot < buf.capacity) { buf.records[2 slot] = ...; buf.records[2 slot + 1] = ...; }
 *       }
 *     }
 *   }
 *
 * The record words are placed by shared-schema's RecordWord, so the layout
 * is the GLSL library's by construction.
 */
import { BufferWord, RAW_UNKNOWN_SLOT, RAW_UNKNOWN_SM, RECORD_WORDS, RecordFlag, RecordWord, packIds, PackedIds } from '../../shared-schema/raw-layout.js';
import { instruction, type Instruction } from './binary.js';
import { CommonDeclarations, RECORDS_MEMBER, RECORD_VECTOR_WORDS, VECTORS_PER_RECORD, type BuiltinVariable } from './declarations.js';
import type { CustomIdSource, InstrumentedStage } from './options.js';
import { stageCode } from './options.js';
import { BuiltIn, MemorySemantics, Op, Scope, StorageClass } from './spec.js';

/** How the warp's lanes are combined into one record. */
export type SubgroupMode = 'core' | 'khr-ballot' | 'none';

export interface WrapperPlan {
  readonly stage: InstrumentedStage;
  readonly originalFunction: number;
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
  const g = new FunctionCode(decl);
  const fragment = plan.stage === 'FS';
  const flags = recordFlags(plan);
  const functionId = g.id();
  g.op(Op.Function, decl.void, functionId, 0, decl.voidFunction);
  g.label(g.id());

  const primaryScope = plan.subgroupClock ? Scope.Subgroup : Scope.Device;
  const start = g.clockLow(primaryScope);
  g.value(Op.FunctionCall, decl.void, plan.originalFunction);
  const end = g.clockLow(primaryScope);
  const device = plan.subgroupClock && plan.deviceClock ? g.clockLow(Scope.Device) : plan.deviceClock ? end : decl.u32(0);

  const trace = g.global(decl.traceBuffer(plan.set, plan.binding));
  const traceUint = decl.pointer(decl.traceStorageClass, decl.uint);

  const writeRecord = (maskLo: () => number, maskHi: () => number) => {
    const countPtr = g.value(Op.AccessChain, traceUint, trace, decl.u32(BufferWord.COUNT));
    const slot = g.value(Op.AtomicIAdd, decl.uint, countPtr, decl.u32(plan.atomicScope), decl.u32(MemorySemantics.Relaxed), decl.u32(1));
    const capacityPtr = g.value(Op.AccessChain, traceUint, trace, decl.u32(BufferWord.CAPACITY));
    const capacity = g.value(Op.Load, decl.uint, capacityPtr);
    const fits = g.value(Op.ULessThan, decl.bool, slot, capacity);
    g.ifThen(fits, () => {
      const words = new Array<number>(RECORD_WORDS);
      words[RecordWord.CLOCK_START] = start;
      words[RecordWord.CLOCK_END] = end;
      words[RecordWord.DEVICE_CLOCK] = device;
      words[RecordWord.ACTIVE_MASK_HI] = maskHi();
      words[RecordWord.PACKED_IDS] = packedIds(g, plan, flags, fragment);
      const drawPtr = g.value(Op.AccessChain, decl.pointer(StorageClass.Uniform, decl.uint), g.global(decl.drawIdBlock(plan.set, plan.binding + 1)), decl.u32(0));
      words[RecordWord.DRAW_ID] = g.value(Op.Load, decl.uint, drawPtr);
      words[RecordWord.CUSTOM_ID] = customId(g, plan.customId, fragment);
      words[RecordWord.ACTIVE_MASK_LO] = maskLo();
      const first = g.value(Op.IMul, decl.uint, slot, decl.u32(VECTORS_PER_RECORD));
      const recordVector = decl.pointer(decl.traceStorageClass, decl.uvec4);
      for (let v = 0; v < VECTORS_PER_RECORD; v++) {
        const index = v === 0 ? first : g.value(Op.IAdd, decl.uint, first, decl.u32(v));
        const value = g.value(Op.CompositeConstruct, decl.uvec4, ...words.slice(v * RECORD_VECTOR_WORDS, (v + 1) * RECORD_VECTOR_WORDS));
        const pointer = g.value(Op.AccessChain, recordVector, trace, decl.u32(RECORDS_MEMBER), index);
        g.op(Op.Store, pointer, value);
      }
    });
  };

  const perWarp = () => {
    let ballot: number;
    let elected: number;
    if (plan.subgroup === 'core') {
      ballot = g.value(Op.GroupNonUniformBallot, decl.uvec4, decl.u32(Scope.Subgroup), decl.true);
      elected = g.value(Op.GroupNonUniformElect, decl.bool, decl.u32(Scope.Subgroup));
    } else {
      ballot = g.value(Op.SubgroupBallotKHR, decl.uvec4, decl.true);
      const lane = g.loadUint(decl.builtin(BuiltIn.SubgroupLocalInvocationId, 'uint', fragment));
      const firstLane = g.value(Op.SubgroupFirstInvocationKHR, decl.uint, lane);
      elected = g.value(Op.IEqual, decl.bool, lane, firstLane);
    }
    g.ifThen(elected, () =>
      writeRecord(
        () => g.value(Op.CompositeExtract, decl.uint, ballot, 0),
        () => g.value(Op.CompositeExtract, decl.uint, ballot, 1),
      ),
    );
  };
  const body = plan.subgroup === 'none' ? () => writeRecord(() => decl.u32(1), () => decl.u32(0)) : perWarp;

  if (fragment) {
    // Helper invocations' stores are discarded: an elected helper would lose the warp's record.
    const helper = plan.helperViaInstruction ? g.value(Op.IsHelperInvocationEXT, decl.bool) : g.load(decl.builtin(BuiltIn.HelperInvocation, 'bool', true));
    g.ifThen(g.value(Op.LogicalNot, decl.bool, helper), body);
  } else {
    body();
  }
  g.op(Op.Return);
  g.op(Op.FunctionEnd);
  return { functionId, code: g.code, globals: [...g.globals], flags };
}

function packedIds(g: FunctionCode, plan: WrapperPlan, flags: number, fragment: boolean): number {
  const { decl } = g;
  const stage = stageCode(plan.stage);
  if (!plan.smBuiltins) return decl.u32(packIds(RAW_UNKNOWN_SM, RAW_UNKNOWN_SLOT, stage, flags));
  const sm = g.value(Op.BitwiseAnd, decl.uint, g.loadUint(decl.builtin(BuiltIn.SMIDNV, 'uint', fragment)), decl.u32(PackedIds.SM_MASK));
  const warp = g.value(Op.BitwiseAnd, decl.uint, g.loadUint(decl.builtin(BuiltIn.WarpIDNV, 'uint', fragment)), decl.u32(PackedIds.SLOT_MASK));
  const ids = g.value(Op.BitwiseOr, decl.uint, g.value(Op.ShiftLeftLogical, decl.uint, warp, decl.u32(PackedIds.SLOT_SHIFT)), sm);
  return g.value(Op.BitwiseOr, decl.uint, ids, decl.u32(packIds(0, 0, stage, flags)));
}

function customId(g: FunctionCode, source: CustomIdSource, fragment: boolean): number {
  const { decl } = g;
  switch (source) {
    case 'none':
      return decl.u32(0);
    case 'vertex-index':
      return g.loadUint(decl.builtin(BuiltIn.VertexIndex, 'int', fragment));
    case 'instance-index':
      return g.loadUint(decl.builtin(BuiltIn.InstanceIndex, 'int', fragment));
    case 'primitive-id':
      return g.loadUint(decl.builtin(BuiltIn.PrimitiveId, 'int', fragment));
    case 'invocation-id':
      return g.loadUint(decl.builtin(BuiltIn.InvocationId, 'int', fragment));
    case 'local-invocation-index':
      return g.loadUint(decl.builtin(BuiltIn.LocalInvocationIndex, 'uint', fragment));
    case 'workgroup-id': {
      // x + numX * (y + numY * z)
      const id = g.load(decl.builtin(BuiltIn.WorkgroupId, 'uvec3', fragment));
      const count = g.load(decl.builtin(BuiltIn.NumWorkgroups, 'uvec3', fragment));
      const c = (v: number, i: number) => g.value(Op.CompositeExtract, decl.uint, v, i);
      const yz = g.value(Op.IAdd, decl.uint, c(id, 1), g.value(Op.IMul, decl.uint, c(count, 1), c(id, 2)));
      return g.value(Op.IAdd, decl.uint, c(id, 0), g.value(Op.IMul, decl.uint, c(count, 0), yz));
    }
    case 'frag-coord': {
      const coord = g.load(decl.builtin(BuiltIn.FragCoord, 'vec4', fragment));
      const axis = (i: number) => g.value(Op.ConvertFToU, decl.uint, g.value(Op.CompositeExtract, decl.float, coord, i));
      return g.value(Op.BitwiseOr, decl.uint, axis(0), g.value(Op.ShiftLeftLogical, decl.uint, axis(1), decl.u32(16)));
    }
  }
}

/** Accumulates one function's instructions, allocating result ids from the module. */
class FunctionCode {
  readonly code: Instruction[] = [];
  readonly globals = new Set<number>();
  constructor(readonly decl: CommonDeclarations) {}

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
  label(id: number): void {
    this.op(Op.Label, id);
  }
  global(variable: number): number {
    this.globals.add(variable);
    return variable;
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
}
