// A segment's slope is never known better than the clocks' steps allow. Lavapipe's device
// clock counts single ns (no device step to speak of), and its SM clock counts ns too: a
// short segment's samples can sit exactly on a line. Its fit used to claim a slope error
// of 0, an infinite weight that turned the pooled slope into NaN (∞/∞) and refused the
// whole dump ("the SM clock fits NaN GHz"), a few captures in a hundred on a busy CI machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitSegment } from '../../shared-schema/clock-fit.js';
import { offsetSegments, type ClockRows, type FitContext } from '../../shared-schema/sm-clock.js';

const band = { halfStepNs: 0, cycleNs: 1, toleranceNs: 4 };

/** Samples exactly on y = 5000 + x (ns per cycle 1), x whole cycles. */
function exactSamples(n: number): { xs: Float64Array; ys: Float64Array } {
  const xs = Float64Array.from({ length: n }, (_, k) => k * 37);
  return { xs, ys: xs.map((x) => 5000 + x) };
}

test('a fit through samples exactly on a line still has the SM clock\'s one-cycle quantization as its noise', () => {
  const { xs, ys } = exactSamples(40);
  const fit = fitSegment(xs, ys, band, 1, 7, 8);
  assert.ok(fit !== null);
  assert.equal(fit.line.slope, 1);
  assert.equal(fit.rmsNs, 0, 'the samples do sit exactly on the line');
  let spread = 0;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const x of xs) spread += (x - mean) ** 2;
  assert.equal(fit.slopeError, band.cycleNs / Math.sqrt(12) / Math.sqrt(spread), 'one cycle, uniformly quantized, over the samples\' spread');
});

test('such a segment, pooled with a shared slope of unknown error, gets a finite slope', () => {
  const { xs, ys } = exactSamples(40);
  const own = fitSegment(xs, ys, band, 1, 7, 8);
  assert.ok(own !== null);
  const rows = { xs, ys } as unknown as ClockRows;
  const ctx = { prior: 1, band, kinkRmsNs: 1, crossCheckLimitNs: 16 } satisfies FitContext;
  for (const sharedError of [Infinity, 1e-6]) {
    const [placed] = offsetSegments(rows, [{ begin: 0, end: xs.length, own }], 0, Float64Array.of(1.0001), Float64Array.of(sharedError), ctx);
    assert.ok(placed !== undefined && Number.isFinite(placed.fit.line.slope) && Number.isFinite(placed.fit.line.intercept), `shared error ${sharedError}: ${JSON.stringify(placed?.fit.line)}`);
    assert.ok(Math.abs(placed.fit.line.slope - 1) < 1e-3, `the slope stays near the samples' (${placed.fit.line.slope})`);
  }
});
