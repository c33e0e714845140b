// `warptrace passes` and the passes section of `stats`: the numbers printed are the
// analysis's own (analysis/passes.ts), on a real capture with a render pass and on a
// generated game-like frame of 2,000+ draws in 20+ passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTrace, encodeWtrace } from '../../shared-schema/index.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import { formatNs, formatShare } from '../../analysis/format.js';
import type { PassSection } from '../../analysis/passes.js';
import { gameFrameTrace } from './synthetic-game-frame.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-passes-'));
const game = gameFrameTrace({ seed: 9 });
const gameFile = join(dir, 'game.wtrace');
writeFileSync(gameFile, encodeWtrace(game));
const rt = repoPath('samples', 'h100-raytracingreflections-blocks.wtrace');

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('passes prints every region indented under its parent with the analysis numbers, and the draws in no pass', () => {
  const r = run('passes', rt);
  assert.equal(r.code, 0, r.err);
  const trace = decodeTrace(new Uint8Array(readFileSync(rt)));
  const section = analyzeTrace(trace).passes!;
  const pass = section.passes[0]!;
  const line = r.out.split('\n').find((l) => l.startsWith(pass.label))!;
  assert.ok(line !== undefined, r.out);
  for (const v of [formatNs(pass.spanNs), formatNs(pass.busyNs), formatNs(pass.warpTimeNs), formatShare(pass.shareOfFrame)]) assert.ok(line.includes(v), `${v} in "${line}"`);
  assert.match(r.out, /^\(in no pass\)\s+1\s/m, 'the trace-rays call outside the render pass');
});

test('passes --depth 0 lists the top-level passes; --json is the section; --csv a row per region', () => {
  const top = run('passes', gameFile, '--depth', '0');
  assert.equal(top.code, 0, top.err);
  const passes = game.regions.filter((r) => r.parent === null);
  assert.ok(passes.length >= 20 && game.draws.length >= 2000, `a game-like frame: ${game.draws.length} draws in ${passes.length} passes`);
  const rows = top.out.split('\n').slice(4).filter((l) => l.trim() !== '');
  assert.deepEqual(rows.map((l) => l.split(/\s{2,}/)[0]), passes.map((p) => p.label), 'one row per top-level pass, in order');
  assert.ok(!top.out.includes('/Opaque'), 'no nested regions');

  const json = JSON.parse(run('passes', gameFile, '--json').out) as PassSection;
  const own = analyzeTrace(decodeTrace(new Uint8Array(readFileSync(gameFile)))).passes!;
  assert.deepEqual(json, JSON.parse(JSON.stringify(own)));

  const csv = run('passes', gameFile, '--csv').out.trim().split('\n');
  assert.equal(csv.length, 1 + game.regions.length);
  const header = csv[0]!.split(',');
  const busyAt = header.indexOf('busy_ns');
  assert.equal(Number(csv[1]!.split(',')[busyAt]), own.passes[0]!.busyNs);
});

test('stats: the Markdown report has a Passes section, --format csv --table passes the table; no regions: exit 1 with a reason', () => {
  const md = run('stats', gameFile);
  assert.equal(md.code, 0, md.err);
  assert.match(md.out, /## Passes\n/);
  const csv = run('stats', gameFile, '--format', 'csv', '--table', 'passes');
  assert.equal(csv.code, 0, csv.err);
  assert.equal(csv.out.trim().split('\n').length, 1 + game.regions.length);
  const none = run('passes', repoPath('samples', 'h100-aqt.wtrace'));
  assert.equal(none.code, 1);
  assert.match(none.err, /no regions/);
  assert.equal(run('stats', repoPath('samples', 'h100-aqt.wtrace'), '--format', 'csv', '--table', 'passes').code, 1);
  assert.equal(run('passes', gameFile, '--json', '--csv').code, 2);
});
