/**
 * Each SM's busy intervals: the union of its warps' [start, end), with the
 * row that opens each interval and the row whose end closes it. Filled by the
 * sweep's row loop (it reads the start and duration columns anyway; a second
 * pass over 10 M rows costs ~100 ms), read by the GPU-idle merge.
 */
export class BusyIntervals {
  /** Group g's intervals are [groupBegin[g], groupBegin[g + 1]), in time order. */
  readonly groupBegin: Uint32Array;
  startNs = new Float64Array(256);
  endNs = new Float64Array(256);
  firstRow = new Uint32Array(256);
  endRow = new Uint32Array(256);
  count = 0;
  private groups = 0;

  constructor(groupCount: number) {
    this.groupBegin = new Uint32Array(groupCount + 1);
  }

  push(start: number, end: number, firstRow: number, endRow: number): void {
    if (this.count === this.startNs.length) this.grow();
    const j = this.count++;
    this.startNs[j] = start;
    this.endNs[j] = end;
    this.firstRow[j] = firstRow;
    this.endRow[j] = endRow;
  }

  /** Closes the current SM group (call once per group, in group order). */
  endGroup(): void {
    this.groupBegin[++this.groups] = this.count;
  }

  private grow(): void {
    const n = this.startNs.length * 2;
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    const u32 = (a: Uint32Array) => {
      const b = new Uint32Array(n);
      b.set(a);
      return b;
    };
    this.startNs = f64(this.startNs);
    this.endNs = f64(this.endNs);
    this.firstRow = u32(this.firstRow);
    this.endRow = u32(this.endRow);
  }
}
