/**
 * Growable column buffer of rectangles for the instanced quad renderer:
 * per instance x0, x1 (ns relative to the geometry's origin, float32), y0, y1
 * (px) and a packed RGBA8 color. 20 bytes per rectangle; the count follows
 * pixels (level of detail), never warps.
 */
export const INSTANCE_FLOATS = 5;
export const INSTANCE_BYTES = INSTANCE_FLOATS * 4;

export class InstanceWriter {
  f32: Float32Array;
  u32: Uint32Array;
  count = 0;

  constructor(capacity = 1024) {
    const buffer = new ArrayBuffer(capacity * INSTANCE_BYTES);
    this.f32 = new Float32Array(buffer);
    this.u32 = new Uint32Array(buffer);
  }

  get capacity(): number {
    return this.f32.length / INSTANCE_FLOATS;
  }

  reset(): void {
    this.count = 0;
  }

  push(x0: number, x1: number, y0: number, y1: number, rgba: number): void {
    if (this.count === this.capacity) this.grow(this.count * 2);
    const o = this.count * INSTANCE_FLOATS;
    const f = this.f32;
    f[o] = x0;
    f[o + 1] = x1;
    f[o + 2] = y0;
    f[o + 3] = y1;
    this.u32[o + 4] = rgba;
    this.count++;
  }

  private grow(capacity: number): void {
    const buffer = new ArrayBuffer(capacity * INSTANCE_BYTES);
    const f32 = new Float32Array(buffer);
    f32.set(this.f32);
    this.f32 = f32;
    this.u32 = new Uint32Array(buffer);
  }
}
