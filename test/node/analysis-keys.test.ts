// Draw × stage keys: the one-pass table and the two-pass mask paths agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keysByMask, keysByTable } from '../../analysis/draw-stage-keys.js';
import { synthesizeTrace } from '../../shared-schema/index.js';

test('table and mask keys name the same (draw, stage) pair for every row', () => {
  const trace = synthesizeTrace({ warps: 30000, seed: 12, warpsPerDraw: 500 });
  const a = keysByTable(trace.warps, trace.draws.length);
  const b = keysByMask(trace.warps, trace.draws.length);
  assert.equal(a.count, b.count);
  for (let i = 0; i < trace.warps.count; i++) {
    const ka = a.keyOfRow[i]!;
    const kb = b.keyOfRow[i]!;
    assert.equal(a.keyDraw[ka], trace.warps.draw[i]);
    assert.equal(a.keyStage[ka], trace.warps.stage[i]);
    assert.equal(b.keyDraw[kb], trace.warps.draw[i]);
    assert.equal(b.keyStage[kb], trace.warps.stage[i]);
  }
  for (let d = 0; d < trace.draws.length; d++) {
    const pairs = (k: typeof a) =>
      Array.from(k.drawKeys.subarray(k.drawKeyStart[d], k.drawKeyStart[d + 1]), (key) => [k.keyDraw[key], k.keyStage[key], k.warps[key]]);
    assert.deepEqual(pairs(a), pairs(b));
  }
});
