/**
 * Screen position of a warp: where on its draw's render target (or ray
 * launch / compute grid) its lanes were. The GPU record stores it in one
 * 32-bit word (RecordWord.POSITION when RecordFlag.POSITION is set) and the
 * model keeps that word as is (WarpColumns.position), so one format serves
 * the record, the file and the viewer.
 *
 * Packing (bits): x0 0-12, y0 13-25, log2 width 26-28, log2 height 29-31.
 * (x0, y0) is the smallest x and smallest y over the warp's active lanes, in
 * pixels (fragment: gl_FragCoord.xy; every ray-tracing stage: gl_LaunchIDEXT.xy;
 * compute: gl_GlobalInvocationID.xy). The footprint is the lanes' bounding box
 * rounded up to powers of two: [x0, x0 + 2^lw) x [y0, y0 + 2^lh), with
 * lw = ceil(log2(maxX - x0 + 1)) capped at 7 (128 px), likewise lh. It covers
 * every active lane's pixel (spans up to 128 px; a wider one, as hit and miss
 * warps of rays far apart have, is cut at 128) and may reach a little past
 * them (a span of 3 becomes 4). Targets up to 8190 x 8190 pixels; lanes whose
 * smallest x or y is past that record NO_POSITION.
 */

/** Position word of a warp without a recorded position (all ones: x0 = y0 = 8191). */
export const NO_POSITION = 0xffffffff;
/** Largest x0 / y0 a position can hold (8191 is the no-position marker). */
export const MAX_POSITION_COORD = 8190;
/** Largest footprint exponent: 2^7 = 128 px. */
export const MAX_POSITION_LOG2 = 7;

export const PositionBits = {
  X_SHIFT: 0,
  X_MASK: 0x1fff,
  Y_SHIFT: 13,
  Y_MASK: 0x1fff,
  LOG2_WIDTH_SHIFT: 26,
  LOG2_HEIGHT_SHIFT: 29,
  LOG2_MASK: 0x7,
} as const;

/** A warp's footprint in pixels: [x, x + width) x [y, y + height). */
export interface Footprint {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Smallest exponent e with 2^e >= span (span >= 1), capped at MAX_POSITION_LOG2. */
export function footprintLog2(span: number): number {
  let e = 0;
  while (e < MAX_POSITION_LOG2 && 1 << e < span) e++;
  return e;
}

/** Packs a bounding box of pixels (inclusive max) into a position word; NO_POSITION when it does not fit. */
export function packPosition(minX: number, minY: number, maxX: number, maxY: number): number {
  if (!(minX >= 0 && minY >= 0 && minX <= MAX_POSITION_COORD && minY <= MAX_POSITION_COORD && maxX >= minX && maxY >= minY)) return NO_POSITION;
  const lw = footprintLog2(maxX - minX + 1);
  const lh = footprintLog2(maxY - minY + 1);
  return ((minX & PositionBits.X_MASK) | ((minY & PositionBits.Y_MASK) << PositionBits.Y_SHIFT) | (lw << PositionBits.LOG2_WIDTH_SHIFT) | (lh << PositionBits.LOG2_HEIGHT_SHIFT)) >>> 0;
}

export function hasPosition(word: number): boolean {
  return word >>> 0 !== NO_POSITION;
}

export function positionX(word: number): number {
  return (word >>> PositionBits.X_SHIFT) & PositionBits.X_MASK;
}

export function positionY(word: number): number {
  return (word >>> PositionBits.Y_SHIFT) & PositionBits.Y_MASK;
}

export function positionWidth(word: number): number {
  return 1 << ((word >>> PositionBits.LOG2_WIDTH_SHIFT) & PositionBits.LOG2_MASK);
}

export function positionHeight(word: number): number {
  return 1 << ((word >>> PositionBits.LOG2_HEIGHT_SHIFT) & PositionBits.LOG2_MASK);
}

/** The footprint of a position word, or null for NO_POSITION. */
export function unpackPosition(word: number): Footprint | null {
  if (!hasPosition(word)) return null;
  return { x: positionX(word), y: positionY(word), width: positionWidth(word), height: positionHeight(word) };
}

/**
 * Why a word is not a position a reader accepts (null: it is one, or it is
 * NO_POSITION). x0 or y0 of 8191 is only allowed in NO_POSITION itself.
 */
export function positionProblem(word: number): string | null {
  if (!(word >>> 0 === word)) return 'expected a uint32 position word';
  if (word === NO_POSITION) return null;
  if (positionX(word) > MAX_POSITION_COORD || positionY(word) > MAX_POSITION_COORD) {
    return `x0 ${positionX(word)}, y0 ${positionY(word)}: coordinates above ${MAX_POSITION_COORD} are reserved for NO_POSITION (${NO_POSITION})`;
  }
  return null;
}

/** Largest render-target (launch, grid) width or height a draw may give: any uint32 above 0. */
export const MAX_TARGET_SIZE = 0xffffffff;
