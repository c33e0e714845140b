import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  Stage,
  TraceFormatError,
  decodeTrace,
  encodeWtrace,
  smIdPerWarp,
  synthesizeTrace,
  traceFromJson,
  traceToJson,
} from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

/** The JSON example in shared-schema/README.md, so the documentation cannot rot. */
function readmeExample(): string {
  const readme = readFileSync(repoPath('shared-schema/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## JSON import'));
  const match = /```json\n([\s\S]*?)```/.exec(section);
  assert.ok(match, 'README has a JSON example');
  return match[1]!;
}

test('the documented JSON example imports', () => {
  const trace = traceFromJson(readmeExample());
  assert.equal(trace.warps.count, 2);
  assert.equal(trace.device.name, 'My GPU');
  assert.deepEqual(Array.from(trace.warps.stage), [Stage.VS, Stage.FS]);
  assert.deepEqual(Array.from(smIdPerWarp(trace.warps)), [0, 1]);
  assert.equal(trace.warps.activeMask[1], 0xffff);
  assert.equal(trace.warps.startNs[1], 12.5);
  assert.equal(trace.capture.calibration.method, 'given');
  assert.equal(trace.capture.recordsWritten, 2);
});

test('JSON bytes are recognized by content and decode like the text', () => {
  const text = readmeExample();
  const trace = decodeTrace(new TextEncoder().encode(`\n  ${text}`));
  assert.equal(trace.warps.count, 2);
});

test('traceToJson → traceFromJson → .wtrace keeps every warp', () => {
  const trace = synthesizeTrace({ warps: 3000, seed: 21 });
  const again = traceFromJson(JSON.stringify(traceToJson(trace)));
  assert.deepEqual(Array.from(again.warps.startNs), Array.from(trace.warps.startNs));
  assert.deepEqual(Array.from(again.warps.durationNs), Array.from(trace.warps.durationNs));
  assert.deepEqual(Array.from(again.warps.customId), Array.from(trace.warps.customId));
  assert.equal(encodeWtrace(again).length, encodeWtrace(trace).length);
});

function rejects(mutate: (o: Record<string, any>) => void, field: RegExp): void {
  const o = JSON.parse(readmeExample()) as Record<string, any>;
  mutate(o);
  assert.throws(
    () => traceFromJson(o),
    (e: unknown) => e instanceof TraceFormatError && field.test(e.field),
    `expected a TraceFormatError naming ${field}`,
  );
}

test('bad JSON traces are rejected with the field named', () => {
  assert.throws(() => traceFromJson('{"format": '), (e: unknown) => e instanceof TraceFormatError && e.field === 'json');
  rejects((o) => (o.format = 'chrome'), /^format$/);
  rejects((o) => (o.version = 2), /^version$/);
  rejects((o) => o.warps.endNs.pop(), /^warps\.endNs$/);
  rejects((o) => (o.warps.stage[1] = 'PS'), /^warps\.stage\[1\]$/);
  rejects((o) => (o.warps.sm[0] = 4), /^warps\.sm\[0\]$/);
  rejects((o) => (o.warps.endNs[0] = 1), /^warps\.endNs\[0\]$/);
  rejects((o) => (o.warps.activeMask[0] = 0), /^warps\.activeMask\[0\]$/);
  rejects((o) => (o.warps.draw[0] = 1), /^warps\.draw\[0\]$/);
  rejects((o) => (o.warps.startNs[0] = 'soon'), /^warps\.startNs\[0\]$/);
  rejects((o) => (o.draws[0].gpuEndNs = -5), /^draws\[0\]/);
  rejects((o) => (o.device.subgroupSize = 65), /^device\.subgroupSize$/);
  rejects((o) => (o.capture.recordsWritten = 1), /^capture\.recordsKept$/);
});
