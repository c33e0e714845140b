// A report sent where it cannot be written (`warptrace stats X > /dev/full`, a
// descriptor opened read-only) is one line on stderr and exit 1, never a stack
// trace, for every command and --help; a reader that stops early (`| head`) is
// still a quiet success.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const sample = (name: string) => repoPath('samples', name);

/** Runs the CLI with standard output on `/dev/full` (every write fails with ENOSPC) or on a descriptor opened `flags`. */
function runWithStdout(path: string, flags: string, args: readonly string[]) {
  const fd = openSync(path, flags);
  try {
    const r = spawnSync(process.execPath, [bin, ...args], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
    return { code: r.status, err: r.stderr };
  } finally {
    closeSync(fd);
  }
}

const COMMANDS: { args: string[]; prefix: string }[] = [
  { args: ['stats', sample('h100-aqt.wtrace')], prefix: 'warptrace stats' },
  // This one has a reliability warning (no SM ids): it is not printed for a report that was never written.
  { args: ['stats', sample('lavapipe-aqt.wtrace')], prefix: 'warptrace stats' },
  { args: ['stats', '--format', 'json', sample('h100-aqt-heavy.wtrace')], prefix: 'warptrace stats' },
  { args: ['stats', '--format', 'csv', '--table', 'draws', sample('h100-syncs.wtrace')], prefix: 'warptrace stats' },
  { args: ['info', sample('h100-aqt.wtrace')], prefix: 'warptrace info' },
  { args: ['info', '--json', sample('h100-aqt.wtrace')], prefix: 'warptrace info' },
  // Different devices: a diff warning, likewise not printed.
  { args: ['diff', sample('h100-aqt.wtrace'), sample('lavapipe-aqt.wtrace')], prefix: 'warptrace diff' },
  { args: ['diff', '--format', 'json', sample('h100-aqt.wtrace'), sample('h100-aqt-heavy.wtrace')], prefix: 'warptrace diff' },
  { args: ['--help'], prefix: 'warptrace' },
  { args: ['--version'], prefix: 'warptrace' },
  { args: ['stats', '--help'], prefix: 'warptrace stats' },
  { args: ['instrument', '--help'], prefix: 'warptrace instrument' },
  { args: ['query', sample('h100-aqt.wtrace'), 'SELECT stage, count(*) FROM warps GROUP BY stage'], prefix: 'warptrace query' },
  { args: ['query', sample('h100-aqt.wtrace'), 'SELECT * FROM warps', '--csv'], prefix: 'warptrace query' },
];

const noFull = existsSync('/dev/full') ? false : 'this system has no /dev/full';
test('standard output on a full device: exit 1 and one line naming it, for every command and --help', { skip: noFull }, () => {
  for (const { args, prefix } of COMMANDS) {
    const r = runWithStdout('/dev/full', 'w', args);
    assert.equal(r.err, `${prefix}: no space left on device writing standard output\n`, args.join(' '));
    assert.equal(r.code, 1, args.join(' '));
  }
});

test('standard output not open for writing (EBADF): exit 1 and one line naming it', () => {
  for (const { args, prefix } of [COMMANDS[0]!, COMMANDS[5]!, COMMANDS[8]!]) {
    const r = runWithStdout('/dev/null', 'r', args);
    assert.equal(r.err, `${prefix}: cannot write standard output: bad file descriptor\n`, args.join(' '));
    assert.equal(r.code, 1, args.join(' '));
  }
});

test('a reader that stops early (EPIPE) is still a quiet success', () => {
  // 125 KB of JSON, more than a pipe holds (64 KiB): `head` has gone before the last of it is written.
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" stats --format json "${sample('h100-ray-tracing.wtrace')}" | head -c 10 > /dev/null; echo "\${PIPESTATUS[0]}"`], {
    encoding: 'utf8',
  });
  // The trace's own warning (SM clock alignment) may be printed; no error line, no stack trace.
  assert.deepEqual(r.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning: ')), []);
  assert.equal(r.stdout, '0\n');
});
