/** Warps wide enough to print their custom id on, kept by the level of detail (lane-lod.ts) for the text layer. */
export class LabelList {
  rows = new Uint32Array(256);
  x0 = new Float64Array(256);
  x1 = new Float64Array(256);
  y = new Float32Array(256);
  count = 0;

  push(row: number, x0: number, x1: number, y: number): void {
    if (this.count === this.rows.length) this.grow();
    const k = this.count++;
    this.rows[k] = row;
    this.x0[k] = x0;
    this.x1[k] = x1;
    this.y[k] = y;
  }

  private grow(): void {
    const n = this.rows.length * 2;
    const rows = new Uint32Array(n);
    rows.set(this.rows);
    const x0 = new Float64Array(n);
    x0.set(this.x0);
    const x1 = new Float64Array(n);
    x1.set(this.x1);
    const y = new Float32Array(n);
    y.set(this.y);
    Object.assign(this, { rows, x0, x1, y });
  }
}
