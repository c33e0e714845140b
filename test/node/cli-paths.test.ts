// Command-line paths are file names, never URLs; outputs are checked before
// any work: the same file twice, the input as an output, an existing file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTrace, decodeWtrace, encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
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

test('a dangling symbolic link as output exists: refused without --force; with it, the file it points to is written and the link kept', () => {
  const where = join(dir, 'dangling');
  mkdirSync(where);
  writeFileSync(join(where, 'frame.wtrace'), traceBytes);
  symlinkSync('missing.json', join(where, 'out.json'));
  for (const args of [
    ['convert', 'frame.wtrace', '-o', 'out.json'],
    ['stats', 'frame.wtrace', '-o', 'out.json'],
    ['diff', 'frame.wtrace', 'frame.wtrace', '-o', 'out.json'],
    ['export', 'frame.wtrace', '--json', 'out.json'],
  ]) {
    const r = run(where, ...args);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.err, `warptrace ${args[0]}: out.json already exists as a symbolic link to missing.json, which is missing (use --force to write missing.json through it)\n`);
    assert.equal(lstatSync(join(where, 'out.json')).isSymbolicLink(), true, 'the link is untouched');
    assert.equal(existsSync(join(where, 'missing.json')), false, 'nothing written');
  }
  const forced = run(where, 'convert', 'frame.wtrace', '-o', 'out.json', '--force');
  assert.equal(forced.code, 0, forced.err);
  assert.equal(readlinkSync(join(where, 'out.json')), 'missing.json', 'the link is kept');
  assert.equal(decodeTrace(new Uint8Array(readFileSync(join(where, 'missing.json')))).warps.count, 3000);
  // A live link is written through the same way: its file replaced, the link kept.
  const again = run(where, 'stats', 'frame.wtrace', '-o', 'out.json', '--force', '--format', 'json');
  assert.equal(again.code, 0, again.err);
  assert.equal(readlinkSync(join(where, 'out.json')), 'missing.json');
  assert.equal(JSON.parse(readFileSync(join(where, 'missing.json'), 'utf8')).schema, 'warptrace-summary');
  // A link into a directory that does not exist names that directory.
  symlinkSync('nowhere/x.json', join(where, 'far.json'));
  const far = run(where, 'convert', 'frame.wtrace', '-o', 'far.json', '--force');
  assert.equal(far.code, 1);
  assert.equal(far.err, `warptrace convert: cannot write far.json: no such directory ${join(realpathSync(where), 'nowhere')}\n`);
  // A loop of links is refused, not replaced by a file.
  symlinkSync('loop-b', join(where, 'loop-a'));
  symlinkSync('loop-a', join(where, 'loop-b'));
  const loop = run(where, 'convert', 'frame.wtrace', '-o', 'loop-a', '--force');
  assert.equal(loop.code, 1);
  assert.equal(loop.err, 'warptrace convert: cannot write loop-a: its symbolic links make a loop\n');
  assert.equal(lstatSync(join(where, 'loop-a')).isSymbolicLink(), true);
  assert.deepEqual(readdirSync(where).filter((f) => f.endsWith('.tmp')), []);
});

test('two outputs naming one missing file, one through a symbolic link, are a usage error naming both', () => {
  const where = join(dir, 'linked-twins');
  mkdirSync(where);
  writeFileSync(join(where, 'frame.wtrace'), traceBytes);
  symlinkSync('a.json', join(where, 'b.json'));
  // Through a link in another directory, too: link-dir/c.json -> ../a.json.
  mkdirSync(join(where, 'link-dir'));
  symlinkSync('../a.json', join(where, 'link-dir', 'c.json'));
  for (const [first, second] of [
    ['a.json', 'b.json'],
    ['link-dir/c.json', 'a.json'],
    ['b.json', 'link-dir/c.json'],
  ] as const) {
    const r = run(where, 'export', 'frame.wtrace', '--json', first, '--md', second, '--force');
    assert.equal(r.code, 2, `${first} ${second}: ${r.err}`);
    assert.equal(r.err, `warptrace export: --json ${first} and --md ${second} are the same file (see warptrace export --help)\n`);
  }
  assert.equal(existsSync(join(where, 'a.json')), false, 'nothing written');
  assert.deepEqual(readdirSync(where).sort(), ['b.json', 'frame.wtrace', 'link-dir']);
});
