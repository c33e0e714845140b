/**
 * The phases of each warp between its marks, for the Perfetto exports: a
 * warp with k marks becomes k + 1 slices nested in its own (start → first
 * mark, mark to mark, last mark → end), named as the phases panel and
 * `warptrace phases` name them ("start → before trace #0"). Nested slices,
 * not instant events: Perfetto draws them inside the warp's slice with their
 * durations, sums them per name when an area is selected, and lists them in
 * its `slice` table at depth 1 (instants would be 1-px ticks, their times
 * only the gaps between them).
 *
 * The warps are visited in row order (both exports walk the SM groups in
 * order), so one cursor runs over the mark columns: no object per mark.
 * Boundaries are rounded to ns as the warps are, and kept in [start, end] and
 * in order, so the phases tile their warp exactly.
 */
import type { MarkColumns } from '../../shared-schema/model.js';
import { phaseLabel } from '../marks.js';

export class WarpPhases {
  /** The current warp's marks are first .. end - 1 (none when equal). */
  first = 0;
  end = 0;
  private readonly marks: MarkColumns;
  /** Per mark, 1 + the index of its id in `ids` (0 stands for a warp's start or end). */
  private readonly idIndex: Uint32Array;
  private readonly ids: number[] = [];
  private readonly names = new Map<number, string>();

  constructor(marks: MarkColumns) {
    this.marks = marks;
    this.idIndex = new Uint32Array(marks.count);
    const index = new Map<number, number>();
    for (let k = 0; k < marks.count; k++) {
      const id = marks.id[k]!;
      let i = index.get(id);
      if (i === undefined) {
        this.ids.push(id);
        index.set(id, (i = this.ids.length));
      }
      this.idIndex[k] = i;
    }
  }

  /** Moves to warp `row` (rows ascending) and returns its phase count: its marks + 1, or 0 without marks. */
  at(row: number): number {
    const warp = this.marks.warp;
    const n = this.marks.count;
    let k = this.end;
    while (k < n && warp[k]! < row) k++;
    this.first = k;
    while (k < n && warp[k] === row) k++;
    this.end = k;
    return k === this.first ? 0 : k - this.first + 1;
  }

  /** Phase j's name key (≥ 0): from its ends' ids; the same key, the same name. */
  key(j: number): number {
    const from = j === 0 ? 0 : this.idIndex[this.first + j - 1]!;
    const to = this.first + j === this.end ? 0 : this.idIndex[this.first + j]!;
    return from * (this.ids.length + 1) + to;
  }

  name(key: number): string {
    let name = this.names.get(key);
    if (name === undefined) {
      const span = this.ids.length + 1;
      const from = Math.floor(key / span);
      const to = key % span;
      name = phaseLabel(from === 0 ? null : this.ids[from - 1]!, to === 0 ? null : this.ids[to - 1]!);
      this.names.set(key, name);
    }
    return name;
  }

  /**
   * Where phase j ends, in rounded ns: its mark's time (warp start + offset),
   * at least `after` (the previous boundary) and at most the warp's end `e`;
   * the last phase ends at `e`.
   */
  boundary(j: number, startNs: number, after: number, e: number): number {
    const k = this.first + j;
    if (k === this.end) return e;
    return Math.min(e, Math.max(after, Math.round(startNs + this.marks.offsetNs[k]!)));
  }
}
