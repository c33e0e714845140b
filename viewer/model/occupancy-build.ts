/**
 * Building a lane's occupancy pyramid (lane-index.ts OccupancyPyramid): per
 * code of a one-byte column (the stage, or a color-by class: class-occupancy.ts),
 * the average warps in flight per time bin, quantized to 16 bits, with its
 * mip levels. Rows are added in any number of slices, so a caller on the
 * page can yield between them; `finish` resolves the bins and builds the levels.
 */
import type { Trace } from '../../shared-schema/index.js';
import { addCoverage, resolveCoverage } from './coverage.js';
import type { OccupancyPyramid } from './lane-index.js';

/** Target warps per level-0 occupancy bin (memory vs. zoomed-in cost). */
export const WARPS_PER_BIN = 16;
const MAX_BINS = 1 << 22;
/** Codes a column may hold (a byte's low 5 bits). */
const CODES = 32;

export class OccupancyAccumulator {
  private readonly originNs: number;
  private readonly binNs: number;
  private readonly bins: number;
  private readonly slotOfCode = new Int8Array(CODES).fill(-1);
  private readonly present: number[] = [];
  private readonly area: Float32Array[] = [];
  private readonly diff: Float32Array[] = [];

  /**
   * @param begin, end the lane's rows (they size the bins: about WARPS_PER_BIN warps each).
   * @param firstStart, lastEnd the lane's first warp start and last warp end.
   * @param hiddenStages rows of these stages are left out.
   */
  constructor(
    private readonly trace: Trace,
    begin: number,
    end: number,
    firstStart: number,
    lastEnd: number,
    private readonly codes: Uint8Array,
    private readonly hiddenStages = 0,
  ) {
    const span = Math.max(1, lastEnd - firstStart);
    const targetBins = Math.max(1, Math.ceil((end - begin) / WARPS_PER_BIN));
    let binNs = 2 ** Math.ceil(Math.log2(span / targetBins));
    while (span / binNs > MAX_BINS) binNs *= 2;
    this.binNs = binNs;
    this.originNs = Math.floor(firstStart / binNs) * binNs;
    this.bins = Math.max(1, Math.ceil((lastEnd - this.originNs) / binNs) + 1);
  }

  /** Adds rows [from, to) of the lane. */
  add(from: number, to: number): this {
    const { startNs, durationNs, stage } = this.trace.warps;
    const { codes, hiddenStages, slotOfCode, area, diff, originNs } = this;
    const inv = 1 / this.binNs;
    for (let i = from; i < to; i++) {
      if (hiddenStages !== 0 && (hiddenStages >>> stage[i]!) & 1) continue;
      const code = codes[i]! & (CODES - 1);
      let k = slotOfCode[code]!;
      if (k < 0) k = this.open(code);
      const u0 = (startNs[i]! - originNs) * inv;
      addCoverage(area[k]!, diff[k]!, u0, u0 + durationNs[i]! * inv);
    }
    return this;
  }

  private open(code: number): number {
    const k = this.present.length;
    this.present.push(code);
    this.slotOfCode[code] = k;
    this.area.push(new Float32Array(this.bins));
    this.diff.push(new Float32Array(this.bins + 1));
    return k;
  }

  /** The pyramid (codes ascending) and the lane's peak warps in flight in one bin (all codes). */
  finish(): { pyramid: OccupancyPyramid; peak: number } {
    const { bins, area, diff } = this;
    const order = this.present.map((code, k) => ({ code, k })).sort((a, b) => a.code - b.code);
    let peak = 0;
    let maxValue = 0;
    const total = new Float32Array(bins);
    for (let k = 0; k < area.length; k++) {
      resolveCoverage(area[k]!, diff[k]!);
      const a = area[k]!;
      for (let b = 0; b < bins; b++) {
        total[b]! += a[b]!;
        if (a[b]! > maxValue) maxValue = a[b]!;
      }
    }
    for (let b = 0; b < bins; b++) if (total[b]! > peak) peak = total[b]!;
    // Quantize to 16 bits against the lane's largest bin: plenty for a chart.
    const unit = maxValue > 0 ? maxValue / 65535 : 1;
    const levels = order.map(({ k }) => quantizedPyramid(area[k]!, unit));
    const stages = Uint8Array.from(order, (o) => o.code);
    return { pyramid: { originNs: this.originNs, binNs: this.binNs, stages, levels, unit }, peak };
  }
}

function quantizedPyramid(level0: Float32Array, unit: number): Uint16Array[] {
  const out: Uint16Array[] = [];
  let cur = new Uint16Array(level0.length);
  const inv = 1 / unit;
  for (let b = 0; b < level0.length; b++) cur[b] = Math.min(65535, Math.round(level0[b]! * inv));
  out.push(cur);
  while (cur.length > 1) {
    const next = new Uint16Array(Math.ceil(cur.length / 2));
    for (let b = 0; b < next.length; b++) {
      const a = cur[2 * b]!;
      const c = 2 * b + 1 < cur.length ? cur[2 * b + 1]! : 0;
      next[b] = (a + c + 1) >>> 1;
    }
    out.push(next);
    cur = next;
  }
  return out;
}
