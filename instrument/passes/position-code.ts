/**
 * The screen-position word of a record (shared-schema/position.ts), as the
 * GLSL library's wtPosition_ computes it: every active lane's pixel goes
 * into a subgroup min and max (fragment: non-helper lanes only, since the
 * record code runs inside the helper test), and the elected lane packs the
 * box. Without subgroup operations the record is one invocation: its own
 * pixel. A subgroup wider than 32 lanes (word 3 then holds lanes 32..63) or a
 * box starting past MAX_POSITION_COORD records none: word 3 keeps the mask's
 * high half and the flag stays clear.
 */
import { MAX_POSITION_COORD, MAX_POSITION_LOG2, PositionBits } from '../../shared-schema/position.js';
import { PackedIds, RecordFlag } from '../../shared-schema/raw-layout.js';
import type { FunctionCode } from '../model/function-code.js';
import type { PositionStage } from '../options.js';
import { BuiltIn, GroupOperation, Op, Scope } from '../model/spec.js';

/** GLSL.std.450 extended instructions used here. */
const GlslStd450 = { UMin: 38, FindUMsb: 75 } as const;

/** The lanes' bounding box (inclusive), as uint ids; `wide` checks the subgroup size when packing. */
export interface PixelBox {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
  readonly checkSubgroupSize: boolean;
}

/** `uvec2(gl_FragCoord.xy)` as two uint ids. */
export function fragCoordXY(g: FunctionCode): [number, number] {
  const { decl } = g;
  const coord = g.load(g.builtin(BuiltIn.FragCoord, 'vec4'));
  const axis = (i: number) => g.value(Op.ConvertFToU, decl.uint, g.value(Op.CompositeExtract, decl.float, coord, i));
  const x = axis(0);
  return [x, axis(1)];
}

/** This invocation's pixel: fragment coordinate, launch id (every ray-tracing stage) or global invocation id (x, y). */
export function pixelOf(g: FunctionCode, stage: PositionStage): [number, number] {
  if (stage === 'FS') return fragCoordXY(g);
  const { decl } = g;
  const id = g.load(g.builtin(stage === 'CS' ? BuiltIn.GlobalInvocationId : BuiltIn.LaunchIdKHR, 'uvec3'));
  return [g.value(Op.CompositeExtract, decl.uint, id, 0), g.value(Op.CompositeExtract, decl.uint, id, 1)];
}

/** Subgroup min and max of the pixel over the active lanes: every lane must run it (before the election). */
export function subgroupBox(g: FunctionCode, stage: PositionStage): PixelBox {
  const { decl } = g;
  const [x, y] = pixelOf(g, stage);
  const reduce = (op: number, v: number) => g.value(op, decl.uint, decl.u32(Scope.Subgroup), GroupOperation.Reduce, v);
  return { minX: reduce(Op.GroupNonUniformUMin, x), minY: reduce(Op.GroupNonUniformUMin, y), maxX: reduce(Op.GroupNonUniformUMax, x), maxY: reduce(Op.GroupNonUniformUMax, y), checkSubgroupSize: true };
}

/** One invocation's own pixel as a box. */
export function ownBox(g: FunctionCode, stage: PositionStage): PixelBox {
  const [x, y] = pixelOf(g, stage);
  return { minX: x, minY: y, maxX: x, maxY: y, checkSubgroupSize: false };
}

/**
 * Word 3 and the packed-ids word of a record with a position: the position and
 * `ids | POSITION << FLAGS_SHIFT` when the box packs, else `maskHi` and `ids`.
 */
export function positionWords(g: FunctionCode, box: PixelBox, maskHi: number, ids: number): { word3: number; ids: number } {
  const { decl } = g;
  const glsl = decl.editor.extInstImport('GLSL.std.450');
  // The smallest e with 2^e >= span = max - min + 1 is findMSB(max - min) + 1 (FindUMsb(0) = -1: e = 0), capped.
  const log2 = (min: number, max: number) => {
    const msb = g.value(Op.ExtInst, decl.uint, glsl, GlslStd450.FindUMsb, g.value(Op.ISub, decl.uint, max, min));
    return g.value(Op.ExtInst, decl.uint, glsl, GlslStd450.UMin, g.value(Op.IAdd, decl.uint, msb, decl.u32(1)), decl.u32(MAX_POSITION_LOG2));
  };
  const shifted = (v: number, by: number) => (by === 0 ? v : g.value(Op.ShiftLeftLogical, decl.uint, v, decl.u32(by)));
  const lw = log2(box.minX, box.maxX);
  const lh = log2(box.minY, box.maxY);
  let word = g.value(Op.BitwiseOr, decl.uint, shifted(box.minX, PositionBits.X_SHIFT), shifted(box.minY, PositionBits.Y_SHIFT));
  word = g.value(Op.BitwiseOr, decl.uint, word, shifted(lw, PositionBits.LOG2_WIDTH_SHIFT));
  word = g.value(Op.BitwiseOr, decl.uint, word, shifted(lh, PositionBits.LOG2_HEIGHT_SHIFT));
  const within = (v: number, limit: number) => g.value(Op.ULessThanEqual, decl.bool, v, decl.u32(limit));
  let fits = g.value(Op.LogicalAnd, decl.bool, within(box.minX, MAX_POSITION_COORD), within(box.minY, MAX_POSITION_COORD));
  if (box.checkSubgroupSize) {
    // Subgroup-uniform: a wider subgroup's word 3 holds lanes 32..63.
    const size = g.loadUint(g.builtin(BuiltIn.SubgroupSize, 'uint'));
    fits = g.value(Op.LogicalAnd, decl.bool, fits, within(size, 32));
  }
  const flag = g.value(Op.Select, decl.uint, fits, decl.u32((RecordFlag.POSITION << PackedIds.FLAGS_SHIFT) >>> 0), decl.u32(0));
  return { word3: g.value(Op.Select, decl.uint, fits, word, maskHi), ids: g.value(Op.BitwiseOr, decl.uint, ids, flag) };
}
