// `warptrace capture -- APP`: the CLI end to end with fake apps (node
// scripts that speak the layer's side of the socket protocol), so no C++
// layer and no GPU are needed: WARPTRACE_LAYER_DIR points at a folder with
// a stand-in manifest, and the fake app does what the layer would
// (capture-app-helpers.ts). This file: a capture and the app's end (exits,
// crashes, notes, --timeout, Ctrl-C); capture-app-devices.test.ts devices the
// layer cannot trace, capture-app-capacity.test.ts --capacity and the second
// capture, capture-app-usage.test.ts usage errors, the environment, the layer build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeWtrace, wtrawToWtrace } from '../../shared-schema/index.js';
import { bin, dir, fakeApp, layerDir, run, sampleRaw } from './capture-app-helpers.js';

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
