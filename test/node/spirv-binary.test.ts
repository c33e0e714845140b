// The SPIR-V reader/writer: byte-exact round trips on real modules (both byte
// orders), strings, and clear errors on malformed input.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpirvFormatError, decodeString, encodeString, isSpirv, parseSpirv, writeSpirv } from '../../instrument/model/binary.js';
import { ModuleEditor } from '../../instrument/model/module.js';
import { compileCorpus, spirvDis, type CorpusModule } from './spirv-tools.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

function byteSwapped(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 4) for (let b = 0; b < 4; b++) out[i + b] = bytes[i + 3 - b]!;
  return out;
}

test('parse -> write reproduces every corpus module byte for byte', () => {
  assert.ok(corpus.length >= 90, `corpus compiled to ${corpus.length} modules`);
  for (const m of corpus) {
    const parsed = parseSpirv(m.bytes);
    assert.deepEqual(writeSpirv(parsed), m.bytes, m.id);
    // The section view reassembles to the same module too.
    assert.deepEqual(writeSpirv(new ModuleEditor(parsed).build()), m.bytes, `${m.id} via ModuleEditor`);
  }
});

test('big-endian modules round-trip in their own byte order', () => {
  for (const m of corpus.slice(0, 20)) {
    const be = byteSwapped(m.bytes);
    const parsed = parseSpirv(be);
    assert.equal(parsed.littleEndian, false);
    assert.deepEqual(parsed.header, parseSpirv(m.bytes).header);
    assert.deepEqual(writeSpirv(parsed), be, m.id);
  }
});

test('the parser sees what spirv-dis sees: header and instruction count', async () => {
  const m = corpus.find((c) => c.id === 'barrier.tesc@vulkan1.3')!;
  const parsed = parseSpirv(m.bytes);
  const dis = await spirvDis(m.bytes);
  assert.match(dis, new RegExp(`; Bound: ${parsed.header.bound}\\n`));
  assert.match(dis, /; Version: 1\.6/);
  assert.equal(parsed.header.version, 0x00010600);
  const lines = dis.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';'));
  assert.equal(parsed.instructions.length, lines.length);
});

test('literal strings: UTF-8, nul-terminated, padded to whole words', () => {
  assert.deepEqual(encodeString(''), [0]);
  assert.deepEqual(encodeString('main'), [0x6e69616d, 0]);
  assert.deepEqual(encodeString('abc'), [0x00636261]);
  for (const s of ['', 'a', 'main', 'GLSL.std.450', 'SPV_KHR_shader_clock', 'héllo wörld']) {
    const words = Uint32Array.from([7, ...encodeString(s), 99]);
    const { value, next } = decodeString(words, 1);
    assert.equal(value, s);
    assert.equal(words[next], 99);
  }
  assert.throws(() => decodeString(Uint32Array.from([0x61616161]), 0), SpirvFormatError);
});

test('malformed input gets a SpirvFormatError that says what is wrong', () => {
  const good = corpus[0]!.bytes;
  const cases: [string, Uint8Array, RegExp][] = [
    ['empty', new Uint8Array(0), /not a SPIR-V module/],
    ['text', new TextEncoder().encode('#version 450\nvoid main() {}\n'), /magic number/],
    ['odd length', good.slice(0, good.length - 2), /not a whole number of 32-bit words/],
    ['header only, cut', good.slice(0, 12), /shorter than the 20-byte header/],
    ['truncated instruction', good.slice(0, 24), /runs past the end of the module/],
  ];
  for (const [name, bytes, message] of cases) {
    assert.equal(isSpirv(bytes), name !== 'empty' && name !== 'text', name);
    assert.throws(() => parseSpirv(bytes), (e: unknown) => e instanceof SpirvFormatError && message.test(e.message), name);
  }
  const zeroCount = good.slice();
  new DataView(zeroCount.buffer).setUint32(20, 0, true);
  assert.throws(() => parseSpirv(zeroCount), /word count 0 \(at word 5\)/);
  const zeroBound = good.slice();
  new DataView(zeroBound.buffer).setUint32(12, 0, true);
  assert.throws(() => parseSpirv(zeroBound), /bound is 0/);
});

test('the parser never mutates its input', () => {
  const m = corpus.find((c) => c.id.startsWith('alpha.frag'))!;
  const copy = m.bytes.slice();
  const editor = new ModuleEditor(parseSpirv(m.bytes));
  editor.addCapability(5055);
  editor.addExtension('SPV_KHR_shader_clock');
  editor.build();
  assert.deepEqual(m.bytes, copy);
});
