// Marks on the timeline: the level of detail's geometry (model/lane-lod.ts, mark-ticks.ts)
// puts a tick at each mark's offset inside a wide warp bar of an expanded lane, bands every
// other phase, draws nothing for narrow bars or a trace without marks; and the marks' columns
// survive the decode worker's packing for transfer (loading/mark-transfer.ts).
import { smOfWarp, type Trace } from '../../shared-schema/index.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';
import { LaneLodBuilder } from '../../viewer/model/lane-lod.js';
import { DEFAULT_LANE_OPTIONS, buildLaneLayout, slotRowOf } from '../../viewer/model/lane-layout.js';
import { INSTANCE_FLOATS } from '../../viewer/model/instances.js';
import { MARK_PHASE_RGBA, MARK_TICK_RGBA } from '../../viewer/model/mark-ticks.js';
import { packMarks } from '../../viewer/loading/mark-transfer.js';
import { assert, assertEqual } from './assert.js';
import { MARK_SPECS, markedTrace } from './mark-fixtures.js';

const { trace, plain, rows } = markedTrace();
const index = buildLaneIndex(trace);

interface Rect {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Builds the expanded lane of warp `row`'s SM over [its start − 100 ns, +colNs × columns) and returns ticks and bands. */
function build(t: Trace, row: number, colNs: number, columns: number) {
  const sm = smOfWarp(t.warps.smGroups, row);
  const layout = buildLaneLayout(t, index, { ...DEFAULT_LANE_OPTIONS, expandedSms: new Set([sm]) });
  const k = layout.rows.findIndex((r) => r.sm === sm);
  const lane = layout.rows[k]!;
  const originNs = t.warps.startNs[row]! - 100;
  const builder = new LaneLodBuilder();
  const stats = builder.build({ trace: t, index, layout, firstLane: k, lastLane: k + 1, originNs, colNs, columns, occupancyScale: 64, hiddenStages: 0, selectedDraw: -1 });
  const ticks: Rect[] = [];
  const bands: Rect[] = [];
  const b = builder.bars;
  for (let i = 0; i < b.count; i++) {
    const o = i * INSTANCE_FLOATS;
    const r = { x0: b.f32[o]!, x1: b.f32[o + 1]!, y0: b.f32[o + 2]!, y1: b.f32[o + 3]! };
    if (b.u32[o + 4] === MARK_TICK_RGBA) ticks.push(r);
    else if (b.u32[o + 4] === MARK_PHASE_RGBA) bands.push(r);
  }
  const slot = slotRowOf(lane, index.lanes[lane.group]!, t.warps.warpSlot[row]!, row);
  const barY = lane.y + lane.headerHeight + 2 + slot * lane.slotRowHeight + 1;
  return { ticks, bands, stats, barY };
}

describe('marks on the timeline', () => {
  it('ticks at each mark’s offset inside a wide bar, and a band over the phase between the marks', () => {
    const row = rows[0];
    const colNs = 8; // the warp (≥ 2 µs) is ≥ 250 columns wide
    const { ticks, bands, stats, barY } = build(trace, row, colNs, 1024);
    const mine = ticks.filter((t) => t.y0 === barY);
    assertEqual(mine.length, 2, `two ticks on the warp's bar (all ticks: ${JSON.stringify(ticks)})`);
    const centres = mine.map((t) => (t.x0 + t.x1) / 2).sort((a, b) => a - b);
    // x is ns from the geometry's origin (the warp's start less 100 ns).
    assertEqual(centres.join(','), `${100 + MARK_SPECS[0][0][0]},${100 + MARK_SPECS[0][1][0]}`, 'tick centres at the marks’ offsets');
    assert(mine.every((t) => Math.abs(t.x1 - t.x0 - colNs) < 1e-6), 'a tick is one column wide');
    const band = bands.filter((b) => b.y0 === barY);
    assertEqual(band.length, 1, 'one band: the phase between the two marks (the others unshaded)');
    assert(band[0]!.x0 >= 600 && band[0]!.x1 <= 1600 && band[0]!.x1 - band[0]!.x0 > 900, `band between the marks: ${JSON.stringify(band[0])}`);
    assert(stats.markTicks >= 2, `stats count the ticks: ${stats.markTicks}`);
  });

  it('draws no ticks for bars a few columns wide, nor for a trace without marks', () => {
    const narrow = build(trace, rows[0], 512, 64); // ~4-7 columns
    assertEqual(narrow.ticks.length + narrow.bands.length, 0, 'nothing at a zoom where bars are a few pixels');
    const none = build(plain, rows[0], 8, 1024);
    assertEqual(none.ticks.length + none.bands.length, 0, 'no ticks without marks');
    assertEqual(none.stats.markTicks, 0, 'stats');
  });

  it('folds marks closer than a few columns into one tick', () => {
    const m = trace.marks!;
    const close: Trace = { ...trace, marks: { ...m, offsetNs: Float32Array.from(m.offsetNs, (v, k) => (k === 1 ? m.offsetNs[0]! + 8 : v)) } };
    const { ticks, barY } = build(close, rows[0], 8, 1024);
    assertEqual(ticks.filter((t) => t.y0 === barY).length, 1, 'marks 8 ns apart at 8 ns a column: one tick');
  });

  it('packs the marks’ columns into one buffer for transfer, values unchanged', () => {
    const m = trace.marks!;
    const { marks, buffer } = packMarks(m);
    assert(marks !== null && buffer !== null, 'packed');
    for (const c of [marks.warp, marks.id, marks.sequence, marks.offsetNs, marks.activeMask]) assert(c.buffer === buffer, 'every column a view of the buffer');
    assertEqual([...marks.warp].join(), [...m.warp].join(), 'warp');
    assertEqual([...marks.id].join(), [...m.id].join(), 'id');
    assertEqual([...marks.sequence].join(), [...m.sequence].join(), 'sequence');
    assertEqual([...marks.offsetNs].join(), [...m.offsetNs].join(), 'offset');
    assertEqual([...marks.activeMask].join(), [...m.activeMask].join(), 'lanes');
    assertEqual(marks.orphans, 1, 'orphans');
    const copy = structuredClone({ marks }, { transfer: [buffer] });
    assertEqual(copy.marks.offsetNs[1], 1500, 'readable after a transfer');
    assertEqual(packMarks(null).buffer, null, 'no marks, nothing to transfer');
  });
});
