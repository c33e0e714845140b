/**
 * Dense ids for the (draw, stage) pairs that occur in a trace, so per
 * draw × stage results live in flat typed arrays (draws × 14 could be huge;
 * the pairs that occur are at most one per warp).
 */
import type { WarpColumns } from '../shared-schema/model.js';
import { popcount32 } from '../shared-schema/columns.js';

export interface DrawStageKeys {
  /** Number of (draw, stage) pairs that occur. */
  readonly count: number;
  /** Key of every row. */
  readonly keyOfRow: Uint32Array;
  /** Warps per key. */
  readonly warps: Uint32Array;
  readonly keyDraw: Uint32Array;
  readonly keyStage: Uint8Array;
  /** Keys of draw d are drawKeyStart[d] .. drawKeyStart[d+1]-1, by ascending stage code. */
  readonly drawKeyStart: Uint32Array;
}

/** Above this many draws the (draw, stage) → key table would be too large; keys are computed with popcounts. */
const MAX_TABLE_DRAWS = 1 << 20;

export function drawStageKeys(warps: WarpColumns, drawCount: number): DrawStageKeys {
  const n = warps.count;
  const { draw, stage } = warps;
  const stageMask = new Uint16Array(drawCount);
  for (let i = 0; i < n; i++) stageMask[draw[i]!]! |= 1 << stage[i]!;
  const drawKeyStart = new Uint32Array(drawCount + 1);
  let count = 0;
  for (let d = 0; d < drawCount; d++) {
    drawKeyStart[d] = count;
    count += popcount32(stageMask[d]!);
  }
  drawKeyStart[drawCount] = count;
  const keyDraw = new Uint32Array(count);
  const keyStage = new Uint8Array(count);
  const table = drawCount <= MAX_TABLE_DRAWS ? new Uint32Array(drawCount * 16) : null;
  for (let d = 0; d < drawCount; d++) {
    let k = drawKeyStart[d]!;
    for (let s = 0, m = stageMask[d]!; m !== 0; s++, m >>>= 1) {
      if ((m & 1) === 0) continue;
      keyDraw[k] = d;
      keyStage[k] = s;
      if (table !== null) table[d * 16 + s] = k;
      k++;
    }
  }
  const keyOfRow = new Uint32Array(n);
  const perKey = new Uint32Array(count);
  if (table !== null) {
    for (let i = 0; i < n; i++) {
      const k = table[(draw[i]! << 4) | stage[i]!]!;
      keyOfRow[i] = k;
      perKey[k]!++;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const d = draw[i]!;
      const k = drawKeyStart[d]! + popcount32(stageMask[d]! & ((1 << stage[i]!) - 1));
      keyOfRow[i] = k;
      perKey[k]!++;
    }
  }
  return { count, keyOfRow, warps: perKey, keyDraw, keyStage, drawKeyStart };
}
