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
  /** Keys by draw, then stage code: draw d's keys are drawKeys[drawKeyStart[d] .. drawKeyStart[d+1]). */
  readonly drawKeys: Uint32Array;
  readonly drawKeyStart: Uint32Array;
}

/** Up to this many draws, keys come from a (draw, stage) table in one pass; beyond, from per-draw stage masks in two. */
const MAX_TABLE_DRAWS = 1 << 20;

export function drawStageKeys(warps: WarpColumns, drawCount: number): DrawStageKeys {
  return drawCount <= MAX_TABLE_DRAWS ? keysByTable(warps, drawCount) : keysByMask(warps, drawCount);
}

/** One pass: keys numbered in order of first appearance. */
export function keysByTable(warps: WarpColumns, drawCount: number): DrawStageKeys {
  const n = warps.count;
  const { draw, stage } = warps;
  const table = new Int32Array(drawCount * 16).fill(-1);
  const keyOfRow = new Uint32Array(n);
  let perKey = new Uint32Array(64);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const slot = (draw[i]! << 4) | stage[i]!;
    let k = table[slot]!;
    if (k < 0) {
      k = table[slot] = count++;
      if (count > perKey.length) {
        const bigger = new Uint32Array(perKey.length * 2);
        bigger.set(perKey);
        perKey = bigger;
      }
    }
    keyOfRow[i] = k;
    perKey[k]!++;
  }
  const keyDraw = new Uint32Array(count);
  const keyStage = new Uint8Array(count);
  const drawKeys = new Uint32Array(count);
  const drawKeyStart = new Uint32Array(drawCount + 1);
  let j = 0;
  for (let d = 0; d < drawCount; d++) {
    drawKeyStart[d] = j;
    for (let s = 0; s < 16; s++) {
      const k = table[(d << 4) | s]!;
      if (k < 0) continue;
      keyDraw[k] = d;
      keyStage[k] = s;
      drawKeys[j++] = k;
    }
  }
  drawKeyStart[drawCount] = j;
  return { count, keyOfRow, warps: perKey.slice(0, count), keyDraw, keyStage, drawKeys, drawKeyStart };
}

/** Two passes (stage mask per draw, then keys): keys numbered by draw, then stage. */
export function keysByMask(warps: WarpColumns, drawCount: number): DrawStageKeys {
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
  for (let d = 0; d < drawCount; d++) {
    let k = drawKeyStart[d]!;
    for (let s = 0, m = stageMask[d]!; m !== 0; s++, m >>>= 1) {
      if ((m & 1) === 0) continue;
      keyDraw[k] = d;
      keyStage[k] = s;
      k++;
    }
  }
  const keyOfRow = new Uint32Array(n);
  const perKey = new Uint32Array(count);
  for (let i = 0; i < n; i++) {
    const d = draw[i]!;
    const k = drawKeyStart[d]! + popcount32(stageMask[d]! & ((1 << stage[i]!) - 1));
    keyOfRow[i] = k;
    perKey[k]!++;
  }
  const drawKeys = Uint32Array.from({ length: count }, (_, k) => k);
  return { count, keyOfRow, warps: perKey, keyDraw, keyStage, drawKeys, drawKeyStart };
}
