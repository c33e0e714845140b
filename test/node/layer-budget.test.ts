// `warptrace capture --budget B -- vkd3d-gears` end to end on lavapipe (CI: software Vulkan under a virtual X
// server), with the layer the CLI builds: tracing on lavapipe costs far more than 5%, so --budget 1.05 captures again
// with sampled stages. What happened is asserted, whichever it was: the budget met, with the fragment stage sampled
// and the trace saying the budget chose the rates, or the plain "NOT met" line naming the lowest run, whose trace is
// the one kept. No time is asserted: the ratios are whatever this machine measured.
// Needs xvfb-run and vkd3d-gears (vkd3d-demos): see scripts/install-system-deps.sh. Set WARPTRACE_SKIP_GPU_TESTS=1
// to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWtrace } from '../../shared-schema/index.js';
import { buildLayer } from '../../capture/capture-run/layer-build.js';
import { MAX_BUDGET_RUNS } from '../../capture/capture-run/app-budget-runs.js';
import { describeRates } from '../../capture/capture-run/app-budget.js';
import { repoPath } from './paths.js';
import { ProcessGroups, type GroupRun } from './process-group.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-budget-'));
/** Hard limit on the whole command (up to five runs of the app): a hang fails the test. Generous: CI's 2 cores are busy. */
const RUN_LIMIT_MS = 480_000;
const FRAME = 10;
const groups = new ProcessGroups(RUN_LIMIT_MS);

before(async () => {
  if (!skip) await buildLayer();
});

after(() => {
  groups.killAll();
  rmSync(dir, { recursive: true, force: true });
});

function describe(r: GroupRun): string {
  return `exit ${r.code}${r.signal === null ? '' : ` (${r.signal})`}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-8000)}`;
}

test('vkd3d-gears with --budget 1.05: captured again at higher rates; the budget met with sampled fragments, or plainly not, keeping the lowest run', { skip }, async () => {
  const out = join(dir, 'gears-budget.wtrace');
  const args = ['capture', '-o', out, '--budget', '1.05', '--frame', String(FRAME), '--exit-after', '--timeout', '120', '--', 'vkd3d-gears'];
  const env = { ...process.env, WARPTRACE_SPIRV_CACHE: join(dir, 'spirv-cache') };
  const run = await groups.run([process.execPath, bin, ...args], env, { x: true });
  assert.equal(run.code, 0, `warptrace ${args.join(' ')}: ${describe(run)}`);

  const runs = run.err.match(/warptrace: layer loaded in vkd3d-gears/g)?.length ?? 0;
  assert.ok(runs > 1 && runs <= MAX_BUDGET_RUNS, `more than one run, at most ${MAX_BUDGET_RUNS}: ${runs}\n${describe(run)}`);
  // Each run but the last says what it measured and the rates of the next.
  const agains = [...run.err.matchAll(/warptrace: frame 10 traced at (\d+\.\d\d)x the untraced frames \(budget 1\.05\): capturing again with (.+)\n/g)];
  assert.equal(agains.length, runs - 1, describe(run));
  for (const [, ratio] of agains) assert.ok(Number(ratio) > 1.05, `a run over budget: ${ratio}`);
  // Every run's ratio, as the layer logged it: the kept trace is the first within budget, or the lowest.
  const ratios = [...run.err.matchAll(/warptrace-layer: GPU time: traced [\d.]+ us, untraced [\d.]+ us \(median of \d+ frames before it\): (\d+\.\d+)x/g)].map((m) => Number(m[1]));
  assert.equal(ratios.length, runs, `one timing per run: ${describe(run)}`);

  const trace = decodeWtrace(new Uint8Array(readFileSync(out)));
  const o = trace.capture.overhead;
  assert.ok(o !== null, 'the kept trace has its overhead');
  const kept = o.tracedFrameNs / o.plainFrameNs;
  assert.equal(trace.capture.parameters['budget'], 1.05, `parameters: ${JSON.stringify(trace.capture.parameters)}`);
  const sampling = trace.capture.sampling;
  if (sampling !== null) {
    assert.equal(sampling.chosenBy, 'budget');
    assert.equal(sampling.budget, 1.05);
  }
  const rates = sampling === null ? 'every warp recorded' : describeRates(sampling.every);

  const met = /\n {2}budget 1\.05 met in run (\d+): frame 10 traced at (\d+\.\d\d)x the untraced frames, with (.+)\n/.exec(run.out);
  const notMet = /\n {2}budget 1\.05 NOT met after (\d+) runs?[:,] .+; kept the lowest, run (\d+): frame 10 traced at (\d+\.\d\d)x the untraced frames, with (.+)\n/.exec(run.out);
  assert.ok((met === null) !== (notMet === null), `one final budget line: ${describe(run)}`);
  if (met !== null) {
    assert.equal(Number(met[1]), runs, 'the last run met it');
    assert.ok(kept <= 1.05, `within budget: ${kept}`);
    assert.equal(met[2], kept.toFixed(2));
    assert.equal(met[3], rates);
    assert.ok(sampling !== null && (sampling.every.FS ?? 1) > 1, `fragments sampled: ${JSON.stringify(sampling)}`);
  } else if (notMet !== null) {
    assert.equal(Number(notMet[1]), runs);
    const keptRun = Number(notMet[2]);
    assert.equal(notMet[3], kept.toFixed(2));
    assert.equal(notMet[4], rates);
    assert.ok(kept > 1.05);
    // The lowest of the runs' ratios (the layer logs three decimals).
    assert.ok(Math.abs((ratios[keptRun - 1] ?? NaN) - kept) < 0.001, `run ${keptRun} measured ${ratios[keptRun - 1]}, the trace ${kept}`);
    assert.ok(ratios.every((r) => r >= (ratios[keptRun - 1] ?? NaN)), `run ${keptRun} is the lowest of ${ratios.join(', ')}`);
  }
  // The kept run's summary, with the final name.
  assert.match(run.out, new RegExp(`^wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`));
});
