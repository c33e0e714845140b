// The host library's reading of a module's block mark (wtSpirvBlockCount in
// capture/host/warptrace_blocks.h): N of `OpString "warptrace-blocks=N ..."`,
// compiled from C and fed hand-built SPIR-V, so it is checked without the
// instrumenter. 0 means "not profiled": the host gives such a module no cells.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK_MARK_PREFIX } from '../../shared-schema/block-layout.js';
import { repoPath } from './paths.js';

const driver = join(mkdtempSync(join(tmpdir(), 'warptrace-blockmark-')), 'block-mark');

before(() => {
  const cc = spawnSync('cc', ['-std=c99', '-O1', '-Wall', '-Wextra', `-I${repoPath('capture/host')}`, repoPath('test/native/block-mark-driver.c'), '-o', driver, '-lvulkan'], {
    encoding: 'utf8',
  });
  assert.equal(cc.status, 0, cc.stderr);
});

const OP_CAPABILITY = 17;
const OP_STRING = 7;
const OP_FUNCTION = 54;

function instruction(opcode: number, operands: readonly number[]): number[] {
  return [((operands.length + 1) << 16) | opcode, ...operands];
}

/** OpString %id "text": the literal's bytes, nul-terminated, padded to whole words. */
function opString(id: number, text: string): number[] {
  const bytes = new TextEncoder().encode(text);
  const words = new Array<number>(Math.floor(bytes.length / 4) + 1).fill(0);
  bytes.forEach((b, i) => (words[i >> 2]! |= b << (8 * (i & 3))));
  return instruction(OP_STRING, [id, ...words.map((w) => w >>> 0)]);
}

function module(body: readonly number[], magic = 0x07230203): Uint8Array {
  const words = [magic, 0x00010300, 0, 100, 0, ...instruction(OP_CAPABILITY, [1]), ...body];
  return new Uint8Array(new Uint32Array(words).buffer);
}

function blockCount(bytes: Uint8Array): number {
  const r = spawnSync(driver, [], { input: bytes, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout.trim());
}

test('N comes from the mark, after other strings, whatever the options after it', () => {
  assert.equal(blockCount(module(opString(1, `${BLOCK_MARK_PREFIX}12 per=warp clock=sm`))), 12);
  assert.equal(blockCount(module([...opString(1, 'main.comp'), ...opString(2, `${BLOCK_MARK_PREFIX}3`)])), 3);
  // Literal lengths 0-3 mod 4 end in the same word or the next one.
  for (const n of [1, 10, 100, 1000, 4294967295]) assert.equal(blockCount(module(opString(5, `${BLOCK_MARK_PREFIX}${n} per=invocation clock=device`))), n);
});

test('a module without a well-formed mark has no blocks', () => {
  assert.equal(blockCount(module(opString(1, 'warptrace-blocks'))), 0, 'no "="');
  assert.equal(blockCount(module(opString(1, `${BLOCK_MARK_PREFIX}`))), 0, 'no number');
  assert.equal(blockCount(module(opString(1, `${BLOCK_MARK_PREFIX}7x`))), 0, 'junk after the number');
  assert.equal(blockCount(module(opString(1, `${BLOCK_MARK_PREFIX}4294967296`))), 0, 'past 32 bits');
  assert.equal(blockCount(module(opString(1, `x${BLOCK_MARK_PREFIX}4`))), 0, 'not a prefix');
  assert.equal(blockCount(module(opString(1, `${BLOCK_MARK_PREFIX}4`), 0x03022307)), 0, 'not SPIR-V (byte-swapped magic)');
  assert.equal(blockCount(module([])), 0, 'no string at all');
  assert.equal(blockCount(new Uint8Array(12)), 0, 'shorter than a header');
});

test('a truncated instruction or a string past the first function is not read', () => {
  const mark = opString(1, `${BLOCK_MARK_PREFIX}9`);
  assert.equal(blockCount(module(mark).subarray(0, module(mark).length - 4)), 0, 'the mark runs past the end');
  assert.equal(blockCount(module([...instruction(OP_FUNCTION, [2, 3, 0, 4]), ...mark])), 0);
});
