/**
 * Canonical row order (SM group, then start time) without comparison sorts:
 * a counting sort by SM, then an LSD radix sort of integer time keys within
 * each group. Linear time, so 10 M GPU records sort in a few hundred ms.
 */

export interface GroupedOrder {
  /** order[k] = source row of output row k; null when the input is already canonical. */
  readonly order: Uint32Array | null;
  /** Distinct group keys, ascending. */
  readonly groupKeys: Uint16Array;
  /** Output row offsets per group (length groups+1). */
  readonly offsets: Uint32Array;
}

const DIGIT_BITS = 11;
const WIDE_DIGIT_BITS = 16;
const DIGIT_SIZE = 1 << DIGIT_BITS;
const DIGIT_MASK = DIGIT_SIZE - 1;
const TWO_POW_32 = 4294967296;
/** Below this many rows a group is insertion-sorted. */
const SMALL_GROUP = 48;

/**
 * Orders rows by (group, key) with ties kept in input order.
 * `group` values are 0..65535; `key` values are integers in [0, 2^53).
 */
export function groupedOrder(group: ArrayLike<number>, key: Float64Array): GroupedOrder {
  const n = key.length;
  const counts = new Uint32Array(65537);
  for (let i = 0; i < n; i++) counts[(group[i] as number) + 1]!++;
  let groups = 0;
  for (let g = 1; g <= 65536; g++) if (counts[g] !== 0) groups++;
  const groupKeys = new Uint16Array(groups);
  const offsets = new Uint32Array(groups + 1);
  {
    let k = 0;
    let total = 0;
    for (let g = 0; g < 65536; g++) {
      const c = counts[g + 1] as number;
      if (c === 0) continue;
      groupKeys[k] = g;
      offsets[k] = total;
      total += c;
      k++;
    }
    offsets[groups] = total;
  }
  if (isCanonical(group, key)) return { order: null, groupKeys, offsets };

  // Counting sort by group: start position of each group value.
  const cursor = new Uint32Array(65536);
  for (let k = 0; k < groups; k++) cursor[groupKeys[k] as number] = offsets[k] as number;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[cursor[group[i] as number]!++] = i;

  const scratch = new Uint32Array(n);
  for (let k = 0; k < groups; k++) {
    sortRangeByKey(order, scratch, offsets[k] as number, offsets[k + 1] as number, key);
  }
  return { order, groupKeys, offsets };
}

function isCanonical(group: ArrayLike<number>, key: Float64Array): boolean {
  for (let i = 1; i < key.length; i++) {
    const g0 = group[i - 1] as number;
    const g1 = group[i] as number;
    if (g1 < g0 || (g1 === g0 && (key[i] as number) < (key[i - 1] as number))) return false;
  }
  return true;
}

/** Stable sort of order[begin..end) by key[order[i]]. */
function sortRangeByKey(order: Uint32Array, scratch: Uint32Array, begin: number, end: number, key: Float64Array): void {
  const n = end - begin;
  if (n < 2) return;
  if (n <= SMALL_GROUP) {
    for (let i = begin + 1; i < end; i++) {
      const row = order[i] as number;
      const k = key[row] as number;
      let j = i - 1;
      while (j >= begin && (key[order[j] as number] as number) > k) {
        order[j + 1] = order[j] as number;
        j--;
      }
      order[j + 1] = row;
    }
    return;
  }
  let min = Infinity;
  let max = -Infinity;
  let sorted = true;
  let prev = -Infinity;
  for (let i = begin; i < end; i++) {
    const k = key[order[i] as number] as number;
    if (k < min) min = k;
    if (k > max) max = k;
    if (k < prev) sorted = false;
    prev = k;
  }
  if (sorted) return;
  const range = max - min;
  if (range < TWO_POW_32) {
    sortRangeByU32Key(order, scratch, begin, end, key, min, range);
    return;
  }
  // Keys relative to min, split into 32-bit halves, carried along with the rows
  // so each pass reads sequentially.
  let lo: Uint32Array = new Uint32Array(n);
  let hi: Uint32Array = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const k = (key[order[begin + i] as number] as number) - min;
    const low = k >>> 0; // the low word of an integer below 2^53
    lo[i] = low;
    hi[i] = (k - low) / TWO_POW_32;
  }
  let rows: Uint32Array = order.subarray(begin, end);
  let rowsTmp: Uint32Array = scratch.subarray(begin, end);
  let loTmp: Uint32Array = new Uint32Array(n);
  let hiTmp: Uint32Array = new Uint32Array(n);
  const bits = Math.ceil(Math.log2(range + 1));
  const hist = new Uint32Array(DIGIT_SIZE);
  for (let shift = 0; shift < bits; shift += DIGIT_BITS) {
    hist.fill(0);
    const fromHi = shift >= 32;
    const s = fromHi ? shift - 32 : shift;
    // A digit that straddles bit 32 is taken from both halves.
    const straddles = !fromHi && s + DIGIT_BITS > 32;
    const digitOf = (i: number): number => {
      if (fromHi) return (hi[i]! >>> s) & DIGIT_MASK;
      if (straddles) return ((lo[i]! >>> s) | (hi[i]! << (32 - s))) & DIGIT_MASK;
      return (lo[i]! >>> s) & DIGIT_MASK;
    };
    for (let i = 0; i < n; i++) hist[digitOf(i)]!++;
    prefixSums(hist);
    for (let i = 0; i < n; i++) {
      const dst = hist[digitOf(i)]!++;
      rowsTmp[dst] = rows[i] as number;
      loTmp[dst] = lo[i] as number;
      hiTmp[dst] = hi[i] as number;
    }
    [rows, rowsTmp] = [rowsTmp, rows];
    [lo, loTmp] = [loTmp, lo];
    [hi, hiTmp] = [hiTmp, hi];
  }
  // After an odd number of passes the sorted rows sit in the scratch range.
  if (rows.buffer === scratch.buffer) order.set(rows, begin);
}

/** In place: each count becomes the sum of the counts before it. */
function prefixSums(hist: Uint32Array): void {
  let sum = 0;
  for (let d = 0; d < hist.length; d++) {
    const c = hist[d] as number;
    hist[d] = sum;
    sum += c;
  }
}

/** sortRangeByKey for keys within 2^32 of their minimum: one u32 key per row, no closures. */
function sortRangeByU32Key(order: Uint32Array, scratch: Uint32Array, begin: number, end: number, key: Float64Array, min: number, range: number): void {
  const n = end - begin;
  let keys = new Uint32Array(n);
  let keysTmp = new Uint32Array(n);
  for (let i = 0; i < n; i++) keys[i] = (key[order[begin + i] as number] as number) - min;
  let rows: Uint32Array = order.subarray(begin, end);
  let rowsTmp: Uint32Array = scratch.subarray(begin, end);
  const bits = Math.ceil(Math.log2(range + 1));
  // Fewer, wider digits for big groups (two 16-bit passes from 64 Ki rows on); the histogram must stay small next to n.
  const widest = n >= 1 << WIDE_DIGIT_BITS ? WIDE_DIGIT_BITS : DIGIT_BITS;
  const digitBits = Math.max(4, Math.min(widest, Math.ceil(bits / Math.max(1, Math.ceil(bits / widest)))));
  const mask = (1 << digitBits) - 1;
  const hist = new Uint32Array(1 << digitBits);
  for (let shift = 0; shift < bits; shift += digitBits) {
    hist.fill(0);
    for (let i = 0; i < n; i++) hist[((keys[i] as number) >>> shift) & mask]!++;
    prefixSums(hist);
    for (let i = 0; i < n; i++) {
      const k = keys[i] as number;
      const dst = hist[(k >>> shift) & mask]!++;
      rowsTmp[dst] = rows[i] as number;
      keysTmp[dst] = k;
    }
    const r = rows;
    rows = rowsTmp;
    rowsTmp = r;
    const t = keys;
    keys = keysTmp;
    keysTmp = t;
  }
  if (rows.buffer === scratch.buffer && rows.byteOffset === scratch.byteOffset + begin * 4) order.set(rows, begin);
}

/** Insertion sort gives up past this many moves per row (then radix sort). */
const INSERTION_MOVES_PER_ROW = 4;
/** More than this share of rows out of place sends keys straight to the radix sort. */
const FAR_FROM_SORTED = 1 / 8;

/**
 * The radix sort's scratch, grown as needed and kept: rows are sorted in
 * slices, over and over, and fresh memory costs page faults and memory
 * traffic (the kernel zeroes each page). Module state is per thread.
 */
const scratch = { rows: new Uint32Array(0), rowsTmp: new Uint32Array(0), keys: new Uint32Array(0), keysTmp: new Uint32Array(0) };

function scratchFor(n: number): typeof scratch {
  if (scratch.rows.length < n) {
    const size = Math.max(n, Math.ceil(scratch.rows.length * 1.5));
    scratch.rows = new Uint32Array(size);
    scratch.rowsTmp = new Uint32Array(size);
    scratch.keys = new Uint32Array(size);
    scratch.keysTmp = new Uint32Array(size);
  }
  return scratch;
}

/**
 * Stable sort of rows [begin, end) by integer keys (|key| < 2^53), written
 * straight to outRows[begin + k] (the row of rank k) and outKeys[begin + k]
 * (its key). Rows nearly in order (GPU records in completion order, sorted
 * by end cycles) take an insertion sort; others an LSD radix sort.
 */
export function sortRowsInto(key: Float64Array, begin: number, end: number, outRows: Uint32Array, outKeys: Float64Array): void {
  const n = end - begin;
  // Rows below an earlier key: none means sorted; many, far from sorted (the insertion sort would only give up late).
  let below = 0;
  let max = -Infinity;
  let min = Infinity;
  for (let i = begin; i < end; i++) {
    const k = key[i] as number;
    if (k < max) below++;
    else max = k;
    if (k < min) min = k;
  }
  if (below === 0) {
    for (let i = begin; i < end; i++) {
      outRows[i] = i;
      outKeys[i] = key[i] as number;
    }
    return;
  }
  if (below <= n * FAR_FROM_SORTED && insertionSortInto(key, begin, end, outRows)) {
    for (let i = begin; i < end; i++) outKeys[i] = key[outRows[i] as number] as number;
    return;
  }
  if (max - min < TWO_POW_32) {
    radixSortInto(key, begin, end, min, max - min, outRows, outKeys);
    return;
  }
  // Keys spread beyond 32 bits: the general radix sort (rare: a capture over ~4 minutes of one SM).
  const order = Uint32Array.from({ length: n }, (_, k) => begin + k);
  sortRangeByKey(order, new Uint32Array(n), 0, n, key);
  for (let k = 0; k < n; k++) {
    outRows[begin + k] = order[k] as number;
    outKeys[begin + k] = key[order[k] as number] as number;
  }
}

/** Insertion sort of rows [begin, end) into outRows; false when it gave up (too many moves). */
function insertionSortInto(key: Float64Array, begin: number, end: number, outRows: Uint32Array): boolean {
  for (let i = begin; i < end; i++) outRows[i] = i;
  let budget = INSERTION_MOVES_PER_ROW * (end - begin) + SMALL_GROUP * SMALL_GROUP;
  for (let i = begin + 1; i < end; i++) {
    const k = key[i] as number;
    let j = i - 1;
    if ((key[outRows[j] as number] as number) <= k) continue;
    while (j >= begin && (key[outRows[j] as number] as number) > k) {
      outRows[j + 1] = outRows[j] as number;
      j--;
      budget--;
    }
    outRows[j + 1] = i;
    if (budget < 0) return false;
  }
  return true;
}

/** LSD radix sort of rows [begin, end) by key − min (< 2^32), its last pass writing outRows/outKeys. */
function radixSortInto(key: Float64Array, begin: number, end: number, min: number, range: number, outRows: Uint32Array, outKeys: Float64Array): void {
  const n = end - begin;
  const { rows: rows0, rowsTmp: rows1, keys: keys0, keysTmp: keys1 } = scratchFor(n);
  for (let k = 0, i = begin; k < n; k++, i++) {
    keys0[k] = (key[i] as number) - min;
    rows0[k] = i;
  }
  const bits = Math.max(1, Math.ceil(Math.log2(range + 1)));
  // Fewer, wider digits for big slices (two 16-bit passes from 64 Ki rows on); the histogram must stay small next to n.
  const widest = n >= 1 << WIDE_DIGIT_BITS ? WIDE_DIGIT_BITS : DIGIT_BITS;
  const passes = Math.ceil(bits / widest);
  const digitBits = Math.ceil(bits / passes);
  const mask = (1 << digitBits) - 1;
  const hist = new Uint32Array(1 << digitBits);
  let rows = rows0;
  let keys = keys0;
  let rowsTo = rows1;
  let keysTo = keys1;
  for (let pass = 0; pass < passes; pass++) {
    const shift = pass * digitBits;
    hist.fill(0);
    for (let k = 0; k < n; k++) hist[((keys[k] as number) >>> shift) & mask]!++;
    prefixSums(hist);
    if (pass === passes - 1) {
      // The last pass lands in the output: rows, and keys back in their own units.
      for (let k = 0; k < n; k++) {
        const key32 = keys[k] as number;
        const dst = begin + hist[(key32 >>> shift) & mask]!++;
        outRows[dst] = rows[k] as number;
        outKeys[dst] = key32 + min;
      }
      return;
    }
    for (let k = 0; k < n; k++) {
      const key32 = keys[k] as number;
      const dst = hist[(key32 >>> shift) & mask]!++;
      rowsTo[dst] = rows[k] as number;
      keysTo[dst] = key32;
    }
    [rows, rowsTo] = [rowsTo, rows];
    [keys, keysTo] = [keysTo, keys];
  }
}

/** Stable order of integer keys (|key| < 2^53): order[k] = row of rank k. */
export function sortedOrder(key: Float64Array): Uint32Array {
  const order = new Uint32Array(key.length);
  sortRowsInto(key, 0, key.length, order, new Float64Array(key.length));
  return order;
}

/** out[k] = src[order[k]] for any typed array. */
export function gather<T extends Float64Array | Float32Array | Uint32Array | Uint16Array | Uint8Array>(
  src: T,
  order: Uint32Array,
  out: T,
): T {
  for (let k = 0; k < order.length; k++) out[k] = src[order[k] as number] as number;
  return out;
}
