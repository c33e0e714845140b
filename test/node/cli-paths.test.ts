// Command-line paths are file names, never URLs; outputs are checked before
// any work: the same file twice, the input as an output, an existing file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWtrace, encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-paths-'));
const traceBytes = encodeWtrace(synthesizeTrace({ warps: 3000, seed: 11 }));

function run(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('#, ?, spaces and Unicode in file names are parts of the name', () => {
  const where = join(dir, 'names');
  mkdirSync(where);
  // Two different files whose names a URL parser cuts to the same path ("frame").
  writeFileSync(join(where, 'frame#1.wtrace'), traceBytes);
  const converted = run(where, 'convert', 'frame#1.wtrace', '-o', 'frame#2.wtrace');
  assert.equal(converted.code, 0, converted.err);
  assert.equal(decodeWtrace(readFileSync(join(where, 'frame#2.wtrace'))).warps.count, 3000);
  for (const name of ['frame?x=1.json', 'my frame 1.wtrace', 'kadr №1 — 東京.wtrace', '%41%20.wtrace']) {
    const r = run(where, 'convert', 'frame#1.wtrace', '-o', name);
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.ok(existsSync(join(where, name)), name);
  }
  const info = run(where, 'info', 'kadr №1 — 東京.wtrace');
  assert.equal(info.code, 0, info.err);
  assert.match(info.out, /^file {8}kadr №1 — 東京\.wtrace/);
  assert.deepEqual(readdirSync(where).filter((f) => f.endsWith('.tmp')), []);
});

test('two outputs naming one file are a usage error naming both, before any work', () => {
  const where = join(dir, 'twins');
  mkdirSync(where);
  writeFileSync(join(where, 'frame.wtrace'), traceBytes);
  const r = run(where, 'export', 'frame.wtrace', '--json', 'a.json', '--md', './a.json');
  assert.equal(r.code, 2);
  assert.equal(r.err, 'warptrace export: --json a.json and --md ./a.json are the same file (see warptrace export --help)\n');
  assert.equal(existsSync(join(where, 'a.json')), false, 'nothing written');
  // Through a symbolic link to the directory, too.
  symlinkSync(where, join(where, 'here'));
  const linked = run(where, 'export', 'frame.wtrace', '--csv-stages', 'here/s.csv', '--csv-draws', 's.csv');
  assert.equal(linked.code, 2);
  assert.match(linked.err, /--csv-stages here\/s\.csv and --csv-draws s\.csv are the same file/);
  // Even when the analysis would fail anyway (bad input): the outputs are checked first.
  writeFileSync(join(where, 'garbage.wtrace'), 'not a trace');
  assert.match(run(where, 'export', 'garbage.wtrace', '--json', 'b.json', '--md', 'b.json').err, /--json b\.json and --md b\.json are the same file/);
});

test('an output that is the input is refused, whatever it is called', () => {
  const where = join(dir, 'self');
  mkdirSync(where);
  writeFileSync(join(where, 'frame.wtrace'), traceBytes);
  for (const args of [
    ['convert', 'frame.wtrace', '-o', './frame.wtrace', '--force'],
    ['export', 'frame.wtrace', '--json', '../self/frame.wtrace', '--force'],
    ['stats', 'frame.wtrace', '-o', 'frame.wtrace', '--force'],
  ]) {
    const r = run(where, ...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, /is the input frame\.wtrace: OUT must differ from IN/);
  }
  assert.deepEqual(readFileSync(join(where, 'frame.wtrace')), Buffer.from(traceBytes));
});

test('an existing output without --force is refused before the work (even before reading the input)', () => {
  const where = join(dir, 'existing');
  mkdirSync(where);
  writeFileSync(join(where, 'out.json'), 'precious');
  writeFileSync(join(where, 'out.wtrace'), 'precious');
  for (const args of [
    ['convert', 'missing.wtraw', '-o', 'out.wtrace'],
    ['export', 'missing.wtraw', '--perfetto', 'out.json'],
    ['stats', 'missing.wtraw', '-o', 'out.json'],
    ['diff', 'missing.wtraw', 'missing.wtraw', '-o', 'out.json'],
  ]) {
    const r = run(where, ...args);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.err, /^warptrace \w+: out\.(json|wtrace) already exists \(use --force to replace it\)\n$/, args.join(' '));
  }
  const noDir = run(where, 'convert', 'missing.wtraw', '-o', 'no/such/dir/x.wtrace');
  assert.equal(noDir.code, 1);
  assert.match(noDir.err, /cannot write no\/such\/dir\/x\.wtrace: no such directory no\/such\/dir/);
  assert.equal(readFileSync(join(where, 'out.json'), 'utf8'), 'precious');
});
