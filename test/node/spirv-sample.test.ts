// Sampled fragment records (--sample-fs N, InstrumentOptions.sampleFragment):
// the corpus's fragment shaders, sampled, pass spirv-val for every version and
// both device presets; other stages come out byte for byte as without the
// option; and on lavapipe a sampled FS records about one warp in N while the
// other stages keep all of theirs, spread over draws and the screen alike.
import { before, test } from 'node:test';
import { plainHarness, type PlainHarness } from './plain-harness.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeWtraw, Stage, type Trace } from '../../shared-schema/index.js';
import { autoInstrumentOptions, autoInstrumentSet } from '../../capture/capture-run/auto-instrument.js';
import { runCapture } from '../../capture/capture-run/harness.js';
import { FlagError, optionsFromFlags } from '../../instrument/cli-options.js';
import { InstrumentError } from '../../instrument/errors.js';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { ModuleEditor } from '../../instrument/model/module.js';
import { checkOptions, INSTRUMENTED_STAGES, targetOptions, type InstrumentOptions } from '../../instrument/options.js';
import { Op } from '../../instrument/model/spec.js';
import { repoPath } from './paths.js';
import { compileCorpus, legacy, pool, spirvVal, validationEnv, workDir, type CorpusModule } from './spirv-tools.js';

let corpus: CorpusModule[] = [];
before(async () => {
  corpus = await compileCorpus();
});

const nvidia = targetOptions('nvidia');
const lavapipe = targetOptions('lavapipe');

async function validateAll(modules: readonly CorpusModule[], config: string, options: InstrumentOptions): Promise<string[]> {
  const bad = await pool(modules, 2, async (m) => {
    const result = instrumentSpirv(m.bytes, options);
    const error = await spirvVal(result.bytes, validationEnv(result.outputVersion));
    return error === null ? null : `${m.id} [${config}] -> SPIR-V ${result.outputVersion}: ${error}`;
  });
  return bad.filter((b) => b !== null);
}

test('sampled fragment shaders pass spirv-val: SPIR-V 1.3-1.6, nvidia (N = 2, 8, 65536) and lavapipe (N = 8)', async (t) => {
  const fragment = corpus.filter((m) => m.stage === 'FS' && !legacy(m));
  assert.ok(fragment.length >= 20, `${fragment.length} FS modules`);
  assert.deepEqual([...new Set(fragment.map((m) => m.spirv))].sort(), ['1.3', '1.4', '1.5', '1.6']);
  const bad: string[] = [];
  for (const [name, base] of [['nvidia', nvidia], ['lavapipe', lavapipe]] as const) {
    for (const n of name === 'nvidia' ? [2, 8, 65536] : [8]) bad.push(...(await validateAll(fragment, `${name} sample-fs ${n}`, { ...base, sampleFragment: n })));
  }
  // frag-coord as custom id reuses the FragCoord the sampling seed loads; --discard kill has no deferred kill after the record.
  bad.push(...(await validateAll(fragment, 'frag-coord id', { ...lavapipe, sampleFragment: 8, customIds: { ...lavapipe.customIds, FS: 'frag-coord' } })));
  bad.push(...(await validateAll(fragment, 'discard kill', { ...nvidia, sampleFragment: 8, discard: 'kill' })));
  assert.deepEqual(bad, [], bad.join('\n'));
  t.diagnostic(`${fragment.length} FS modules x 6 configurations validated`);
});

test('SPIR-V 1.0-1.2 fragment shaders sampled: upgraded, khr-ballot (SubgroupFirstInvocationKHR) and per-invocation all validate', async () => {
  const old = corpus.filter((m) => m.stage === 'FS' && legacy(m));
  assert.ok(old.length >= 10);
  const bad = [
    ...(await validateAll(old, 'upgrade', { ...nvidia, sampleFragment: 8 })),
    ...(await validateAll(old, 'khr-ballot', { ...nvidia, sampleFragment: 8, legacySubgroup: 'khr-ballot' })),
    ...(await validateAll(old, 'per-invocation', { ...nvidia, sampleFragment: 8, legacySubgroup: 'per-invocation' })),
  ];
  assert.deepEqual(bad, [], bad.join('\n'));
  const m = old[0]!;
  const ops = (o: InstrumentOptions) => new Set(instrumentSpirv(m.bytes, o).module.instructions.map((i) => i.opcode));
  assert.ok(ops({ ...nvidia, sampleFragment: 8, legacySubgroup: 'khr-ballot' }).has(Op.SubgroupFirstInvocationKHR));
  // One record per invocation: each decides alone, nothing to broadcast.
  const perInvocation = ops({ ...nvidia, sampleFragment: 8, legacySubgroup: 'per-invocation' });
  assert.ok(!perInvocation.has(Op.GroupNonUniformBroadcastFirst) && !perInvocation.has(Op.SubgroupFirstInvocationKHR));
});

test('the sampled wrapper: one broadcast seed, a threshold of 2^32 / N, and the record code only behind it', () => {
  const m = corpus.find((c) => c.id === 'alpha.frag@vulkan1.1')!;
  for (const n of [2, 3, 8, 1000, 65536]) {
    const result = instrumentSpirv(m.bytes, { ...nvidia, sampleFragment: n });
    assert.equal(result.entryPoints[0]!.sampleEvery, n);
    const code = result.module.instructions;
    const broadcast = code.findIndex((i) => i.opcode === Op.GroupNonUniformBroadcastFirst);
    const ballot = code.findIndex((i) => i.opcode === Op.GroupNonUniformBallot);
    const atomic = code.findIndex((i) => i.opcode === Op.AtomicIAdd);
    assert.ok(broadcast > 0 && broadcast < ballot && ballot < atomic, `N=${n}: broadcast, then ballot, then atomic`);
    // The branch between them tests hash < floor(2^32 / N), a constant of the module.
    const threshold = Math.floor(0x100000000 / n);
    const editor = new ModuleEditor(result.module);
    const compare = code.slice(broadcast, ballot).find((i) => i.opcode === Op.ULessThan)!;
    assert.equal(editor.globalDef(compare.words[4]!)?.words[3], threshold, `N=${n}`);
    assert.ok(editor.moduleProcessed().some((text) => text.endsWith(` sample-fs=${n}`)));
  }
  // Deterministic output; N = 1 is the unsampled module itself.
  assert.deepEqual(instrumentSpirv(m.bytes, { ...nvidia, sampleFragment: 8 }).bytes, instrumentSpirv(m.bytes, { ...nvidia, sampleFragment: 8 }).bytes);
  assert.deepEqual(instrumentSpirv(m.bytes, { ...nvidia, sampleFragment: 1 }).bytes, instrumentSpirv(m.bytes, nvidia).bytes);
  assert.notDeepEqual(instrumentSpirv(m.bytes, { ...nvidia, sampleFragment: 8 }).bytes, instrumentSpirv(m.bytes, nvidia).bytes);
});

test('non-fragment stages are unchanged by the option, byte for byte (every version, both presets)', () => {
  const others = corpus.filter((m) => m.stage !== 'FS');
  assert.equal(new Set(others.map((m) => m.stage)).size, INSTRUMENTED_STAGES.length - 1);
  for (const base of [nvidia, lavapipe]) {
    for (const m of others) {
      const sampled = instrumentSpirv(m.bytes, { ...base, sampleFragment: 8 });
      assert.deepEqual(sampled.bytes, instrumentSpirv(m.bytes, base).bytes, m.id);
      for (const e of sampled.entryPoints) assert.equal(e.sampleEvery, 1);
    }
  }
});

test('sampling is checked: 1 to 65536 in options, --sample-fs, the instrumenter itself', () => {
  for (const bad of [0, -1, 1.5, 65537, Number.NaN]) {
    assert.match(checkOptions({ ...nvidia, sampleFragment: bad }) ?? '', /fragment sampling .* out of range \(1 to 65536/, String(bad));
  }
  assert.equal(checkOptions({ ...nvidia, sampleFragment: 65536 }), null);
  assert.equal(optionsFromFlags({ sampleFs: '8' }).sampleFragment, 8);
  assert.equal(optionsFromFlags({}).sampleFragment, 1);
  for (const text of ['0', '65537', '2.5', 'eight', '']) {
    assert.throws(() => optionsFromFlags({ sampleFs: text }), (e: unknown) => e instanceof FlagError && /--sample-fs takes a whole number from 1 to 65536/.test(e.message), text);
  }
  const m = corpus.find((c) => c.stage === 'FS')!;
  assert.throws(() => instrumentSpirv(m.bytes, { ...nvidia, sampleFragment: 0 }), InstrumentError);
});

test('warptrace instrument --sample-fs 8 writes the sampled module and says so', async () => {
  const m = corpus.find((c) => c.id === 'alpha.frag@vulkan1.1')!;
  const input = join(workDir, 'sample-cli.frag.spv');
  const output = join(workDir, 'sample-cli.traced.spv');
  writeFileSync(input, m.bytes);
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'instrument', input, '-o', output, '--target', 'lavapipe', '--sample-fs', '8'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /FS {2}"main": one record per warp \(sampled: one warp in 8 records\)/);
  const written = new Uint8Array(readFileSync(output));
  assert.deepEqual(written, instrumentSpirv(m.bytes, { ...lavapipe, sampleFragment: 8 }).bytes);
  assert.equal(await spirvVal(written, validationEnv('1.3')), null);
  const bad = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'instrument', input, '-o', output, '--force', '--sample-fs', '0'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--sample-fs takes a whole number from 1 to 65536, not "0"/);
});

// ---- End to end on lavapipe ----------------------------------------------

const N = 8;
const SMALL = [['width', 320], ['height', 180]] as const;
let harness: PlainHarness | null = null;
let unavailable = '';
before(async () => {
  ({ harness, unavailable } = await plainHarness());
});

async function capture(workload: string, name: string, options: InstrumentOptions): Promise<Trace> {
  const h = harness!;
  const shaders = autoInstrumentSet(h.plain, options, join(workDir, `sample-${workload}-${name}`));
  const out = join(workDir, `sample-${workload}-${name}.wtraw`);
  const report = await runCapture(h.binary, { workload, tracedShaders: shaders, plainShaders: null, out, params: SMALL, overheadFrames: 0 });
  assert.equal(report.counter, report.records, `${name}: nothing dropped`);
  return decodeWtraw(new Uint8Array(readFileSync(out)));
}

/** Warps per key. */
function count(trace: Trace, key: (i: number) => string | null): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < trace.warps.count; i++) {
    const k = key(i);
    if (k !== null) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

for (const workload of ['aqt', 'compute-graphics']) {
  test(`${workload} on lavapipe, --sample-fs ${N}: FS records ~1/${N} of its warps (per draw and screen quadrant), other stages all`, async (t) => {
    if (harness === null) return t.skip(`no Vulkan device: ${unavailable}`);
    // frag-coord ids place each FS record on the screen, for the quadrant check.
    const auto = autoInstrumentOptions(harness.device);
    const base: InstrumentOptions = { ...auto, customIds: { ...auto.customIds, FS: 'frag-coord' } };
    const all = await capture(workload, 'all', base);
    const sampled = await capture(workload, 'sampled', { ...base, sampleFragment: N });
    const fs = Stage.FS;
    const others = (trace: Trace) => count(trace, (i) => (trace.warps.stage[i] === fs ? null : `draw ${trace.warps.draw[i]} stage ${trace.warps.stage[i]}`));
    assert.deepEqual([...others(sampled)].sort(), [...others(all)].sort(), 'other stages: every warp, per draw');

    const fsTotal = (trace: Trace) => count(trace, (i) => (trace.warps.stage[i] === fs ? 'fs' : null)).get('fs') ?? 0;
    const [allFs, sampledFs] = [fsTotal(all), fsTotal(sampled)];
    assert.ok(allFs >= 2000, `a workload with thousands of FS warps (${allFs})`);
    const ratio = sampledFs / allFs;
    assert.ok(ratio > 1 / (2 * N) && ratio < 2 / N, `FS ${sampledFs} of ${allFs} = 1/${(1 / ratio).toFixed(1)}`);

    // No draw and no part of the screen is favoured: every large group keeps ~1/N.
    const perDraw = (trace: Trace) => count(trace, (i) => (trace.warps.stage[i] === fs ? `draw ${trace.warps.draw[i]}` : null));
    const quadrant = (trace: Trace) =>
      count(trace, (i) => {
        if (trace.warps.stage[i] !== fs) return null;
        const id = trace.warps.customId[i]!;
        return `${(id & 0xffff) < 160 ? 'left' : 'right'} ${id >>> 16 < 90 ? 'top' : 'bottom'}`;
      });
    const lines: string[] = [];
    for (const [what, group] of [['draw', perDraw], ['quadrant', quadrant]] as const) {
      const sampledGroups = group(sampled);
      for (const [key, n] of group(all)) {
        if (n < 800) continue;
        const r = (sampledGroups.get(key) ?? 0) / n;
        lines.push(`${key}: ${sampledGroups.get(key) ?? 0}/${n}`);
        assert.ok(r > 1 / (2 * N) && r < 2 / N, `${what} ${key}: ${sampledGroups.get(key) ?? 0} of ${n}`);
      }
    }
    t.diagnostic(`FS ${sampledFs}/${allFs} (1/${(1 / ratio).toFixed(2)}); ${lines.join(', ')}`);
  });
}
