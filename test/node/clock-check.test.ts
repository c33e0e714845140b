// The host clock check's arithmetic (wtFitClockSamples in capture/host/warptrace_clocks.h),
// compiled from C and fed brackets shaped like what lavapipe and the H100 gave:
// a first bracket that holds a shader compile, a 32-bit device clock that wraps
// between the batches, epoch-scale shared clocks, and a clock that really runs
// at another rate. Before the fix the rate came from two batch means, so one
// slow bracket bent it (k = 1.01–1.31) and every warp moved by milliseconds.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoPath } from './paths.js';

const driver = join(mkdtempSync(join(tmpdir(), 'warptrace-clockfit-')), 'clock-fit');

before(() => {
  const cc = spawnSync('cc', ['-std=c99', '-O1', `-I${repoPath('capture/host')}`, repoPath('test/native/clock-fit-driver.c'), '-o', driver, '-lvulkan'], {
    encoding: 'utf8',
  });
  assert.equal(cc.status, 0, cc.stderr);
});

interface Bracket {
  readonly before: bigint;
  readonly after: bigint;
  readonly device: bigint;
}

interface Fit {
  readonly fit: 'unit-rate' | 'fitted-rate' | 'disagree';
  readonly used: number;
  readonly nsPerTick: number;
  readonly lowNs: number;
  readonly highNs: number;
  readonly shared: boolean;
  readonly shiftTicks: bigint;
}

function fitOf(brackets: readonly Bracket[], periodNs = 1): Fit {
  const input = brackets.map((b) => `${b.before} ${b.after} ${b.device}`).join('\n');
  const r = spawnSync(driver, [String(periodNs)], { input, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [fit, used, k, lo, hi, shared, shift] = r.stdout.trim().split(' ');
  return {
    fit: (['unit-rate', 'fitted-rate', 'disagree'] as const)[Number(fit)]!,
    used: Number(used),
    nsPerTick: Number(k),
    lowNs: Number(lo),
    highNs: Number(hi),
    shared: shared === '1',
    shiftTicks: BigInt(shift!),
  };
}

/**
 * 16 brackets in two batches 20 ms apart: the device clock reads `offsetNs` less
 * than the timestamps (times `nsPerTick` ns per tick) somewhere inside each bracket.
 */
function brackets(opts: { startNs: bigint; offsetNs: bigint; nsPerTick?: number; widthsNs?: readonly number[]; deviceMask?: bigint; stepNs?: bigint }): Bracket[] {
  const out: Bracket[] = [];
  const k = opts.nsPerTick ?? 1;
  let t = opts.startNs;
  for (let i = 0; i < 16; i++) {
    const width = BigInt(opts.widthsNs?.[i] ?? 100_000);
    const readAt = t + (width * BigInt(1 + (i % 3))) / 4n; // somewhere inside, not always the middle
    let device = BigInt(Math.round(Number(readAt - opts.offsetNs) / k));
    if (opts.stepNs) device -= device % opts.stepNs;
    out.push({ before: t, after: t + width, device: opts.deviceMask === undefined ? device : device & opts.deviceMask });
    t += width + 30_000n + (i === 7 ? 20_000_000n : 0n);
  }
  return out;
}

const MASK32 = 0xffffffffn;

test('a first bracket that holds a shader compile (40 ms) does not bend the rate: 1 ns per tick, offset exact', () => {
  const widthsNs = [40_000_000, ...Array<number>(15).fill(100_000)];
  const fit = fitOf(brackets({ startNs: 5_000_000_000n, offsetNs: 1_234_567_890n, widthsNs }));
  assert.equal(fit.fit, 'unit-rate');
  assert.equal(fit.nsPerTick, 1);
  assert.ok(fit.lowNs <= 1_234_567_890 && 1_234_567_890 <= fit.highNs, `[${fit.lowNs}, ${fit.highNs}]`);
  assert.ok(fit.highNs - fit.lowNs <= 100_000, 'as tight as the narrow brackets');
  assert.equal(fit.shiftTicks, -1_234_567_890n);
});

test('under load every bracket may be wide: the intersection still holds the offset', () => {
  const widthsNs = [154_000_000, 3_000_000, 80_000, 12_000_000, 200_000, 900_000, 60_000, 5_000_000, 150_000, 40_000_000, 70_000, 2_000_000, 65_000, 300_000, 100_000, 8_000_000];
  const fit = fitOf(brackets({ startNs: 77_000_000_000n, offsetNs: -987_654n, widthsNs }));
  assert.equal(fit.fit, 'unit-rate');
  assert.ok(fit.lowNs <= -987_654 && -987_654 <= fit.highNs);
});

test('a 32-bit device clock that wraps between the batches (lavapipe) is unwrapped: the offset is right modulo 2^32', () => {
  // The device clock's low word passes 2^32 during the 20 ms pause.
  const offsetNs = 3_000_000_000n - 4_294_967_296n + 10_000_000n;
  const fit = fitOf(brackets({ startNs: 3_000_000_000n, offsetNs, deviceMask: MASK32 }));
  assert.equal(fit.fit, 'unit-rate');
  // Timestamps shifted by the result must carry the device clock's low word.
  const b = brackets({ startNs: 3_000_000_000n, offsetNs, deviceMask: MASK32 });
  for (const s of b) {
    const shiftedBefore = (s.before + fit.shiftTicks) & MASK32;
    const shiftedAfter = (s.after + fit.shiftTicks) & MASK32;
    const inside = shiftedBefore <= shiftedAfter ? s.device >= shiftedBefore - 64n && s.device <= shiftedAfter + 64n : s.device >= shiftedBefore - 64n || s.device <= shiftedAfter + 64n;
    assert.ok(inside, `device ${s.device} outside shifted bracket [${shiftedBefore}, ${shiftedAfter}]`);
  }
});

test('NVIDIA: ns since 1970 in 32 ns steps on both clocks is one time base (no shift, exact at epoch scale)', () => {
  const fit = fitOf(brackets({ startNs: 1_795_238_398_714_022_400n, offsetNs: 0n, stepNs: 32n, widthsNs: Array<number>(16).fill(6_000) }));
  assert.equal(fit.fit, 'unit-rate');
  assert.equal(fit.shared, true);
  assert.equal(fit.shiftTicks, 0n);
});

test('a device clock that really runs at another rate is fitted on the narrow brackets', () => {
  const widthsNs = [30_000_000, ...Array<number>(15).fill(20_000)];
  const fit = fitOf(brackets({ startNs: 1_000_000_000n, offsetNs: 500_000n, nsPerTick: 1.25, widthsNs }));
  assert.equal(fit.fit, 'fitted-rate');
  assert.equal(fit.used, 15, 'the compile-sized bracket is left out');
  assert.ok(Math.abs(fit.nsPerTick - 1.25) < 1e-3, `rate ${fit.nsPerTick}`);
});

test('timestamp periods other than 1 ns: brackets are compared in ns', () => {
  // Timestamps tick every 4 ns; the device clock counts ns.
  const ns = brackets({ startNs: 8_000_000_000n, offsetNs: 2_000_000n, widthsNs: Array<number>(16).fill(40_000) });
  const ticks = ns.map((b) => ({ before: b.before / 4n, after: (b.after + 3n) / 4n, device: b.device }));
  const fit = fitOf(ticks, 4);
  assert.equal(fit.fit, 'unit-rate');
  assert.ok(fit.lowNs <= 2_000_000 + 4 && 2_000_000 - 4 <= fit.highNs);
  assert.equal(fit.shiftTicks, -500_000n);
});
