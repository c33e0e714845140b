// A device the capture layer refuses ends the capture at once, with the layer's reason, instead of
// a wait for --timeout (on a real app: 80 s, then "not captured within"). The refusal is real:
// a small test layer enabled below ours (test/native/no-shader-clock-layer.c) hides
// VK_KHR_shader_clock, so the device looks like one without shader clocks and the layer's own
// check (wtUnsupportedReason, device.cpp prepareTracing) refuses it: its hello says
// "traceable": false. The app is our harness as an ordinary app, on lavapipe in CI.
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareHarnessApp, warptraceWithLayer, type HarnessApp, type Run } from './harness-app.js';
import { repoPath } from './paths.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-layer-untraceable-'));
/** The CLI's --timeout: generous, as a 2-core CI machine may be busy. The run must end well before it. */
const TIMEOUT_S = 120;
/** Hard limit on one CLI run: a hang fails the test. */
const RUN_LIMIT_MS = (TIMEOUT_S + 60) * 1000;
const TEST_LAYER = 'VK_LAYER_WT_test_no_shader_clock';
const REASON = 'the device lacks VK_KHR_shader_clock (shaders cannot read a clock)';
const testLayerDir = join(dir, 'test-layer');

let setup: HarnessApp | null = null;
before(async () => {
  if (skip) return;
  setup = await prepareHarnessApp();
  mkdirSync(testLayerDir);
  const library = join(testLayerDir, 'libVkLayer_wt_test_no_shader_clock.so');
  const cc = spawnSync('cc', ['-std=c99', '-O1', '-shared', '-fPIC', '-fvisibility=hidden', repoPath('test/native/no-shader-clock-layer.c'), '-o', library], { encoding: 'utf8' });
  assert.equal(cc.status, 0, cc.stderr);
  const manifest = {
    file_format_version: '1.1.2',
    layer: { name: TEST_LAYER, type: 'GLOBAL', library_path: library, api_version: '1.3.239', implementation_version: '1', description: 'warptrace test: hides VK_KHR_shader_clock' },
  };
  writeFileSync(join(testLayerDir, 'VkLayer_wt_test_no_shader_clock.json'), JSON.stringify(manifest));
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** `warptrace ARGS` with the test layer below ours: the CLI prepends its own layer to both variables. */
function warptrace(args: readonly string[]): Promise<Run> {
  return warptraceWithLayer(args, { dir, layerDir: setup?.layerDir ?? '', limitMs: RUN_LIMIT_MS, env: { VK_ADD_LAYER_PATH: testLayerDir, VK_INSTANCE_LAYERS: TEST_LAYER } });
}

function harness(frames: number): string[] {
  assert.ok(setup !== null);
  return [setup.binary, '--app', '--workload', 'busy-loop', '--plain-shaders', setup.plain, '--frames', String(frames), '--param', 'groups=4'];
}

/** The one line the CLI prints when the layer's hello refuses the device. */
const REFUSED_LINE = new RegExp(
  `warptrace: layer loaded in wt-capture-vk \\(pid \\d+\\), but it cannot trace [^\\n]+: ${escape(REASON)}; nothing will be captured from this device\\n`,
);

test('--exit-after: a device the layer cannot trace ends the capture and the app within seconds, exit 1 with the device and why', { skip }, async () => {
  const out = join(dir, 'refused.wtrace');
  // An app that would run for hours: only the refusal can end this run before the timeout.
  const args = ['capture', '--submits', '2..2', '--overhead-runs', '0', '--exit-after', '--timeout', String(TIMEOUT_S), '-o', out, '--', ...harness(100_000_000)];
  const started = Date.now();
  const r = await warptrace(args);
  const seconds = (Date.now() - started) / 1000;
  const context = `warptrace ${args.join(' ')}: exit ${r.code} after ${seconds} s\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 1, context);
  assert.match(r.err, REFUSED_LINE, context);
  assert.match(r.err, /no device the layer can trace after 5 s: ending the app \(--exit-after\)/, context);
  assert.match(r.err, new RegExp(`warptrace capture: nothing captured: the layer cannot trace [^\\n]+: ${escape(REASON)}\\n$`), context);
  assert.doesNotMatch(r.err, /not captured within|never loaded/, context);
  // Ended because of the refusal: the harness never prints its summary (it was ended), and well before the timeout.
  assert.doesNotMatch(r.err, /"app": true/, context);
  assert.ok(seconds < TIMEOUT_S / 2, context);
  assert.equal(existsSync(out), false);
});

test('without --exit-after: the line at once, the app runs to its end, exit 1 with the reason', { skip }, async () => {
  const args = ['capture', '--submits', '2..2', '--overhead-runs', '0', '--timeout', String(TIMEOUT_S), '-o', join(dir, 'refused-runs.wtrace'), '--', ...harness(4)];
  const r = await warptrace(args);
  const context = `warptrace ${args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
  assert.equal(r.code, 1, context);
  assert.match(r.err, REFUSED_LINE, context);
  // The app ran all its frames, untraced.
  assert.match(r.err, /"app": true, "workload": "busy-loop", .*"frames": 4/, context);
  assert.match(r.err, new RegExp(`warptrace capture: nothing captured: the layer cannot trace [^\\n]+: ${escape(REASON)}; the app exited \\(exit code 0\\)\\n$`), context);
  assert.doesNotMatch(r.err, /not captured within|never loaded|ending the app/, context);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
