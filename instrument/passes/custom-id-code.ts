/**
 * The record's CUSTOM_ID word (InstrumentOptions.customIds), and the flat ids it shares with the
 * sampling key (sample-code.ts): the workgroup index and the packed fragment pixel.
 */
import type { FunctionCode } from '../model/function-code.js';
import type { CustomIdSource } from '../options.js';
import { BuiltIn, Op } from '../model/spec.js';
import { fragCoordXY } from './position-code.js';

/** x + sizeX * (y + sizeY * z) of a uvec3 id in a uvec3 grid. */
function flatten(g: FunctionCode, id: number, size: number): number {
  const { decl } = g;
  const c = (v: number, i: number) => g.value(Op.CompositeExtract, decl.uint, v, i);
  const yz = g.value(Op.IAdd, decl.uint, c(id, 1), g.value(Op.IMul, decl.uint, c(size, 1), c(id, 2)));
  return g.value(Op.IAdd, decl.uint, c(id, 0), g.value(Op.IMul, decl.uint, c(size, 0), yz));
}

/** The flattened gl_WorkGroupID (TaskNV / MeshNV have no NumWorkgroups built-in, their launches are one-dimensional: x). */
export function flatWorkgroup(g: FunctionCode, nvMesh: boolean): number {
  const id = g.load(g.builtin(BuiltIn.WorkgroupId, 'uvec3'));
  if (nvMesh) return g.value(Op.CompositeExtract, g.decl.uint, id, 0);
  return flatten(g, id, g.load(g.builtin(BuiltIn.NumWorkgroups, 'uvec3')));
}

/** The pixel as `uint(gl_FragCoord.x) | uint(gl_FragCoord.y) << 16`. */
export function fragPixel(g: FunctionCode): number {
  const { decl } = g;
  const [x, y] = fragCoordXY(g);
  return g.value(Op.BitwiseOr, decl.uint, x, g.value(Op.ShiftLeftLogical, decl.uint, y, decl.u32(16)));
}

export function customId(g: FunctionCode, source: CustomIdSource, nvMesh: boolean): number {
  const { decl } = g;
  switch (source) {
    case 'none':
      return decl.u32(0);
    case 'vertex-index':
      return g.loadUint(g.builtin(BuiltIn.VertexIndex, 'int'));
    case 'instance-index':
      return g.loadUint(g.builtin(BuiltIn.InstanceIndex, 'int'));
    case 'primitive-id':
      return g.loadUint(g.builtin(BuiltIn.PrimitiveId, 'int'));
    case 'invocation-id':
      return g.loadUint(g.builtin(BuiltIn.InvocationId, 'int'));
    case 'local-invocation-index':
      return g.loadUint(g.builtin(BuiltIn.LocalInvocationIndex, 'uint'));
    case 'workgroup-id':
      return flatWorkgroup(g, nvMesh);
    case 'launch-id':
      return flatten(g, g.load(g.builtin(BuiltIn.LaunchIdKHR, 'uvec3')), g.load(g.builtin(BuiltIn.LaunchSizeKHR, 'uvec3')));
    case 'instance-custom-index':
      return g.loadUint(g.builtin(BuiltIn.InstanceCustomIndexKHR, 'int'));
    case 'frag-coord':
      return fragPixel(g);
  }
}
