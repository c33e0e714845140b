// A trace file's declared sizes are checked against its length before it is
// read whole: a file just under 2 GiB whose header declares a small body used
// to be read whole (18 s, 2.16 GB RSS) and only then refused.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H100_CLOCKS, TraceFormatError, decodeTrace, encodeWtrace, encodeWtraw, makeRandom, rawCaptureOf, synthesizeTrace } from '../../shared-schema/index.js';
import { checkDeclaredSize, type ReadAt } from '../../shared-schema/declared-size.js';
import { checkFileDeclaredSize } from '../../shared-schema/node/declared-size.js';
import { traceWithRowIds } from './fixtures.js';
import { repoPath } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'warptrace-declared-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Just under 2 GiB, the largest file the CLI reads. */
const HUGE = 2 ** 31 - 4096;
/**
 * What reading the header and a .wtrace body's structure may take: the maps before the warps' columns (a ray-traced
 * frame through the layer calibrates in thousands of segments: 0.75 MB of capture metadata in
 * h100-raytracingreflections-blocks) and a few of the reader's 64 KiB windows.
 */
const BOUNDED_READ = 1024 * 1024;

const smallWtrace = encodeWtrace(synthesizeTrace({ warps: 2000, seed: 5 }));
const smallWtraw = encodeWtraw(rawCaptureOf(traceWithRowIds(2000), H100_CLOCKS).raw);

/** A file of `bytes` followed by zeros up to `size` (sparse: it takes no disk). */
function sparseFile(name: string, bytes: Uint8Array, size: number): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r+');
  ftruncateSync(fd, size);
  closeSync(fd);
  return path;
}

function readerOf(bytes: Uint8Array): ReadAt {
  return (position, length) => bytes.subarray(position, position + length);
}

function errorOf(call: () => unknown): TraceFormatError | null {
  try {
    call();
    return null;
  } catch (error) {
    assert.ok(error instanceof TraceFormatError, `got ${String(error)}`);
    return error;
  }
}

test('valid files pass the check: the samples, older files and raw dumps, reading a bounded part of each', () => {
  const files = [
    ...readdirSync(repoPath('samples')).filter((f) => f.endsWith('.wtrace')).map((f) => repoPath('samples', f)),
    ...readdirSync(repoPath('samples/raw')).filter((f) => f.endsWith('.wtraw')).map((f) => repoPath('samples/raw', f)),
    ...readdirSync(repoPath('test/node/older-files')).filter((f) => f.endsWith('.wtrace')).map((f) => repoPath('test/node/older-files', f)),
  ];
  assert.ok(files.length >= 17, `${files.length} files`);
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file));
    const stats = { bytesRead: 0 };
    checkDeclaredSize(readerOf(bytes), bytes.length, stats);
    assert.ok(stats.bytesRead <= BOUNDED_READ, `${file}: read ${stats.bytesRead} of ${bytes.length} bytes`);
  }
});

test('a file cut short or padded is refused by the check with the error its decoder gives', () => {
  for (const [name, bytes] of [['.wtrace', smallWtrace], ['.wtraw', smallWtraw]] as const) {
    const variants = [bytes.subarray(0, bytes.length - 1), bytes.subarray(0, 40), bytes.subarray(0, 6), Uint8Array.from([...bytes, 0]), Uint8Array.from([...bytes, ...new Uint8Array(4096)])];
    for (const variant of variants) {
      const expected = errorOf(() => decodeTrace(variant));
      assert.ok(expected !== null, `${name} of ${variant.length} bytes is refused by its decoder`);
      const early = errorOf(() => checkDeclaredSize(readerOf(variant), variant.length));
      assert.ok(early !== null, `${name} of ${variant.length} bytes (${expected.message}) is refused by the check`);
      assert.equal(early.code, expected.code, early.message);
      assert.equal(early.message, expected.message);
    }
  }
});

test('mutated files: whatever the check refuses, the decoder refuses with the same error; what the decoder reads, the check passes', () => {
  const random = makeRandom(20);
  const pick = (n: number) => Math.floor(random() * n);
  let refusedEarly = 0;
  const bases = [encodeWtrace(synthesizeTrace({ warps: 200, seed: 6 })), encodeWtraw(rawCaptureOf(traceWithRowIds(300), H100_CLOCKS).raw)];
  for (const base of bases) {
    for (let k = 0; k < 400; k++) {
      // Bytes changed near the start (header, metadata, the body's structure), sometimes cut or padded.
      let bytes = base.slice();
      for (let j = 0; j <= pick(3); j++) bytes[pick(Math.min(700, bytes.length))] = pick(256);
      if (k % 4 === 1) bytes = bytes.subarray(0, pick(bytes.length));
      if (k % 4 === 2) bytes = Uint8Array.from([...bytes, ...new Uint8Array(1 + pick(64))]);
      const early = errorOf(() => checkDeclaredSize(readerOf(bytes), bytes.length));
      const decoded = errorOf(() => decodeTrace(bytes));
      if (early === null) continue;
      refusedEarly++;
      assert.ok(decoded !== null, `the check refused what the decoder reads: ${early.message}`);
      assert.equal(early.message, decoded.message);
      assert.equal(early.code, decoded.code);
    }
  }
  assert.ok(refusedEarly > 200, `${refusedEarly} refused by the check`);
});

test('a sparse file just under 2 GiB declaring a small body is refused after reading a bounded number of bytes', () => {
  const cases = [
    { path: sparseFile('huge.wtrace', smallWtrace, HUGE), field: 'body', message: `body: ${HUGE - smallWtrace.length} bytes after the MessagePack body` },
    { path: sparseFile('huge.wtraw', smallWtraw, HUGE), field: 'file', message: `file: ${HUGE} bytes, but the header declares ${smallWtraw.length}` },
  ];
  for (const c of cases) {
    const stats = { bytesRead: 0 };
    const error = errorOf(() => checkFileDeclaredSize(c.path, HUGE, stats));
    assert.ok(error !== null, `${c.path} is refused`);
    assert.equal(error.field, c.field);
    assert.equal(error.message, c.message);
    assert.ok(stats.bytesRead <= BOUNDED_READ, `read ${stats.bytesRead} bytes of ${HUGE}`);
  }
});

test('the CLI refuses such files in one line, and its reader never holds the file (RSS well under its size)', { timeout: 300_000 }, () => {
  const wtrace = sparseFile('cli-huge.wtrace', smallWtrace, HUGE);
  const wtraw = sparseFile('cli-huge.wtraw', smallWtraw, HUGE);
  for (const [args, expected] of [
    [['info', wtrace], `warptrace info: body: ${HUGE - smallWtrace.length} bytes after the MessagePack body`],
    [['convert', wtraw, '-o', join(dir, 'out.wtrace')], `warptrace convert: file: ${HUGE} bytes, but the header declares ${smallWtraw.length}`],
  ] as const) {
    const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr, `${expected}\n`);
  }
  // The CLI's input reader, plain and into shared memory (convert), in a process of its own: its peak memory is the measure.
  const script = `
    import { readInputFile } from ${JSON.stringify(repoPath('dist/cli/files.js'))};
    const out = [];
    for (const [path, shared] of ${JSON.stringify([[wtrace, false], [wtraw, true]])}) {
      try { readInputFile(path, shared); out.push('read'); } catch (error) { out.push(error.message); }
    }
    console.log(JSON.stringify({ out, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { out, maxRssBytes } = JSON.parse(r.stdout) as { out: string[]; maxRssBytes: number };
  assert.deepEqual(out, [`body: ${HUGE - smallWtrace.length} bytes after the MessagePack body`, `file: ${HUGE} bytes, but the header declares ${smallWtraw.length}`]);
  assert.ok(maxRssBytes < HUGE / 4, `peak RSS ${maxRssBytes} bytes for a ${HUGE}-byte file`);
});
