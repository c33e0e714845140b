// Issue 14: repetitions become one group with a count and totals, ranked by
// their share of the frame, the small ones hidden below findingGroupMinShare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeTrace, groupMembers, parseSummary, resolveThresholds, type AnalysisSummary } from '../../analysis/index.js';
import { summaryToJson } from '../../analysis/export/json.js';
import { summaryToMarkdown } from '../../analysis/export/markdown.js';
import { decodeTrace, encodeWtrace } from '../../shared-schema/index.js';
import { barrierFrame, PASSES, PERIOD } from './barrier-frame.js';
import { repoPath } from './paths.js';

const summary = analyzeTrace(barrierFrame());
const spanNs = (PASSES - 1) * PERIOD + 12_000;

test('22 passes between barriers: one sync group of 21, one leftover group of 22, costliest first', () => {
  assert.equal(summary.frame.spanNs, spanNs);
  assert.equal(summary.findings.filter((f) => f.kind === 'sync').length, 21, 'the members stay in findings');
  const groups = summary.findingGroups;
  // Occupancy caps (8 of 64 slots) cost nothing and are never hidden: after the costed groups, before the hidden ones.
  assert.deepEqual(groups.map((g) => g.id), ['sync:all', 'leftover:FS', 'occupancy-cap:VS', 'occupancy-cap:FS', 'idle:inside-draw']);
  const [sync, leftover, , , idle] = groups as [typeof groups[0], typeof groups[0], unknown, unknown, typeof groups[0]];
  assert.equal(sync.count, 21);
  assert.equal(sync.totalNs, 21 * 8000);
  assert.equal(sync.medianNs, 8000);
  assert.equal(sync.maxNs, 8000);
  assert.ok(Math.abs(sync.shareOfFrame - (21 * 8000) / spanNs) < 1e-9);
  assert.equal(sync.title, '21 GPU idle gaps between serialized draws (driver syncs? barriers between passes?), 8.00 µs each (median), 168 µs total (38.9% of the frame)');
  assert.equal(sync.hidden, false);
  assert.equal(sync.startNs, 12_000);
  assert.equal(sync.endNs, (PASSES - 1) * PERIOD);
  assert.equal(leftover.count, 22);
  assert.equal(leftover.totalNs, 22 * 3000);
  assert.equal(leftover.stage, 'FS');
  assert.equal(leftover.draw, null, 'members of several draws');
  assert.equal(leftover.sm, 0);
  assert.match(leftover.title, /^22 draws end with leftover FS warps, 3\.00 µs each \(median\), 66\.0 µs total \(15\.\d% of the frame\)$/);
  // The one idle window costs 1.2 µs, 0.28% of the frame: below 0.5%, hidden, listed last.
  assert.equal(idle.count, 1);
  assert.equal(idle.totalNs, 1200);
  assert.equal(idle.hidden, true);
  assert.equal(idle.title, summary.findings.find((f) => f.kind === 'idle')!.title, 'one member: its own title');
  // Members for drill-down: every finding in exactly one group, each with its own span and draw.
  const ids = groups.flatMap((g) => g.findingIds);
  assert.deepEqual([...ids].sort(), summary.findings.map((f) => f.id).sort());
  const members = groupMembers(sync, summary.findings);
  assert.deepEqual(members.map((m) => m.draw).sort((a, b) => a! - b!), Array.from({ length: 21 }, (_, i) => i + 1));
  for (const m of members) assert.equal(m.endNs - m.startNs, 8000);
});

test('findingGroupMinShare decides what is hidden; ranking is by total cost', () => {
  const none = analyzeTrace(barrierFrame(), { thresholds: resolveThresholds({ findingGroupMinShare: 0 }) });
  assert.deepEqual(none.findingGroups.map((g) => [g.id, g.hidden]), [['sync:all', false], ['leftover:FS', false], ['idle:inside-draw', false], ['occupancy-cap:VS', false], ['occupancy-cap:FS', false]]);
  const strict = analyzeTrace(barrierFrame(), { thresholds: resolveThresholds({ findingGroupMinShare: 0.2 }) });
  assert.deepEqual(strict.findingGroups.map((g) => [g.id, g.hidden]), [['sync:all', false], ['occupancy-cap:VS', false], ['occupancy-cap:FS', false], ['leftover:FS', true], ['idle:inside-draw', true]]);
  for (const s of [summary, none, strict]) {
    const shown = s.findingGroups.filter((g) => !g.hidden);
    assert.deepEqual(s.findingGroups.slice(0, shown.length), shown, 'hidden groups come last');
    for (let i = 1; i < shown.length; i++) assert.ok(shown[i - 1]!.totalNs >= shown[i]!.totalNs, 'costliest first');
  }
});

test('stats markdown lists groups, the small ones under their own heading; JSON has every group and member', () => {
  const md = summaryToMarkdown(summary);
  assert.match(md, /46 findings in 5 groups/);
  assert.match(md, /\| 1 \| 21 GPU idle gaps between serialized draws .* \| 21 \| 168 µs \| 38\.9% \|/);
  assert.match(md, /### 1 more below 0\.5% of the frame\n\n\| # \|[^\n]*\n[^\n]*\n\| 5 \| SMs idle 1\.20 µs inside draw 0/);
  assert.ok(md.indexOf('leftover FS warps') < md.indexOf('### 1 more below'));
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-groups-'));
  const file = join(dir, 'barriers.wtrace');
  writeFileSync(file, encodeWtrace(barrierFrame()));
  const run = (...args: string[]) => spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'stats', file, ...args], { encoding: 'utf8' });
  const cliMd = run();
  assert.equal(cliMd.status, 0, cliMd.stderr);
  assert.match(cliMd.stdout, /### 1 more below 0\.5% of the frame/);
  const json = JSON.parse(run('--format', 'json').stdout) as AnalysisSummary;
  assert.equal(json.findings.length, 46);
  assert.deepEqual(json.findingGroups.map((g) => [g.id, g.count, g.hidden]), [['sync:all', 21, false], ['leftover:FS', 22, false], ['occupancy-cap:VS', 1, false], ['occupancy-cap:FS', 1, false], ['idle:inside-draw', 1, true]]);
  const loose = JSON.parse(run('--format', 'json', '--threshold', 'findingGroupMinShare=0').stdout) as AnalysisSummary;
  assert.equal(loose.thresholds.findingGroupMinShare, 0);
  assert.ok(loose.findingGroups.every((g) => !g.hidden));
  const oneDraw = JSON.parse(run('--format', 'json', '--draw', '3').stdout) as { findingGroups: { id: string; count: number }[] };
  assert.deepEqual(oneDraw.findingGroups.map((g) => [g.id, g.count]), [['sync:all', 1], ['leftover:FS', 1]]);
});

test('a summary stored before finding groups reads back with them; bad groups are refused', () => {
  const old = JSON.parse(summaryToJson(summary)) as Record<string, unknown>;
  delete old['findingGroups'];
  delete (old['thresholds'] as Record<string, unknown>)['findingGroupMinShare'];
  const read = parseSummary(old);
  assert.equal(read.thresholds.findingGroupMinShare, 0.005);
  assert.deepEqual(read.findingGroups, JSON.parse(JSON.stringify(summary.findingGroups)));
  const bad = JSON.parse(summaryToJson(summary)) as { findingGroups: Record<string, unknown>[] };
  bad.findingGroups[0]!['count'] = 'many';
  assert.throws(() => parseSummary(bad), /summary\.findingGroups\[0\]\.count: expected a whole number/);
});

const syncsSample = repoPath('samples', 'h100-syncs.wtrace');
test('h100-syncs: the four syncs are one group of four', { skip: existsSync(syncsSample) ? false : 'samples/h100-syncs.wtrace not present' }, () => {
  const s = analyzeTrace(decodeTrace(new Uint8Array(readFileSync(syncsSample))));
  const sync = s.findingGroups.find((g) => g.kind === 'sync')!;
  assert.equal(sync.count, 4);
  assert.equal(sync.totalNs, s.syncs.totalNs);
  assert.match(sync.title, /^4 GPU idle gaps between serialized draws .*, 7\.\d\d µs each \(median\)/);
  assert.equal(s.findingGroups.filter((g) => g.kind === 'sync').length, 1);
  assert.equal(s.findingGroups.reduce((n, g) => n + g.count, 0), s.findings.length);
});
