/**
 * The ballot of the lanes here and whether this lane is the one that writes for them: core subgroup operations
 * (SPIR-V 1.3), or SPV_KHR_shader_ballot's ballot and first invocation (SPIR-V 1.0-1.2 with --legacy-subgroup
 * khr-ballot). Shared by the record (record-wrapper.ts), marks (mark-code.ts) and block counts (blocks.ts).
 */
import type { FunctionCode } from '../model/function-code.js';
import { BuiltIn, Op, Scope } from '../model/spec.js';
import type { SubgroupMode } from './pass.js';

export function ballotAndElection(g: FunctionCode, mode: Exclude<SubgroupMode, 'none'>): { ballot: number; elected: number } {
  const { decl } = g;
  if (mode === 'core') {
    const ballot = g.value(Op.GroupNonUniformBallot, decl.uvec4, decl.u32(Scope.Subgroup), decl.true);
    const elected = g.value(Op.GroupNonUniformElect, decl.bool, decl.u32(Scope.Subgroup));
    return { ballot, elected };
  }
  const ballot = g.value(Op.SubgroupBallotKHR, decl.uvec4, decl.true);
  const lane = g.loadUint(g.builtin(BuiltIn.SubgroupLocalInvocationId, 'uint'));
  const firstLane = g.value(Op.SubgroupFirstInvocationKHR, decl.uint, lane);
  return { ballot, elected: g.value(Op.IEqual, decl.bool, lane, firstLane) };
}
