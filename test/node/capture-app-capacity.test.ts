// `warptrace capture -- APP --capacity`: a capture that dropped records taken again with the buffer its frame needed,
// when the second capture replaces the first, when there is none, and what --capacity takes (fake apps,
// capture-app-helpers.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wtrawToWtrace } from '../../shared-schema/index.js';
import { MAX_RETRY_CAPACITY, parseCapacity, retryCapacity } from '../../capture/capture-run/app-capacity.js';
import { dir, fakeApp, layerClient, run, sampleRaw } from './capture-app-helpers.js';

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
