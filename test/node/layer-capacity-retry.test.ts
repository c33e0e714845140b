// `warptrace capture --capacity auto:N -- APP` on lavapipe (CI), with our harness as an ordinary app: a buffer too
// small for the captured submit drops records, and the CLI captures it again, once, with the buffer the first run's
// counter asked for plus 1/8; the trace it writes has nothing dropped and the same draws. A fixed --capacity N
// captures once and keeps what it dropped. (The default, auto from 2,097,152 records, is the same code: a frame
// that fills 64 MiB would take minutes on lavapipe.)
// Set WARPTRACE_SKIP_GPU_TESTS=1 to skip on a machine without Vulkan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWtrace, decodeWtraw, type Trace } from '../../shared-schema/index.js';
import { prepareHarnessApp, warptraceWithLayer, type HarnessApp, type Run } from './harness-app.js';

const skip = process.env['WARPTRACE_SKIP_GPU_TESTS'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'warptrace-capacity-retry-'));
/** Hard limit on one `warptrace capture` (two runs of the app): a hang fails the test. Generous: CI's 2 cores are busy. */
const RUN_LIMIT_MS = 300_000;
/** `--app` submits: 0 sets up the attachments, 1 + i is frame i (capture/workloads/src/app.cpp). The second frame. */
const SUBMIT = 2;
/** Fewer records than the submit writes (7,568 on lavapipe at 320x180), so the first run drops about half of them. */
const START = 4096;

let harness: HarnessApp | null = null;
before(async () => {
  if (skip) return;
  harness = await prepareHarnessApp();
});
after(() => rmSync(dir, { recursive: true, force: true }));

function capture(name: string, capacity: string, extra: readonly string[] = []): Promise<Run & { args: readonly string[] }> {
  assert.ok(harness !== null);
  const app = [harness.binary, '--app', '--workload', 'syncs', '--plain-shaders', harness.plain, '--frames', '3', '--param', 'width=320', '--param', 'height=180'];
  const args = ['capture', ...extra, '--capacity', capacity, '--submits', `${SUBMIT}..${SUBMIT}`, '--overhead-runs', '0', '-o', join(dir, `${name}.wtrace`), '--raw', join(dir, `${name}.wtraw`), '--timeout', '200', '--', ...app];
  return warptraceWithLayer(args, { dir, layerDir: harness.layerDir, limitMs: RUN_LIMIT_MS }).then((r) => ({ ...r, args }));
}

const describe = (r: Run & { args: readonly string[] }) => `warptrace ${r.args.join(' ')}: exit ${r.code}\n--- stdout\n${r.out}\n--- stderr\n${r.err.slice(-6000)}`;
const draws = (trace: Trace) => trace.draws.map((d) => `${d.kind} ${d.call ?? ''} ${JSON.stringify(d.params ?? null)}`);
const number = (text: string | undefined) => Number((text ?? '').replace(/,/g, ''));

test('a capture that drops records is taken again with what its counter needed; the trace written drops nothing, with the same draws; a fixed --capacity does not retry', { skip }, async () => {
  const fixed = await capture('fixed', String(START));
  assert.equal(fixed.code, 0, describe(fixed));
  assert.doesNotMatch(fixed.err + fixed.out, /again/, describe(fixed));
  assert.equal(fixed.err.match(/layer loaded in/g)?.length, 1, `one run: ${describe(fixed)}`);
  const small = decodeWtrace(new Uint8Array(readFileSync(join(dir, 'fixed.wtrace'))));
  const sc = small.capture;
  assert.equal(sc.bufferCapacity, START);
  assert.ok(sc.recordsWritten > START && sc.recordsKept === START, `records dropped: ${sc.recordsKept} of ${sc.recordsWritten}`);
  // The user's choice stands; the summary says what would have kept everything.
  assert.match(fixed.out, new RegExp(`the buffer holds 4,096; the frame needs --capacity ${sc.recordsWritten.toLocaleString('en-US')} or more`), describe(fixed));

  // --exit-after: on a busy machine the app may take more than the CLI's 2 s grace to exit by itself after the capture,
  // and an app that runs on is not run again (capture-app-capacity.test.ts covers one that exits by itself).
  const auto = await capture('auto', `auto:${START}`, ['--exit-after']);
  assert.equal(auto.code, 0, describe(auto));
  const said = /\nwarptrace: ([\d,]+) of ([\d,]+) records dropped \(the buffer holds 4,096\): capturing submits 2\.\.2 again with --capacity ([\d,]+) \(\d+ MiB\); \S+auto\.wtrace keeps this capture unless the new one drops fewer\n/.exec(auto.err);
  assert.ok(said !== null, `the second capture is announced: ${describe(auto)}`);
  const [dropped, needed, capacity] = [said[1], said[2], said[3]].map(number) as [number, number, number];
  assert.equal(dropped, needed - START);
  assert.ok(capacity >= needed * 1.125, `--capacity ${capacity} for a counter of ${needed}`);
  assert.equal(needed, sc.recordsWritten, 'the same submit writes the same records');
  // Announced before the second run: the app loads the layer again after it.
  assert.equal(auto.err.match(/layer loaded in/g)?.length, 2, describe(auto));
  assert.ok(auto.err.lastIndexOf('layer loaded in') > said.index, describe(auto));

  const trace = decodeWtrace(new Uint8Array(readFileSync(join(dir, 'auto.wtrace'))));
  const c = trace.capture;
  assert.equal(c.bufferCapacity, capacity, 'the second run\'s buffer');
  assert.equal(c.recordsKept, c.recordsWritten, 'nothing dropped');
  assert.equal(c.recordsWritten, needed, 'every record the first run\'s counter counted');
  assert.equal(trace.warps.count, c.recordsKept, 'one record per warp');
  assert.deepEqual(draws(trace), draws(small), 'the same draws as the capture that dropped records');
  assert.ok(trace.draws.length > 0);
  assert.deepEqual(c.layer?.skipped, [], 'nothing skipped');
  // --raw holds the dump of the trace written, the second.
  const raw = decodeWtraw(new Uint8Array(readFileSync(join(dir, 'auto.wtraw'))));
  assert.equal(raw.capture.bufferCapacity, capacity);
  assert.equal(raw.warps.count, trace.warps.count);
  // One summary: the trace written, and what the first capture dropped.
  assert.equal(auto.out.match(/^wrote /gm)?.length, 1, describe(auto));
  assert.match(auto.out, new RegExp(`records kept, 0 dropped\\n  captured again with --capacity ${capacity.toLocaleString('en-US')}: the first capture dropped ${dropped.toLocaleString('en-US')} of ${needed.toLocaleString('en-US')} records \\(the buffer held 4,096\\)\\n`), describe(auto));
});
