/**
 * Exact tick arithmetic for 64-bit clock values. A double holds integers
 * exactly only up to 2^53, and NVIDIA's timestamps count ns since 1970
 * (~1.8e18): `Number(t) * period` there is off by up to 256 ticks. Every
 * finite double is m·2^e with integer m, so scaling by doubles is done on
 * those integers in BigInt, rounded once at the end.
 */

/** x (finite, > 0) as integer m and exponent e with x = m·2^e. */
function dyadic(x: number): { m: bigint; e: number } {
  let e = 0;
  while (!Number.isInteger(x)) {
    x *= 2; // exact: multiplying by 2 only moves the exponent
    e--;
  }
  return { m: BigInt(x), e };
}

/** round(t · num / den) exactly, halves away from zero; num and den finite and > 0. */
export function scaleTicks(t: bigint, num: number, den: number): bigint {
  if (!(num > 0 && den > 0 && Number.isFinite(num) && Number.isFinite(den))) throw new RangeError(`scaleTicks: bad ratio ${num}/${den}`);
  if (num === den) return t;
  const n = dyadic(num);
  const d = dyadic(den);
  const shift = n.e - d.e;
  const top = (t < 0n ? -t : t) * n.m * (shift > 0 ? 1n << BigInt(shift) : 1n);
  const bottom = d.m * (shift < 0 ? 1n << BigInt(-shift) : 1n);
  const q = (2n * top + bottom) / (2n * bottom);
  return t < 0n ? -q : q;
}
