// Device ticks from timestamp ticks at epoch scale: exact, whatever the rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scaleTicks } from '../../shared-schema/exact-ticks.js';

/** A deterministic 63-bit value stream (xorshift64*). */
function* values(seed: bigint, n: number): Generator<bigint> {
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x >> 12n;
    x ^= (x << 25n) & 0xffffffffffffffffn;
    x ^= x >> 27n;
    yield ((x * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 1n;
  }
}

test('ticks scaled by dyadic rates are exact at epoch scale (the old Number() path lost up to 256 ticks)', () => {
  const rates: readonly [number, number, bigint, bigint][] = [
    [1, 0.5, 2n, 1n],
    [1.25, 1, 5n, 4n],
    [1, 1.25, 4n, 5n],
    [0.75, 1, 3n, 4n],
    [3, 1, 3n, 1n],
    [1, 1024, 1n, 1024n],
  ];
  for (const [num, den, p, q] of rates) {
    for (const t of values(0x9e3779b97f4a7c15n, 200)) {
      const exact = (2n * t * p + q) / (2n * q);
      assert.equal(scaleTicks(t, num, den), exact, `${t} · ${num}/${den}`);
    }
  }
  const t = 1_795_238_398_714_022_401n;
  assert.equal(scaleTicks(t, 1, 0.5), 3_590_476_797_428_044_802n);
  assert.notEqual(BigInt(Math.round(Number(t) / 0.5)), 3_590_476_797_428_044_802n, 'the float path is not exact here');
});

test('equal rates return the ticks unchanged; negative ticks round symmetrically; bad rates are refused', () => {
  assert.equal(scaleTicks(123_456_789_012_345_678n, 1.000_000_1, 1.000_000_1), 123_456_789_012_345_678n);
  assert.equal(scaleTicks(-5n, 1, 2), -3n);
  assert.equal(scaleTicks(5n, 1, 2), 3n);
  assert.throws(() => scaleTicks(1n, 0, 1), RangeError);
  assert.throws(() => scaleTicks(1n, 1, Number.NaN), RangeError);
});

test('non-dyadic rates: the result is within half a tick of the rational value of the doubles', () => {
  for (const t of values(0x1234567n, 100)) {
    const r = scaleTicks(t, 1, 1.000_000_1);
    // 1.0000001 as a double is m·2^-52 exactly.
    const m = BigInt(1.000_000_1 * 2 ** 52);
    const twice = (2n * t * (1n << 52n)) / m; // floor(2·t/k)
    assert.ok(r * 2n - twice <= 1n && twice - r * 2n <= 1n, `${t}: ${r} vs ${twice}/2`);
  }
});
