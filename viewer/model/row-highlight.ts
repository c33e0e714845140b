/**
 * A set of warp rows the timeline draws highlighted (the others dimmed), e.g.
 * the warps a screen-space panel picked: the rows sorted, for walking one
 * lane's share by binary search, and a bitset (one bit per warp) for testing
 * a row in O(1) while building geometry.
 */
export interface RowHighlight {
  /** Highlighted rows, ascending, unique, each < the trace's warp count. */
  readonly rows: Uint32Array;
  /** Bit r set: row r is highlighted. */
  readonly mask: Uint32Array;
  /** Per draw, 1 for draws the highlight picked (the draw track dims the others); absent or null: draws are not dimmed. */
  readonly draws?: Uint8Array | null;
}

/** The highlight of `rows` (any order, duplicates and rows ≥ warpCount ignored). */
export function rowHighlight(rows: ArrayLike<number>, warpCount: number): RowHighlight {
  const mask = new Uint32Array(Math.ceil(warpCount / 32));
  let n = 0;
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    if (!(r >= 0 && r < warpCount) || r !== Math.floor(r)) continue;
    const bit = 1 << (r & 31);
    if ((mask[r >>> 5]! & bit) !== 0) continue;
    mask[r >>> 5]! |= bit;
    n++;
  }
  // Read the sorted rows back from the bitset: O(warps / 32 + n), no sort.
  const sorted = new Uint32Array(n);
  let k = 0;
  for (let word = 0; word < mask.length && k < n; word++) {
    let bits = mask[word]!;
    while (bits !== 0) {
      const low = bits & -bits;
      sorted[k++] = word * 32 + (31 - Math.clz32(low));
      bits ^= low;
    }
  }
  return { rows: sorted, mask };
}

export function isHighlighted(h: RowHighlight, row: number): boolean {
  return ((h.mask[row >>> 5]! >>> (row & 31)) & 1) !== 0;
}

/** Indices [lo, hi) into h.rows of the highlighted rows in [rowBegin, rowEnd). */
export function highlightedIn(h: RowHighlight, rowBegin: number, rowEnd: number): [number, number] {
  const lowerBound = (x: number) => {
    let lo = 0;
    let hi = h.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h.rows[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [lowerBound(rowBegin), lowerBound(rowEnd)];
}
