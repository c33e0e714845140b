// warptrace info and stats on a sampled trace (issue 25): they say it is
// sampled and how, mark the estimated figures and carry the rates into the
// CSV export; a full trace's output has none of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTrace, encodeWtrace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';
import { sampledTrace } from './sampled-trace.js';

const source = repoPath('samples', 'h100-aqt-positions.wtrace');
const skip = existsSync(source) ? false : 'samples/h100-aqt-positions.wtrace not present';

function cli(...args: string[]): { out: string; err: string } {
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { out: r.stdout, err: r.stderr };
}

function sampledFile(): string {
  const trace = decodeTrace(new Uint8Array(readFileSync(source)));
  const path = join(mkdtempSync(join(tmpdir(), 'wt-sampled-')), 'fs8.wtrace');
  writeFileSync(path, encodeWtrace(sampledTrace(trace, { FS: 8 }, { chosenBy: 'budget', budget: 1.1 })));
  return path;
}

test('info says how the trace was sampled and gives the FS estimate beside the recorded count', { skip }, () => {
  const path = sampledFile();
  const recordedFs = decodeTrace(new Uint8Array(readFileSync(path))).warps.stage.filter((s) => s === 4).length;
  const { out } = cli('info', path);
  assert.match(out, /^sampled +FS 1 in 8, other stages all \(chosen by --budget 1\.10\)/m);
  const fsRow = out.split('\n').find((l) => l.startsWith('FS '))!;
  assert.ok(fsRow.includes(`${recordedFs.toLocaleString('en-US')} of ≈ ${(recordedFs * 8).toLocaleString('en-US')} ±`), fsRow);
  assert.doesNotMatch(cli('info', source).out, /^sampled |≈/m);
});

test('stats marks estimates, withholds the detectors with a reason, and the CSV carries the rates', { skip }, () => {
  const path = sampledFile();
  const { out, err } = cli('stats', path);
  assert.match(out, /## Sampled trace/);
  assert.match(out, /\| FS \| [\d,]+ \(1 in 8\) \| ≈ [\d,]+ ± [\d,]+ \|/);
  assert.match(out, /None reported: syncs, idle windows, leftovers and stalls are withheld/);
  assert.match(out, /- idle: sampled trace \(FS 1 in 8 warps recorded\)/);
  assert.match(err, /^sampled: FS 1 in 8/m);
  const csv = cli('stats', path, '--format', 'csv').out.trim().split('\n');
  const head = csv[0]!.split(',');
  const fs = csv.find((l) => l.startsWith('FS,'))!.split(',');
  assert.equal(fs[head.indexOf('sampled_every')], '8');
  assert.equal(Number(fs[head.indexOf('warps')]), 8 * Number(fs[head.indexOf('recorded_warps')]));
  const full = cli('stats', source).out;
  assert.doesNotMatch(full, /Sampled|≈/);
  assert.ok(!cli('stats', source, '--format', 'csv').out.includes('sampled_every'));
});
