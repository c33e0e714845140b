// `warptrace capture -- APP` with devices the layer cannot trace (fake apps, capture-app-helpers.ts): the capture
// ended at once with --exit-after, a traceable device after a refused one, an app that runs on, a device refused
// before its hello, and --overhead-runs' time-only runs that are untraced on purpose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dir, fakeApp, layerClient, run, sampleRaw } from './capture-app-helpers.js';

/** What the layer says for a device it will not trace (device.cpp prepareTracing): its hello, then a skipped event. */
const NO_CLOCK = 'the device lacks VK_KHR_shader_clock (shaders cannot read a clock)';
function refusedDevice(name: string, why = NO_CLOCK, client = 'client'): string {
  return `await ${client}.request('hello', { pid: process.pid, app: 'fake', device: { name: ${JSON.stringify(name)}, traceable: false, why: ${JSON.stringify(why)} }, set: 7 });
await ${client}.request('event', { event: 'skipped', what: ${JSON.stringify(`device ${name}`)}, why: ${JSON.stringify(why)} });`;
}

test('--exit-after: a device the layer cannot trace ends the capture at once, the app as after a capture, naming the device and why', () => {
  const marker = join(dir, 'untraceable-ended');
  const app = fakeApp(
    'untraceable',
    `${layerClient}
process.on('SIGTERM', () => { writeFileSync(${JSON.stringify(marker)}, 'bye'); process.exit(0); });
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
${refusedDevice('Fake iGPU')}
setInterval(() => {}, 1000);`,
    false,
  );
  const started = Date.now();
  const r = run(['capture', '--exit-after', '--timeout', '60', '-o', join(dir, 'untraceable.wtrace'), '--', process.execPath, app]);
  const seconds = (Date.now() - started) / 1000;
  assert.equal(r.code, 1, r.err);
  assert.equal(existsSync(marker), true, 'the app got SIGTERM');
  // Said at once, in one line (the skipped event that follows the hello is not a second one).
  assert.match(r.err, /warptrace: layer loaded in fake \(pid \d+\), but it cannot trace Fake iGPU: the device lacks VK_KHR_shader_clock \(shaders cannot read a clock\); nothing will be captured from this device\n/);
  assert.equal(r.err.split('cannot trace Fake iGPU').length - 1, 2, `the line, then the error:\n${r.err}`);
  assert.match(r.err, /no device the layer can trace after 5 s: ending the app \(--exit-after\)/);
  assert.match(r.err, /warptrace capture: nothing captured: the layer cannot trace Fake iGPU: the device lacks VK_KHR_shader_clock \(shaders cannot read a clock\)\n$/);
  assert.doesNotMatch(r.err, /not captured within|never loaded|not traced: device/);
  // Ended by the refusal (5 s of grace), not by the 60 s timeout.
  assert.ok(seconds < 30, `${seconds} s`);
  assert.equal(existsSync(join(dir, 'untraceable.wtrace')), false);
});

test('a device the layer can trace that follows a refused one within the grace period is captured', () => {
  const app = fakeApp(
    'second-device',
    `${layerClient}
const first = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
${refusedDevice('Fake iGPU', NO_CLOCK, 'first')}
await new Promise((resolve) => setTimeout(resolve, 500));
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
await client.request('hello', { pid: process.pid, app: 'second-device', device: { name: 'Fake dGPU', traceable: true, why: '' }, set: 7 });
const out = process.env.WARPTRACE_OUTPUT;
copyFileSync(${JSON.stringify(sampleRaw)}, out + '.tmp');
renameSync(out + '.tmp', out);
await client.request('event', { event: 'capture-written', path: out, draws: 3, records: 10, counter: 10, capacity: 100 });
setInterval(() => {}, 1000);`,
    false,
  );
  const r = run(['capture', '--exit-after', '--timeout', '60', '-o', join(dir, 'second-device.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /cannot trace Fake iGPU: .*; nothing will be captured from this device/);
  assert.match(r.err, /layer loaded in second-device \(pid \d+\) on Fake dGPU/);
  assert.doesNotMatch(r.err, /no device the layer can trace/);
  assert.match(r.out, /^wrote .*second-device\.wtrace/);
  assert.match(r.out, /not traced \(1; their warps are missing\):\n {4}device Fake iGPU: the device lacks VK_KHR_shader_clock/);
});

test('without --exit-after the app runs on past the grace period; its exit is reported with the reason, exit 1', () => {
  const app = fakeApp(
    'untraceable-runs',
    `${layerClient}
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
${refusedDevice('Fake iGPU')}
// Past the 5 s grace: the CLI must neither end the app nor stop serving its layer.
await new Promise((resolve) => setTimeout(resolve, 6500));
await client.request('event', { event: 'note', what: 'still', why: 'served' });
process.exit(0);`,
    false,
  );
  const r = run(['capture', '--timeout', '60', '-o', join(dir, 'untraceable-runs.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /no device the layer can trace after 5 s: nothing is captured unless the app creates another device; close the app to finish/);
  assert.match(r.err, /note: still \(served\)/);
  assert.match(r.err, /warptrace capture: nothing captured: the layer cannot trace Fake iGPU: the device lacks VK_KHR_shader_clock \(shaders cannot read a clock\); the app exited \(exit code 0\)\n$/);
  assert.doesNotMatch(r.err, /never loaded|ending the app/);
});

test('a device refused before its hello (the driver refused the features tracing needs) is told by its skipped event, not "the layer never loaded"', () => {
  const why = 'the driver refused the features tracing needs (VkResult -8)';
  const app = fakeApp(
    'refused-features',
    `${layerClient}
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
await client.request('event', { event: 'skipped', what: 'device Fake GPU', why: ${JSON.stringify(why)} });
setInterval(() => {}, 1000);`,
    false,
  );
  const r = run(['capture', '--exit-after', '--timeout', '60', '-o', join(dir, 'refused-features.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /warptrace: the layer cannot trace Fake GPU: the driver refused the features tracing needs \(VkResult -8\); nothing will be captured from this device\n/);
  assert.match(r.err, /warptrace capture: nothing captured: the layer cannot trace Fake GPU: the driver refused the features tracing needs \(VkResult -8\)\n$/);
  assert.doesNotMatch(r.err, /never loaded|not captured within/);
  // Without --exit-after the app's own end is told with the same reason.
  const quits = fakeApp(
    'refused-quits',
    `${layerClient}
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
await client.request('event', { event: 'skipped', what: 'device Fake GPU', why: ${JSON.stringify(why)} });
process.exit(2);`,
    false,
  );
  const q = run(['capture', '-o', join(dir, 'refused-quits.wtrace'), '--', process.execPath, quits]);
  assert.equal(q.code, 1, q.err);
  assert.match(q.err, /warptrace capture: nothing captured: the layer cannot trace Fake GPU: the driver refused .*; the app exited \(exit code 2\)\n$/);
});

test('--overhead-runs: the untraced (WARPTRACE_TIME_ONLY) runs are timed as before, whatever their devices say', () => {
  // The time-only runs' devices are untraced on purpose; the real layer sends no hello there, this one even says so.
  const app = fakeApp(
    'timed',
    `${layerClient}
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
if (process.env.WARPTRACE_TIME_ONLY === '1') {
  ${refusedDevice('Fake GPU', 'timing only (WARPTRACE_TIME_ONLY)')}
  await client.request('event', { event: 'timing', gpuNs: 1000 });
  process.exit(0);
}
await client.request('hello', { pid: process.pid, app: 'timed', device: { name: 'Fake GPU', traceable: true, why: '' }, set: 7 });
const out = process.env.WARPTRACE_OUTPUT;
copyFileSync(${JSON.stringify(sampleRaw)}, out + '.tmp');
renameSync(out + '.tmp', out);
await client.request('event', { event: 'capture-written', path: out, draws: 3, records: 10, counter: 10, capacity: 100 });
process.exit(0);`,
    false,
  );
  const r = run(['capture', '--submits', '1..1', '--overhead-runs', '2', '-o', join(dir, 'timed.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /untraced: 1\.0 µs of GPU time \(median of 2\)/);
  assert.doesNotMatch(r.err, /cannot trace|nothing captured/);
});
