// The findings CSV lists every member of every finding group, a row each, naming its group.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { analyzeTrace, groupMembers, type AnalysisSummary } from '../../analysis/index.js';
import { findingsCsv } from '../../analysis/export/csv.js';
import { decodeTrace } from '../../shared-schema/index.js';
import { barrierFrame } from './barrier-frame.js';
import { repoPath } from './paths.js';
import { parseCsv } from './section-fixtures.js';


function rowsByColumn(csv: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(csv);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/** Every finding once, in group order, each row carrying its group's id, count and total. */
function assertGroupedRows(s: AnalysisSummary, csv: string): void {
  const rows = rowsByColumn(csv);
  assert.equal(rows.length, s.findings.length, 'one row per finding');
  const expected = s.findingGroups.flatMap((g) => groupMembers(g, s.findings).map((f) => ({ id: f.id, group: g })));
  assert.deepEqual(rows.map((r) => r['id']), expected.map((e) => e.id), 'group by group, members costliest first');
  for (const [i, { group }] of expected.entries()) {
    const r = rows[i]!;
    assert.equal(r['group'], group.id);
    assert.equal(r['group_title'], group.title);
    assert.equal(Number(r['group_count']), group.count);
    assert.equal(Number(r['group_total_ns']), group.totalNs);
    assert.equal(r['group_hidden'], String(group.hidden));
    const member = s.findings.find((f) => f.id === r['id'])!;
    assert.equal(r['kind'], member.kind);
    assert.equal(Number(r['cost_ns']), member.costNs);
  }
}

const syncsSample = repoPath('samples', 'h100-syncs.wtrace');
test('h100-syncs sample: the sync group\'s four members are four rows of group sync:all', { skip: existsSync(syncsSample) ? false : 'samples/h100-syncs.wtrace not present' }, () => {
  const s = analyzeTrace(decodeTrace(new Uint8Array(readFileSync(syncsSample))));
  const csv = findingsCsv(s);
  assertGroupedRows(s, csv);
  const syncRows = rowsByColumn(csv).filter((r) => r['group'] === 'sync:all');
  assert.equal(syncRows.length, 4);
  assert.ok(syncRows.every((r) => r['group_count'] === '4' && r['kind'] === 'sync'));
});

const stallSample = repoPath('samples', 'h100-tess-stall.wtrace');
test('h100-tess-stall sample: every group\'s members are listed', { skip: existsSync(stallSample) ? false : 'samples/h100-tess-stall.wtrace not present' }, () => {
  const s = analyzeTrace(decodeTrace(new Uint8Array(readFileSync(stallSample))));
  assert.ok(s.findingGroups.some((g) => g.count > 1), 'the sample has a group of several findings');
  assertGroupedRows(s, findingsCsv(s));
});

test('22 barriers between passes: the 21 syncs are rows of one group; a draw\'s CSV groups its own findings', () => {
  const s = analyzeTrace(barrierFrame());
  const csv = findingsCsv(s);
  assertGroupedRows(s, csv);
  assert.equal(rowsByColumn(csv).filter((r) => r['group'] === 'sync:all').length, 21);
  const draw = s.findings.find((f) => f.draw !== null)!.draw!;
  const own = rowsByColumn(findingsCsv(s, draw));
  assert.equal(own.length, s.findings.filter((f) => f.draw === draw).length);
  assert.ok(own.every((r) => r['draw'] === String(draw) && r['group'] !== '' && Number(r['group_count']) <= own.length));
});
