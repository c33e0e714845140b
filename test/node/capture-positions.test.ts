// `warptrace capture --positions`: the stages whose warps record a screen position, as --stages names
// them (fragment, compute and the six ray-tracing stages), reach the layer as WARPTRACE_POSITIONS;
// the layer turns them into the instrument request's list (capture/layer/src/settings.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layerEnvironment } from '../../capture/capture-run/app-environment.js';
import { UsageError } from '../../cli/command.js';
import { parsePositions } from '../../cli/commands/capture-app.js';

test('--positions: fragment, compute and the ray-tracing stages as --stages names them, in the order given; the layer gets the list', () => {
  assert.equal(parsePositions('fs,CHIT, miss'), 'fs,chit,miss');
  assert.equal(parsePositions('rgen,ahit,rint,call,cs,fs,rgen'), 'rgen,ahit,rint,call,cs,fs');
  assert.equal(parsePositions('none'), 'none');
  const selection = { frame: null, submits: null, trigger: null, stages: null, draws: null, capacity: null, positions: parsePositions('rgen,chit') };
  const env = layerEnvironment({}, { manifestDir: '/build/layer', socketPath: '/tmp/s.sock', rawOutput: '/tmp/c.wtraw', selection });
  assert.equal(env['WARPTRACE_POSITIONS'], 'rgen,chit');
});

test('--positions refuses stages without a position and the instrumenter\'s own names', () => {
  for (const bad of ['vs', 'fs,tcs', 'rchit', 'closest_hit', 'fs,']) assert.throws(() => parsePositions(bad), (e: unknown) => e instanceof UsageError && /--positions: expected fs, cs, rgen, ahit, chit, miss, rint, call/.test(e.message), bad);
});
