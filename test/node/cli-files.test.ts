// Writing outputs never loses data: short writes and a full disk keep the old
// file (byte for byte) and leave no temporary file; Ctrl-C / kill remove it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../cli/command.js';
import { writeFileAtomic, type WriteCall } from '../../cli/files.js';
import { encodeWtrace, synthesizeTrace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-files-'));
const temporaryFiles = (where: string) => readdirSync(where).filter((f) => f.endsWith('.tmp'));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** 3 MiB of distinct bytes, written in chunks of 1 MiB, as a trace export would come. */
const payload = Uint8Array.from({ length: 3 << 20 }, (_, i) => (i * 7 + (i >> 11)) & 0xff);
const chunksOf = (bytes: Uint8Array) => [bytes.subarray(0, 1 << 20), bytes.subarray(1 << 20, 2 << 20), bytes.subarray(2 << 20)];

test('writeFileAtomic goes on after short writes until every byte is written', async () => {
  const path = join(dir, 'short.bin');
  let calls = 0;
  // Each call takes at most 1000 bytes, and every third takes a single byte: all still arrive, in order.
  const short: WriteCall = (fd, data, offset, length) => writeSync(fd, data, offset, ++calls % 3 === 0 ? 1 : Math.min(length, 1000));
  const written = await writeFileAtomic(path, chunksOf(payload), { overwrite: false, write: short });
  assert.equal(written, payload.length);
  assert.ok(calls > 3000, 'the writes were short');
  assert.deepEqual(new Uint8Array(readFileSync(path)), payload);
  assert.deepEqual(temporaryFiles(dir), []);
});

test('a full disk mid-write keeps the existing file byte-identical, leaves no temporary file, and says so in one line', async () => {
  const path = join(dir, 'precious.wtrace');
  const original = readFileSync(repoPath('samples', 'h100-aqt.wtrace'));
  writeFileSync(path, original);
  // What Linux does on a nearly full disk: a short write, then ENOSPC.
  let room = 287_000;
  const filling: WriteCall = (fd, data, offset, length) => {
    if (room === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const n = writeSync(fd, data, offset, Math.min(length, room));
    room -= n;
    return n;
  };
  await assert.rejects(writeFileAtomic(path, chunksOf(payload), { overwrite: true, write: filling }), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.message, `no space left on device writing ${path} (stopped after 280.3 KiB; ${path} is unchanged)`);
    return true;
  });
  assert.deepEqual(readFileSync(path), original);
  assert.deepEqual(temporaryFiles(dir), []);

  // A write that takes nothing (and reports no error) is a full disk too, not an endless loop.
  const stuck: WriteCall = () => 0;
  await assert.rejects(writeFileAtomic(path, chunksOf(payload), { overwrite: true, write: stuck }), /^InputError: no space left on device writing .*precious\.wtrace \(stopped after 0 B; .* is unchanged\)$/);
  assert.deepEqual(readFileSync(path), original);
  assert.deepEqual(temporaryFiles(dir), []);
});

test('an error while making the data is not reported as a write error (and leaves nothing behind)', async () => {
  const path = join(dir, 'made.json');
  function* failing(): Generator<string> {
    yield '{"a":';
    throw new RangeError('Invalid string length');
  }
  await assert.rejects(writeFileAtomic(path, failing(), { overwrite: false }), (e: unknown) => e instanceof RangeError);
  assert.equal(existsSync(path), false);
  assert.deepEqual(temporaryFiles(dir), []);
});

/** A tmpfs of `kib` KiB at a new directory, or the reason there is none (not root, no mount(8), a container without CAP_SYS_ADMIN). */
function smallFilesystem(kib: number): { path: string } | { skip: string } {
  const path = mkdtempSync(join(tmpdir(), 'warptrace-full-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k`, 'tmpfs', path], { encoding: 'utf8' });
  if (r.status === 0) return { path };
  rmSync(path, { recursive: true, force: true });
  return { skip: `cannot mount a ${kib} KiB tmpfs to fill: ${(r.error?.message ?? r.stderr).trim() || `mount exited ${r.status}`}` };
}

const full = smallFilesystem(1200);
test('convert onto a full filesystem: exit 1, one line, the user\'s trace intact, no temporary file', { skip: 'skip' in full ? full.skip : false }, () => {
  const mount = (full as { path: string }).path;
  try {
    // The issue's case: a 954 KB trace replaced by a truncated 287 KB one, with exit 0.
    const existing = join(mount, 'frame.wtrace');
    copyFileSync(repoPath('samples', 'h100-aqt.wtrace'), existing);
    const before = readFileSync(existing);
    const r = run('convert', repoPath('samples', 'h100-aqt-heavy.wtrace'), '-o', existing, '--force');
    assert.equal(r.code, 1, r.out);
    assert.equal(r.out, '');
    assert.match(r.err, /^warptrace convert: no space left on device writing .*frame\.wtrace \(stopped after [\d.]+ KiB; .*frame\.wtrace is unchanged\)\n$/);
    assert.deepEqual(readFileSync(existing), before);
    assert.deepEqual(readdirSync(mount), ['frame.wtrace']);
    // A new file that does not fit: nothing at all is left.
    const fresh = run('convert', repoPath('samples', 'h100-aqt-heavy.wtrace'), '-o', join(mount, 'new.json'));
    assert.equal(fresh.code, 1);
    assert.match(fresh.err, /no space left on device writing .*new\.json \(stopped after .*; nothing was written\)\n$/);
    assert.deepEqual(readdirSync(mount), ['frame.wtrace']);
  } finally {
    spawnSync('umount', [mount]);
    rmSync(mount, { recursive: true, force: true });
  }
});

/** The CLI with a file size limit of 1 KiB (`ulimit -f 1`): any larger write fails with EFBIG, a failed write any user can cause. */
function runLimited(...args: string[]) {
  const r = spawnSync('bash', ['-c', 'ulimit -f 1 && exec "$0" "$@"', process.execPath, bin, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// Both samples warn (lavapipe's warps have no SM id; the diff's devices differ): the warning is about a
// report that was never written, so only the error line is printed.
const failedWrites = [
  { args: ['stats', repoPath('samples', 'lavapipe-aqt.wtrace'), '--format', 'json'], name: 'stats' },
  { args: ['diff', repoPath('samples', 'h100-aqt.wtrace'), repoPath('samples', 'lavapipe-aqt.wtrace')], name: 'diff' },
  { args: ['export', repoPath('samples', 'lavapipe-aqt.wtrace'), '--csv-draws', join(dir, 'draws.csv')], name: 'export' },
];

test('stats -o, diff -o and export whose write fails print exactly the one error line (no warning before it)', () => {
  for (const { args, name } of failedWrites) {
    const out = join(dir, `limited-${name}.out`);
    const r = runLimited(...args, ...(name === 'export' ? ['--json', out] : ['-o', out]));
    assert.equal(r.code, 1, r.err);
    assert.equal(r.err, `warptrace ${name}: cannot write ${out}: file too large (for the filesystem, or past the file size limit of ulimit -f) (nothing was written)\n`);
    assert.equal(existsSync(out), false);
  }
  assert.deepEqual(temporaryFiles(dir), []);
});

const tiny = smallFilesystem(16);
test('stats -o and diff -o onto a full filesystem: one line, no warning before it', { skip: 'skip' in tiny ? tiny.skip : false }, () => {
  const mount = (tiny as { path: string }).path;
  try {
    writeFileSync(join(mount, 'filler'), new Uint8Array(16 << 10).fill(1)); // as much as it takes, then ENOSPC
  } catch {
    // Full: what the test wants.
  }
  try {
    for (const { args, name } of failedWrites.slice(0, 2)) {
      const out = join(mount, `${name}.out`);
      const r = run(...args, '-o', out);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, new RegExp(`^warptrace ${name}: no space left on device writing \\S+${name}\\.out \\(stopped after [\\d.]+ (B|KiB); nothing was written\\)\\n$`));
    }
    assert.deepEqual(readdirSync(mount), ['filler']);
  } finally {
    spawnSync('umount', [mount]);
    rmSync(mount, { recursive: true, force: true });
  }
});

test('writeFileAtomic: a dangling symbolic link is an existing output; with overwrite the file it points to is made and the link kept', async () => {
  const where = join(dir, 'dangling');
  mkdirSync(where);
  const link = join(where, 'out.bin');
  symlinkSync('target.bin', link);
  await assert.rejects(writeFileAtomic(link, [payload.subarray(0, 100)], { overwrite: false }), /^InputError: .*out\.bin already exists \(use --force to replace it\)$/);
  assert.deepEqual(readdirSync(where), ['out.bin']);
  assert.equal(await writeFileAtomic(link, [payload.subarray(0, 100)], { overwrite: true }), 100);
  assert.equal(readlinkSync(link), 'target.bin');
  assert.deepEqual(new Uint8Array(readFileSync(join(where, 'target.bin'))), payload.subarray(0, 100));
});

// A conversion to JSON of 600,000 warps writes ~30 MB over a second or so: long
// enough to see its temporary file and interrupt it there.
const big = join(dir, 'big.wtrace');
writeFileSync(big, encodeWtrace(synthesizeTrace({ warps: 600_000, seed: 4 })));

for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  test(`${signal} during a write removes the temporary file and exits ${status}`, async () => {
    const where = join(dir, `killed-${signal}`);
    mkdirSync(where);
    const out = join(where, 'frame.json');
    const child = spawn(process.execPath, [bin, 'convert', big, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exit = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let seen = false;
    while (!seen) {
      await new Promise((done) => setTimeout(done, 5));
      seen = temporaryFiles(where).length > 0;
      assert.equal(child.exitCode, null, 'the conversion ended before its temporary file was seen');
    }
    child.kill(signal);
    assert.equal(await exit, status);
    assert.deepEqual(readdirSync(where), [], 'neither the temporary file nor a partial output is left');
  });
}
