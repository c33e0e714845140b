// The synthetic frame's passes (drawsPerPass): what bench:viewer opens as a game-like frame
// of thousands of draws in tens of passes must carry a real pass hierarchy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeWtrace, encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';

test('drawsPerPass groups the draws, in order, into labelled passes with Opaque/Alpha halves, and the file keeps them', () => {
  const trace = synthesizeTrace({ warps: 200_000, seed: 4, drawsPerPass: 20 });
  const draws = trace.draws;
  assert.ok(draws.length > 60, `enough draws for several passes (${draws.length})`);
  const passes = Math.ceil(draws.length / 20);
  assert.equal(trace.regions.length, 3 * passes, 'a pass region and its two halves per pass');
  for (const d of draws) {
    const region = trace.regions[d.region!]!;
    const pass = trace.regions[region.parent!]!;
    assert.equal(pass.parent, null, `draw ${d.index}: its region's parent is a top-level pass`);
    assert.equal(region.label, `${pass.label}/${d.index % 20 < 10 ? 'Opaque' : 'Alpha'}`, `draw ${d.index} lies in its pass's half`);
    assert.ok(d.label.startsWith(`${pass.label} `), `draw ${d.index}'s label "${d.label}" names its pass "${pass.label}"`);
    assert.equal(trace.regions.indexOf(pass), 3 * Math.floor(d.index / 20), `draw ${d.index} is in pass ${Math.floor(d.index / 20)}`);
  }
  assert.deepEqual(new Set(trace.regions.filter((r) => r.parent === null).map((r) => r.label)).size, passes, 'pass names are distinct');
  const back = decodeWtrace(encodeWtrace(trace));
  assert.deepEqual(back.regions, trace.regions, 'regions round-trip through .wtrace');
  assert.deepEqual(back.draws.map((d) => [d.label, d.region]), draws.map((d) => [d.label, d.region]), 'draw labels and regions round-trip');
});

test('without drawsPerPass the synthetic trace has no regions and its old labels (benchmarks and tests keep their traces)', () => {
  const trace = synthesizeTrace({ warps: 50_000, seed: 4 });
  assert.equal(trace.regions.length, 0);
  trace.draws.forEach((d) => assert.equal(d.label, `${d.kind} ${d.index}`));
  const same = synthesizeTrace({ warps: 50_000, seed: 4, drawsPerPass: 0 });
  assert.deepEqual(encodeWtrace(same), encodeWtrace(trace), 'drawsPerPass 0 is off');
});
