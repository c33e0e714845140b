// Block profiles (issue 23): the per block / per line table, `warptrace blocks` and the line in `warptrace info`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blockTable } from '../../analysis/blocks.js';
import { encodeWtrace, synthesizeTrace, type BlockProfile, type Trace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const f64 = (...v: number[]) => Float64Array.from(v);
const site = (line: number | null, text: string | null = null) => ({ function: 'main', file: line === null ? null : 'a.frag', line, column: null, text });

/** Module 0 (per warp, SM cycles): blocks 0 and 1 on line 10, block 2 without a line; module 1 per invocation, device ticks. */
const PROFILE: BlockProfile = {
  subgroupSize: 32,
  dropped: 3,
  unprofiledDraws: 1,
  modules: [
    { name: 'a.frag', stages: ['FS'], per: 'warp', clock: 'sm', blocks: [site(10), site(10), site(null, 'OpReturn')], sources: [{ file: 'a.frag', text: 'x\n' }] },
    { name: 'b.vert', stages: ['VS'], per: 'invocation', clock: 'device', blocks: [site(4)], sources: [] },
  ],
  rows: [
    { draw: 0, modules: [{ module: 0, executions: f64(10, 4, 2), lanes: f64(320, 64, 2), ticks: f64(1000, 3000, 0) }, { module: 1, executions: f64(7), lanes: f64(7), ticks: f64(70) }] },
    { draw: 2, modules: [{ module: 0, executions: f64(6, 0, 1), lanes: f64(96, 0, 32), ticks: f64(1000, 0, 5000) }] },
  ],
};

const base = synthesizeTrace({ warps: 1500, seed: 3, warpsPerDraw: 500 });
const trace: Trace = { ...base, device: { ...base.device, clocks: { ...base.device.clocks, smClockRateHz: 2e9, deviceClockNsPerTick: 1 } }, blocks: PROFILE };

test('by block: sums over the draws, SIMT efficiency, shares per clock, ns through the SM clock rate', () => {
  const t = blockTable(PROFILE, trace.device.clocks, { draws: null, by: 'block' });
  assert.deepEqual(t.draws, [0, 2]);
  assert.deepEqual(t.totalTicks, { sm: 10000, device: 70 });
  assert.deepEqual(
    t.stats.map((s) => [s.module, s.blocks, s.executions, s.lanes, s.ticks]),
    [
      [0, [2], 3, 34, 5000],
      [0, [1], 4, 64, 3000],
      [0, [0], 16, 416, 2000],
      [1, [0], 7, 7, 70],
    ],
  );
  const [b2, b1, b0, vert] = t.stats;
  assert.equal(b0!.simtEfficiency, 416 / (32 * 16));
  assert.equal(b1!.simtEfficiency, 0.5);
  assert.equal(b2!.text, 'OpReturn');
  assert.equal(b2!.tickShare, 0.5);
  // 2 GHz: 5000 cycles are 2.5 µs.
  assert.equal(b2!.ns, 2500);
  // Per invocation: no SIMT efficiency; device ticks at 1 ns each, its share among device ticks only.
  assert.equal(vert!.simtEfficiency, null);
  assert.equal(vert!.tickShare, 1);
  assert.equal(vert!.ns, 70);
});

test('by line: a line sums its blocks; one draw; draws without a row are listed', () => {
  const t = blockTable(PROFILE, trace.device.clocks, { draws: new Set([0, 1]), by: 'line' });
  assert.deepEqual(t.draws, [0]);
  assert.deepEqual(t.missingDraws, [1]);
  const line10 = t.stats.find((s) => s.line === 10)!;
  assert.deepEqual([line10.blocks, line10.executions, line10.lanes, line10.ticks], [[0, 1], 14, 384, 4000]);
  assert.equal(line10.tickShare, 1);
  // Block 2 ran in draw 0 with no ticks but 2 executions: still a row.
  assert.ok(t.stats.some((s) => s.blocks[0] === 2 && s.executions === 2));
  // Without an SM clock rate there is no ns.
  const noRate = blockTable(PROFILE, { ...trace.device.clocks, smClockRateHz: null }, { draws: null, by: 'line' });
  assert.equal(noRate.stats.find((s) => s.module === 0)!.ns, null);
});

const dir = mkdtempSync(join(tmpdir(), 'warptrace-blocks-'));
const withBlocks = join(dir, 'blocks.wtrace');
writeFileSync(withBlocks, encodeWtrace(trace));
const without = join(dir, 'plain.wtrace');
writeFileSync(without, encodeWtrace(base));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('warptrace blocks prints the table, hottest first, in text, JSON, CSV and Markdown', () => {
  const text = run('blocks', withBlocks);
  assert.equal(text.code, 0, text.err);
  const lines = text.out.split('\n');
  assert.match(lines[0]!, /^2 draws profiled: 0, 2$/);
  assert.match(text.out, /1 draws of the capture got no row/);
  assert.match(text.out, /3 block executions dropped/);
  const rows = lines.filter((l) => l.startsWith('a.frag') || l.startsWith('b.vert'));
  // Equal ticks: the line with more executions first.
  assert.match(rows[0]!, /^a\.frag\s+a\.frag:10 \(2 blocks\)\s+main\s+20\s+75\.0%\s+5,000\s+50\.0%\s+2\.50 µs/);
  assert.match(rows[1]!, /^a\.frag\s+#2 OpReturn\s+main\s+3\s+35\.4%\s+5,000\s+50\.0%/);
  const json = JSON.parse(run('blocks', withBlocks, '--draw', '2', '--by', 'block', '--json').out);
  assert.deepEqual(json.draws, [2]);
  assert.deepEqual(json.stats.map((s: { blocks: number[] }) => s.blocks[0]), [2, 0]);
  const csv = run('blocks', withBlocks, '--csv', '--top', '1').out.trim().split('\n');
  assert.equal(csv.length, 2);
  assert.equal(csv[1], 'a.frag,0 1,main,a.frag,10,,,20,480,0.75,5000,sm,0.5,2500');
  assert.match(run('blocks', withBlocks, '--md').out, /\| module \| line \| function \|/);
});

test('warptrace blocks refuses traces without a profile and bad options', () => {
  const none = run('blocks', without);
  assert.equal(none.code, 1);
  assert.match(none.err, /no block profile/);
  assert.equal(run('blocks', withBlocks, '--by', 'file').code, 2);
  assert.equal(run('blocks', withBlocks, '--draw', '3..1').code, 2);
  assert.equal(run('blocks', withBlocks, '--json', '--csv').code, 2);
  assert.equal(run('blocks', withBlocks, '--draw', '99').code, 1);
});

test('warptrace info says what the profile covers, only when there is one', () => {
  const info = run('info', withBlocks);
  assert.equal(info.code, 0, info.err);
  assert.match(info.out, /^blocks {6}2 draws profiled, 2 modules, 4 blocks \(3 with source lines\), 1 draws without a row \(table full\), 3 block executions dropped/m);
  assert.doesNotMatch(run('info', without).out, /^blocks/m);
});
