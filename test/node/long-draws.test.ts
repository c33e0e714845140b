// Draws of seconds (issue 21 B): lavapipe's device clock and SM clock both
// count ns, so their 32-bit words wrap every 4.29 s, and a signed difference
// against the draw's begin breaks 2.1 s away. Draws of 2.3, 8.6 and 20.5 s
// (as in the suite that found it) go through a simulated capture and must
// come back where they were, aligned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTrace, decodeWtraw, encodeWtraw, makeRandom, rawCaptureOf, synthesizeTrace, wtrawToWtrace, decodeTrace, type RawClockModel, type Trace } from '../../shared-schema/index.js';
import { worstStartErrorNs } from './clock-scenarios.js';
import { checkInvariants } from './fixtures.js';

/** As lavapipe: a 1 ns device clock, a 1 GHz SM clock, no SM ids; reads of a thread descheduled between its clocks come back up to 3 ms late. */
const LAVAPIPE_CLOCKS: RawClockModel = {
  originDeviceNs: 7_345_678_901_234,
  deviceStepNs: 1,
  smClockHz: 1e9,
  rateSpread: 0,
  offsetSpreadCycles: 2 ** 32,
  smClock: true,
  deviceClock: true,
  seed: 11,
  dropped: 0,
  lateReads: { fraction: 0.05, maxNs: 3e6 },
};

const DRAW_SECONDS = [2.3, 8.6, 20.5];
/** One warp of the 8.6 s draw runs 3.9 s (a warp's record tells lengths below 2^32 cycles). */
const LONG_WARP_NS = 3.9e9;

/**
 * Draws back to back, each with 8 lanes of warps of ~40 ms on one unknown
 * SM, and (lateBegin) begin timestamps written as llvmpipe writes them
 * inside a render pass: when its last tile starts, 0.49 s before the end.
 */
function longDraws(lateBegin: boolean): Trace {
  const random = makeRandom(5);
  const cols = { startNs: [] as number[], endNs: [] as number[], sm: [] as number[], warpSlot: [] as number[], stage: [] as number[], draw: [] as number[], customId: [] as number[], activeMask: [] as number[] };
  const push = (start: number, end: number, slot: number, d: number) => {
    cols.startNs.push(start);
    cols.endNs.push(end);
    cols.sm.push(0xffff);
    cols.warpSlot.push(slot);
    cols.stage.push(4);
    cols.draw.push(d);
    cols.customId.push(cols.customId.length);
    cols.activeMask.push(0xff);
  };
  let at = 1e6;
  const draws = DRAW_SECONDS.map((seconds, d) => {
    const from = at;
    const to = from + seconds * 1e9;
    for (let slot = 0; slot < 8; slot++) {
      let t = from + random() * 1e5;
      if (d === 1 && slot === 0) {
        push(t, t + LONG_WARP_NS, slot, d);
        t += LONG_WARP_NS + 1e4;
      }
      for (;;) {
        const end = t + 2e7 + random() * 4e7;
        if (end > to) break;
        push(t, end, slot, d);
        t = end + 1e3 + random() * 1e4;
      }
    }
    at = to + 1e6;
    return { index: d, label: `${seconds} s draw`, kind: 'draw' as const, gpuBeginNs: lateBegin ? to - 0.49e9 : from - 1e3, gpuEndNs: to + 1e3 };
  });
  const base = synthesizeTrace({ warps: 1, seed: 1 });
  const n = cols.startNs.length;
  const device = { ...base.device, smCount: null, warpsPerSm: null, subgroupSize: 8, smBuiltins: false };
  return buildTrace({ device, capture: { ...base.capture, recordsKept: n, recordsWritten: n, bufferCapacity: n }, draws, warps: cols });
}

function rawOf(truth: Trace, driverName: string | null): Uint8Array {
  const { raw } = rawCaptureOf(truth, LAVAPIPE_CLOCKS);
  const metadata = raw.metadata as { device: Record<string, unknown> };
  if (driverName !== null) metadata.device['driverName'] = driverName;
  return encodeWtraw(raw);
}

function assertPlaced(truth: Trace, decoded: Trace): void {
  checkInvariants(decoded);
  assert.equal(decoded.warps.count, truth.warps.count);
  // The origin is the capture start's device time (a 1 ns clock: exact).
  assert.equal(decoded.capture.originDeviceNs, String(LAVAPIPE_CLOCKS.originDeviceNs));
  const worst = worstStartErrorNs(truth, decoded, LAVAPIPE_CLOCKS, () => true);
  assert.ok(worst <= 2, `worst start error ${worst} ns`);
  // The 3.9 s warp keeps its length.
  const long = decoded.warps.durationNs.findIndex((ns) => ns > 3e9);
  assert.ok(Math.abs((decoded.warps.durationNs[long] as number) - LONG_WARP_NS) < 1e3, `the long warp lasts ${decoded.warps.durationNs[long]} ns`);
  const cal = decoded.capture.calibration;
  assert.equal(cal.method, 'per-sm-fit');
  assert.equal(cal.drawBounds?.outside, 0, JSON.stringify(cal.drawBounds));
  assert.equal(cal.alignedAcrossSms, true, cal.note);
}

test('draws of 2.3, 8.6 and 20.5 s whose clock words wrap convert with every warp in place, aligned', () => {
  const truth = longDraws(false);
  assert.ok(truth.warps.count > 3000);
  const bytes = rawOf(truth, null);
  assertPlaced(truth, decodeWtraw(bytes));
  // The file the converter writes reads back the same.
  assertPlaced(truth, decodeTrace(wtrawToWtrace(bytes).wtrace));
});

test('long draws convert aligned when llvmpipe writes their begin timestamps at its last tile', () => {
  const truth = longDraws(true);
  assertPlaced(truth, decodeWtraw(rawOf(truth, 'llvmpipe')));
});
