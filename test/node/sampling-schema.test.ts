// capture.sampling (issue 25) travels through .wtrace, JSON and the raw
// converter and reads back the same; malformed values are refused naming the
// field; files without it read as null and write the bytes they did before;
// older `--sample-fs N` captures read as FS 1 in N.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  TraceFormatError,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  rawCaptureOf,
  synthesizeTrace,
  traceFromJson,
  traceToJson,
  STAGES,
  type StageName,
  type Trace,
  type WarpSampling,
} from '../../shared-schema/index.js';
import { describeRates, describeSampling } from '../../shared-schema/sampling.js';

const plain = synthesizeTrace({ warps: 600, seed: 4, warpsPerDraw: 200 });
const SAMPLING: WarpSampling = { every: { VS: 2, FS: 8 }, chosenBy: 'budget', budget: 1.1 };

function withSampling(t: Trace, sampling: unknown): Trace {
  return { ...t, capture: { ...t.capture, sampling: sampling as WarpSampling } };
}

function refusedNaming(field: string, run: () => unknown): void {
  assert.throws(run, (e: unknown) => e instanceof TraceFormatError && e.field === field, `expected a TraceFormatError naming ${field}`);
}

test('a trace without sampling reads as null and writes the bytes it did before the field existed', () => {
  assert.equal(plain.capture.sampling, null);
  const bytes = encodeWtrace(plain);
  assert.equal(decodeWtrace(bytes).capture.sampling, null);
  assert.ok(!JSON.stringify(traceToJson(plain)).includes('sampling'));
  assert.ok(!Buffer.from(bytes).includes(Buffer.from('sampling')));
});

test('capture.sampling round-trips through .wtrace and JSON', () => {
  const sampled = withSampling(plain, SAMPLING);
  assert.deepEqual(decodeWtrace(encodeWtrace(sampled)).capture.sampling, SAMPLING);
  assert.deepEqual(traceFromJson(JSON.stringify(traceToJson(sampled))).capture.sampling, SAMPLING);
  assert.equal(describeSampling(SAMPLING), 'VS 1 in 2, FS 1 in 8, other stages all (chosen by --budget 1.10)');
});

test('a sampling whose every rate is 1 is written as null', () => {
  const all = withSampling(plain, { every: { FS: 1, VS: 1 }, chosenBy: 'flag', budget: null });
  assert.equal(decodeWtrace(encodeWtrace(all)).capture.sampling, null);
});

test('malformed sampling is refused naming the field', () => {
  const json = (sampling: unknown) => () => traceFromJson(JSON.stringify({ ...(traceToJson(plain) as Record<string, unknown>), capture: { ...(traceToJson(plain) as { capture: object }).capture, sampling } }));
  refusedNaming('capture.sampling.every.FS', json({ every: { FS: 3 }, chosenBy: 'flag', budget: null }));
  refusedNaming('capture.sampling.every.FS', json({ every: { FS: 65536 }, chosenBy: 'flag', budget: null }));
  refusedNaming('capture.sampling.every.FS', json({ every: { FS: '8' }, chosenBy: 'flag', budget: null }));
  refusedNaming('capture.sampling.every.PIXEL', json({ every: { PIXEL: 8 }, chosenBy: 'flag', budget: null }));
  refusedNaming('capture.sampling.every', json({ every: [8], chosenBy: 'flag', budget: null }));
  refusedNaming('capture.sampling.chosenBy', json({ every: { FS: 8 }, chosenBy: 'guess', budget: null }));
  refusedNaming('capture.sampling.budget', json({ every: { FS: 8 }, chosenBy: 'budget', budget: 0.9 }));
  refusedNaming('capture.sampling.budget', json({ every: { FS: 8 }, chosenBy: 'budget', budget: null }));
  refusedNaming('capture.sampling.budget', json({ every: { FS: 8 }, chosenBy: 'flag', budget: 1.5 }));
  refusedNaming('capture.sampling', json(8));
  refusedNaming('capture.sampling.every.FS', () => encodeWtrace(withSampling(plain, { every: { FS: 6 }, chosenBy: 'flag', budget: null })));
});

test('the raw converter carries metadata.sampling into capture.sampling, and refuses a bad one naming metadata.sampling', () => {
  const { raw } = rawCaptureOf(plain, H100_CLOCKS);
  const meta = raw.metadata as Record<string, unknown>;
  const sampled = encodeWtraw({ ...raw, metadata: { ...meta, sampling: { every: { FS: 16 }, chosenBy: 'flag', budget: null } } });
  assert.deepEqual(decodeWtraw(sampled).capture.sampling, { every: { FS: 16 }, chosenBy: 'flag', budget: null });
  const bad = encodeWtraw({ ...raw, metadata: { ...meta, sampling: { every: { FS: 16 }, chosenBy: 'flag', budget: 'x' } } });
  refusedNaming('metadata.sampling.budget', () => decodeWtraw(bad));
  assert.equal(decodeWtraw(encodeWtraw(raw)).capture.sampling, null);
});

test('an older --sample-fs N capture (parameters.sampleFs, no sampling) reads as FS 1 in N chosen by the flag, any integer N', () => {
  const { raw } = rawCaptureOf(plain, H100_CLOCKS);
  const meta = raw.metadata as Record<string, unknown>;
  const legacy = decodeWtraw(encodeWtraw({ ...raw, metadata: { ...meta, parameters: { sampleFs: 3 } } }));
  assert.deepEqual(legacy.capture.sampling, { every: { FS: 3 }, chosenBy: 'flag', budget: null });
  const trace = { ...plain, capture: { ...plain.capture, parameters: { sampleFs: 4 } } };
  assert.deepEqual(traceFromJson(JSON.stringify(traceToJson(trace))).capture.sampling, { every: { FS: 4 }, chosenBy: 'flag', budget: null });
  const one = { ...plain, capture: { ...plain.capture, parameters: { sampleFs: 1 } } };
  assert.equal(traceFromJson(JSON.stringify(traceToJson(one))).capture.sampling, null);
});

test('the rates in words: stages at one rate share it, "every stage" when none is left out, and no "other stages all" then', () => {
  assert.equal(describeRates({ TES: 4, FS: 64 }), 'TES 1 in 4, FS 1 in 64');
  assert.equal(describeRates({ VS: 8, TCS: 8, TES: 8, FS: 8, CS: 64 }), 'VS, TCS, TES, FS 1 in 8; CS 1 in 64');
  // `--sample 8` through the layer rates all fourteen stages (RGen↻ has none of its own).
  const all: Partial<Record<StageName, number>> = {};
  for (const s of STAGES) if (s.name !== 'RAYGEN_REORDERED') all[s.name] = 8;
  assert.equal(describeRates(all), 'every stage 1 in 8');
  assert.equal(describeSampling({ every: all, chosenBy: 'flag', budget: null }), 'every stage 1 in 8 (chosen by --sample)');
  assert.equal(describeRates({ ...all, FS: 64 }), 'VS, TCS, TES, GS, CS, Task, Mesh, RGen, AHit, CHit, Miss, Isect, Call 1 in 8; FS 1 in 64');
  // A file's rate for RGen↻ alone changes nothing (its warps decide at RGen's rate): read as no sampling.
  const reordered = withSampling(plain, { every: { RAYGEN_REORDERED: 8 }, chosenBy: 'flag', budget: null });
  assert.equal(traceFromJson(JSON.stringify(traceToJson(reordered))).capture.sampling, null);
});
