// `warptrace instrument` end to end: real shader files in, exit codes,
// messages and outputs checked; and the flag parser on its own.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { optionsFromFlags, FlagError } from '../../instrument/cli-options.js';
import { DEFAULT_CUSTOM_IDS } from '../../instrument/options.js';
import { compileGlsl, spirvVal, workDir } from './spirv-tools.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const dir = join(workDir, 'cli');
const frag = join(dir, 'shade.frag.spv');
const vert = join(dir, 'quad.vert.spv');
const clash = join(dir, 'clash.comp.spv');
before(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    frag,
    await compileGlsl('#version 450\nlayout(location=0) in vec4 c;\nlayout(location=0) out vec4 o;\nvoid main() { if (c.a < 0.5) discard; o = c; }\n', 'frag', 'vulkan1.0'),
  );
  writeFileSync(vert, await compileGlsl('#version 450\nvoid main() { gl_Position = vec4(gl_VertexIndex); }\n', 'vert', 'vulkan1.3'));
  writeFileSync(
    clash,
    await compileGlsl('#version 450\nlayout(local_size_x=1) in;\nlayout(set=7, binding=1) uniform U { uint x; } u;\nlayout(set=0, binding=0) buffer B { uint y; } b;\nvoid main() { b.y = u.x; }\n', 'comp', 'vulkan1.3'),
  );
});

test('instrument writes a valid module and says what it did', async () => {
  const out = join(dir, 'shade.traced.spv');
  const r = run('instrument', frag, '-o', out, '--target', 'lavapipe');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /wrote .*shade\.traced\.spv \(SPIR-V 1\.0 -> 1\.3, [\d,]+ bytes\); trace buffer set 7 binding 0, draw id binding 1/);
  assert.match(r.out, /FS  "main": one record per warp, SM clock \+ device clock, no SM id, custom id primitive-id/);
  assert.match(r.out, /note: SPIR-V 1\.0 raised to 1\.3/);
  assert.equal(await spirvVal(new Uint8Array(readFileSync(out)), 'vulkan1.1'), null);

  const again = run('instrument', frag, '-o', out);
  assert.equal(again.code, 1);
  assert.match(again.err, /already exists \(use --force to replace it\)/);
  assert.equal(run('instrument', frag, '-o', out, '--force', '--legacy-subgroup', 'per-invocation').code, 0);
  assert.equal(await spirvVal(new Uint8Array(readFileSync(out)), 'vulkan1.0'), null);
});

test('several inputs go to a directory; --json reports each', () => {
  const outDir = join(dir, 'traced');
  const r = run('instrument', frag, vert, '-o', outDir, '--json', '--stage-id', 'vs=instance-index', '--stage-id', 'fs=frag-coord');
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.out) as { output: string; entryPoints: { stage: string; customId: string; subgroup: string }[] }[];
  assert.equal(report.length, 2);
  assert.deepEqual(
    report.map((x) => [x.entryPoints[0]!.stage, x.entryPoints[0]!.customId, x.entryPoints[0]!.subgroup]),
    [
      ['FS', 'frag-coord', 'core'],
      ['VS', 'instance-index', 'core'],
    ],
  );
  assert.ok(existsSync(join(outDir, 'shade.frag.spv')) && existsSync(join(outDir, 'quad.vert.spv')));
});

test('a module using the trace bindings is refused, exit 1, nothing written (even beside good inputs)', () => {
  const outDir = join(dir, 'none');
  const r = run('instrument', vert, clash, '-o', outDir);
  assert.equal(r.code, 1);
  assert.match(r.err, /clash\.comp\.spv: descriptor set 7, binding 1 \(wanted for the draw-id block\) is already used by "u"/);
  assert.match(r.err, /1 of 2 inputs failed; nothing written/);
  assert.equal(existsSync(outDir), false);
  const moved = run('instrument', clash, '-o', join(dir, 'moved.spv'), '--binding', '2');
  assert.equal(moved.code, 0, moved.err);
});

test('bad input and usage errors: clear one-line messages and exit codes', () => {
  const text = join(dir, 'notes.txt');
  writeFileSync(text, 'not a shader');
  const bad = run('instrument', text, '-o', join(dir, 'x.spv'));
  assert.equal(bad.code, 1);
  assert.equal(bad.err.trim(), `warptrace instrument: ${text}: not a SPIR-V module (the magic number 0x07230203 is missing)`);
  const missing = run('instrument', join(dir, 'nope.spv'), '-o', join(dir, 'x.spv'));
  assert.equal(missing.code, 1);
  assert.match(missing.err, /cannot read .*nope\.spv: no such file or directory/);

  assert.equal(run('instrument', frag).code, 2);
  assert.equal(run('instrument', '-o', 'x.spv').code, 2);
  assert.equal(run('instrument', frag, '-o', frag).code, 2);
  const target = run('instrument', frag, '-o', join(dir, 'x.spv'), '--target', 'amd');
  assert.equal(target.code, 2);
  assert.match(target.err, /unknown --target "amd" \(nvidia, lavapipe, portable\)/);
  assert.match(run('instrument', frag, '-o', join(dir, 'x.spv'), '--stage-id', 'vs=primitive-id').err, /custom id "primitive-id" is not available in VS \(allowed there: vertex-index, instance-index, none\)/);
  assert.equal(existsSync(join(dir, 'x.spv')), false);

  const help = run('instrument', '--help');
  assert.equal(help.code, 0);
  assert.match(help.out, /^usage: warptrace instrument IN\.spv -o OUT\.spv/);
  assert.match(run('--help').out, /instrument\s+add warp-trace records to compiled shaders/);
});

test('-o a symbolic link to a missing file or directory: refused in one line (a file needs --force; a directory is not made through it)', () => {
  const link = join(dir, 'dangling.spv');
  symlinkSync('not-yet.spv', link);
  const refused = run('instrument', frag, '-o', link);
  assert.equal(refused.code, 1);
  assert.equal(refused.err, `warptrace instrument: ${link} already exists as a symbolic link to not-yet.spv, which is missing (use --force to write not-yet.spv through it)\n`);
  assert.equal(existsSync(join(dir, 'not-yet.spv')), false);
  const linkedDir = join(dir, 'dangling-dir');
  symlinkSync('no-such-dir', linkedDir);
  const several = run('instrument', frag, vert, '-o', linkedDir);
  assert.equal(several.code, 1, several.err);
  assert.equal(several.err, `warptrace instrument: cannot make the directory ${linkedDir}: it is a symbolic link to no-such-dir, which is missing (nothing written)\n`);
});

test('flag parsing: presets, overrides and contradictions', () => {
  const lava = optionsFromFlags({ target: 'lavapipe' });
  assert.deepEqual([lava.smBuiltins, [...lava.subgroupStages]], [false, ['FS', 'CS']]);
  const o = optionsFromFlags({ target: 'lavapipe', smBuiltins: true, subgroupStages: 'none', clocks: 'device', set: '3', binding: '10', stageId: ['tcs=invocation-id,cs=none'], entry: ['main'], discard: 'kill' });
  assert.equal(o.smBuiltins, true);
  assert.deepEqual(o.subgroupStages, []);
  assert.deepEqual([o.subgroupClock, o.deviceClock], [false, true]);
  assert.deepEqual([o.set, o.binding], [3, 10]);
  assert.deepEqual(o.customIds, { ...DEFAULT_CUSTOM_IDS, TCS: 'invocation-id', CS: 'none' });
  assert.deepEqual(o.entryPoints, ['main']);
  assert.equal(o.discard, 'kill');
  assert.deepEqual(optionsFromFlags({ subgroupStages: 'VS, fs' }).subgroupStages, ['VS', 'FS']);
  assert.deepEqual(optionsFromFlags({ subgroupStages: 'rgen,any_hit,rchit,task' }).subgroupStages, ['RAYGEN', 'ANY_HIT', 'CLOSEST_HIT', 'TASK']);
  assert.deepEqual(optionsFromFlags({ stageId: ['rgen=none,rahit=instance-custom-index'] }).customIds, { ...DEFAULT_CUSTOM_IDS, RAYGEN: 'none', ANY_HIT: 'instance-custom-index' });
  for (const [flags, message] of [
    [{ smBuiltins: true, noSmBuiltins: true }, /contradict/],
    [{ set: '-1' }, /--set takes a non-negative integer/],
    [{ binding: '4294967295' }, /--binding takes/],
    [{ clocks: 'gpu' }, /--clocks takes sm, device or sm,device/],
    [{ subgroupStages: 'hull' }, /"hull" is not one of vs, tcs, tes, gs, fs, cs, task, mesh, rgen, rahit, rchit, rmiss, rint, rcall$/],
    [{ stageId: ['fs'] }, /expected STAGE=SOURCE/],
    [{ stageId: ['fs=banana'] }, /SOURCE one of primitive-id, frag-coord, none/],
    [{ legacySubgroup: 'never' }, /--legacy-subgroup takes upgrade, khr-ballot, per-invocation/],
    [{ discard: 'maybe' }, /--discard takes defer, kill/],
  ] as const) {
    assert.throws(() => optionsFromFlags(flags), (e: unknown) => e instanceof FlagError && message.test(e.message), JSON.stringify(flags));
  }
});
