// The viewer's pure view-model modules and the two analysis helpers, checked
// against brute force on synthetic H100-shaped traces.
import { STAGE_COUNT, Stage, buildTrace, makeRandom, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import { rangeCounts } from '../../analysis/range-counts.js';
import { warpsInFlight } from '../../analysis/in-flight.js';
import { addCoverage, resolveCoverage } from '../../viewer/model/coverage.js';
import { buildLaneIndex, lowerBoundStart, rowsRunningAt } from '../../viewer/model/lane-index.js';
import { addPyramidColumns } from '../../viewer/model/occupancy.js';
import { LaneLodBuilder } from '../../viewer/model/lane-lod.js';
import { DEFAULT_LANE_OPTIONS, buildLaneLayout, laneAtY } from '../../viewer/model/lane-layout.js';
import { warpAt } from '../../viewer/model/hit-test.js';
import { buildDrawLayout } from '../../viewer/model/draw-layout.js';
import { axisTicks, formatTick } from '../../viewer/model/time-axis.js';
import { clampWindow, lodColumnNs, zoomAround } from '../../viewer/model/time-scale.js';
import { INSTANCE_FLOATS } from '../../viewer/model/instances.js';
import { STAGE_RGBA } from '../../viewer/model/colors.js';
import { assert, assertEqual } from './assert.js';

const trace = synthesizeTrace({ warps: 60000, seed: 11 });
const index = buildLaneIndex(trace);
const w = trace.warps;

/** Warp-ns of [s, e) inside [a, b). */
const overlap = (s: number, e: number, a: number, b: number) => Math.max(0, Math.min(e, b) - Math.max(s, a));

describe('viewer model', () => {
  it('adds interval coverage exactly, clipped to the grid', () => {
    const area = new Float64Array(10);
    const diff = new Float64Array(11);
    const intervals = [
      [0.25, 0.75],
      [1.5, 6.25],
      [-3, 0.5],
      [8.5, 14],
      [3, 3],
    ];
    for (const [a, b] of intervals) addCoverage(area, diff, a!, b!);
    resolveCoverage(area, diff);
    for (let c = 0; c < 10; c++) {
      const expected = intervals.reduce((sum, [a, b]) => sum + overlap(a!, b!, c, c + 1), 0);
      assert(Math.abs(area[c]! - expected) < 1e-12, `cell ${c}: ${area[c]} vs ${expected}`);
    }
    assert(diff.every((v) => v === 0), 'difference array cleared');
  });

  it('indexes lanes: block maxima, stages, slots, draw spans', () => {
    assertEqual(index.lanes.length, w.smGroups.sm.length, 'one lane per SM group');
    for (const lane of index.lanes) {
      let mask = 0;
      let maxEnd = -Infinity;
      let maxDur = 0;
      for (let i = lane.rowBegin; i < lane.rowEnd; i++) {
        mask |= 1 << w.stage[i]!;
        maxEnd = Math.max(maxEnd, w.startNs[i]! + w.durationNs[i]!);
        maxDur = Math.max(maxDur, w.durationNs[i]!);
      }
      assertEqual(lane.stageMask, mask, `SM ${lane.sm} stages`);
      assertEqual(lane.lastEndNs, maxEnd, `SM ${lane.sm} last end`);
      assertEqual(lane.maxDurationNs, maxDur, `SM ${lane.sm} longest warp`);
    }
    // Graphics stages only on the H100's four graphics SMs.
    const graphics = index.lanes.filter((l) => l.stageMask & ~(1 << Stage.CS)).map((l) => l.sm);
    assertEqual(graphics.join(','), '0,1,48,49', 'graphics SMs');
    for (let d = 0; d < trace.draws.length; d += 7) {
      let s = Infinity;
      let e = -Infinity;
      for (let i = 0; i < w.count; i++) {
        if (w.draw[i] !== d) continue;
        s = Math.min(s, w.startNs[i]!);
        e = Math.max(e, w.startNs[i]! + w.durationNs[i]!);
      }
      assertEqual(index.drawSpans[2 * d], s, `draw ${d} start`);
      assertEqual(index.drawSpans[2 * d + 1], e, `draw ${d} end`);
    }
  });

  it('finds the warps running at any time by block look-back', () => {
    const lane = index.lanes[0]!;
    const out: number[] = [];
    for (let k = 0; k < 200; k++) {
      const t = lane.firstStartNs + ((lane.lastEndNs - lane.firstStartNs) * k) / 200;
      const first = lowerBoundStart(w.startNs, lane, t);
      rowsRunningAt(trace, lane, t, first, out);
      const expected: number[] = [];
      for (let i = lane.rowBegin; i < first; i++) if (w.startNs[i]! + w.durationNs[i]! > t) expected.push(i);
      assertEqual(out.join(','), expected.join(','), `running at ${t}`);
    }
  });

  it('reads average occupancy from the pyramid like a direct count at every level', () => {
    const lane = index.lanes[0]!;
    const pyr = lane.occupancy;
    const k = pyr.stages.indexOf(Stage.TCS);
    const columns = 40;
    for (const level of [0, 3, 6]) {
      const colNs = pyr.binNs * 2 ** level;
      // Columns on the level's bin grid: exact up to 16-bit rounding (half a unit per level).
      const origin = pyr.originNs + Math.floor((lane.lastEndNs - pyr.originNs) / colNs / 3) * colNs;
      const got = new Float32Array(columns);
      addPyramidColumns(pyr, k, origin, colNs, columns, got);
      let total = 0;
      for (let c = 0; c < columns; c++) {
        const a = origin + c * colNs;
        let busy = 0;
        for (let i = lane.rowBegin; i < lane.rowEnd; i++) {
          if (w.stage[i] === Stage.TCS) busy += overlap(w.startNs[i]!, w.startNs[i]! + w.durationNs[i]!, a, a + colNs);
        }
        total += busy;
        const expected = busy / colNs;
        const tolerance = pyr.unit * (0.5 * level + 1) + expected * 1e-5;
        assert(Math.abs(got[c]! - expected) <= tolerance, `level ${level} column ${c}: ${got[c]} vs ${expected} (±${tolerance})`);
      }
      assert(total > 0, `TCS warps in the tested columns at level ${level}`);
    }
    // Off the grid, bins cut by a column edge count pro rata: the sum over columns is kept.
    const colNs = pyr.binNs * 8;
    const origin = pyr.originNs + 12345.678;
    const got = new Float32Array(columns);
    addPyramidColumns(pyr, k, origin, colNs, columns, got);
    const sum = got.reduce((a, b) => a + b, 0) * colNs;
    let busy = 0;
    for (let i = lane.rowBegin; i < lane.rowEnd; i++) {
      if (w.stage[i] === Stage.TCS) busy += overlap(w.startNs[i]!, w.startNs[i]! + w.durationNs[i]!, origin, origin + columns * colNs);
    }
    // Only the two outer edges can move warp time across the range boundary: at most a bin each.
    const bound = 2 * pyr.binNs * (lane.occupancy.unit * 65535);
    assert(Math.abs(sum - busy) <= bound, `warp time over the range: ${sum} vs ${busy} (±${bound})`);
  });

  it('draws occupancy and warp bars whose count follows columns, not warps, with long warps kept', () => {
    // Collapsed: 1 to ~stages rectangles per column per lane at any zoom.
    const layout = buildLaneLayout(trace, index, { ...DEFAULT_LANE_OPTIONS, expandedSms: new Set([0]) });
    const builder = new LaneLodBuilder();
    const columns = 800;
    for (const span of [index.endNs - index.startNs, (index.endNs - index.startNs) / 64]) {
      const colNs = lodColumnNs(span / columns);
      const stats = builder.build({
        trace,
        index,
        layout,
        firstLane: 0,
        lastLane: layout.rows.length,
        originNs: index.startNs,
        colNs,
        columns,
        occupancyScale: 64,
        hiddenStages: 0,
        selectedDraw: -1,
      });
      const rows = layout.rows.reduce((n, r) => n + 1 + r.slotRows, 0);
      assert(builder.bars.count <= rows * columns * 3, `${builder.bars.count} rectangles for ${rows} rows × ${columns} columns`);
      assert(stats.pyramidLanes + stats.directLanes === layout.rows.length, 'every lane built');
    }
    // The longest TCS warp of SM 0 is drawn as its own bar at full zoom-out.
    const lane = index.lanes[0]!;
    let longest = lane.rowBegin;
    for (let i = lane.rowBegin; i < lane.rowEnd; i++) if (w.durationNs[i]! > w.durationNs[longest]!) longest = i;
    const span = index.endNs - index.startNs;
    const colNs = lodColumnNs(span / columns);
    builder.build({
      trace,
      index,
      layout,
      firstLane: 0,
      lastLane: 1,
      originNs: index.startNs,
      colNs,
      columns: Math.ceil(span / colNs) + 1,
      occupancyScale: 64,
      hiddenStages: 0,
      selectedDraw: -1,
    });
    const row = layout.rows[0]!;
    const y = row.y + row.headerHeight + 2 + w.warpSlot[longest]! * row.slotRowHeight + 1;
    const s = w.startNs[longest]! - index.startNs;
    const e = s + w.durationNs[longest]!;
    let covered = false;
    for (let k = 0; k < builder.bars.count; k++) {
      const o = k * INSTANCE_FLOATS;
      const f = builder.bars.f32;
      if (f[o + 2] === y && f[o]! <= s + colNs && f[o + 1]! >= e - colNs && builder.bars.u32[o + 4] === STAGE_RGBA[w.stage[longest]!]) covered = true;
    }
    assert(covered, `longest warp (${w.durationNs[longest]} ns, ${(w.durationNs[longest]! / colNs).toFixed(1)} columns) drawn in its stage color`);
  });

  it('lays out lanes: active SMs by default, all SMs on request, hit tests rows', () => {
    const active = buildLaneLayout(trace, index, DEFAULT_LANE_OPTIONS);
    assertEqual(active.rows.length, index.lanes.length, 'active lanes');
    const graphicsOnly = buildLaneLayout(trace, index, { ...DEFAULT_LANE_OPTIONS, hiddenStages: 1 << Stage.CS });
    assertEqual(graphicsOnly.rows.map((r) => r.sm).join(','), '0,1,48,49', 'hiding compute leaves the graphics SMs');
    const sparse = buildTrace({
      ...trace,
      capture: { ...trace.capture, recordsKept: 1, recordsWritten: 1 },
      warps: { startNs: [5], endNs: [9], sm: [3], warpSlot: [2], stage: [0], draw: [0], customId: [0], activeMask: [1] },
    });
    const sparseIndex = buildLaneIndex(sparse);
    assertEqual(buildLaneLayout(sparse, sparseIndex, DEFAULT_LANE_OPTIONS).rows.length, 1, 'one active SM');
    const all = buildLaneLayout(sparse, sparseIndex, { ...DEFAULT_LANE_OPTIONS, showAllSms: true, expandedSms: new Set([3]) });
    assertEqual(all.rows.length, 132, 'every SM of the device');
    const sm3 = all.rows[3]!;
    assert(sm3.expanded && sm3.slotRows === 3, 'SM 3 expanded to slots 0..2');
    assertEqual(laneAtY(all, sm3.y + 2)?.slotRow, -1, 'header hit');
    assertEqual(laneAtY(all, sm3.y + sm3.headerHeight + 2 + 2 * sm3.slotRowHeight + 3)?.slotRow, 2, 'slot row hit');
    assertEqual(laneAtY(all, all.height + 5), null, 'below the lanes');
  });

  it('hit-tests the warp under the pointer: containing warp first, else nearest within tolerance', () => {
    const lane = index.lanes[0]!;
    for (let k = 0; k < 300; k++) {
      const i = lane.rowBegin + Math.floor(((lane.rowEnd - lane.rowBegin) * k) / 300);
      const mid = w.startNs[i]! + w.durationNs[i]! / 2;
      const hit = warpAt(trace, lane, w.warpSlot[i]!, mid, 0.5);
      assert(hit !== null, `warp ${i} found`);
      const j = hit.row;
      assertEqual(w.warpSlot[j], w.warpSlot[i], 'same slot');
      assert(w.startNs[j]! <= mid && mid <= w.startNs[j]! + w.durationNs[j]!, `hit ${j} contains the time`);
    }
    assertEqual(warpAt(trace, lane, 3, lane.firstStartNs - 1e6, 10), null, 'nothing far before the first warp');
  });

  it('packs warps of unknown SM and slot (no SM builtins, e.g. lavapipe) into non-overlapping rows', () => {
    const n = 3000;
    const random = makeRandom(5);
    const startNs: number[] = [];
    const endNs: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = i * 10 + random() * 5;
      startNs.push(s);
      endNs.push(s + 20 + random() * 200);
    }
    const fill = (v: number) => new Array<number>(n).fill(v);
    const t = buildTrace({
      device: { ...trace.device, smCount: null, warpsPerSm: null, smBuiltins: false },
      capture: { ...trace.capture, recordsKept: n, recordsWritten: n },
      draws: trace.draws.slice(0, 1),
      warps: { startNs, endNs, sm: fill(0xffff), warpSlot: fill(0xff), stage: fill(Stage.FS), draw: fill(0), customId: fill(1), activeMask: fill(0xff) },
    });
    const idx = buildLaneIndex(t);
    const lane = idx.lanes[0]!;
    assert(lane.hasUnknownSlot && lane.unknownRows > 1 && lane.unknownRows <= 64, `packed into ${lane.unknownRows} rows`);
    const lastEnd = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const r = lane.packedRow![i]!;
      assert((lastEnd.get(r) ?? -Infinity) <= t.warps.startNs[i]!, `warp ${i} overlaps the previous warp of row ${r}`);
      lastEnd.set(r, t.warps.startNs[i]! + t.warps.durationNs[i]!);
    }
    const layout = buildLaneLayout(t, idx, { ...DEFAULT_LANE_OPTIONS, expandedSms: new Set([0xffff]) });
    assertEqual(layout.rows[0]!.slotRows, lane.unknownRows, 'one display row per packed row');
    const i = 1234;
    const mid = t.warps.startNs[i]! + t.warps.durationNs[i]! / 2;
    assertEqual(warpAt(t, lane, 0xff, mid, 0.1, 0, lane.packedRow![i]!)?.row, i, 'hit test in the packed row');
  });

  it('packs overlapping draws into rows', () => {
    const layout = buildDrawLayout(trace, index);
    for (let r = 0; r < layout.rowCount; r++) {
      const inRow = [...layout.byStart].filter((d) => layout.row[d] === r);
      for (let k = 1; k < inRow.length; k++) {
        const prev = inRow[k - 1]!;
        if (layout.rowCount < 6) assert(layout.spans[2 * inRow[k]!]! >= layout.spans[2 * prev + 1]!, `draws ${prev} and ${inRow[k]} overlap in row ${r}`);
      }
    }
  });

  it('zooms around an anchor, clamps to bounds, picks ~1 px columns and labels ticks', () => {
    const bounds = { startNs: 0, endNs: 1e6 };
    const z = zoomAround({ startNs: 0, endNs: 1e6 }, 250000, 4, bounds);
    assert(Math.abs(z.endNs - z.startNs - 250000) < 1e-6 && Math.abs((250000 - z.startNs) / 250000 - 0.25) < 1e-9, `zoom ${JSON.stringify(z)}`);
    assertEqual(clampWindow({ startNs: -50, endNs: 950 }, bounds).startNs, 0, 'clamped to bounds');
    assertEqual(clampWindow({ startNs: 10, endNs: 11 }, bounds).endNs - 10, 8, 'minimum span');
    for (const nsPerPx of [0.3, 1, 3, 1000, 47000]) {
      const col = lodColumnNs(nsPerPx);
      assert(col / nsPerPx >= 0.7 && col / nsPerPx <= 1.42 && Number.isInteger(Math.log2(col)), `column ${col} for ${nsPerPx} ns/px`);
    }
    const micro = axisTicks({ startNs: 37_512_000, endNs: 37_512_400 }, 1000);
    assertEqual(formatTick(micro.ticksNs[0]!, micro), '37.51200 ms', 'ns steps on a ms axis');
    const wide = axisTicks({ startNs: 0, endNs: 75e6 }, 1000);
    assertEqual(wide.stepNs, 10e6, 'step');
    assertEqual(formatTick(20e6, wide), '20 ms', 'ms label');
    assertEqual(formatTick(500, axisTicks({ startNs: 0, endNs: 900 }, 900)), '500 ns', 'ns label');
  });
});

describe('analysis: in flight and range counts', () => {
  function bruteInFlight(t: Trace, time: number): Uint32Array {
    const out = new Uint32Array(t.warps.smGroups.sm.length * STAGE_COUNT);
    const { offsets } = t.warps.smGroups;
    for (let g = 0; g + 1 < offsets.length; g++) {
      for (let i = offsets[g]!; i < offsets[g + 1]!; i++) {
        const s = t.warps.startNs[i]!;
        if (s <= time && time < s + t.warps.durationNs[i]!) out[g * STAGE_COUNT + t.warps.stage[i]!]!++;
      }
    }
    return out;
  }

  it('counts warps in flight per SM and stage at an instant', () => {
    for (let k = 0; k < 25; k++) {
      const time = index.startNs + ((index.endNs - index.startNs) * (k + 0.5)) / 25;
      const f = warpsInFlight(w, time);
      assertEqual([...f.counts].join(), [...bruteInFlight(trace, time)].join(), `in flight at ${time}`);
    }
  });

  it('counts warps per stage and draw overlapping a range, with the time inside it', () => {
    const ranges = [
      [index.startNs, index.endNs],
      [index.startNs + 12345.5, index.startNs + 40000],
      [index.endNs - 1000, index.endNs + 1000],
    ];
    for (const [a, b] of ranges) {
      const c = rangeCounts(trace, a!, b!);
      const perStage = new Uint32Array(STAGE_COUNT);
      const perDraw = new Uint32Array(trace.draws.length);
      const busy = new Float64Array(STAGE_COUNT);
      let n = 0;
      for (let i = 0; i < w.count; i++) {
        const s = w.startNs[i]!;
        const e = s + w.durationNs[i]!;
        if (e < a! || s > b!) continue;
        n++;
        perStage[w.stage[i]!]!++;
        perDraw[w.draw[i]!]!++;
        busy[w.stage[i]!]! += overlap(s, e, a!, b!);
      }
      assertEqual(c.warps, n, `warps in [${a}, ${b}]`);
      assertEqual([...c.perStage].join(), [...perStage].join(), 'per stage');
      assertEqual([...c.perDraw].join(), [...perDraw].join(), 'per draw');
      for (let s = 0; s < STAGE_COUNT; s++) assert(Math.abs(c.busyNsPerStage[s]! - busy[s]!) < 1e-3, `busy ns stage ${s}`);
    }
  });
});
