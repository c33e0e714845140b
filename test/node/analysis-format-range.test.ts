// Issue 24: one number format (thousands grouped everywhere: "1,629", "1,073,317 → 858,761"),
// a negative gap in words, and range counts limited to a pass's draws (the range summary's
// pass filter), against a brute-force count on the pass frame.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatNumber, gapBeforeCell, gapBeforeText } from '../../analysis/format.js';
import { rangeCounts } from '../../analysis/range-counts.js';
import { passDrawMask } from '../../viewer/model/pass-filter.js';
import { PASS_NAMES, passFrameTrace } from './pass-frame.js';

test('formatNumber groups thousands, keeps decimals fixed, and integers integral', () => {
  assert.equal(formatNumber(1629), '1,629');
  assert.equal(`${formatNumber(1073317)} → ${formatNumber(858761)}`, '1,073,317 → 858,761');
  assert.equal(formatNumber(1234.56), '1,234.6');
  assert.equal(formatNumber(9.14), '9.1');
  assert.equal(formatNumber(0.5, 2), '0.50');
  assert.equal(formatNumber(12), '12');
  assert.equal(formatNumber(null), '–');
  assert.equal(formatNumber(-1234.5), '-1,234.5');
  assert.equal(formatNumber(-1000), '-1,000');
  assert.equal(formatNumber(999), '999');
});

test('a negative gap before a draw is an overlap, in words and in a cell', () => {
  assert.equal(gapBeforeText(-448), 'overlapped the draws before it by 448 ns');
  assert.equal(gapBeforeText(7350), 'gap before it 7.35 µs');
  assert.equal(gapBeforeText(0), 'no gap before it');
  assert.equal(gapBeforeText(null), 'the first to start');
  assert.equal(gapBeforeCell(-448), 'overlap 448 ns');
  assert.equal(gapBeforeCell(7350), '7.35 µs');
});

test('range counts of one pass: the warps of its draws that meet the range, their time inside it', () => {
  const trace = passFrameTrace();
  const mask = passDrawMask(trace, 4 * PASS_NAMES.indexOf('Bloom'));
  const [s, e] = [1_450_000, 1_530_000];
  const all = rangeCounts(trace, s, e);
  const own = rangeCounts(trace, s, e, undefined, mask);
  const w = trace.warps;
  let warps = 0;
  let inside = 0;
  for (let i = 0; i < w.count; i++) {
    const a = w.startNs[i]!;
    const b = a + w.durationNs[i]!;
    if (mask[w.draw[i]!] === 1 && b >= s && a <= e) {
      warps++;
      inside += Math.min(b, e) - Math.max(a, s);
    }
  }
  assert.ok(warps > 0 && warps < all.warps, `the range reaches into the passes before and after Bloom: ${warps} of ${all.warps}`);
  assert.equal(own.warps, warps);
  const busy = own.busyNsPerStage.reduce((x, y) => x + y, 0);
  assert.ok(Math.abs(busy - inside) < 1e-6, `${busy} vs ${inside}`);
  assert.ok(Math.abs(own.busyNsPerDraw.reduce((x, y) => x + y, 0) - inside) < 1e-6, 'per draw adds up to the same');
  for (let d = 0; d < mask.length; d++) if (mask[d] === 0) assert.equal(own.perDraw[d], 0);
  assert.deepEqual(Array.from(all.perDraw.filter((_, d) => mask[d] === 1)), Array.from(own.perDraw.filter((_, d) => mask[d] === 1)), 'its draws counted as without the mask');
});
