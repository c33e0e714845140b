// `warptrace capture --budget B -- APP`: the CLI's runs end to end with a fake app (a node script that speaks the
// layer's side of the socket protocol; see capture-app-cli.test.ts), so no C++ layer or GPU is needed. The fake app
// writes the H100 syncs capture's raw dump with the overhead the test gives each run (and, as the layer does, the
// sampling and the budget it was started with in the metadata), and logs the environment each run got.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeWtrace, decodeWtraw } from '../../shared-schema/index.js';
import { FIRST_RUN, chooseAfterRun, chooseRates, describeRates, recordedWarpsByStage } from '../../capture/capture-run/app-budget.js';
import { MAX_BUDGET_RUNS } from '../../capture/capture-run/app-budget-runs.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-budget-cli-'));
const layerDir = join(dir, 'layer');
mkdirSync(layerDir);
writeFileSync(join(layerDir, 'VkLayer_warptrace.json'), '{"file_format_version": "1.2.0", "layer": {"name": "VK_LAYER_WARPTRACE_capture"}}');
const sampleRaw = repoPath('samples', 'raw', 'h100-syncs.wtraw');
const clientUrl = pathToFileURL(repoPath('dist', 'capture', 'layer-server', 'client.js')).href;
const PLAIN_NS = 1_000_000;

after(() => rmSync(dir, { recursive: true, force: true }));

function run(args: readonly string[]) {
  const env = { ...process.env, WARPTRACE_LAYER_DIR: layerDir, WARPTRACE_SPIRV_CACHE: join(dir, 'cache') };
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, timeout: 120_000, cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/**
 * A fake app whose run k (1-based) writes the sample's dump with a traced frame of ratios[k − 1] x PLAIN_NS (or
 * sampledRatio once WARPTRACE_SAMPLE is set, when given), and appends the WARPTRACE_SAMPLE* variables it got to `log`.
 */
function budgetApp(name: string, ratios: readonly number[], sampledRatio: number | null): { app: string; log: string } {
  const log = join(dir, `${name}.log`);
  const app = join(dir, `${name}.mjs`);
  writeFileSync(
    app,
    `import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { LayerClient } from ${JSON.stringify(clientUrl)};
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
await client.request('hello', { pid: process.pid, app: ${JSON.stringify(name)}, device: { name: 'Fake GPU' }, set: 7 });
process.on('SIGTERM', () => process.exit(0));
const log = ${JSON.stringify(log)};
const runIndex = existsSync(log) ? readFileSync(log, 'utf8').split('\\n').filter(Boolean).length : 0;
const sample = process.env.WARPTRACE_SAMPLE ?? null;
const budget = process.env.WARPTRACE_SAMPLE_BUDGET ?? null;
appendFileSync(log, JSON.stringify({ sample, budget }) + '\\n');
const ratios = ${JSON.stringify(ratios)};
const ratio = sample !== null && ${JSON.stringify(sampledRatio)} !== null ? ${JSON.stringify(sampledRatio)} : ratios[Math.min(runIndex, ratios.length - 1)];
// The sample's metadata rewritten as the layer would write this run's: its overhead, its sampling, the budget.
const src = readFileSync(${JSON.stringify(sampleRaw)});
const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
const metaBytes = view.getUint32(12, true);
const padded = (n) => Math.ceil(n / 8) * 8;
const meta = JSON.parse(new TextDecoder().decode(src.subarray(64, 64 + metaBytes)));
meta.overhead = { plainFrameNs: ${PLAIN_NS}, tracedFrameNs: Math.round(${PLAIN_NS} * ratio), frames: 20 };
meta.parameters = { ...meta.parameters, budget: Number(budget) };
if (sample !== null) meta.sampling = { every: Object.fromEntries(sample.split(',').map((p) => [p.split('=')[0], Number(p.split('=')[1])])), chosenBy: 'budget', budget: Number(budget) };
const m = new TextEncoder().encode(JSON.stringify(meta));
const out = new Uint8Array(64 + padded(m.length) + src.length - 64 - padded(metaBytes));
out.set(src.subarray(0, 64));
new DataView(out.buffer).setUint32(12, m.length, true);
out.set(m, 64);
out.fill(0x20, 64 + m.length, 64 + padded(m.length));
out.set(src.subarray(64 + padded(metaBytes)), 64 + padded(m.length));
await client.request('event', { event: 'capture-started', frame: Number(process.env.WARPTRACE_FRAME) });
const path = process.env.WARPTRACE_OUTPUT;
writeFileSync(path + '.tmp', out);
renameSync(path + '.tmp', path);
await client.request('event', { event: 'capture-written', path, draws: 4, records: 10, counter: 10, capacity: 100 });
setInterval(() => {}, 1000);
`,
  );
  return { app, log };
}

const logged = (log: string) => readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { sample: string | null; budget: string | null });
const syncs = decodeWtraw(new Uint8Array(readFileSync(sampleRaw)));
const syncsRecorded = recordedWarpsByStage(syncs.warps.stage, syncs.warps.count);
const envRates = (rates: Readonly<Record<string, number>>) => Object.entries(rates).map(([k, v]) => `${k}=${v}`).join(',');

test('--budget 1.10: a frame over budget is captured again at the rates chosen from its recorded warps; the run within budget is kept, saying so', () => {
  const { app, log } = budgetApp('over-then-within', [1.52], 1.08);
  const out = join(dir, 'within.wtrace');
  const raw = join(dir, 'within.wtraw');
  const r = run(['capture', '--budget', '1.10', '--frame', '5', '--exit-after', '--raw', raw, '-o', out, '--', process.execPath, app]);
  assert.equal(r.code, 0, r.err);
  const chosen = chooseRates({ rates: {}, ratio: 1.52, budget: 1.1, recorded: syncsRecorded });
  assert.ok((chosen.rates.FS ?? 1) > 1, `the syncs capture's fragments are sampled: ${describeRates(chosen.rates)}`);
  assert.deepEqual(logged(log), [
    { sample: null, budget: '1.1' },
    { sample: envRates(chosen.rates), budget: '1.1' },
  ]);
  assert.match(r.err, new RegExp(`warptrace: frame 5 traced at 1\\.52x the untraced frames \\(budget 1\\.10\\): capturing again with ${describeRates(chosen.rates)}\\n`));
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  assert.equal(trace.capture.overhead?.tracedFrameNs, PLAIN_NS * 1.08, 'the second run is kept');
  assert.deepEqual(trace.capture.sampling, { every: chosen.rates, chosenBy: 'budget', budget: 1.1 });
  assert.equal(decodeWtraw(new Uint8Array(readFileSync(raw))).capture.overhead?.tracedFrameNs, PLAIN_NS * 1.08, '--raw holds the kept run\'s dump');
  // One summary, the kept run's, naming the output (not a run's temporary file), then the budget line.
  assert.equal(r.out.match(/^wrote /gm)?.length, 1, r.out);
  assert.match(r.out, new RegExp(`^wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`));
  assert.match(r.out, /raw dump kept: .*within\.wtraw\n/);
  assert.match(r.out, new RegExp(`\\n  budget 1\\.10 met in run 2: frame 5 traced at 1\\.08x the untraced frames, with ${describeRates(chosen.rates)}\\n$`));
});

test('--budget met by the first run: one run, every warp recorded, the budget in the parameters', () => {
  const { app, log } = budgetApp('within-at-once', [1.04], null);
  const out = join(dir, 'at-once.wtrace');
  const r = run(['capture', '--budget', '1.05', '--frame', '5', '--exit-after', '-o', out, '--', process.execPath, app]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(logged(log), [{ sample: null, budget: '1.05' }]);
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  assert.equal(trace.capture.sampling, null);
  assert.equal(trace.capture.parameters['budget'], 1.05);
  assert.match(r.out, /\n {2}budget 1\.05 met in run 1: frame 5 traced at 1\.04x the untraced frames, with every warp recorded\n$/);
  assert.doesNotMatch(r.err, /capturing again/);
});

test('--budget never met: at most five runs, each at higher rates; the lowest run is kept and the line says plainly it was not met; exit 0', () => {
  const ratios = [1.6, 1.3, 1.4, 1.5, 1.45, 1.45];
  const { app, log } = budgetApp('never-within', ratios, null);
  const out = join(dir, 'never.wtrace');
  const r = run(['capture', '--budget', '1.2', '--sample', 'fs=2', '--frame', '5', '--exit-after', '-o', out, '--', process.execPath, app]);
  assert.equal(r.code, 0, r.err);
  const runs = logged(log);
  assert.ok(runs.length >= 2 && runs.length <= MAX_BUDGET_RUNS, `runs: ${JSON.stringify(runs)}`);
  assert.equal(runs[0]?.sample, 'FS=2', '--sample gives the first run\'s rates');
  // Each run's rates are those chosen from the run before it, over the floor its misses taught (app-budget.ts).
  let rates: Record<string, number> = { FS: 2 };
  let memory = FIRST_RUN;
  for (let k = 1; k < runs.length; k++) {
    const next = chooseAfterRun(memory, { rates, ratio: ratios[k - 1]!, budget: 1.2, recorded: syncsRecorded });
    rates = { ...next.choice.rates };
    memory = next.memory;
    assert.equal(runs[k]?.sample, envRates(rates), `run ${k + 1}`);
  }
  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  assert.equal(trace.capture.overhead?.tracedFrameNs, PLAIN_NS * 1.3, 'the lowest run (2) is kept');
  const why = runs.length === MAX_BUDGET_RUNS ? `after ${MAX_BUDGET_RUNS} runs, the most --budget takes` : `after ${runs.length} runs: no stage is left to sample more`;
  assert.ok(r.out.includes(`\n  budget 1.20 NOT met ${why}`), r.out);
  assert.match(r.out, /; kept the lowest, run 2: frame 5 traced at 1\.30x the untraced frames, with FS 1 in \d+\n$/);
});

test('--budget usage: frames only, a number above 1 and at most 100 with up to 4 decimals', () => {
  const cases: [string[], RegExp][] = [
    [['--budget', '1.1', '--submits', '1..2'], /--budget applies to frames: .*--submits overhead comes from separate untraced runs/],
    [['--budget', '1'], /--budget needs a number above 1 and at most 100/],
    [['--budget', '100.5'], /--budget needs a number above 1 and at most 100/],
    [['--budget', '1.00001'], /with up to 4 decimals/],
    [['--budget', 'fast'], /--budget needs a number/],
  ];
  for (const [args, message] of cases) {
    const r = run(['capture', '-o', join(dir, 'x.wtrace'), ...args, '--', 'x']);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message);
  }
});
