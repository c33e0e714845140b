// Pure placement rules behind the timeline's layout fixes: tick labels kept
// inside the right edge, tooltips flipped at the edges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeTickLabels } from '../../viewer/model/time-axis.js';
import { placeTooltip } from '../../viewer/model/tooltip-placement.js';

test('tick labels: right of their tick, the last moved left to end at the edge, a neighbour it would overlap hidden', () => {
  const widths = [50, 50, 50];
  assert.deepEqual(placeTickLabels([100, 200, 300], ['a', 'b', 'c'], widths, 400).map((l) => l.x), [103, 203, 303]);
  // The last tick 10 px before the edge: its label ends at the edge.
  const edge = placeTickLabels([100, 200, 390], ['a', 'b', 'c'], widths, 400);
  assert.deepEqual(edge.map((l) => [l.text, l.x]), [['a', 103], ['b', 203], ['c', 350]]);
  for (const l of edge) assert(l.x + 50 <= 400);
  // Closer ticks: the moved label would overlap 'b', which is hidden.
  const tight = placeTickLabels([100, 340, 395], ['a', 'b', 'c'], widths, 400);
  assert.deepEqual(tight.map((l) => l.text), ['a', 'c']);
});

test('tooltips: below right of the pointer, flipped left and up at the edges, inside when larger than a side', () => {
  assert.deepEqual(placeTooltip(100, 100, 200, 80, 1000, 600), { left: 114, top: 114 });
  assert.deepEqual(placeTooltip(950, 100, 200, 80, 1000, 600), { left: 736, top: 114 });
  assert.deepEqual(placeTooltip(100, 580, 200, 80, 1000, 600), { left: 114, top: 486 });
  assert.deepEqual(placeTooltip(950, 580, 200, 80, 1000, 600), { left: 736, top: 486 });
  // Wider than the room on either side: kept inside, at the left edge.
  assert.deepEqual(placeTooltip(150, 100, 280, 80, 300, 600), { left: 0, top: 114 });
});
