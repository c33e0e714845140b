// `warptrace capture -- APP`: the CLI end to end with fake apps (node
// scripts that speak the layer's side of the socket protocol), so no C++
// layer and no GPU are needed: WARPTRACE_LAYER_DIR points at a folder with
// a stand-in manifest, and the fake app does what the layer would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeWtrace, wtrawToWtrace } from '../../shared-schema/index.js';
import { layerEnvironment } from '../../capture/capture-run/app-environment.js';
import { MAX_RETRY_CAPACITY, parseCapacity, retryCapacity } from '../../capture/capture-run/app-capacity.js';
import { buildLayer } from '../../capture/capture-run/layer-build.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-capture-app-'));
const layerDir = join(dir, 'layer');
mkdirSync(layerDir);
writeFileSync(join(layerDir, 'VkLayer_warptrace.json'), '{"file_format_version": "1.2.0", "layer": {"name": "VK_LAYER_WARPTRACE_capture"}}');
const sampleRaw = repoPath('samples', 'raw', 'h100-syncs.wtraw');
const clientUrl = pathToFileURL(repoPath('dist', 'capture', 'layer-server', 'client.js')).href;

/** Runs `warptrace ARGS` with the stand-in layer and a private SPIR-V cache. */
function run(args: readonly string[], extraEnv: Record<string, string> = {}) {
  const env = { ...process.env, WARPTRACE_LAYER_DIR: layerDir, WARPTRACE_SPIRV_CACHE: join(dir, 'cache'), VK_INSTANCE_LAYERS: 'VK_LAYER_user_own', ...extraEnv };
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, timeout: 60_000, cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Writes a fake app: `body` runs after it has connected as `client` (a LayerClient) and said hello. */
/** `before` runs before the app says hello (signal handlers: the CLI may act as soon as the hello arrives). */
function fakeApp(name: string, body: string, connect = true, before = ''): string {
  const path = join(dir, `${name}.mjs`);
  const prelude = connect
    ? `import { LayerClient } from ${JSON.stringify(clientUrl)};
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
const hello = await client.request('hello', { pid: process.pid, app: ${JSON.stringify(name)}, device: { name: 'Fake GPU' }, set: 7 });
if (hello.status !== 0) throw new Error('hello refused');
`
    : '';
  writeFileSync(path, `import { copyFileSync, renameSync, writeFileSync } from 'node:fs';\n${before}\n${prelude}${body}\n`);
  return path;
}

test('capture -- APP: the app is ended after capture-written and its raw dump becomes a .wtrace', () => {
  const marker = join(dir, 'terminated');
  const envDump = join(dir, 'env.json');
  const app = fakeApp(
    'fake-app',
    `writeFileSync(${JSON.stringify(envDump)}, JSON.stringify(process.env));
process.on('SIGTERM', () => { writeFileSync(${JSON.stringify(marker)}, 'bye'); process.exit(0); });
await client.request('event', { event: 'skipped', what: 'pipeline 0xbeef', why: 'it has a ray-tracing stage (not traced by the layer yet)' });
await client.request('event', { event: 'capture-started', frame: Number(process.env.WARPTRACE_FRAME) });
const out = process.env.WARPTRACE_OUTPUT;
copyFileSync(${JSON.stringify(sampleRaw)}, out + '.tmp');
renameSync(out + '.tmp', out);
// Written before the event: a pipe's write may still be pending when SIGTERM ends the process.
console.log('fake app: frame rendered');
await client.request('event', { event: 'capture-written', path: out, draws: 3, records: 10, counter: 10, capacity: 100 });
setInterval(() => {}, 1000);`,
  );
  const out = join(dir, 'out.wtrace');
  const raw = join(dir, 'kept.wtraw');
  const r = run(['capture', '--exit-after', '--frame', '5', '--stages', 'fs,mesh,VS,Task', '--draws', 'GBuffer*', '--sample-fs', '8', '--positions', 'cs,FS', '--raw', raw, '-o', out, '--', process.execPath, app, '--help']);
  assert.equal(r.code, 0, r.err);
  assert.equal(existsSync(marker), true, 'the app got SIGTERM');
  const expected = wtrawToWtrace(new Uint8Array(readFileSync(sampleRaw)));
  assert.deepEqual(new Uint8Array(readFileSync(out)), expected.wtrace);
  assert.equal(decodeWtrace(new Uint8Array(readFileSync(out))).warps.count, expected.warpCount);
  assert.deepEqual(readFileSync(raw), readFileSync(sampleRaw), '--raw keeps the dump');
  // The summary on stdout; the app's own stdout and the progress lines on stderr.
  assert.match(r.out, /^wrote .*out\.wtrace \(.*\): fake-app, frame 5, on /);
  assert.match(r.out, /records kept, [\d,]+ dropped/);
  assert.match(r.out, /calibration \S+, SMs aligned: (yes|NO)/);
  assert.match(r.out, /warps sampled: FS 1 in 8 \(counts and summed times are estimates; the recorded warps' times are real\)/);
  assert.match(r.out, /not traced \(1; their warps are missing\):\n {4}pipeline 0xbeef: it has a ray-tracing stage \(not traced by the layer yet\)/);
  assert.doesNotMatch(r.out, /fake app/);
  assert.match(r.err, /fake app: frame rendered/);
  assert.match(r.err, /layer loaded in fake-app .* on Fake GPU/);

  const env = JSON.parse(readFileSync(envDump, 'utf8')) as Record<string, string>;
  assert.equal(env['VK_INSTANCE_LAYERS'], 'VK_LAYER_WARPTRACE_capture:VK_LAYER_user_own');
  assert.equal(env['VK_ADD_LAYER_PATH']!.split(':')[0], layerDir);
  assert.equal(env['WARPTRACE_FRAME'], '5');
  assert.equal(env['WARPTRACE_STAGES'], 'vs,fs,task,mesh', 'in stage order, the mesh stages included');
  assert.equal(env['WARPTRACE_DRAWS'], 'GBuffer*');
  assert.equal(env['WARPTRACE_SAMPLE'], 'FS=8', '--sample-fs 8 is --sample fs=8');
  assert.equal(env['WARPTRACE_FS_ID'], undefined, 'the layer\'s default fragment custom id');
  assert.equal(env['WARPTRACE_POSITIONS'], 'cs,fs');
  assert.equal(env['WARPTRACE_OUTPUT'], raw);
  assert.equal(env['WARPTRACE_SUBMITS'], undefined);
});

test('an app that exits at once: exit 1, the layer never reported in: not a Vulkan program, or one that stopped before its device', () => {
  // Vulkan-Samples exits 0 when it gives up before its device (ray_tracing_position_fetch on the H200: an extension missing).
  const app = fakeApp('quits', 'process.exit(0);', false);
  const r = run(['capture', '-o', join(dir, 'never.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /the app exited \(exit code 0\) before the layer reported in .*: it is not a Vulkan program, or it stopped before creating its device/);
  assert.equal(existsSync(join(dir, 'never.wtrace')), false);
});

test('an app that fails before the layer reports in: its exit code, and that its own device creation may have failed', () => {
  // As a Vulkan app whose vkCreateDevice fails (SaschaWillems rayquery on the H200: an extension the driver lacks, exit 249).
  const app = fakeApp('fails', 'process.exit(249);', false);
  const r = run(['capture', '-o', join(dir, 'fails.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /the app exited \(exit code 249\) before the layer reported in .*vkCreateDevice may have failed/);
  assert.doesNotMatch(r.err, /never loaded/);
});

test('an app that crashes before the layer reports in: the crash and its signal, not "is the app a Vulkan program?"', () => {
  // As a Vulkan app that dies inside vkCreateInstance (before: "the app exited (killed by SIGSEGV) and the layer never loaded").
  const app = fakeApp('crashes', "process.kill(process.pid, 'SIGSEGV');", false);
  const r = run(['capture', '-o', join(dir, 'crash.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /the app crashed with SIGSEGV before the layer reported in/);
  assert.doesNotMatch(r.err, /never loaded|Vulkan program\?/);
});

test('an app that crashes after the layer loaded: the crash and its signal', () => {
  const app = fakeApp('crashes-later', "process.kill(process.pid, 'SIGSEGV');");
  const r = run(['capture', '-o', join(dir, 'crash-later.wtrace'), '--frame', '4', '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /the app exited \(crashed with SIGSEGV\), before frame 4/);
});

test('notes from the layer are told as notes, not as skipped work', () => {
  const app = fakeApp(
    'noted',
    `await client.request('event', { event: 'note', what: 'instance', why: 'created as Vulkan 1.1 below the app' });
const out = process.env.WARPTRACE_OUTPUT;
copyFileSync(${JSON.stringify(sampleRaw)}, out + '.tmp');
renameSync(out + '.tmp', out);
await client.request('event', { event: 'capture-written', path: out, draws: 3, records: 10, counter: 10, capacity: 100 });
setInterval(() => {}, 1000);`,
  );
  const r = run(['capture', '--exit-after', '-o', join(dir, 'noted.wtrace'), '--', process.execPath, app]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /\n {2}note: instance: created as Vulkan 1\.1 below the app/);
  assert.doesNotMatch(r.out, /not traced/);
  assert.match(r.err, /warptrace: note: instance \(created as Vulkan 1\.1 below the app\)/);
});

test('an app that exits before its frame: exit 1 naming the frame and how far it got', () => {
  const app = fakeApp('short', `await client.request('event', { event: 'capture-failed', why: 'device lost', frames: 7 }).catch(() => {});\nprocess.exit(3);`);
  const r = run(['capture', '-o', join(dir, 'short.wtrace'), '--frame', '9', '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /could not capture|after 7 frames, before frame 9/);
  const quiet = fakeApp('quiet', 'process.exit(0);');
  const q = run(['capture', '-o', join(dir, 'quiet.wtrace'), '--submits', '2..4', '--', process.execPath, quiet]);
  assert.equal(q.code, 1, q.err);
  assert.match(q.err, /the app exited \(exit code 0\), before submits 2\.\.4/);
});

test('--timeout ends an app that never captures, with a clear message', () => {
  const app = fakeApp('forever', 'setInterval(() => {}, 1000);');
  const started = Date.now();
  const r = run(['capture', '-o', join(dir, 'late.wtrace'), '--timeout', '1', '--', process.execPath, app]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /frame 60 was not captured within 1 s/);
  assert.ok(Date.now() - started < 20_000);
});

/** What the layer says for a device it will not trace (device.cpp prepareTracing): its hello, then a skipped event. */
const NO_CLOCK = 'the device lacks VK_KHR_shader_clock (shaders cannot read a clock)';
function refusedDevice(name: string, why = NO_CLOCK, client = 'client'): string {
  return `await ${client}.request('hello', { pid: process.pid, app: 'fake', device: { name: ${JSON.stringify(name)}, traceable: false, why: ${JSON.stringify(why)} }, set: 7 });
await ${client}.request('event', { event: 'skipped', what: ${JSON.stringify(`device ${name}`)}, why: ${JSON.stringify(why)} });`;
}
const layerClient = `import { LayerClient } from ${JSON.stringify(clientUrl)};`;

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

test('usage errors exit 2', () => {
  const cases: [string[], RegExp][] = [
    [['capture', '--frame', '3', '--submits', '1..2', '-o', 'x.wtrace', '--', 'x'], /--frame and --submits exclude each other/],
    [['capture', '--', 'x'], /missing -o/],
    [['capture', '-o', 'x.wtrace', '--'], /no app after --/],
    [['capture', '-o', 'x.wtrace', '--frame', '0', '--', 'x'], /--frame needs a whole number/],
    [['capture', '-o', 'x.wtrace', '--submits', '5..2', '--', 'x'], /--submits needs N <= M/],
    [['capture', '-o', 'x.wtrace', '--stages', 'vs,ms', '--', 'x'], /--stages takes/],
    [['capture', '-o', 'x.wtrace', '--timeout', 'soon', '--', 'x'], /--timeout needs a whole number/],
    [['capture', '-o', 'x.wtrace', '--sample-fs', '0', '--', 'x'], /--sample-fs takes a power of two from 1 to 32768 \(one warp in N records\), got "0"/],
    [['capture', '-o', 'x.wtrace', '--sample-fs', '65536', '--', 'x'], /--sample-fs takes a power of two from 1 to 32768/],
    [['capture', '-o', 'x.wtrace', '--sample', 'fs=6', '--', 'x'], /--sample fs takes a power of two from 1 to 32768 \(one warp in N records\), got "6"/],
    [['capture', '-o', 'x.wtrace', '--sample', 'px=8', '--', 'x'], /--sample takes STAGE=N with a stage of vs,tcs,tes,gs,fs,cs,task,mesh,rgen,ahit,chit,miss,rint,call, got "px=8"/],
    [['capture', '-o', 'x.wtrace', '--sample', 'fs=8', '--sample-fs', '4', '--', 'x'], /--sample-fs and --sample fs=N both set the fragment rate/],
    [['capture', '-o', 'x.wtrace', '--fs-id', 'primitive', '--', 'x'], /--fs-id takes primitive-id, frag-coord or none, got "primitive"/],
    [['capture', '-o', 'x.wtrace', '--positions', 'fs,vs', '--', 'x'], /--positions: expected fs, cs, rgen, ahit, chit, miss, rint, call \(comma-separated\) or none, got "vs"/],
    [['capture', '-o', 'x.wtrace', '--workload', 'aqt', '--', 'x'], /Unknown option '--workload'/],
    [['capture', '-o', 'x.wtrace', 'stray', '--', 'x'], /unexpected argument stray/],
  ];
  for (const [args, message] of cases) {
    const r = run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message);
  }
  // After --, --help belongs to the app: no help text, the usage error above is ours.
  const help = run(['capture', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /usage: warptrace capture -o OUT\.wtrace \[options\] -- APP ARGS/);
});

test('a program that cannot be started is exit 1', () => {
  const r = run(['capture', '-o', join(dir, 'none.wtrace'), '--', join(dir, 'no-such-program')]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /cannot start .*no-such-program: no such file or directory/);
});

test('layerEnvironment prepends to the user layers and drops inherited WARPTRACE_ selections', () => {
  const env = layerEnvironment(
    { VK_ADD_LAYER_PATH: '/opt/layers', VK_INSTANCE_LAYERS: 'VK_LAYER_KHRONOS_validation', WARPTRACE_FRAME: '9', WARPTRACE_DRAWS: 'x', WARPTRACE_SAMPLE: 'FS=4', WARPTRACE_FS_ID: 'primitive-id', WARPTRACE_TIME_ONLY: '1', WARPTRACE_PLAIN_NS: '5', HOME: '/h' },
    { manifestDir: '/build/layer', socketPath: '/tmp/s.sock', rawOutput: '/tmp/c.wtraw', selection: { frame: null, submits: { first: 1, last: 3 }, trigger: null, stages: null, draws: null, capacity: 1024 } },
  );
  assert.equal(env['VK_ADD_LAYER_PATH'], '/build/layer:/opt/layers');
  assert.equal(env['VK_INSTANCE_LAYERS'], 'VK_LAYER_WARPTRACE_capture:VK_LAYER_KHRONOS_validation');
  assert.equal(env['WARPTRACE_FRAME'], undefined);
  assert.equal(env['WARPTRACE_DRAWS'], undefined);
  assert.equal(env['WARPTRACE_SAMPLE'], undefined, 'an inherited sampling rate does not leak into the capture');
  assert.equal(env['WARPTRACE_FS_ID'], undefined, 'nor an inherited fragment custom id');
  assert.equal(env['WARPTRACE_TIME_ONLY'], undefined, 'an inherited time-only switch would leave the capture untraced');
  assert.equal(env['WARPTRACE_PLAIN_NS'], undefined);
  assert.equal(env['WARPTRACE_SUBMITS'], '1..3');
  assert.equal(env['WARPTRACE_CAPACITY'], '1024');
  assert.equal(env['WARPTRACE_SOCKET'], '/tmp/s.sock');
  assert.equal(env['HOME'], '/h');
});

test('Ctrl-C on the CLI is passed on to the app; the CLI then exits 130', async () => {
  const marker = join(dir, 'interrupted');
  const app = fakeApp('interruptible', 'setInterval(() => {}, 1000);', true, `process.on('SIGINT', () => { writeFileSync(${JSON.stringify(marker)}, 'int'); process.exit(5); });`);
  const env = { ...process.env, WARPTRACE_LAYER_DIR: layerDir, WARPTRACE_SPIRV_CACHE: join(dir, 'cache') };
  const child = spawn(process.execPath, [bin, 'capture', '-o', join(dir, 'int.wtrace'), '--', process.execPath, app], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const loaded = new Promise<void>((resolve) => {
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
      if (err.includes('layer loaded')) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await loaded;
  child.kill('SIGINT');
  assert.equal(await exited, 130, err);
  assert.equal(existsSync(marker), true, 'the app got SIGINT');
  assert.match(err, /interrupted \(SIGINT\); the app ended \(exit code 5\), nothing captured/);
});

test('buildLayer: a clear error without CMakeLists.txt; WARPTRACE_LAYER_DIR skips the build but is checked', async () => {
  const saved = process.env['WARPTRACE_LAYER_DIR'];
  try {
    delete process.env['WARPTRACE_LAYER_DIR'];
    const empty = mkdtempSync(join(dir, 'no-layer-'));
    await assert.rejects(buildLayer(empty), /the capture layer has no build yet: .*CMakeLists\.txt is missing/);
    process.env['WARPTRACE_LAYER_DIR'] = layerDir;
    assert.equal(await buildLayer(empty), layerDir);
    process.env['WARPTRACE_LAYER_DIR'] = empty;
    await assert.rejects(buildLayer(empty), /WARPTRACE_LAYER_DIR=.* holds no VkLayer_warptrace\.json/);
  } finally {
    if (saved === undefined) delete process.env['WARPTRACE_LAYER_DIR'];
    else process.env['WARPTRACE_LAYER_DIR'] = saved;
  }
});

// --capacity auto: a capture that dropped records is taken again, once, with the buffer its frame needed. The fake
// app's dumps: the sample as captured (nothing dropped), and two copies whose header says records were dropped.
const retryDir = mkdtempSync(join(dir, 'retry-'));
/** The sample's header words rewritten: `kept` of its records (the rest cut off) out of a counter of `counter`. */
function droppedRaw(name: string, kept: number, counter: number): string {
  const bytes = new Uint8Array(readFileSync(sampleRaw));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const recordCount = view.getUint32(5 * 4, true);
  assert.ok(kept <= recordCount && counter > kept);
  view.setUint32(5 * 4, kept, true);
  view.setUint32(6 * 4, counter, true);
  view.setUint32(7 * 4, kept, true);
  const path = join(retryDir, `${name}.wtraw`);
  writeFileSync(path, bytes.subarray(0, bytes.length - (recordCount - kept) * 32));
  return path;
}
const sampleRecords = wtrawToWtrace(new Uint8Array(readFileSync(sampleRaw))).header.capture.recordsKept;
/** 20,000 of 40,000 records kept (a buffer of 20,000). */
const halfRaw = droppedRaw('half', 20_000, 40_000);
/** All the sample's records kept, 40,000 written: fewer dropped than halfRaw, still some. */
const fewerRaw = droppedRaw('fewer', sampleRecords, 40_000);
/** 40,000 records plus 1/8, in whole MiB (32,768 records). */
const RETRY_CAPACITY = 65_536;

/**
 * A fake app whose Nth traced run writes the Nth dump of `dumps` ('exit': exits with code 3 before capturing), logging
 * each run's WARPTRACE_ variables to `log`. After the capture it exits at once, or: 'linger' 5 s (past the CLI's 2 s
 * grace period), 'forever' (until --exit-after ends it).
 */
const retryApp = fakeApp(
  'retry-app',
  `${layerClient}
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
const [log, after, ...dumps] = process.argv.slice(2);
const runs = existsSync(log) ? readFileSync(log, 'utf8').split('\\n').filter((l) => l.includes('"traced":true')).length : 0;
const mine = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WARPTRACE_')));
appendFileSync(log, JSON.stringify({ traced: mine.WARPTRACE_TIME_ONLY !== '1', env: mine }) + '\\n');
const client = await LayerClient.connect(process.env.WARPTRACE_SOCKET);
if (process.env.WARPTRACE_TIME_ONLY === '1') {
  await client.request('event', { event: 'timing', gpuNs: 2000 });
  process.exit(0);
}
await client.request('hello', { pid: process.pid, app: 'retry-app', device: { name: 'Fake GPU', traceable: true, why: '' }, set: 7 });
const dump = dumps[runs];
if (dump === 'exit' || dump === undefined) process.exit(3);
const out = process.env.WARPTRACE_OUTPUT;
copyFileSync(dump, out + '.tmp');
renameSync(out + '.tmp', out);
await client.request('event', { event: 'capture-written', path: out, draws: 8, records: 10, counter: 10, capacity: 100 });
if (after === 'linger') setTimeout(() => process.exit(0), 5000);
else if (after === 'forever') setInterval(() => {}, 1000);
else process.exit(0);`,
  false,
);

interface RetryRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
  /** Each run's WARPTRACE_ variables, in order; `traced` false for --overhead-runs' time-only runs. */
  readonly runs: { traced: boolean; env: Record<string, string> }[];
  readonly output: string;
}

let retryRuns = 0;
function runRetry(options: readonly string[], after: 'exit' | 'linger' | 'forever', dumps: readonly string[]): RetryRun {
  const name = `retry-${++retryRuns}`;
  const log = join(retryDir, `${name}.log`);
  const output = join(retryDir, `${name}.wtrace`);
  const r = run(['capture', ...options, '-o', output, '--timeout', '30', '--', process.execPath, retryApp, log, after, ...dumps]);
  const runs = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { traced: boolean; env: Record<string, string> }) : [];
  return { ...r, runs, output };
}

const converted = (raw: string) => wtrawToWtrace(new Uint8Array(readFileSync(raw))).wtrace;

test('--capacity auto:N: a capture that dropped records is taken again once with what it needed plus 1/8; the new trace replaces it', () => {
  const raw = join(retryDir, 'kept.wtraw');
  // The fake dumps' buffer holds 20,000 records: the first run asks for that (a buffer smaller than asked is the device's most).
  const r = runRetry(['--capacity', 'auto:20000', '--submits', '1..1', '--overhead-runs', '1', '--raw', raw], 'exit', [halfRaw, sampleRaw]);
  assert.equal(r.code, 0, r.err);
  // One untraced run for the overhead (measured once), then the two traced runs, both given its result.
  assert.deepEqual(r.runs.map((x) => x.traced), [false, true, true], JSON.stringify(r.runs));
  assert.equal(r.runs[1]!.env['WARPTRACE_CAPACITY'], '20000');
  assert.equal(r.runs[2]!.env['WARPTRACE_CAPACITY'], String(RETRY_CAPACITY));
  for (const x of r.runs.slice(1)) assert.equal(x.env['WARPTRACE_PLAIN_NS'], '2000', 'the baseline, in both traced runs');
  assert.equal(r.err.split('untraced run(s) first').length - 1, 1, r.err);
  // Said once, before the second run.
  assert.match(
    r.err,
    /\nwarptrace: 20,000 of 40,000 records dropped \(the buffer holds 20,000\): capturing submits 1\.\.1 again with --capacity 65,536 \(2 MiB\); \S+retry-\d+\.wtrace keeps this capture unless the new one drops fewer\n(.|\n)*layer loaded in retry-app/,
  );
  assert.deepEqual(new Uint8Array(readFileSync(r.output)), converted(sampleRaw), 'the second trace');
  assert.deepEqual(readFileSync(raw), readFileSync(sampleRaw), '--raw holds the second dump');
  // One summary, the second capture's, with the first's drops.
  assert.equal(r.out.split('wrote ').length - 1, 1, r.out);
  assert.match(r.out, new RegExp(`${sampleRecords.toLocaleString('en-US')} records kept, 0 dropped\\n  captured again with --capacity 65,536: the first capture dropped 20,000 of 40,000 records \\(the buffer held 20,000\\)\\n`));
  assert.doesNotMatch(r.out, /the frame needs/);
});

test('--exit-after: the app ended after each capture; a second capture that still drops, but fewer, replaces the first', () => {
  const r = runRetry(['--capacity', 'auto:20000', '--exit-after'], 'forever', [halfRaw, fewerRaw]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.runs.length, 2);
  assert.deepEqual(new Uint8Array(readFileSync(r.output)), converted(fewerRaw));
  assert.match(r.err, /capturing frame 60 again with --capacity 65,536 \(2 MiB\)/);
  // The second dump's buffer holds less than the 65,536 asked: as where the device holds no more (a capacity note).
  const [dropped, holds] = [40_000 - sampleRecords, sampleRecords].map((n) => n.toLocaleString('en-US'));
  assert.match(
    r.out,
    new RegExp(`, ${dropped} dropped \\(the buffer holds ${holds}, the most this device can; the frame needs 40,000: trace less with --draws, --stages or --sample\\)\\n  captured again with --capacity 65,536: the first capture dropped 20,000 of 40,000 records \\(the buffer held 20,000\\)\\n`),
  );
});

test('a second capture that fails, or drops no fewer, leaves the first trace, saying why; exit 0', () => {
  const failed = runRetry(['--capacity', 'auto:20000'], 'exit', [halfRaw, 'exit']);
  assert.equal(failed.code, 0, failed.err);
  assert.equal(failed.runs.length, 2);
  assert.deepEqual(new Uint8Array(readFileSync(failed.output)), converted(halfRaw));
  assert.match(failed.out, /20,000 dropped \(the buffer holds 20,000; the frame needs --capacity 40,000 or more, 2 MiB\)\n  not replaced: capturing again with --capacity 65,536 failed: the app exited \(exit code 3\), before frame 60\n/);
  assert.doesNotMatch(failed.err, /warptrace capture:/, 'no error line: the command wrote its trace');

  const same = runRetry(['--capacity', 'auto:20000'], 'exit', [halfRaw, halfRaw]);
  assert.equal(same.code, 0, same.err);
  assert.equal(same.runs.length, 2);
  assert.deepEqual(new Uint8Array(readFileSync(same.output)), converted(halfRaw));
  assert.match(same.out, /\n  not replaced: captured again with --capacity 65,536, 20,000 records dropped, no fewer\n/);
});

test('no second capture: a fixed --capacity, a --trigger, an app that runs on, a buffer the device cut', () => {
  const fixed = runRetry(['--capacity', '20000'], 'exit', [halfRaw, sampleRaw]);
  assert.equal(fixed.code, 0, fixed.err);
  assert.equal(fixed.runs.length, 1);
  assert.equal(fixed.runs[0]!.env['WARPTRACE_CAPACITY'], '20000');
  assert.match(fixed.out, /20,000 dropped \(the buffer holds 20,000; the frame needs --capacity 40,000 or more, 2 MiB\)\n  calibration/);
  assert.doesNotMatch(fixed.err + fixed.out, /again/);

  const trigger = runRetry(['--capacity', 'auto:20000', '--trigger', join(retryDir, 'never')], 'exit', [halfRaw, sampleRaw]);
  assert.equal(trigger.code, 0, trigger.err);
  assert.equal(trigger.runs.length, 1);
  assert.match(trigger.out, /\n  not captured again: --trigger frames are not repeated \(--capacity 65,536 next time\)\n/);

  // Without --exit-after, still running past the grace period: the user may have closed it.
  const runsOn = runRetry(['--capacity', 'auto:20000'], 'linger', [halfRaw, sampleRaw]);
  assert.equal(runsOn.code, 0, runsOn.err);
  assert.equal(runsOn.runs.length, 1);
  assert.match(runsOn.out, /\n  not captured again: the app ran on after the capture \(with --exit-after the command ends it and captures again\)\n/);
  assert.deepEqual(new Uint8Array(readFileSync(runsOn.output)), converted(halfRaw));

  // auto:N starts at N; a buffer smaller than asked is the most the device holds: a larger request gets no more.
  const cut = runRetry(['--capacity', 'auto:30000'], 'exit', [halfRaw, sampleRaw]);
  assert.equal(cut.code, 0, cut.err);
  assert.equal(cut.runs.length, 1);
  assert.equal(cut.runs[0]!.env['WARPTRACE_CAPACITY'], '30000');
  assert.match(cut.out, /20,000 dropped \(the buffer holds 20,000, the most this device can; the frame needs 40,000: trace less with --draws, --stages or --sample\)\n/);
});

test('--capacity takes auto, auto:N or N up to the layer\'s 67108864', () => {
  for (const bad of ['0', 'auto:0', '67108865', 'auto:', 'big', 'auto:1e6', '-5', 'auto:67108865']) {
    const r = run(['capture', '-o', 'x.wtrace', `--capacity=${bad}`, '--', 'x']);
    assert.equal(r.code, 2, `${bad}: ${r.err}`);
    assert.match(r.err, /--capacity needs auto, auto:N or N, N a whole number from 1 to 67108864, got /);
  }
  const auto = runRetry(['--capacity', 'auto'], 'exit', [sampleRaw]);
  assert.equal(auto.code, 0, auto.err);
  assert.equal(auto.runs.length, 1, 'nothing dropped: one run');
  assert.equal(auto.runs[0]!.env['WARPTRACE_CAPACITY'], undefined);
  assert.doesNotMatch(auto.out, /again/);
  // No --capacity is auto from the layer's default: the same second capture (real drops need a frame of 2 M records).
  assert.deepEqual(parseCapacity(undefined), { start: null, grow: true });
  assert.deepEqual(parseCapacity('auto'), { start: null, grow: true });
  assert.deepEqual(parseCapacity('auto:5'), { start: 5, grow: true });
  assert.deepEqual(parseCapacity('2097152'), { start: 2_097_152, grow: false });
  // The counter plus 1/8 in whole MiB; at most what converts (the dump stays under 2 GiB).
  assert.equal(retryCapacity(9_328_181), 10_518_528);
  assert.equal(retryCapacity(40_000), 65_536);
  assert.equal(retryCapacity(65_536), 98_304);
  assert.equal(retryCapacity(2 ** 32 - 1), MAX_RETRY_CAPACITY);
  assert.ok(MAX_RETRY_CAPACITY * 32 + (8 << 20) <= 2 ** 31);
});
