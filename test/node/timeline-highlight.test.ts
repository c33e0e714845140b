// The timeline's row highlight (model side): the bitset and sorted rows, and
// collapsed lanes built from the occupancy pyramid with a highlight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Stage, synthesizeTrace } from '../../shared-schema/index.js';
import { STAGE_RGBA, THEME, packRgba } from '../../viewer/model/colors.js';
import { INSTANCE_FLOATS } from '../../viewer/model/instances.js';
import { buildLaneIndex } from '../../viewer/model/lane-index.js';
import { DEFAULT_LANE_OPTIONS, buildLaneLayout } from '../../viewer/model/lane-layout.js';
import { LaneLodBuilder } from '../../viewer/model/lane-lod.js';
import { highlightedIn, isHighlighted, rowHighlight } from '../../viewer/model/row-highlight.js';
import { lodColumnNs } from '../../viewer/model/time-scale.js';

test('rowHighlight sorts, drops repeats and rows past the trace, and answers membership', () => {
  const h = rowHighlight(new Uint32Array([70, 3, 3, 1000, 64, 0]), 100);
  assert.deepEqual([...h.rows], [0, 3, 64, 70]);
  for (let r = 0; r < 100; r++) assert.equal(isHighlighted(h, r), [0, 3, 64, 70].includes(r), `row ${r}`);
  assert.deepEqual(highlightedIn(h, 3, 70), [1, 3]);
  assert.deepEqual(highlightedIn(h, 71, 100), [4, 4]);
});

test('collapsed lanes from the pyramid: highlighted warps in their stage colors under grey, the same total height', () => {
  const trace = synthesizeTrace({ warps: 200000, seed: 11 });
  const index = buildLaneIndex(trace);
  const layout = buildLaneLayout(trace, index, DEFAULT_LANE_OPTIONS);
  const w = trace.warps;
  const fsRows: number[] = [];
  for (let i = 0; i < w.count; i++) if (w.stage[i] === Stage.FS) fsRows.push(i);
  const columns = 400;
  const colNs = lodColumnNs((index.endNs - index.startNs) / columns);
  const build = (highlight: ReturnType<typeof rowHighlight> | null) => {
    const b = new LaneLodBuilder();
    const stats = b.build({ trace, index, layout, firstLane: 0, lastLane: layout.rows.length, originNs: index.startNs, colNs, columns, occupancyScale: 64, hiddenStages: 0, selectedDraw: -1, highlight });
    const colors = new Map<number, number>();
    let area = 0;
    for (let k = 0; k < b.bars.count; k++) {
      const o = k * INSTANCE_FLOATS;
      const rgba = b.bars.u32[o + 4]!;
      const a = (b.bars.f32[o + 1]! - b.bars.f32[o]!) * (b.bars.f32[o + 3]! - b.bars.f32[o + 2]!);
      colors.set(rgba, (colors.get(rgba) ?? 0) + a);
      if (rgba !== packRgba(THEME.laneAlt)) area += a;
    }
    return { stats, colors, area };
  };
  const plain = build(null);
  const fs = build(rowHighlight(fsRows, w.count));
  assert(fs.stats.pyramidLanes > 0, 'zoomed out: the pyramid path');
  const others = packRgba(THEME.dimOthers);
  const allowed = new Set([STAGE_RGBA[Stage.FS]!, others, packRgba(THEME.laneAlt)]);
  for (const rgba of fs.colors.keys()) assert(allowed.has(rgba), `only FS, grey and lane backgrounds: ${rgba.toString(16)}`);
  assert((fs.colors.get(STAGE_RGBA[Stage.FS]!) ?? 0) > 0 && (fs.colors.get(others) ?? 0) > 0, 'both FS and grey drawn');
  // Same occupancy stacked, in other colors: the total area agrees within rounding (a pixel per column and lane).
  const slack = columns * layout.rows.length * colNs * 2;
  assert(Math.abs(fs.area - plain.area) <= slack, `area ${fs.area} vs ${plain.area} (±${slack})`);
  const none = build(rowHighlight([], w.count));
  for (const rgba of none.colors.keys()) assert(rgba === others || rgba === packRgba(THEME.laneAlt), 'nothing highlighted: all grey');
});
