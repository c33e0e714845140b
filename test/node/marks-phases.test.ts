// Phases between marks (analysis/marks.ts, warptrace phases): the numbers of a case worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markLabel, markSummaryLine, phaseTable } from '../../analysis/marks.js';
import { MARK_KIND_SHIFT, MarkKind, encodeWtrace, traceFromJson } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const BEFORE = (MarkKind.BEFORE_TRACE << MARK_KIND_SHIFT) | 0;
const AFTER = (MarkKind.AFTER_TRACE << MARK_KIND_SHIFT) | 0;

/**
 * Draw 0: three FS warps (100, 200 and 50 ns; the first two marked before and
 * after a trace call, the third not) and a VS warp of 10 ns with wtMark(7) at 5 ns.
 */
const JSON_TRACE = {
  format: 'warptrace-json',
  version: 1,
  device: { name: 'test', subgroupSize: 32, smCount: 4, warpsPerSm: 8, smBuiltins: true },
  capture: { workload: 'phases' },
  draws: [{ label: 'rt', kind: 'draw', gpuBeginNs: 0, gpuEndNs: 1000 }],
  warps: {
    startNs: [0, 0, 0, 0],
    endNs: [100, 200, 50, 10],
    sm: [0, 1, 2, 3],
    warpSlot: [0, 0, 0, 0],
    stage: ['FS', 'FS', 'FS', 'VS'],
    draw: [0, 0, 0, 0],
    customId: [0, 1, 2, 3],
    activeMask: [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff],
  },
  marks: {
    count: 5,
    orphans: 1,
    warp: [0, 0, 1, 1, 3],
    id: [BEFORE, AFTER, BEFORE, AFTER, 7],
    sequence: [0, 1, 0, 1, 0],
    offsetNs: [20, 70, 40, 140, 5],
    activeMask: [0xffffffff, 0xffff, 0xff, 0xf, 0x7],
  },
};

test('mark labels name the instrumenter kinds and sites', () => {
  assert.equal(markLabel(BEFORE), 'before trace #0');
  assert.equal(markLabel((MarkKind.AFTER_TRACE << MARK_KIND_SHIFT) | 12), 'after trace #12');
  assert.equal(markLabel((MarkKind.LOOP_HEAD << MARK_KIND_SHIFT) | 3), 'loop #3 head');
  assert.equal(markLabel((MarkKind.LOOP_EXIT << MARK_KIND_SHIFT) | 3), 'loop #3 exit');
  assert.equal(markLabel(7), 'mark 7');
});

test('phases per draw and stage: warps, times, live lanes and shares of the stage time', () => {
  const trace = traceFromJson(JSON_TRACE);
  const t = phaseTable(trace, { draws: null, stage: null });
  assert.equal(t.marks, 5);
  assert.equal(t.warpsWithMarks, 3);
  assert.equal(t.orphans, 1);
  const rows = t.phases.map((p) => [p.stageName, p.label, p.warps, p.totalNs, p.meanNs, p.p50Ns, p.maxNs, p.meanLiveLanes, p.share]);
  assert.deepEqual(rows, [
    // VS (code 0) first: the one warp of 10 ns.
    ['VS', 'start → mark 7', 1, 5, 5, 5, 5, 3, 0.5],
    ['VS', 'mark 7 → end', 1, 5, 5, 5, 5, 3, 0.5],
    // FS: the stage's warps take 100 + 200 + 50 = 350 ns; the unmarked warp counts in it.
    ['FS', 'start → before trace #0', 2, 60, 30, 20, 40, (32 + 8) / 2, 60 / 350],
    ['FS', 'before trace #0 → after trace #0', 2, 150, 75, 50, 100, (32 + 8) / 2, 150 / 350],
    ['FS', 'after trace #0 → end', 2, 90, 45, 30, 60, (16 + 4) / 2, 90 / 350],
  ]);
  const fs = phaseTable(trace, { draws: new Set([0]), stage: 4 });
  assert.equal(fs.phases.length, 3);
  assert.equal(fs.marks, 4);
  assert.equal(phaseTable(trace, { draws: new Set([1]), stage: null }).phases.length, 0);
  assert.equal(markSummaryLine(trace.marks!), '5 marks on 3 warps, 1 orphan (their warps are not in the trace) (see warptrace phases)');
});

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('warptrace phases prints the table (text, JSON, CSV, Markdown); info says the trace has marks; a trace without marks is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wt-phases-'));
  const file = join(dir, 'marked.wtrace');
  writeFileSync(file, encodeWtrace(traceFromJson(JSON_TRACE)));
  const text = cli('phases', file);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^5 marks on 3 warps; 1 orphan marks/);
  assert.match(text.out, /before trace #0 → after trace #0/);
  const json = cli('phases', file, '--stage', 'fs', '--json');
  assert.equal(json.code, 0, json.err);
  const parsed = JSON.parse(json.out) as { phases: { label: string; totalNs: number }[] };
  assert.deepEqual(
    parsed.phases.map((p) => [p.label, p.totalNs]),
    [
      ['start → before trace #0', 60],
      ['before trace #0 → after trace #0', 150],
      ['after trace #0 → end', 90],
    ],
  );
  const csv = cli('phases', file, '--draw', '0', '--csv');
  assert.equal(csv.code, 0, csv.err);
  assert.equal(csv.out.trim().split('\n').length, 6);
  assert.match(csv.out, /^draw,stage,from,to,phase,/);
  assert.equal(cli('phases', file, '--md').code, 0);
  assert.equal(cli('phases', file, '--stage', 'nope').code, 2);
  assert.equal(cli('phases', file, '--draw', '5').code, 1);
  const info = cli('info', file);
  assert.equal(info.code, 0, info.err);
  assert.match(info.out, /marks\s+5 marks on 3 warps, 1 orphan/);
  const plain = join(dir, 'plain.wtrace');
  const { marks: _, ...withoutMarks } = JSON_TRACE;
  writeFileSync(plain, encodeWtrace(traceFromJson(withoutMarks)));
  const none = cli('phases', plain);
  assert.equal(none.code, 1);
  assert.match(none.err, /no marks/);
  assert.doesNotMatch(cli('info', plain).out, /marks/);
});
