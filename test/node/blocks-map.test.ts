// Block maps (instrument/block-map.ts) on real glslang output instrumented with --blocks,
// and a raw dump carrying such a module converted and read by the CLI.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockMapError, describeBlocks } from '../../instrument/block-map.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { targetOptions } from '../../instrument/options.js';
import { H100_CLOCKS, decodeWtrace, encodeWtraw, rawCaptureOf, synthesizeTrace, type ModuleDescription } from '../../shared-schema/index.js';
import { blockSectionOf, markedModule } from '../../shared-schema/synthetic-blocks.js';
import { repoPath } from './paths.js';

// Line numbers matter: the tests name them.
const SOURCE = `#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
float shade(float x) {
  return x * 0.5;
}
void main() {
  float acc = 0.0;
  if (uv.x > 0.5) {
    acc = shade(uv.y);
  }
  for (int i = 0; i < 4; i++) {
    acc += float(i) * uv.x;
  }
  color = vec4(acc);
}
`;
const IF_BODY_LINE = 10;
const LOOP_BODY_LINE = 13;
const SHADE_LINE = 5;

const dir = mkdtempSync(join(tmpdir(), 'warptrace-blockmap-'));
/** glslang output for `flags`, instrumented with --blocks for NVIDIA. */
function instrumented(flags: readonly string[]): Uint8Array {
  writeFileSync(join(dir, 'shade.frag'), SOURCE);
  const out = `shade${flags.join('')}.spv`;
  // Relative to dir: OpString names the file as glslang was given it.
  execFileSync('glslangValidator', ['-V', ...flags, 'shade.frag', '-o', out], { cwd: dir });
  return instrumentSpirv(new Uint8Array(readFileSync(join(dir, out))), { ...targetOptions('nvidia'), blocks: true }).bytes;
}

let withLines: ModuleDescription[] = [];
let plain: ModuleDescription;
before(() => {
  withLines = [['-g'], ['-gVS']].map((flags) => describeBlocks(instrumented(flags)));
  plain = describeBlocks(instrumented([]));
});

test('-g and -gVS: every block maps to its function and first source line; the if and loop bodies to theirs', () => {
  for (const d of withLines) {
    assert.deepEqual(d.stages, ['FS']);
    assert.equal(d.per, 'warp');
    assert.equal(d.clock, 'sm');
    assert.ok(d.blocks.length >= 8, `${d.blocks.length} blocks`);
    for (const b of d.blocks) {
      assert.equal(b.file, 'shade.frag');
      assert.ok(b.line !== null && b.line >= 5 && b.line <= 15, `line ${b.line}`);
      assert.equal(b.text, null);
    }
    const at = (line: number) => d.blocks.filter((b) => b.line === line);
    assert.deepEqual(at(IF_BODY_LINE).map((b) => b.function), ['main'], 'one block is the if body');
    assert.deepEqual(at(LOOP_BODY_LINE).map((b) => b.function), ['main'], 'one block is the loop body');
    assert.deepEqual(at(SHADE_LINE).map((b) => b.function), ['shade(f1;']);
    // The entry block starts at main's first statement (glslang's line 0 prologue and the OpLine before OpFunction are not the block's).
    assert.equal(d.blocks[0]!.line, 8);
    // The embedded source, without glslang's preamble: its lines are the file's.
    assert.equal(d.sources.length, 1);
    assert.equal(d.sources[0]!.file, 'shade.frag');
    assert.equal(d.sources[0]!.text.split('\n')[IF_BODY_LINE - 1], '    acc = shade(uv.y);');
  }
  // Both debug-info flavours give the same map.
  assert.deepEqual(withLines[0], withLines[1]);
});

test('without debug information: no lines, each block its opcodes (the call itself left out)', () => {
  assert.equal(plain.sources.length, 0);
  assert.equal(plain.blocks.length, withLines[0]!.blocks.length);
  for (const b of plain.blocks) {
    assert.deepEqual([b.file, b.line, b.column], [null, null, null]);
    assert.match(b.text!, /^(Op[A-Za-z]+ ?)+$/);
    assert.doesNotMatch(b.text!, /OpFunctionCall OpFunctionCall/);
  }
  // The function's last block stores the colour and returns.
  assert.ok(plain.blocks.some((b) => b.function === 'main' && /OpCompositeConstruct OpStore OpReturn$/.test(b.text!)), plain.blocks.map((b) => b.text).join('\n'));
});

test('modules the map cannot read are refused with a reason', () => {
  assert.throws(() => describeBlocks(markedModule(2, 'warp', 'sm')), BlockMapError);
  const plainGlslang = new Uint8Array(readFileSync(join(dir, 'shade.spv')));
  assert.throws(() => describeBlocks(plainGlslang), /not instrumented with --blocks/);
});

test('warptrace convert carries a raw dump\'s block profile with its source lines; warptrace blocks reads it', () => {
  const spirv = instrumented(['-g']);
  const n = describeBlocks(spirv).blocks.length;
  const loopBody = withLines[0]!.blocks.findIndex((b) => b.line === LOOP_BODY_LINE);
  const truth = synthesizeTrace({ warps: 1000, seed: 11, warpsPerDraw: 500 });
  // Draw 1 profiled: every block ran once with a full warp; the loop body 4 times, with most of the ticks.
  const cells = Array.from({ length: n }, (_, b) => (b === loopBody ? { executions: 4, lanes: 64, ticks: 9000 } : { executions: 1, lanes: 32, ticks: 100 }));
  const { blocks, section } = blockSectionOf({ subgroupSize: 32, modules: [{ name: 'shade.frag', spirv }], rows: [{ draw: 1, cell: 0, modules: [{ module: 0, offset: 0 }] }], cells });
  const raw = rawCaptureOf(truth, H100_CLOCKS).raw;
  const rawPath = join(dir, 'blocks.wtraw');
  writeFileSync(rawPath, encodeWtraw({ ...raw, metadata: { ...raw.metadata, blocks }, blockSection: section }));
  const run = (...args: string[]) => spawnSync(process.execPath, [repoPath('bin/warptrace.js'), ...args], { encoding: 'utf8' });
  const out = join(dir, 'blocks.wtrace');
  const converted = run('convert', rawPath, '-o', out, '--force');
  assert.equal(converted.status, 0, converted.stderr);
  const profile = decodeWtrace(new Uint8Array(readFileSync(out))).blocks!;
  assert.deepEqual(profile.modules[0]!.blocks, withLines[0]!.blocks);
  const table = run('blocks', out, '--by', 'line', '--top', '1', '--json');
  assert.equal(table.status, 0, table.stderr);
  const top = JSON.parse(table.stdout).stats[0];
  assert.deepEqual([top.file, top.line, top.executions, top.simtEfficiency], ['shade.frag', LOOP_BODY_LINE, 4, 0.5]);
  // The same straight from the raw dump.
  assert.equal(JSON.parse(run('blocks', rawPath, '--top', '1', '--json').stdout).stats[0].line, LOOP_BODY_LINE);
});
