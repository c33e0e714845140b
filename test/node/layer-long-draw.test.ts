// A real draw longer than 2^31 ns on lavapipe (issue 21 B), captured by the
// layer and converted: lavapipe's device clock and SM clock count ns, so
// the 32-bit clock words of such a draw's warps wrap against its timestamps.
// The busy-loop workload as an ordinary app (`wt-capture-vk --app`), its
// fragment loop at llvmpipe's cap (65,535 iterations an invocation) over
// enough pixels, on one rasterizer thread (LP_NUM_THREADS=1) so the draw
// lasts seconds on any machine. Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a
// machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, decodeTrace, decodeWtraw } from '../../shared-schema/index.js';
import { prepareHarnessApp, warptraceWithLayer, type HarnessApp, type Run } from './harness-app.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-long-draw-'));
/** Hard limit on the capture: a hang fails the test. */
const RUN_LIMIT_MS = 240_000;
/** The longest draw signed 32-bit ns differences reach is 2^31 ns ≈ 2.15 s: the draw must last longer. */
const LONG_NS = 2.2e9;
/** 320 × 320 pixels × 65,535 iterations: about 3-4 s on one thread of the machines tried. */
const SIDE = 320;

let setup: HarnessApp | null = null;
before(async () => {
  if (skip) return;
  setup = await prepareHarnessApp();
});

after(() => rmSync(dir, { recursive: true, force: true }));

function warptrace(args: readonly string[]): Promise<Run> {
  // One rasterizer thread: the draw's length does not shrink with the machine's cores.
  return warptraceWithLayer(args, { dir, layerDir: setup?.layerDir ?? '', limitMs: RUN_LIMIT_MS, env: { LP_NUM_THREADS: '1' } });
}

test('a draw of seconds on lavapipe converts: every warp inside its draw, SMs aligned', { skip }, async (t) => {
  assert.ok(setup !== null);
  const out = join(dir, 'long.wtrace');
  const raw = join(dir, 'long.wtraw');
  const params = [['work', 65535], ['width', SIDE], ['height', SIDE], ['groups', 1]].flatMap(([k, v]) => ['--param', `${k}=${v}`]);
  const app = [setup.binary, '--app', '--workload', 'busy-loop', '--plain-shaders', setup.plain, '--frames', '1', ...params];
  const args = ['capture', '--submits', '1..1', '--overhead-runs', '0', '-o', out, '--raw', raw, '--timeout', String(RUN_LIMIT_MS / 1000 - 20), '--', ...app];
  const r = await warptrace(args);
  const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 0, context);
  const trace = decodeWtraw(new Uint8Array(readFileSync(raw)));
  const c = trace.capture;
  assert.equal(c.recordsWritten, c.recordsKept, 'nothing dropped');
  assert.deepEqual(
    trace.draws.map((d) => [d.kind, d.untraced]),
    [
      ['dispatch', null],
      ['draw', null],
    ],
  );
  // The full-screen draw's fragment warps: every pixel once, 8 to a warp on lavapipe.
  const w = trace.warps;
  let first = Infinity;
  let last = -Infinity;
  let fragmentLanes = 0;
  for (let i = 0; i < w.count; i++) {
    if (w.draw[i] !== 1) continue;
    first = Math.min(first, w.startNs[i] as number);
    last = Math.max(last, (w.startNs[i] as number) + (w.durationNs[i] as number));
    if (STAGES[w.stage[i] as number]?.name === 'FS') fragmentLanes += popcount(w.activeMask[i] as number);
  }
  assert.equal(fragmentLanes, SIDE * SIDE);
  assert.ok(last - first > LONG_NS, `the draw's warps span ${((last - first) / 1e9).toFixed(2)} s: not a long draw`);
  t.diagnostic(`draw 1: warps over ${((last - first) / 1e9).toFixed(2)} s, ${w.count} warps`);
  // Placed right: on the device clock, inside the draw's timestamps, aligned.
  assert.ok(c.originDeviceNs !== null && BigInt(c.originDeviceNs) > 0n);
  assert.equal(c.calibration.drawBounds?.outside, 0, JSON.stringify(c.calibration.drawBounds));
  assert.equal(c.calibration.alignedAcrossSms, true, c.calibration.note);
  // The CLI's .wtrace is the same trace.
  assert.equal(decodeTrace(new Uint8Array(readFileSync(out))).warps.count, w.count);
});

function popcount(v: number): number {
  let n = 0;
  for (let x = v >>> 0; x !== 0; x &= x - 1) n++;
  return n;
}
