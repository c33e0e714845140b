// Thresholds: defaults documented in analysis/README.md, validated overrides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_THRESHOLDS, parseThresholdAssignments, resolveThresholds, THRESHOLD_DOCS, ThresholdError } from '../../analysis/index.js';
import { repoPath } from './paths.js';

test('analysis/README.md documents every threshold with its default', () => {
  const readme = readFileSync(repoPath('analysis/README.md'), 'utf8');
  for (const doc of THRESHOLD_DOCS) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${doc.name}\` |`));
    assert.ok(row, `${doc.name} is in the README table`);
    assert.equal(Number(row.split('|')[2]!.trim()), doc.defaultValue, `${doc.name} default`);
    assert.equal(row.split('|')[3]!.trim(), doc.unit, `${doc.name} unit`);
  }
  assert.equal(Object.keys(DEFAULT_THRESHOLDS).length, THRESHOLD_DOCS.length);
});

test('overrides are checked: names, ranges, integers', () => {
  assert.equal(resolveThresholds({ syncMinGapNs: 250 }).syncMinGapNs, 250);
  assert.equal(resolveThresholds().stallMinFactor, DEFAULT_THRESHOLDS.stallMinFactor);
  assert.throws(() => resolveThresholds({ syncGap: 1 }), ThresholdError);
  assert.throws(() => resolveThresholds({ leftoverMinShare: 1.5 }), /a share is at most 1/);
  assert.throws(() => resolveThresholds({ leftoverMaxWarps: 2.5 }), /integer/);
  assert.throws(() => resolveThresholds({ stallMinNs: -1 }), /≥ 0/);
  assert.throws(() => resolveThresholds({ leftoverMaxWarps: 0 }), /at least 1/);
  assert.deepEqual(parseThresholdAssignments(['syncMinGapNs=500', ' stallMinFactor = 4 ']), { ...DEFAULT_THRESHOLDS, syncMinGapNs: 500, stallMinFactor: 4 });
  assert.throws(() => parseThresholdAssignments(['syncMinGapNs']), /expected name=value/);
  assert.throws(() => parseThresholdAssignments(['syncMinGapNs=fast']), /not a number/);
});
