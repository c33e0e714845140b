/**
 * Color by branch: the 2016 Warp Trace post's classification of AQT warps by
 * whether their lanes took a branch, for a mark placed in the branch
 * (`wtMark(id)`, or the instrumenter's trace and loop marks). Per warp:
 *
 * - grey (NONE): no mark with that id on the warp: no lane reached it;
 * - red (ALL): the lanes that reached it (the union of the live lanes of its
 *   marks with that id: a loop's mark counts a lane once) are all the warp's lanes;
 * - yellow (SOME): some did, others did not: the warp paid for both sides.
 *
 * The warp's lanes are the union of its record's mask (taken at its end) and
 * the live lanes of all its marks. That is exact whenever each lane the warp
 * started with is still live at its end or at one of its marks: for every
 * warp in which no lane returns early, full or partial, in particular one
 * whose lanes are all live at its start and stay so. A lane that skipped the
 * mark and returned before the warp's end and before its other marks is not
 * seen, and such a warp reads red where it was yellow.
 *
 * One pass over the marks (sorted by warp, shared-schema's checkMarks) plus
 * the class column: no per-warp object.
 */
import type { MarkColumns, Trace } from '../../shared-schema/index.js';
import { THEME, mixRgb, packRgba } from './colors.js';
import type { ClassFill, ClassPalette } from './color-by.js';

export const BranchClass = { NONE: 0, SOME: 1, ALL: 2 } as const;

/** 0xRRGGBB of each BranchClass, as in the 2016 post: grey, yellow, red. */
export const BRANCH_RGB: readonly number[] = [0x767b86, 0xf2c440, 0xe5443c];

/** The branch classes of a trace's warps for mark `markId`, filled a slice of rows at a time (color-by.ts). */
export function branchFill(trace: Trace, markId: number): ClassFill {
  const w = trace.warps;
  const classOf = new Uint8Array(w.count);
  const m = trace.marks ?? null;
  const n = m?.count ?? 0;
  const hiMarks = m?.activeMaskHi ?? null;
  const hiWarps = w.activeMaskHi;
  const fill = (begin: number, end: number): void => {
    if (m === null) return;
    // The first mark of a row ≥ begin: a warp's marks are contiguous, so a slice of rows holds all of theirs.
    let k = lowerBound(m.warp, n, begin);
    while (k < n && m.warp[k]! < end) {
      const row = m.warp[k]!;
      let lanesLo = w.activeMask[row]! | 0;
      let lanesHi = hiWarps === null ? 0 : hiWarps[row]! | 0;
      let tookLo = 0;
      let tookHi = 0;
      let took = false;
      for (; k < n && m.warp[k] === row; k++) {
        const lo = m.activeMask[k]! | 0;
        const hi = hiMarks === null ? 0 : hiMarks[k]! | 0;
        lanesLo |= lo;
        lanesHi |= hi;
        if (m.id[k] === markId) {
          took = true;
          tookLo |= lo;
          tookHi |= hi;
        }
      }
      if (took) classOf[row] = tookLo === lanesLo && tookHi === lanesHi ? BranchClass.ALL : BranchClass.SOME;
    }
  };
  return { classOf, fill, palette: branchPalette };
}

function lowerBound(sorted: Uint32Array, n: number, value: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function branchPalette(): ClassPalette {
  const rgba = Uint32Array.from(BRANCH_RGB, (c) => packRgba(c));
  const dimRgba = Uint32Array.from(BRANCH_RGB, (c) => packRgba(mixRgb(c, THEME.background, 0.72)));
  const legend = [
    { cls: BranchClass.ALL, label: 'all lanes', title: 'every lane of the warp reached the mark', rgb: BRANCH_RGB[BranchClass.ALL]! },
    { cls: BranchClass.SOME, label: 'some lanes', title: 'some lanes reached the mark, others did not: the warp diverged', rgb: BRANCH_RGB[BranchClass.SOME]! },
    { cls: BranchClass.NONE, label: 'no lane', title: 'no lane of the warp reached the mark', rgb: BRANCH_RGB[BranchClass.NONE]! },
  ];
  return { rgba, dimRgba, legend };
}

export interface MarkIdCount {
  readonly id: number;
  /** Warps with at least one mark of this id. */
  readonly warps: number;
}

/** The mark ids of a trace, ascending, with the warps each is on. */
export function markIdsOf(marks: MarkColumns | null | undefined): MarkIdCount[] {
  if (marks == null) return [];
  const seen = new Map<number, { warps: number; lastRow: number }>();
  for (let k = 0; k < marks.count; k++) {
    const id = marks.id[k]!;
    const row = marks.warp[k]!;
    const s = seen.get(id);
    if (s === undefined) seen.set(id, { warps: 1, lastRow: row });
    else if (s.lastRow !== row) {
      s.warps++;
      s.lastRow = row;
    }
  }
  return [...seen].map(([id, s]) => ({ id, warps: s.warps })).sort((a, b) => a.id - b.id);
}
