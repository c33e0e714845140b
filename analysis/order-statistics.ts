/**
 * Exact order statistics (min, nearest-rank percentiles, max) and the
 * log-binned histogram of float32 durations, without sorting them.
 *
 * Non-negative float32 bit patterns order like their values. For each group
 * (a contiguous segment of bit patterns): one scan histograms the top 12 bits
 * (8 exponent + 3 mantissa bits = 8 bins per octave) and finds min and max,
 * a counting scatter orders the segment by that bin (in place), and each wanted rank is
 * then selected inside its bin by a second 11-bit histogram and a sort of
 * the tiny remainder (native sort keeps even adversarial input O(m log m)).
 * Unions of groups (a stage over all its draws) reuse the bin-ordered
 * segments: each rank's bin is cut out of every segment by binary search.
 */
import type { DurationHistogram } from './summary.js';

const L1_SHIFT = 20;
const L1_BINS = 1 << 11; // bit 31 (sign) is 0 for durations
const L2_SHIFT = 9;
const L2_MASK = (1 << 11) - 1;
/** Summary histogram bins: 2 mantissa bits = 4 bins per octave. */
const HISTOGRAM_SHIFT = 21;
const SORT_DIRECTLY = 64;

const toFloatBits = new Uint32Array(1);
const toFloat = new Float32Array(toFloatBits.buffer);

/** The float32 whose bit pattern is `bits`. */
export function floatOfBits(bits: number): number {
  toFloatBits[0] = bits;
  return toFloat[0]!;
}

/** Lower edge (ns) of summary histogram bin `bin`. */
export function binLowerNs(bin: number): number {
  return floatOfBits(bin * 2 ** HISTOGRAM_SHIFT);
}

/** Summary histogram bin of a duration in ns. */
export function binOfDuration(ns: number): number {
  toFloat[0] = ns;
  return toFloatBits[0]! >>> HISTOGRAM_SHIFT;
}

export interface SelectedStatistics {
  readonly minBits: number;
  readonly maxBits: number;
  /** Bit patterns at the requested ranks, in request order. */
  readonly rankBits: Uint32Array;
  readonly histogram: DurationHistogram;
}

/**
 * Order statistics of the segments [begin[k], begin[k+1]) of a bit-pattern
 * array; each segment is left ordered by level-1 bin (which `ofUnion` uses).
 */
export class SegmentSelector {
  private readonly l1 = new Uint32Array(L1_BINS);
  private readonly l2 = new Uint32Array(L2_MASK + 1);
  private readonly binStart = new Uint32Array(L1_BINS + 1);
  private scratch = new Uint32Array(1024);
  private gatherScratch = new Uint32Array(1024);

  /** `values`: the segments, reordered by bin in place as they are processed. */
  constructor(
    private readonly values: Uint32Array,
    private readonly begin: Uint32Array,
  ) {}

  /** Statistics of segment k at 0-based ascending `ranks`; adds its level-1 counts into `union`. */
  ofSegment(k: number, ranks: readonly number[], union: Float64Array): SelectedStatistics {
    const { values, l1, binStart } = this;
    const b0 = this.begin[k]!;
    const b1 = this.begin[k + 1]!;
    let minBits = 0xffffffff;
    let maxBits = 0;
    for (let i = b0; i < b1; i++) {
      const v = values[i]!;
      l1[v >>> L1_SHIFT]!++;
      if (v < minBits) minBits = v;
      if (v > maxBits) maxBits = v;
    }
    const minBin = minBits >>> L1_SHIFT;
    const maxBin = maxBits >>> L1_SHIFT;
    let at = 0;
    for (let b = minBin; b <= maxBin; b++) {
      binStart[b] = at;
      at += l1[b]!;
      union[b]! += l1[b]!;
    }
    const histogram = histogramOf(l1, minBin, maxBin);
    // Order the segment by bin, in place through a reused scratch buffer (fresh 10 M-entry arrays cost page faults).
    if (minBin !== maxBin) {
      const n = b1 - b0;
      if (this.scratch.length < n) this.scratch = new Uint32Array(Math.max(n, this.scratch.length * 2));
      const scratch = this.scratch;
      for (let i = b0; i < b1; i++) {
        const v = values[i]!;
        scratch[binStart[v >>> L1_SHIFT]!++] = v;
      }
      values.set(scratch.subarray(0, n), b0);
    } else {
      binStart[minBin] = b1 - b0;
    }
    // binStart[b] now holds the end of bin b (relative to b0); its start is that minus its count.
    const rankBits = new Uint32Array(ranks.length);
    let b = minBin;
    let before = 0;
    for (let j = 0; j < ranks.length; j++) {
      const r = ranks[j]!;
      while (before + l1[b]! <= r) before += l1[b++]!;
      const end = b0 + binStart[b]!;
      rankBits[j] = this.select(values.subarray(end - l1[b]!, end), r - before);
    }
    l1.fill(0, minBin, maxBin + 1);
    return { minBits, maxBits, rankBits, histogram };
  }

  /**
   * Statistics of the union of segments `keys` (already passed through
   * ofSegment), given their summed level-1 counts `union` (cleared here).
   */
  ofUnion(keys: readonly number[], union: Float64Array, ranks: readonly number[], minBits: number, maxBits: number): SelectedStatistics {
    const minBin = minBits >>> L1_SHIFT;
    const maxBin = maxBits >>> L1_SHIFT;
    const histogram = histogramOf(union, minBin, maxBin);
    const rankBits = new Uint32Array(ranks.length);
    let b = minBin;
    let before = 0;
    for (let j = 0; j < ranks.length; j++) {
      const r = ranks[j]!;
      while (before + union[b]! <= r) before += union[b++]!;
      // Gather bin b from every segment (each is ordered by bin).
      const size = union[b]!;
      if (this.gatherScratch.length < size) this.gatherScratch = new Uint32Array(Math.max(size, this.gatherScratch.length * 2));
      const gathered = this.gatherScratch.subarray(0, size);
      let at = 0;
      for (const k of keys) {
        const lo = firstOfBin(this.values, this.begin[k]!, this.begin[k + 1]!, b);
        const hi = firstOfBin(this.values, lo, this.begin[k + 1]!, b + 1);
        if (hi > lo) {
          gathered.set(this.values.subarray(lo, hi), at);
          at += hi - lo;
        }
      }
      rankBits[j] = this.select(gathered, r - before);
    }
    union.fill(0, minBin, maxBin + 1);
    return { minBits, maxBits, rankBits, histogram };
  }

  /** The value at `rank` among `values` (left unchanged). */
  private select(values: Uint32Array, rank: number): number {
    const n = values.length;
    if (n <= SORT_DIRECTLY) return values.slice().sort()[rank]!;
    const l2 = this.l2;
    for (let i = 0; i < n; i++) l2[(values[i]! >>> L2_SHIFT) & L2_MASK]!++;
    let b = 0;
    let before = 0;
    while (before + l2[b]! <= rank) before += l2[b++]!;
    const size = l2[b]!;
    for (let i = 0; i < n; i++) l2[(values[i]! >>> L2_SHIFT) & L2_MASK] = 0;
    const rest = new Uint32Array(size);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      if (((v >>> L2_SHIFT) & L2_MASK) === b) rest[at++] = v;
    }
    return rest.sort()[rank - before]!;
  }
}

/** First index in [lo, hi) of the bin-ordered `values` whose level-1 bin is ≥ `bin`. */
function firstOfBin(values: Uint32Array, lo: number, hi: number, bin: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! >>> L1_SHIFT < bin) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Summary histogram (two level-1 bins per bin) over level-1 counts minBin..maxBin. */
function histogramOf(l1: ArrayLike<number>, minBin: number, maxBin: number): DurationHistogram {
  const shift = HISTOGRAM_SHIFT - L1_SHIFT;
  const first = minBin >>> shift;
  const last = maxBin >>> shift;
  const counts: number[] = new Array(last - first + 1).fill(0);
  const lowerNs: number[] = [];
  for (let h = first; h <= last; h++) lowerNs.push(binLowerNs(h));
  for (let b = minBin; b <= maxBin; b++) counts[(b >>> shift) - first]! += l1[b]!;
  return { lowerNs, upperNs: binLowerNs(last + 1), counts };
}
