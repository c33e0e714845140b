/**
 * Warp sampling decided in the prologue (InstrumentOptions.sampling 'runtime'; the contract is
 * shared-schema/sample-layout.ts). Right after the draw id's load and the untraced-draw test, before
 * any clock, the wrapper computes
 *
 *   sampled = false;
 *   if (traced) {                                          // uniform over the draw
 *     k = (draw.sampleLog2[c >> 3] >> 4 * (c & 7)) & 15;    // stage code c's log2 rate, uniform
 *     sampled = true;
 *     if (k != 0) {                                        // full tracing pays the load, extract, compare, this branch
 *       key = subgroupBroadcastFirst(laneKey);             // one value every lane agrees on
 *       sampled = lowbias32(key ^ lowbias32(drawId * 16 + c)) <= 0xffffffff >> k;  // the outer one's top bits only
 *     }
 *   }
 *
 * and an unsampled warp runs the entry point as an untraced draw's does: no clock, helper test,
 * ballot, position, atomic or store. The decision is warp-uniform, so a warp records whole or not at
 * all (a lane-wise one would still pay the record for any warp with one sampled lane, and split its
 * mask). The lane keys (sample-layout.ts pixelKey, workgroupKey):
 *
 *   FS         uint(FragCoord.x) | uint(FragCoord.y) << 16
 *   VS         VertexIndex ^ InstanceIndex * SAMPLE_KEY_GOLDEN
 *   TCS        PrimitiveId * 32 + InvocationId
 *   TES        PrimitiveId ^ bits(TessCoord.x) * SAMPLE_KEY_GOLDEN ^ bits(TessCoord.y)
 *   GS         PrimitiveId ^ InvocationId << 24
 *   CS, TASK,  flat workgroup * 64 + SubgroupId: uniform already, not broadcast. SPV_KHR_shader_ballot
 *   MESH       has no SubgroupId: the first lane's LocalInvocationIndex / SubgroupSize (the same where
 *              subgroups are laid out in order); per invocation: flat workgroup * 1024 + LocalInvocationIndex
 *   ray        (LaunchId.x | LaunchId.y << 16) ^ LaunchId.z * SAMPLE_KEY_GOLDEN
 *
 * Every lane takes the first active lane's key (OpGroupNonUniformBroadcastFirst, or
 * OpSubgroupFirstInvocationKHR); an entry that records per invocation keeps its own.
 */
import { DRAW_SAMPLE_WORD, MAX_SAMPLE_LOG2, SAMPLE_KEY_GOLDEN, sampleShiftOf } from '../../shared-schema/sample-layout.js';
import type { CommonDeclarations } from '../model/declarations.js';
import type { FunctionCode } from '../model/function-code.js';
import { BuiltIn, Op, Scope, StorageClass } from '../model/spec.js';
import { stageCode, type InstrumentedStage } from '../options.js';
import { flatWorkgroup, fragPixel } from './custom-id-code.js';
import type { SubgroupMode } from './pass.js';

export interface SamplePlan {
  readonly stage: InstrumentedStage;
  readonly subgroup: SubgroupMode;
  /** TaskNV / MeshNV: the workgroup index is gl_WorkGroupID.x. */
  readonly nvMesh: boolean;
  readonly set: number;
  readonly binding: number;
}

/** Whether this warp records: `traced` and its stage's rate picks it (the code above). A bool, uniform over the warp. */
export function sampleDecision(g: FunctionCode, plan: SamplePlan, drawId: number, traced: number): number {
  const { decl } = g;
  const code = stageCode(plan.stage);
  return g.ifThenValue(
    decl.bool,
    traced,
    () => {
      const k = sampleLog2(g, plan, code);
      const rated = g.value(Op.INotEqual, decl.bool, k, decl.u32(0));
      return g.ifThenValue(
        decl.bool,
        rated,
        () => {
          const seed = lowbias32(g, g.value(Op.IAdd, decl.uint, g.value(Op.IMul, decl.uint, drawId, decl.u32(16)), decl.u32(code)));
          const hash = lowbias32(g, g.value(Op.BitwiseXor, decl.uint, warpKey(g, plan), seed), { topBitsOnly: true });
          const threshold = g.value(Op.ShiftRightLogical, decl.uint, decl.u32(0xffffffff), k);
          return g.value(Op.ULessThanEqual, decl.bool, hash, threshold);
        },
        decl.true,
      );
    },
    decl.constantFalse,
  );
}

/** Stage `code`'s 4-bit log2 rate from the draw-id block (binding + 1), word DRAW_SAMPLE_WORD + (code >> 3). */
function sampleLog2(g: FunctionCode, plan: SamplePlan, code: number): number {
  const { decl } = g;
  const block = g.global(decl.drawIdBlock(plan.set, plan.binding + 1));
  const pointer = g.value(Op.AccessChain, decl.pointer(StorageClass.Uniform, decl.uint), block, decl.u32(DRAW_SAMPLE_WORD + (code >>> 3)));
  const word = g.value(Op.Load, decl.uint, pointer);
  const shift = sampleShiftOf(code);
  const shifted = shift === 0 ? word : g.value(Op.ShiftRightLogical, decl.uint, word, decl.u32(shift));
  return g.value(Op.BitwiseAnd, decl.uint, shifted, decl.u32(MAX_SAMPLE_LOG2));
}

/**
 * lowbias32 (sample-layout.ts): x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16.
 * `topBitsOnly`: without the last step, which leaves the top 16 bits as they are. The decision
 * `hash <= 0xffffffff >> k` reads only the top k bits (k <= MAX_SAMPLE_LOG2 = 15), so it picks the same warps
 * as the CPU's full lowbias32, two instructions cheaper in every warp (1 in 8 on the H200: ray tracing 1.307x →
 * 1.267x, AQT 1.243x → 1.238x; bench/RESULTS.md).
 */
export function lowbias32(g: FunctionCode, value: number, options: { readonly topBitsOnly?: boolean } = {}): number {
  const { decl } = g;
  let h = value;
  const xorShift = (bits: number) => (h = g.value(Op.BitwiseXor, decl.uint, h, g.value(Op.ShiftRightLogical, decl.uint, h, decl.u32(bits))));
  const multiply = (by: number) => (h = g.value(Op.IMul, decl.uint, h, decl.u32(by)));
  xorShift(16);
  multiply(0x7feb352d);
  xorShift(15);
  multiply(0x846ca68b);
  if (options.topBitsOnly !== true) xorShift(16);
  return h;
}

/** The warp key: the first active lane's key, or the workgroup's and subgroup's (uniform already). */
export function warpKey(g: FunctionCode, plan: SamplePlan): number {
  const { decl } = g;
  if (plan.stage === 'CS' || plan.stage === 'TASK' || plan.stage === 'MESH') return workgroupKey(g, plan);
  const own = laneKey(g, plan.stage);
  if (plan.subgroup === 'core') return g.value(Op.GroupNonUniformBroadcastFirst, decl.uint, decl.u32(Scope.Subgroup), own);
  if (plan.subgroup === 'khr-ballot') return g.value(Op.SubgroupFirstInvocationKHR, decl.uint, own);
  return own;
}

/** workgroupKey (sample-layout.ts): flat workgroup * 64 + subgroup id; per invocation flat * 1024 + LocalInvocationIndex. */
function workgroupKey(g: FunctionCode, plan: SamplePlan): number {
  const { decl } = g;
  const flat = flatWorkgroup(g, plan.nvMesh);
  const local = () => g.loadUint(g.builtin(BuiltIn.LocalInvocationIndex, 'uint'));
  let within: number;
  if (plan.subgroup === 'core') within = g.loadUint(g.builtin(BuiltIn.SubgroupId, 'uint'));
  else if (plan.subgroup === 'khr-ballot') {
    const first = g.value(Op.SubgroupFirstInvocationKHR, decl.uint, local());
    within = g.value(Op.UDiv, decl.uint, first, g.loadUint(g.builtin(BuiltIn.SubgroupSize, 'uint')));
  } else within = local();
  const scale = plan.subgroup === 'none' ? 1024 : 64;
  return g.value(Op.IAdd, decl.uint, g.value(Op.IMul, decl.uint, flat, decl.u32(scale)), within);
}

/** This lane's key (the table above; fragment and ray-tracing stages: sample-layout.ts pixelKey). */
function laneKey(g: FunctionCode, stage: Exclude<InstrumentedStage, 'CS' | 'TASK' | 'MESH'>): number {
  const { decl } = g;
  const u = (builtIn: number) => g.loadUint(g.builtin(builtIn, 'int'));
  const op = (opcode: number, a: number, b: number) => g.value(opcode, decl.uint, a, b);
  const golden = decl.u32(SAMPLE_KEY_GOLDEN);
  switch (stage) {
    case 'FS':
      return fragPixel(g);
    case 'VS':
      return op(Op.BitwiseXor, u(BuiltIn.VertexIndex), op(Op.IMul, u(BuiltIn.InstanceIndex), golden));
    case 'TCS':
      return op(Op.IAdd, op(Op.IMul, u(BuiltIn.PrimitiveId), decl.u32(32)), u(BuiltIn.InvocationId));
    case 'TES': {
      const coord = g.load(g.builtin(BuiltIn.TessCoord, 'vec3'));
      const bits = (i: number) => g.value(Op.Bitcast, decl.uint, g.value(Op.CompositeExtract, decl.float, coord, i));
      return op(Op.BitwiseXor, op(Op.BitwiseXor, u(BuiltIn.PrimitiveId), op(Op.IMul, bits(0), golden)), bits(1));
    }
    case 'GS':
      return op(Op.BitwiseXor, u(BuiltIn.PrimitiveId), op(Op.ShiftLeftLogical, u(BuiltIn.InvocationId), decl.u32(24)));
    default: {
      const id = g.load(g.builtin(BuiltIn.LaunchIdKHR, 'uvec3'));
      const c = (i: number) => g.value(Op.CompositeExtract, decl.uint, id, i);
      const xy = op(Op.BitwiseOr, c(0), op(Op.ShiftLeftLogical, c(1), decl.u32(16)));
      return op(Op.BitwiseXor, xy, op(Op.IMul, c(2), golden));
    }
  }
}

const sampledFlags = new WeakMap<CommonDeclarations, number>();

/**
 * Private bool `warptrace_sampled`: the wrapper stores its warp's decision there for the records and
 * marks that code inside the entry point writes (record points, marks), which then test it instead of
 * the draw id. One per module: every wrapper stores before it calls its entry point.
 */
export function sampledFlagVariable(decl: CommonDeclarations): number {
  let variable = sampledFlags.get(decl);
  if (variable === undefined) {
    const { editor } = decl;
    variable = editor.declare(Op.Variable, (id) => [decl.pointer(StorageClass.Private, decl.bool), id, StorageClass.Private, decl.constantFalse]);
    editor.addName(variable, 'warptrace_sampled');
    sampledFlags.set(decl, variable);
  }
  return variable;
}
