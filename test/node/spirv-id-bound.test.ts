// A module whose header bound is near SPIR-V's limit (0x3FFFFF) leaves no room
// for the instrumenter's new ids: it is refused in one line naming the bound,
// never written with a bound spirv-val rejects; one with room is instrumented.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InstrumentError } from '../../instrument/errors.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { compileCorpusFile, spirvVal, workDir } from './spirv-tools.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const BOUND_WORD = 3;
/** SPIR-V's largest id bound (spirv-val's default --max-id-bound). */
const MAX_ID_BOUND = 0x3fffff;

/** A copy of `bytes` (a little-endian module) with its header bound set to `bound`. */
function withBound(bytes: Uint8Array, bound: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(BOUND_WORD * 4, bound, true);
  return out;
}
const boundOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(BOUND_WORD * 4, true);

const cases = [
  { source: 'basic.vert', env: 'vulkan1.3', val: 'vulkan1.3' },
  { source: 'alpha.frag', env: 'vulkan1.0', val: 'vulkan1.1' },
];
const modules = new Map<string, Uint8Array>();
before(async () => {
  for (const c of cases) modules.set(c.source, await compileCorpusFile(c.source, c.env, []));
});

for (const c of cases) {
  test(`${c.source}@${c.env}: a bound of 4,194,300 or 4,194,303 is refused; one that leaves exactly enough room is instrumented and valid`, async () => {
    const original = modules.get(c.source)!;
    // How many ids tracing this module takes.
    const needed = boundOf(instrumentSpirv(original).bytes) - boundOf(original);
    assert.ok(needed > 0);

    for (const bound of [4_194_300, MAX_ID_BOUND, MAX_ID_BOUND - needed + 1]) {
      const input = withBound(original, bound);
      assert.equal(await spirvVal(input, c.val), null, `the input with bound ${bound} is valid SPIR-V`);
      const room = MAX_ID_BOUND - bound;
      assert.throws(
        () => instrumentSpirv(input),
        (e: unknown) =>
          e instanceof InstrumentError &&
          e.message ===
            `the module's id bound ${bound} leaves room for ${room} new id${room === 1 ? '' : 's'}, and tracing needs ${needed} ` +
              "(SPIR-V's id bound limit is 4194303 (0x3FFFFF), the least Vulkan implementations accept; spirv-opt --compact-ids renumbers a module's ids compactly)",
      );
    }

    // High, but with room: the output's bound is the limit itself, and spirv-val takes it.
    const roomy = instrumentSpirv(withBound(original, MAX_ID_BOUND - needed));
    assert.equal(boundOf(roomy.bytes), MAX_ID_BOUND);
    assert.equal(await spirvVal(roomy.bytes, c.val), null);
  });
}

test('warptrace instrument refuses a bound without room in one line, exit 1, writing nothing; with room it writes a valid module', async () => {
  const original = modules.get('basic.vert')!;
  const needed = boundOf(instrumentSpirv(original).bytes) - boundOf(original);
  for (const bound of [4_194_300, MAX_ID_BOUND]) {
    const input = join(workDir, `bound-${bound}.vert.spv`);
    const output = join(workDir, `bound-${bound}.traced.spv`);
    writeFileSync(input, withBound(original, bound));
    const r = spawnSync(process.execPath, [bin, 'instrument', input, '-o', output], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stdout);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `warptrace instrument: ${input}: the module's id bound ${bound} leaves room for ${MAX_ID_BOUND - bound} new ids, and tracing needs ${needed} ` +
        "(SPIR-V's id bound limit is 4194303 (0x3FFFFF), the least Vulkan implementations accept; spirv-opt --compact-ids renumbers a module's ids compactly)\n",
    );
    assert.equal(existsSync(output), false);
  }
  const input = join(workDir, 'bound-roomy.vert.spv');
  const output = join(workDir, 'bound-roomy.traced.spv');
  writeFileSync(input, withBound(original, MAX_ID_BOUND - needed - 100));
  const r = spawnSync(process.execPath, [bin, 'instrument', input, '-o', output], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const written = new Uint8Array(readFileSync(output));
  assert.equal(boundOf(written), MAX_ID_BOUND - 100);
  assert.equal(await spirvVal(written, 'vulkan1.3'), null);
});
