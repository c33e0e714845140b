/**
 * Color by duration percentile: where a warp's duration falls among the warps
 * of its own stage (a 3 µs fragment warp is slow, a 3 µs tessellation warp
 * may be typical). The stage's percentiles are exact and nearest-rank, as the
 * Statistics panel's: p_k is the duration at 1-based rank ceil(k·n). A warp at
 * least as long as its stage's p90 and shorter than its p95 is in class
 * "p90–p95"; classes < p25, p25–p50, p50–p75, p75–p90, p90–p95, p95–p99, ≥ p99,
 * through plasma from blue-violet (fast) to yellow (slow).
 *
 * Found without sorting the durations, in slices of rows (color-by.ts runs
 * the passes): a first pass counts each stage's durations in bins of 1/128
 * octave (the float32's top 16 bits); the bin holding each percentile's rank
 * is then known, and a second pass gathers only those bins' durations, which
 * are sorted to read the exact value at that rank.
 */
import { interpolatePlasma } from 'd3-scale-chromatic';
import { STAGE_COUNT, formatNs, stageInfo, type Trace } from '../../shared-schema/index.js';
import { classColors } from './class-palette.js';
import type { ClassFill, LegendEntry } from './color-by.js';

/** The percentiles that cut the classes. */
export const DURATION_CUTS: readonly number[] = [0.25, 0.5, 0.75, 0.9, 0.95, 0.99];
const CLASSES = DURATION_CUTS.length + 1;
const BIN_SHIFT = 16;
const BINS = 1 << (31 - BIN_SHIFT);

/** 0-based nearest rank of percentile p among n values (1-based ceil(p·n)), as analysis/duration-stats.ts. */
export function nearestRank(p: number, n: number): number {
  return Math.min(n, Math.max(1, Math.ceil(p * n))) - 1;
}

const pct = (p: number) => `p${Math.round(p * 100)}`;

/** Legend label of class k: "< p25", "p90–p95", "≥ p99". */
export function durationClassLabel(k: number): string {
  if (k === 0) return `< ${pct(DURATION_CUTS[0]!)}`;
  if (k === DURATION_CUTS.length) return `≥ ${pct(DURATION_CUTS[k - 1]!)}`;
  return `${pct(DURATION_CUTS[k - 1]!)}–${pct(DURATION_CUTS[k]!)}`;
}

export function durationClassRgb(k: number): number {
  const m = /^#([0-9a-f]{6})$/i.exec(interpolatePlasma(0.2 + (0.75 * k) / (CLASSES - 1)));
  return m === null ? 0x808080 : parseInt(m[1]!, 16);
}

/** Bin of a float32 duration's bit pattern (negative durations, which a valid trace has none of, go to bin 0). */
const binOf = (bits: number) => (bits >>> 31 === 1 ? 0 : bits >>> BIN_SHIFT);

interface Target {
  readonly stage: number;
  readonly cut: number;
  /** Index into `gathered`, and the rank within that bin. */
  readonly slot: number;
  readonly rank: number;
}

/** A bin whose warps straddle a percentile: each is compared with the stage's percentiles. */
const MIXED = 255;

export function durationFill(trace: Trace): ClassFill {
  const w = trace.warps;
  const classOf = new Uint8Array(w.count);
  const { stage, durationNs } = w;
  const bits = new Uint32Array(durationNs.buffer, durationNs.byteOffset, w.count);
  const cuts = DURATION_CUTS.length;
  const perStage = new Uint32Array(STAGE_COUNT);
  // Flat per (stage, bin) tables (2 MB, 1 MB, 0.5 MB): one index per warp in the hot loops.
  let counts: Uint32Array | null = new Uint32Array(STAGE_COUNT * BINS);
  let slotOfBin: Int16Array | null = null;
  const classOfBin = new Uint8Array(STAGE_COUNT * BINS);
  const gathered: Float32Array[] = [];
  const filled: number[] = [];
  const targets: Target[] = [];
  /** thresholds[s * cuts + k]: stage s's percentile k, ns. */
  const thresholds = new Float64Array(STAGE_COUNT * cuts).fill(Infinity);

  const histogram = {
    scan(begin: number, end: number): void {
      const c = counts!;
      for (let i = begin; i < end; i++) {
        const s = stage[i]!;
        perStage[s]!++;
        c[s * BINS + binOf(bits[i]!)]!++;
      }
    },
    done(): void {
      const c = counts!;
      const slots = (slotOfBin = new Int16Array(STAGE_COUNT * BINS).fill(-1));
      for (let s = 0; s < STAGE_COUNT; s++) {
        if (perStage[s] === 0) continue;
        let b = s * BINS;
        let before = 0;
        for (let k = 0; k < cuts; k++) {
          const r = nearestRank(DURATION_CUTS[k]!, perStage[s]!);
          while (before + c[b]! <= r) before += c[b++]!;
          if (slots[b]! < 0) {
            slots[b] = gathered.length;
            gathered.push(new Float32Array(c[b]!));
            filled.push(0);
          }
          targets.push({ stage: s, cut: k, slot: slots[b]!, rank: r - before });
        }
      }
      counts = null;
    },
  };
  const gather = {
    scan(begin: number, end: number): void {
      const slots = slotOfBin!;
      for (let i = begin; i < end; i++) {
        const k = slots[stage[i]! * BINS + binOf(bits[i]!)]!;
        if (k >= 0) gathered[k]![filled[k]!++] = durationNs[i]!;
      }
    },
    done(): void {
      for (const g of gathered) g.sort();
      for (const t of targets) thresholds[t.stage * cuts + t.cut] = gathered[t.slot]![t.rank]!;
      // Per (stage, bin): the class of every warp in it, or MIXED for a bin holding a percentile.
      const slots = slotOfBin!;
      for (let s = 0; s < STAGE_COUNT; s++) {
        if (perStage[s] === 0) continue;
        let k = 0;
        for (let b = 0; b < BINS; b++) {
          const at = s * BINS + b;
          if (slots[at]! >= 0) {
            classOfBin[at] = MIXED;
            while (k < cuts && binOf(floatBits(thresholds[s * cuts + k]!)) <= b) k++;
          } else classOfBin[at] = k;
        }
      }
      gathered.length = 0;
      slotOfBin = null;
    },
  };
  return {
    classOf,
    passes: [histogram, gather],
    fill(begin: number, end: number): void {
      for (let i = begin; i < end; i++) {
        const s = stage[i]!;
        let k = classOfBin[s * BINS + binOf(bits[i]!)]!;
        if (k === MIXED) {
          const d = durationNs[i]!;
          const o = s * cuts;
          k = 0;
          while (k < cuts && d >= thresholds[o + k]!) k++;
        }
        classOf[i] = k;
      }
    },
    palette() {
      const rgbs = Array.from({ length: CLASSES }, (_, k) => durationClassRgb(k));
      const legend: LegendEntry[] = rgbs.map((rgb, k) => ({ cls: k, label: durationClassLabel(k), title: durationClassTitle(k), rgb }));
      return {
        ...classColors(rgbs),
        legend,
        warpLabel: (row: number) => {
          const s = stage[row]!;
          const k = classOf[row]!;
          const at = (c: number) => `${pct(DURATION_CUTS[c]!)} ${formatNs(thresholds[s * cuts + c]!)}`;
          const bounds = [k > 0 ? at(k - 1) : null, k < cuts ? at(k) : null].filter((x) => x !== null).join(', ');
          return `${durationClassLabel(k)} of ${stageInfo(s).label} warps (${bounds})`;
        },
      };
    },
  };
}

const floatView = new Float32Array(1);
const bitsView = new Uint32Array(floatView.buffer);

/** The bit pattern of `ns` as a float32 (a threshold is a float32 duration, so exact). */
function floatBits(ns: number): number {
  floatView[0] = ns;
  return bitsView[0]!;
}

function durationClassTitle(k: number): string {
  const lo = k > 0 ? `at least as long as its stage's ${pct(DURATION_CUTS[k - 1]!)}` : '';
  const hi = k < DURATION_CUTS.length ? `shorter than its stage's ${pct(DURATION_CUTS[k]!)}` : '';
  return `warps ${[lo, hi].filter((x) => x !== '').join(' and ')} (exact nearest-rank percentiles per stage, as in Statistics)`;
}
