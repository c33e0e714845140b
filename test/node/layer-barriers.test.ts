// The capture layer notes the pipeline barriers an app records and hands each
// draw those recorded since the frame's previous draw (draws[i].barriersBefore,
// capture/layer/src/barriers.cpp). The harness as an ordinary app running the
// `syncs` workload (capture/workloads/src/workloads.cpp): after the frame's
// full barrier (app.cpp), four free-running draws, then four draws each after
// a full barrier (Frame::sync, a vkCmdPipelineBarrier ALL_COMMANDS →
// ALL_COMMANDS with one memory barrier).
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTrace, decodeWtraw } from '../../shared-schema/index.js';
import { prepareHarnessApp, warptraceWithLayer, type HarnessApp, type Run } from './harness-app.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-barriers-'));
/** Hard limit on one CLI run: a hang fails the test. */
const RUN_LIMIT_MS = 120_000;
/** Frame::sync's and the frame's fullBarrier (capture/workloads/src/gpu.cpp), as the layer names it. */
const FULL_BARRIER = 'vkCmdPipelineBarrier(ALL_COMMANDS → ALL_COMMANDS, 1 memory)';

let setup: HarnessApp | null = null;
before(async () => {
  if (skip) return;
  setup = await prepareHarnessApp();
});

after(() => rmSync(dir, { recursive: true, force: true }));

function warptrace(args: readonly string[]): Promise<Run> {
  return warptraceWithLayer(args, { dir, layerDir: setup?.layerDir ?? '', limitMs: RUN_LIMIT_MS });
}

test('each draw carries the barriers the app recorded since the previous draw', { skip }, async () => {
  assert.ok(setup !== null);
  const out = join(dir, 'syncs.wtrace');
  const raw = join(dir, 'syncs.wtraw');
  const app = [setup.binary, '--app', '--workload', 'syncs', '--plain-shaders', setup.plain, '--frames', '2', '--param', 'width=64', '--param', 'height=64', '--param', 'shading=1'];
  const args = ['capture', '--submits', '2..2', '--overhead-runs', '0', '-o', out, '--raw', raw, '--timeout', '100', '--', ...app];
  const r = await warptrace(args);
  const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 0, context);
  const trace = decodeWtraw(new Uint8Array(readFileSync(raw)));
  assert.equal(trace.draws.length, 8, context);
  assert.ok(trace.warps.count > 0, 'the draws were traced');
  // Draw 0 after the frame's barrier, draws 1-3 free-running, draws 4-7 each after Frame::sync's.
  assert.deepEqual(
    trace.draws.map((d) => d.barriersBefore),
    [[FULL_BARRIER], null, null, null, [FULL_BARRIER], [FULL_BARRIER], [FULL_BARRIER], [FULL_BARRIER]],
  );
  // The .wtrace the CLI wrote, and `warptrace info --json`, keep them.
  assert.deepEqual(
    decodeTrace(new Uint8Array(readFileSync(out))).draws.map((d) => d.barriersBefore),
    trace.draws.map((d) => d.barriersBefore),
  );
  const info = await warptrace(['info', out]);
  assert.equal(info.code, 0, info.err);
  assert.match(info.out, /barriers +5 of 8 draws follow pipeline barriers or event waits/);
  assert.ok(info.out.includes(`#4 ${trace.draws[4]!.label}: after ${FULL_BARRIER}`), info.out);
  const json = await warptrace(['info', out, '--json']);
  assert.equal(json.code, 0, json.err);
  const summary = JSON.parse(json.out) as { summary: { draws: { barriersBefore?: string[] }[] } };
  assert.deepEqual(summary.summary.draws.map((d) => d.barriersBefore ?? null), trace.draws.map((d) => d.barriersBefore));
});
