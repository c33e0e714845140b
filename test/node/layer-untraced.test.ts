// Draws the layer cannot trace stay draws of the trace (issue 21 D): the
// harness as an ordinary app whose pipeline layouts take every descriptor set
// the device binds (`wt-capture-vk --app --all-sets`), the last one too, where
// the layer puts its trace set (7 on lavapipe), so the layer skips every
// pipeline. The captured submit's dispatch and draw must still be in the
// trace, with their calls, counts and timestamps, marked untraced with why,
// and `warptrace info` must list them.
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTrace, decodeWtraw } from '../../shared-schema/index.js';
import { prepareHarnessApp, warptraceWithLayer, type HarnessApp, type Run } from './harness-app.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-untraced-'));
/** Hard limit on one CLI run: a hang fails the test. */
const RUN_LIMIT_MS = 120_000;

let setup: HarnessApp | null = null;
before(async () => {
  if (skip) return;
  setup = await prepareHarnessApp();
});

after(() => rmSync(dir, { recursive: true, force: true }));

function warptrace(args: readonly string[]): Promise<Run> {
  return warptraceWithLayer(args, { dir, layerDir: setup?.layerDir ?? '', limitMs: RUN_LIMIT_MS });
}

test('a frame whose pipelines the layer skips keeps its dispatch and draw, untraced with why, with calls, counts and timestamps', { skip }, async () => {
  assert.ok(setup !== null);
  const out = join(dir, 'all-sets.wtrace');
  const raw = join(dir, 'all-sets.wtraw');
  const app = [setup.binary, '--app', '--all-sets', '--workload', 'busy-loop', '--plain-shaders', setup.plain, '--frames', '2', '--param', 'groups=4'];
  const args = ['capture', '--submits', '2..2', '--overhead-runs', '0', '-o', out, '--raw', raw, '--timeout', '100', '--', ...app];
  const r = await warptrace(args);
  const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 0, context);
  const trace = decodeWtraw(new Uint8Array(readFileSync(raw)));
  const set = trace.capture.layer?.set;
  assert.ok(set !== undefined, 'the trace carries the layer record');
  assert.equal(trace.warps.count, 0, 'no pipeline was traced');
  // The busy loop's frame: a dispatch of 4 workgroups, then a full-screen draw of 6 vertices.
  assert.deepEqual(
    trace.draws.map((d) => [d.kind, d.call, d.params]),
    [
      ['dispatch', 'vkCmdDispatch', { groupCountX: 4, groupCountY: 1, groupCountZ: 1 }],
      ['draw', 'vkCmdDraw', { vertexCount: 6, instanceCount: 1, firstVertex: 0, firstInstance: 0 }],
    ],
    context,
  );
  const why = new RegExp(`^pipeline 0x[0-9a-f]+: .*including set ${set}\\b`);
  for (const d of trace.draws) {
    assert.match(d.untraced ?? '(traced)', why, `draw ${d.index}`);
    assert.ok(d.gpuBeginNs !== null && d.gpuEndNs !== null && d.gpuEndNs >= d.gpuBeginNs, `draw ${d.index} timestamps: ${d.gpuBeginNs} – ${d.gpuEndNs}`);
  }
  // The draw ran in its render area, after the dispatch (a barrier between them).
  assert.deepEqual(trace.draws[1]?.target, { width: 64, height: 64 });
  assert.ok((trace.draws[1]?.gpuEndNs as number) >= (trace.draws[0]?.gpuEndNs as number));
  // The .wtrace the CLI wrote keeps them.
  assert.deepEqual(
    decodeTrace(new Uint8Array(readFileSync(out))).draws.map((d) => d.untraced),
    trace.draws.map((d) => d.untraced),
  );
  const info = await warptrace(['info', out]);
  assert.equal(info.code, 0, info.err);
  assert.match(info.out, /untraced +2 of 2 draws ran untraced/);
  assert.match(info.out, /#1 vkCmdDraw\(6, 1\): pipeline 0x[0-9a-f]+: its layout uses/);
  assert.match(info.out, /0 \(untraced\)/);
  const json = await warptrace(['info', out, '--json']);
  const summary = JSON.parse(json.out) as { summary: { draws: { untraced?: string }[] } };
  assert.deepEqual(summary.summary.draws.map((d) => d.untraced), trace.draws.map((d) => d.untraced));
});

test('with --blocks, a frame whose every draw ran untraced converts: a block profile without rows', { skip }, async () => {
  assert.ok(setup !== null);
  const out = join(dir, 'all-sets-blocks.wtrace');
  const raw = join(dir, 'all-sets-blocks.wtraw');
  const app = [setup.binary, '--app', '--all-sets', '--workload', 'busy-loop', '--plain-shaders', setup.plain, '--frames', '2', '--param', 'groups=4'];
  const args = ['capture', '--blocks', '--submits', '2..2', '--overhead-runs', '0', '-o', out, '--raw', raw, '--timeout', '100', '--', ...app];
  const r = await warptrace(args);
  const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 0, context);
  // The host wrote the profile's key with nothing in it, and no section (nothing to hold).
  const bytes = new Uint8Array(readFileSync(raw));
  const trace = decodeWtraw(bytes);
  assert.deepEqual(trace.blocks && { rows: trace.blocks.rows, modules: trace.blocks.modules, unprofiledDraws: trace.blocks.unprofiledDraws }, { rows: [], modules: [], unprofiledDraws: 0 });
  // Untraced, not traced without a profile: no draw says `unprofiled`, and the layer notes no reason.
  assert.deepEqual(trace.draws.map((d) => [d.untraced !== null, d.unprofiled]), [[true, null], [true, null]]);
  assert.deepEqual(trace.capture.layer?.notes.filter((n) => n.what === 'blocks'), []);
  assert.deepEqual(decodeTrace(new Uint8Array(readFileSync(out))).blocks?.rows, []);
});
