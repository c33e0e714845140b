// Issue 14: the no-SM-id sentinel (0xffff, lavapipe captures) never appears as a number in SM lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNKNOWN_SM, encodeWtrace, formatSmRanges, knownSmCount } from '../../shared-schema/index.js';
import { smSummaryText } from '../../viewer/model/sm-summary.js';
import { traceOf } from './analysis-fixtures.js';
import { repoPath } from './paths.js';

test('formatSmRanges: "SM ids unknown" for the sentinel alone, ranges and a note beside known ids', () => {
  assert.equal(formatSmRanges([UNKNOWN_SM]), 'SM ids unknown');
  assert.equal(formatSmRanges([0, 1, 2, 5]), '0-2, 5');
  assert.equal(formatSmRanges([0, 1, UNKNOWN_SM]), '0-1, and without SM id');
  assert.equal(knownSmCount([UNKNOWN_SM]), 0);
  assert.equal(knownSmCount([3, 4, UNKNOWN_SM]), 2);
});

test('the viewer SM line: "Graphics ran on SMs (SM ids unknown)", never "1 SMs (65535)"', () => {
  const t = smSummaryText([{ sm: UNKNOWN_SM, stageMask: 1 | (1 << 5) }], null);
  const text = [t.graphics, t.graphicsSms, t.compute, t.ran].join(' | ');
  assert.doesNotMatch(text, /65535|1 SMs/);
  assert.equal(t.graphicsSms, 'SM ids unknown');
  assert.equal(t.ran, 'SM ids unknown');
  const known = smSummaryText([{ sm: 0, stageMask: 1 }, { sm: 1, stageMask: 1 }, { sm: 7, stageMask: 1 << 5 }], 132);
  assert.equal(known.graphics, 'Graphics ran on 2 of 132 SMs');
  assert.equal(known.graphicsSms, '0-1');
  assert.equal(known.compute, 'compute on 1 of 132 SMs');
  assert.equal(known.ran, '3 SMs ran warps');
});

test('warptrace info: the per-stage "on SMs" column of a capture without SM ids', () => {
  const trace = traceOf({
    draws: 1,
    warps: [
      { sm: UNKNOWN_SM, stage: 'VS', draw: 0, start: 0, end: 100 },
      { sm: UNKNOWN_SM, stage: 'FS', draw: 0, start: 50, end: 200 },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-smids-'));
  const file = join(dir, 'lavapipe.wtrace');
  writeFileSync(file, encodeWtrace(trace));
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'info', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const stages = r.stdout.slice(r.stdout.indexOf('Warps per stage'), r.stdout.indexOf('Warps per draw'));
  assert.doesNotMatch(stages, /65535/);
  assert.match(stages, /SM ids unknown/);
});
