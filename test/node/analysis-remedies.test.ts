// Findings that say what to do (analysis/remedies.ts): a sync names the calls and the
// passes between its two draws; a tessellation stall says to sort or split patches by cost;
// an idle window inside a draw names its stages; an occupancy cap points at per-warp
// resources. On the H100 samples and on a frame built with an untraced call and a pass
// boundary between two serialized draws.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { decodeTrace, type Trace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import { parseSummary } from '../../analysis/summary-json.js';
import { summaryToMarkdown } from '../../analysis/export/markdown.js';
import { findingsCsv } from '../../analysis/export/csv.js';
import { traceOf } from './analysis-fixtures.js';
import { repoPath } from './paths.js';

const sample = (name: string) => decodeTrace(new Uint8Array(readFileSync(repoPath('samples', name))));

test('a sync between passes names the calls submitted between its draws and the passes that end and begin there', () => {
  const base = traceOf({
    draws: 3,
    warps: [
      { sm: 0, stage: 'VS', draw: 0, start: 0, end: 1000 },
      { sm: 1, stage: 'CS', draw: 2, start: 5000, end: 6000 },
    ],
  });
  const trace: Trace = {
    ...base,
    regions: [
      { index: 0, label: 'Shadows', parent: null, source: 'debug-label' },
      { index: 1, label: 'Lighting', parent: null, source: 'debug-label' },
    ],
    draws: [
      { ...base.draws[0]!, label: 'Shadow caster', call: 'vkCmdDrawIndexed', region: 0 },
      { ...base.draws[1]!, label: 'Blit', call: 'vkCmdDraw', region: 1, untraced: 'pipeline 0x1: its layout has no free set' },
      { ...base.draws[2]!, label: 'Light tiles', kind: 'dispatch', call: 'vkCmdDispatch', region: 1 },
    ],
  };
  const s = analyzeTrace(trace);
  const sync = s.findings.find((f) => f.kind === 'sync')!;
  assert.ok(sync !== undefined, 'the 4 µs gap is a sync');
  const r = sync.remedy!;
  assert.match(r, /^Between draw 0 "Shadow caster" \(vkCmdDrawIndexed\) and dispatch 2 "Light tiles" \(vkCmdDispatch\)/);
  assert.match(r, /draw 1 "Blit" \(vkCmdDraw\), untraced/, 'the untraced call between them');
  assert.match(r, /"Shadows" ends, "Lighting" begins/, 'the pass boundary');
  assert.match(r, /records no barriers/, 'says the barrier itself is not in the trace');
  assert.equal(s.findingGroups.find((g) => g.kind === 'sync')!.remedy, r, 'the group carries its costliest member\'s remedy');
});

test('h100-tess-stall: the stalls say sort or split patches by cost; the sync between the two draws says they follow directly', () => {
  const s = analyzeTrace(sample('h100-tess-stall.wtrace'));
  const stalls = s.findings.filter((f) => f.kind === 'stall');
  assert.ok(stalls.length > 0);
  for (const f of stalls) assert.match(f.remedy!, /Sort or split patches by cost/, f.title);
  const sync = s.findings.find((f) => f.kind === 'sync')!;
  assert.match(sync.remedy!, /^Draw 1 ".*" follows draw 0 ".*" directly in the command stream/);
  // Written into every summary format.
  const md = summaryToMarkdown(s);
  assert.ok(md.includes(`**What to do:** ${stalls[0]!.remedy}`), 'Markdown report');
  const csv = findingsCsv(s).split('\n');
  assert.ok(csv[0]!.endsWith(',remedy'));
  assert.ok(csv.slice(1).some((line) => line.includes('Sort or split patches by cost')), 'findings CSV');
  assert.equal(parseSummary(JSON.parse(JSON.stringify(s))).findings[0]!.remedy, s.findings[0]!.remedy, 'JSON');
});

test('h100-compute-graphics: the idle window between VS and FS names the hand-off; the compute cap points at per-warp resources', () => {
  const s = analyzeTrace(sample('h100-compute-graphics.wtrace'));
  const idle = s.findings.find((f) => f.kind === 'idle')!;
  assert.match(idle.remedy!, /between its last VS warp and its next FS warp/);
  const cap = s.findings.find((f) => f.kind === 'occupancy-cap')!;
  assert.match(cap.remedy!, /At most 32 of 64 warp slots held CS warps/);
  assert.match(cap.remedy!, /registers or shared memory/);
});

test('a summary stored before remedies reads back with remedy null', () => {
  const s = analyzeTrace(sample('h100-syncs.wtrace'));
  const json = JSON.parse(JSON.stringify(s)) as { findings: Record<string, unknown>[]; findingGroups: Record<string, unknown>[] };
  for (const f of json.findings) delete f['remedy'];
  for (const g of json.findingGroups) delete g['remedy'];
  const back = parseSummary(json);
  assert.ok(back.findings.length > 0);
  assert.ok(back.findings.every((f) => f.remedy === null));
  assert.ok(back.findingGroups.every((g) => g.remedy === null));
});
