// GPU idle time: windows in which no warp ran on any SM. Between draws they are syncs;
// inside an open draw they are idle findings; the frame's busy time is the union of warps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { analyzeTrace, resolveThresholds } from '../../analysis/index.js';
import { decodeTrace, type Trace } from '../../shared-schema/index.js';
import { denseTraffic, traceOf, type WarpSpec } from './analysis-fixtures.js';
import { repoPath } from './paths.js';

/** A tessellated draw on SMs 0–3: VS and TCS warps until ~2 µs, nothing for 53 µs, then TES and FS. */
function tessellatedDraw(): WarpSpec[] {
  const warps: WarpSpec[] = [];
  for (let sm = 0; sm < 4; sm++) {
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 2, stage: 'VS', draw: 0, start: 0, durationNs: 500 }));
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 1, stage: 'TCS', draw: 0, start: 1000, durationNs: 900 }));
    warps.push(...denseTraffic({ sm, slots: 16, perSlot: 20, stage: 'TES', draw: 0, start: 55000, durationNs: 1000 }));
    warps.push(...denseTraffic({ sm, slots: 16, perSlot: 30, stage: 'FS', draw: 0, start: 56000, durationNs: 700 }));
  }
  return warps;
}

test('a window with no warp on any SM inside a draw is an idle finding: draw, start, duration, share', () => {
  const trace = traceOf({ warps: tessellatedDraw(), draws: 1 });
  const s = analyzeTrace(trace);
  // The last TCS warp (slot 7) ends at 1000 + 21 + 900; the first TES warp starts at 55000.
  const start = 1921;
  assert.equal(s.idle.count, 1);
  const win = s.idle.windows[0]!;
  assert.equal(win.draw, 0);
  assert.equal(win.startNs, start);
  assert.equal(win.durationNs, 55000 - start);
  assert.equal(win.shareOfFrame, (55000 - start) / s.frame.spanNs);
  assert.deepEqual([win.before.stage, win.after.stage], ['TCS', 'TES']);
  assert.equal(win.openDrawCount, 1);
  const f = s.findings.find((x) => x.kind === 'idle')!;
  assert.match(f.title, /^SMs idle 53\.1 µs inside draw 0: no warp ran$/);
  assert.equal(f.startNs, start);
  assert.equal(f.endNs, 55000);
  assert.equal(f.draw, 0);
  assert.equal(f.costNs, 55000 - start);
  assert.equal(f.shareOfFrame, win.shareOfFrame);
  assert.match(f.detail, /The last warp before it was a TCS warp of draw 0 on SM \d, slot 7; the next, a TES warp of draw 0/);
  // Draw spans say "busy" for the whole frame; the warps say otherwise.
  assert.equal(s.frame.drawBusyNs, s.frame.spanNs);
  assert.equal(s.frame.gpuBusyNs, s.frame.spanNs - (55000 - start));
  assert.equal(s.draws[0]!.idleNs, 55000 - start);
  assert.equal(s.syncs.count, 0);
});

test('idle between draws is the sync finding, idle inside a draw the idle finding: no window reported twice', () => {
  const warps: WarpSpec[] = [];
  for (let sm = 0; sm < 2; sm++) {
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 5, stage: 'VS', draw: 0, start: 0, durationNs: 1990 })); // 0 .. 10 µs
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 2, stage: 'VS', draw: 1, start: 15000, durationNs: 2490 })); // 15 .. 20 µs
    warps.push(...denseTraffic({ sm, slots: 8, perSlot: 2, stage: 'FS', draw: 1, start: 23000, durationNs: 2490 })); // 23 .. 28 µs
  }
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  const end0 = 7 * 3 + 5 * 1990 + 4 * 10; // slot 7's last warp
  const end1 = 15000 + 7 * 3 + 2 * 2490 + 10;
  assert.deepEqual(s.syncs.gaps.map((g) => [g.startNs, g.endNs, g.beforeDraw]), [[end0, 15000, 1]]);
  assert.deepEqual(s.idle.windows.map((w) => [w.startNs, w.endNs, w.draw]), [[end1, 23000, 1]]);
  const kinds = s.findings.filter((f) => f.kind === 'sync' || f.kind === 'idle');
  assert.deepEqual(kinds.map((f) => f.kind).sort(), ['idle', 'sync']);
  const [a, b] = kinds.map((f) => [f.startNs, f.endNs] as const).sort((x, y) => x[0] - y[0]);
  assert.ok(a![1] <= b![0], 'the sync and the idle window do not overlap');
  // Busy times: draws open except the sync gap; warps running except both windows.
  assert.equal(s.frame.spanNs - s.frame.drawBusyNs, 15000 - end0);
  assert.equal(s.frame.drawBusyNs - s.frame.gpuBusyNs, 23000 - end1);
  assert.equal(s.draws[0]!.idleNs, 0);
  assert.equal(s.draws[1]!.idleNs, 23000 - end1);
});

test('idleMinNs sets the shortest idle finding; counts and per-draw idle time stay exact', () => {
  const warps: WarpSpec[] = [];
  // 60 windows of 2 µs inside one draw: a warp on SM 0 every 3 µs lasting 1 µs.
  for (let k = 0; k <= 60; k++) warps.push({ sm: 0, slot: 0, stage: 'CS', draw: 0, start: k * 3000, end: k * 3000 + 1000 });
  const trace = traceOf({ warps, draws: 1 });
  const s = analyzeTrace(trace);
  assert.equal(s.idle.count, 60);
  assert.equal(s.idle.totalNs, 120000);
  assert.equal(s.idle.windows.length, 50, 'maxFindingsPerKind');
  assert.equal(s.findings.filter((f) => f.kind === 'idle').length, 50);
  assert.equal(s.draws[0]!.idleNs, 120000);
  const strict = analyzeTrace(trace, { thresholds: resolveThresholds({ idleMinNs: 2001 }) });
  assert.equal(strict.idle.count, 0);
  assert.equal(strict.findings.filter((f) => f.kind === 'idle').length, 0);
  assert.equal(strict.draws[0]!.idleNs, 120000, 'per-draw idle time has no threshold');
  assert.equal(strict.frame.gpuBusyNs, 61000);
});

test('a window inside overlapping draws names the draw whose warp ends it and counts the open draws', () => {
  const warps: WarpSpec[] = [
    { sm: 0, stage: 'VS', draw: 0, start: 0, end: 1000 },
    { sm: 1, stage: 'VS', draw: 1, start: 500, end: 1500 },
    { sm: 2, stage: 'FS', draw: 1, start: 6500, end: 7000 },
    { sm: 3, stage: 'FS', draw: 0, start: 7000, end: 9000 },
  ];
  const s = analyzeTrace(traceOf({ warps, draws: 2 }));
  assert.equal(s.idle.count, 1);
  const w = s.idle.windows[0]!;
  assert.deepEqual([w.startNs, w.endNs, w.draw, w.openDrawCount, w.openDraws], [1500, 6500, 1, 2, [0, 1]]);
  assert.match(s.findings.find((f) => f.kind === 'idle')!.title, /^SMs idle 5\.00 µs inside draw 1 \(2 draws open\)/);
});

test('idle windows across SMs with unaligned clocks are marked unreliable', () => {
  const warps: WarpSpec[] = [
    { sm: 0, stage: 'VS', draw: 0, start: 0, end: 1000 },
    { sm: 1, stage: 'FS', draw: 0, start: 5000, end: 6000 },
  ];
  const s = analyzeTrace(traceOf({ warps, draws: 1, aligned: false }));
  assert.equal(s.idle.reliable, false);
  assert.equal(s.findings.find((f) => f.kind === 'idle')!.reliable, false);
});

/** Busy time and idle windows from all warps sorted by start: the plain definition. */
function naiveIdle(trace: Trace): { busyNs: number; gaps: [number, number][] } {
  const w = trace.warps;
  const order = Array.from({ length: w.count }, (_, i) => i).sort((a, b) => w.startNs[a]! - w.startNs[b]!);
  const gaps: [number, number][] = [];
  let busyNs = 0;
  let from = NaN;
  let end = -Infinity;
  for (const i of order) {
    const s = w.startNs[i]!;
    const e = s + w.durationNs[i]!;
    if (s > end) {
      if (end !== -Infinity) {
        busyNs += end - from;
        gaps.push([end, s]);
      }
      from = s;
      end = e;
    } else if (e > end) end = e;
  }
  if (end !== -Infinity) busyNs += end - from;
  return { busyNs, gaps };
}

const SAMPLES = ['h100-aqt', 'h100-tess-stall', 'h100-syncs', 'h100-compute-graphics', 'h100-aqt-heavy', 'lavapipe-aqt'];
for (const name of SAMPLES) {
  const path = repoPath('samples', `${name}.wtrace`);
  test(`${name}: busy time and idle windows match all warps sorted by start`, { skip: existsSync(path) ? false : `${path} not present` }, () => {
    const trace = decodeTrace(new Uint8Array(readFileSync(path)));
    const s = analyzeTrace(trace, { thresholds: resolveThresholds({ idleMinNs: 0, syncMinGapNs: 0 }) });
    const naive = naiveIdle(trace);
    const close = (a: number, b: number) => Math.abs(a - b) < 1e-6 * s.frame.spanNs;
    assert.ok(close(s.frame.gpuBusyNs, naive.busyNs), `${s.frame.gpuBusyNs} vs ${naive.busyNs}`);
    // Every gap is either a sync (between draws) or an idle window (inside a draw), never both.
    const positive = naive.gaps.filter(([a, b]) => b > a);
    assert.equal(s.syncs.count + s.idle.count, positive.length);
    assert.ok(close(s.syncs.totalNs + s.idle.totalNs, s.frame.spanNs - s.frame.gpuBusyNs));
    assert.ok(close(s.idle.totalNs, s.frame.drawBusyNs - s.frame.gpuBusyNs));
    const gaps = new Set(positive.map(([a, b]) => `${a}-${b}`));
    const syncs = s.syncs.gaps.map((g) => `${g.startNs}-${g.endNs}`);
    const inside = s.idle.windows.map((w) => `${w.startNs}-${w.endNs}`);
    for (const key of [...syncs, ...inside]) assert.ok(gaps.has(key), key);
    assert.ok(!inside.some((key) => syncs.includes(key)));
    // The listed windows are the longest of the gaps that are not syncs.
    const syncSet = new Set(syncs);
    const insideDurations = positive.filter(([a, b]) => !syncSet.has(`${a}-${b}`)).map(([a, b]) => b - a);
    insideDurations.sort((x, y) => y - x);
    assert.deepEqual(s.idle.windows.map((w) => w.durationNs), insideDurations.slice(0, s.idle.windows.length));
  });
}
