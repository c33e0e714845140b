// The `warptrace` binary end to end: real files in, exit codes and outputs checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H100_CLOCKS, decodeWtrace, encodeWtraw, rawCaptureOf } from '../../shared-schema/index.js';
import { traceWithRowIds } from './fixtures.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-cli-'));
const raw = join(dir, 'frame.wtraw');
writeFileSync(raw, encodeWtraw(rawCaptureOf(traceWithRowIds(8000), { ...H100_CLOCKS, dropped: 77 }).raw));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('--help lists the commands and exits 0; no command is a usage error', () => {
  const help = run('--help');
  assert.equal(help.code, 0);
  assert.match(help.out, /info\s+describe a trace/);
  assert.match(help.out, /convert\s+convert a trace/);
  assert.equal(run().code, 2);
  assert.equal(run('frobnicate').code, 2);
  for (const name of ['info', 'convert']) {
    const r = run(name, '--help');
    assert.equal(r.code, 0);
    assert.match(r.out, new RegExp(`^usage: warptrace ${name}`));
  }
});

test('convert calibrates a raw dump into a .wtrace that info describes', () => {
  const out = join(dir, 'frame.wtrace');
  const conv = run('convert', raw, '-o', out);
  assert.equal(conv.code, 0, conv.err);
  assert.match(conv.out, /8,000 warps.*calibration per-sm-fit, SMs aligned: yes; 77 records dropped/);
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  assert.equal(trace.warps.count, 8000);
  assert.equal(trace.capture.recordsWritten, 8077);

  const info = run('info', out);
  assert.equal(info.code, 0, info.err);
  assert.match(info.out, /8,077 written, 8,000 kept, 77 dropped/);
  assert.match(info.out, /calibration per-sm-fit, SMs aligned: yes/);
  // Graphics stages ran on exactly the four graphics SMs of the synthetic H100.
  assert.match(info.out, /\nVS\s+[\d,]+\s+4\s+0-1, 48-49/);

  const json = JSON.parse(run('info', out, '--json').out) as { summary: { dropped: number; sms: unknown[] } };
  assert.equal(json.summary.dropped, 77);
  assert.ok(json.summary.sms.length > 4);
});

test('convert --threads: the same bytes from 1 and 3 threads; a bad count is a usage error', () => {
  const one = join(dir, 'one-thread.wtrace');
  const three = join(dir, 'three-threads.wtrace');
  assert.equal(run('convert', raw, '-o', one, '--threads', '1').code, 0);
  const pooled = run('convert', raw, '-o', three, '--threads', '3');
  assert.equal(pooled.code, 0, pooled.err);
  assert.match(pooled.out, /8,000 warps.*SMs aligned: yes/);
  assert.deepEqual(readFileSync(three), readFileSync(one));
  assert.equal(run('convert', raw, '-o', join(dir, 'x.wtrace'), '--threads', '0').code, 2);
  assert.equal(run('convert', raw, '-o', join(dir, 'x.wtrace'), '--threads', 'many').code, 2);
  // Straight to the file or through a Trace (JSON out): the same trace.
  const json = join(dir, 'three-threads.json');
  assert.equal(run('convert', raw, '-o', json, '--threads', '3').code, 0);
  assert.equal(decodeWtrace(readFileSync(one)).warps.count, (JSON.parse(readFileSync(json, 'utf8')) as { warps: { startNs: unknown[] } }).warps.startNs.length);
});

test('convert refuses to write over its input, before reading it, even with --force', () => {
  const copy = join(dir, 'self.wtraw');
  writeFileSync(copy, readFileSync(raw));
  const r = run('convert', copy, '-o', copy, '--force');
  assert.equal(r.code, 2);
  assert.match(r.err, /OUT must differ from IN/);
  assert.deepEqual(readFileSync(copy), readFileSync(raw));
});

test('convert never clobbers an existing file without --force, and leaves no partial file', () => {
  const out = join(dir, 'keep.wtrace');
  writeFileSync(out, 'precious');
  const refused = run('convert', raw, '-o', out);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /already exists \(use --force/);
  assert.equal(readFileSync(out, 'utf8'), 'precious');
  assert.equal(run('convert', raw, '-o', out, '--force').code, 0);
  assert.equal(decodeWtrace(new Uint8Array(readFileSync(out))).warps.count, 8000);
  const missingDir = run('convert', raw, '-o', join(dir, 'no', 'such', 'dir', 'x.wtrace'));
  assert.equal(missingDir.code, 1);
  assert.ok(readdirSync(dir).every((f) => !f.endsWith('.tmp')), 'no temporary files left');
});

test('bad input exits 1 with one line naming the problem, no stack trace', () => {
  const bad = join(dir, 'bad.wtraw');
  writeFileSync(bad, readFileSync(raw).subarray(0, 1000));
  const r = run('info', bad);
  assert.equal(r.code, 1);
  assert.equal(r.err.trim().split('\n').length, 1);
  assert.match(r.err, /^warptrace info: file: 1000 bytes, but the header declares \d+/);
  assert.doesNotMatch(r.err, /\s+at /);
  const missing = run('info', join(dir, 'missing.wtrace'));
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no such file/);
  assert.equal(run('convert', raw).code, 2);
  assert.equal(existsSync(join(dir, 'frame.json')), false);
});

test('convert writes the JSON import format when OUT ends in .json', () => {
  const out = join(dir, 'frame.json');
  assert.equal(run('convert', raw, '-o', out).code, 0);
  const doc = JSON.parse(readFileSync(out, 'utf8')) as { format: string; warps: { startNs: number[] } };
  assert.equal(doc.format, 'warptrace-json');
  assert.equal(doc.warps.startNs.length, 8000);
  assert.equal(run('info', out).code, 0);
});
