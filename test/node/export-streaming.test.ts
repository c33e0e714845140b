// Outputs written in chunks: the same text as JSON.stringify, never one string
// for all of it (10 M warps of JSON are longer than V8's longest string).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeTrace } from '../../analysis/index.js';
import { diffSummaries } from '../../analysis/diff.js';
import { jsonChunks } from '../../analysis/export/json-chunks.js';
import { buildTrace, decodeTrace, smIdPerWarp, synthesizeTrace, traceToJson, type Trace } from '../../shared-schema/index.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { traceOf } from './analysis-fixtures.js';
import { repoPath } from './paths.js';

const sample = decodeTrace(readFileSync(repoPath('samples', 'h100-aqt.wtrace')));
const synthetic = synthesizeTrace({ warps: 20000, seed: 12 });

/** Unknown SMs and slots, 64-lane masks (activeMaskHi), a quoted label, non-ASCII text. */
function oddTrace(): Trace {
  const base = traceOf({
    draws: [{ label: 'say "hi"\n\u2028東京' }, { kind: 'dispatch' }],
    // Fractions, times near the latest a trace holds (2^48 − 1 ns; a float32 duration from 0 reaches 2^48 − 2^24), the largest custom id.
    warps: [
      { sm: 0, slot: 3, stage: 'VS', draw: 0, start: 10.25, end: 20.5, mask: 0xffffffff },
      { sm: 65535, stage: 'CS', draw: 1, start: 0, end: 2 ** 48 - 2 ** 24, custom: 4294967295 },
      { sm: 7, stage: 'FS', draw: 0, start: 1e-7, end: 123456789.123 },
      { sm: 7, stage: 'FS', draw: 0, start: 2 ** 48 - 2, end: 2 ** 48 - 1.0625 },
    ],
  });
  const w = base.warps;
  return buildTrace({
    device: { ...base.device, subgroupSize: 64 },
    capture: base.capture,
    draws: base.draws,
    warps: {
      startNs: w.startNs,
      endNs: w.startNs.map((s, i) => s + w.durationNs[i]!),
      sm: smIdPerWarp(w),
      warpSlot: w.warpSlot,
      stage: w.stage,
      draw: w.draw,
      customId: w.customId,
      activeMask: w.activeMask,
      activeMaskHi: Array.from({ length: w.count }, (_, i) => [0, 1, 0xffffffff, 12345][i % 4]!),
    },
  });
}

/** Joins the chunks, checking none is much longer than asked (no whole-output string on the way). */
function joined(chunks: Iterable<string>, chunkChars: number, longestItem: number): { text: string; count: number } {
  const parts: string[] = [];
  for (const chunk of chunks) {
    assert.ok(chunk.length <= chunkChars + longestItem, `a chunk of ${chunk.length} characters (asked for ${chunkChars})`);
    parts.push(chunk);
  }
  return { text: parts.join(''), count: parts.length };
}

/** UTF-8 chunks as text, with the same length check. */
function decoded(chunks: Iterable<Uint8Array>, chunkBytes: number, longestItem: number): { text: string; count: number } {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const texts = Array.from(chunks, (chunk) => {
    assert.ok(chunk.length <= chunkBytes + longestItem, `a chunk of ${chunk.length} bytes (asked for ${chunkBytes})`);
    return decoder.decode(chunk, { stream: true });
  });
  return { text: texts.join('') + decoder.decode(), count: texts.length };
}

test('trace JSON in chunks is JSON.stringify(traceToJson(trace)), character for character', () => {
  for (const trace of [sample, synthetic, oddTrace()]) {
    const expected = JSON.stringify(traceToJson(trace));
    assert.equal(decoded(traceJsonChunks(trace), 1 << 20, 100).text, expected);
    // The first chunk holds device and capture whole (a calibration per SM): as long as they are.
    const small = decoded(traceJsonChunks(trace, 4096), 4096, new TextEncoder().encode(JSON.stringify([trace.device, trace.capture, trace.draws])).length + 200);
    assert.equal(small.text, expected);
    assert.ok(small.count > expected.length / 8192, `${small.count} chunks of ${expected.length} characters`);
  }
  assert.ok(sample.warps.smCycleStart !== null, 'the sample has SM cycle columns, so they are covered');
});

test('summary and diff JSON in chunks are JSON.stringify(value, null, 2), and compact with indent 0', () => {
  const summary = analyzeTrace(sample);
  // 400 draws: more than one piece (pieces of up to 4,096 values, a draw or a stage, are written whole).
  const manyDraws = analyzeTrace(synthesizeTrace({ warps: 20000, seed: 13, warpsPerDraw: 50 }));
  const diff = diffSummaries(summary, analyzeTrace(synthetic));
  for (const value of [summary, manyDraws, diff]) {
    const pretty = joined(jsonChunks(value, 2, 2048), 2048, 100_000);
    assert.equal(pretty.text, JSON.stringify(value, null, 2));
    if (value === manyDraws) assert.ok(pretty.count > 100, `${pretty.count} chunks`);
    assert.equal(Array.from(jsonChunks(value, 0)).join(''), JSON.stringify(value));
  }
});

test('chunked JSON follows JSON.stringify on the odd values too', () => {
  const values: unknown[] = [
    { a: undefined, b: () => 1, c: [undefined, () => 1, Symbol('s'), NaN, -Infinity, -0], d: {}, e: [], f: [[], {}, [[]]] },
    { s: 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 東京 \u2028', n: 1e21, m: 5e-324, t: true, x: null },
    { when: new Date(0), nested: { toJSON: (key: string) => `key ${key}` } },
    [1, 'two', [3, [4, { five: 5 }]]],
    'just a string',
    42,
    null,
    // Over 4,096 values: written item by item rather than by JSON.stringify whole.
    Array.from({ length: 5000 }, (_, i) => [undefined, () => 1, Symbol('s'), NaN, -0, 'x\ny', { a: undefined }, [], {}, i][i % 10]),
    Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, [undefined, () => 1, i, { deep: [i] }][i % 4]])),
    { empty: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, undefined])), list: Array.from({ length: 5000 }, () => ({})) },
  ];
  for (const value of values) {
    for (const indent of [0, 2, 4]) assert.equal(Array.from(jsonChunks(value, indent, 1)).join(''), JSON.stringify(value, null, indent), JSON.stringify(value).slice(0, 100));
  }
  assert.equal(Array.from(jsonChunks(undefined)).join(''), '');
  const loop: Record<string, unknown> = {};
  loop['self'] = loop;
  assert.throws(() => Array.from(jsonChunks(loop)), /circular/);
});

test('chunked JSON has no recursion limit (JSON.stringify overflows the stack here)', () => {
  let deep: unknown = 0;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.throws(() => JSON.stringify(deep), RangeError);
  const text = Array.from(jsonChunks(deep, 0)).join('');
  assert.equal(text, `${'['.repeat(100_000)}0${']'.repeat(100_000)}`);
});
