/**
 * Linear-time sorts over typed arrays (LSD radix, 11-bit digits): the
 * analyses sort millions of durations and times, where comparator sorts
 * over objects or even native typed-array sorts are too slow.
 */

const BITS = 11;
const SIZE = 1 << BITS;
const MASK = SIZE - 1;
const PASSES = 3; // 33 bits cover a u32

/**
 * Stable sort of `keys` ascending (as unsigned 32-bit integers), carrying
 * `payload` along. Uses `keysTmp`/`payloadTmp` as scratch (same lengths).
 * Returns the arrays holding the sorted result (either the inputs or the scratch).
 */
export function radixSortPairs(
  keys: Uint32Array,
  payload: Uint32Array,
  keysTmp: Uint32Array,
  payloadTmp: Uint32Array,
): { keys: Uint32Array; payload: Uint32Array } {
  const n = keys.length;
  const hist = new Uint32Array(SIZE * PASSES);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    hist[k & MASK]!++;
    hist[SIZE + ((k >>> BITS) & MASK)]!++;
    hist[2 * SIZE + (k >>> (2 * BITS))]!++;
  }
  let src = keys;
  let srcPayload = payload;
  let dst = keysTmp;
  let dstPayload = payloadTmp;
  for (let pass = 0; pass < PASSES; pass++) {
    const base = pass * SIZE;
    const shift = pass * BITS;
    // A digit that is the same for every key does not reorder anything: skip the pass.
    let trivial = false;
    for (let d = 0; d < SIZE; d++) {
      const c = hist[base + d]!;
      if (c === n) trivial = true;
      if (c !== 0) break;
    }
    if (trivial || n < 2) continue;
    let sum = 0;
    for (let d = 0; d < SIZE; d++) {
      const c = hist[base + d]!;
      hist[base + d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = src[i]!;
      const at = hist[base + ((k >>> shift) & MASK)]!++;
      dst[at] = k;
      dstPayload[at] = srcPayload[i]!;
    }
    [src, dst] = [dst, src];
    [srcPayload, dstPayload] = [dstPayload, srcPayload];
  }
  return { keys: src, payload: srcPayload };
}

/**
 * Indices that sort `values` ascending (stable). Values must be finite and ≥ 0
 * (their IEEE bit patterns then sort like the numbers).
 */
export function argsortNonNegative(values: Float64Array): Uint32Array {
  const n = values.length;
  // Typed arrays use the platform's byte order, little-endian everywhere JS runs: [lo, hi].
  const words = new Uint32Array(values.buffer, values.byteOffset, n * 2);
  const lo = new Uint32Array(n);
  const hi = new Uint32Array(n);
  const index = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = words[2 * i]!;
    index[i] = i;
  }
  // Sort by the low word first, then stably by the high word.
  const first = radixSortPairs(lo, index, new Uint32Array(n), new Uint32Array(n));
  const order = first.payload;
  for (let i = 0; i < n; i++) hi[i] = words[2 * (order[i] as number) + 1]!;
  return radixSortPairs(hi, order, new Uint32Array(n), new Uint32Array(n)).payload;
}
