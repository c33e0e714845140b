// The pipeline barriers and event waits the capture layer saw before a draw
// (draws[i].barriersBefore, capture/layer/src/barriers.cpp): they survive
// .wtraw, .wtrace and JSON, files without them keep their bytes, a malformed
// list is refused naming the field, and a sync's remedy names the barriers
// recorded between its two draws (those on the later draws), keeping the
// "look in the API trace" sentence when the trace has none, and saying the
// layer saw none there when it saw others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  TraceFormatError,
  decodeTrace,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  rawCaptureOf,
  synthesizeTrace,
  traceFromJson,
  traceToJson,
  wtrawToWtrace,
  type Trace,
} from '../../shared-schema/index.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { analyzeTrace } from '../../analysis/analyze.js';
import { traceOf } from './analysis-fixtures.js';

const COLOR_TO_FRAGMENT = 'vkCmdPipelineBarrier(COLOR_ATTACHMENT_OUTPUT → FRAGMENT_SHADER, 1 image)';
const WAIT = 'vkCmdWaitEvents2(COMPUTE_SHADER → FRAGMENT_SHADER|COMPUTE_SHADER, 1 event, 2 buffers)';

const truth = synthesizeTrace({ warps: 2000, seed: 11, warpsPerDraw: 500 });
const marked: Trace = {
  ...truth,
  draws: truth.draws.map((d) => (d.index === 1 ? { ...d, barriersBefore: [COLOR_TO_FRAGMENT] } : d.index === 3 ? { ...d, barriersBefore: [WAIT, '+3 more'] } : d)),
};

/** A .wtraw as the layer writes it for `trace`, its draws' metadata edited. */
function wtrawOf(trace: Trace, editDraws: (draws: object[]) => object[] = (d) => d): Uint8Array {
  const raw = rawCaptureOf(trace, H100_CLOCKS).raw;
  return encodeWtraw({ ...raw, metadata: { ...raw.metadata, draws: editDraws((raw.metadata as { draws: object[] }).draws) } });
}

const barriers = (t: Trace) => t.draws.map((d) => d.barriersBefore);

test('a draw\'s barriersBefore survives .wtraw, .wtrace and JSON; files without one keep their bytes', () => {
  const raw = wtrawOf(marked);
  const fromRaw = decodeWtraw(raw);
  assert.deepEqual(barriers(fromRaw), [null, [COLOR_TO_FRAGMENT], null, [WAIT, '+3 more'], ...Array(truth.draws.length - 4).fill(null)]);
  const streamed = Buffer.concat([...traceJsonChunks(fromRaw, 4096)]).toString('utf8');
  for (const read of [
    decodeWtrace(wtrawToWtrace(raw).wtrace),
    decodeTrace(encodeWtrace(fromRaw)),
    traceFromJson(JSON.parse(JSON.stringify(traceToJson(fromRaw)))),
    traceFromJson(JSON.parse(streamed)),
  ]) {
    assert.deepEqual(barriers(read), barriers(fromRaw));
  }
  // Without barriers, a file's bytes are those of a draw list that never had the key.
  const plain = encodeWtrace(truth);
  const older = encodeWtrace({ ...truth, draws: truth.draws.map(({ barriersBefore: _, ...d }) => d as Trace['draws'][number]) });
  assert.ok(Buffer.from(plain).equals(Buffer.from(older)));
  assert.doesNotMatch(new TextDecoder().decode(wtrawToWtrace(wtrawOf(truth)).wtrace), /barriersBefore/);
  assert.doesNotMatch(JSON.stringify(traceToJson(decodeWtraw(wtrawOf(truth)))), /barriersBefore/);
});

function expectError(decode: () => unknown, code: string, field: string): void {
  assert.throws(decode, (e: unknown) => {
    assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.field, field, e.message);
    return true;
  });
}

test('a barriersBefore that is no list of strings, or too long, is refused naming the field', () => {
  const edit = (index: number, change: object) => (draws: object[]) => draws.map((d, i) => (i === index ? { ...d, ...change } : d));
  expectError(() => decodeWtraw(wtrawOf(truth, edit(1, { barriersBefore: COLOR_TO_FRAGMENT }))), 'bad-type', 'metadata.draws[1].barriersBefore');
  expectError(() => decodeWtraw(wtrawOf(truth, edit(1, { barriersBefore: [COLOR_TO_FRAGMENT, 7] }))), 'bad-type', 'metadata.draws[1].barriersBefore[1]');
  expectError(() => decodeWtraw(wtrawOf(truth, edit(2, { barriersBefore: Array(65).fill('x') }))), 'too-large', 'metadata.draws[2].barriersBefore');
  expectError(() => decodeWtraw(wtrawOf(truth, edit(2, { barriersBefore: ['x'.repeat(1025)] }))), 'too-large', 'metadata.draws[2].barriersBefore[0]');
  const json = traceToJson(truth) as { draws: object[] };
  expectError(() => traceFromJson(JSON.parse(JSON.stringify({ ...json, draws: edit(0, { barriersBefore: { 0: 'x' } })(json.draws) }))), 'bad-type', 'draws[0].barriersBefore');
  // null reads as none, as an absent key.
  assert.equal(decodeWtraw(wtrawOf(truth, edit(1, { barriersBefore: null }))).draws[1]!.barriersBefore, null);
});

/** Draw 0 (warps 0..1 µs), draw 1 untraced, dispatch 2 (warps 5..6 µs): a 4 µs sync between 0 and 2; barriers as given, through .wtrace. */
function syncedTrace(barriersOf: (d: number) => readonly string[] | null): Trace {
  const base = traceOf({
    draws: 3,
    warps: [
      { sm: 0, stage: 'VS', draw: 0, start: 0, end: 1000 },
      { sm: 1, stage: 'CS', draw: 2, start: 5000, end: 6000 },
    ],
  });
  const calls = [
    { label: 'Shadow caster', call: 'vkCmdDrawIndexed' },
    { label: 'Blit', call: 'vkCmdDraw', untraced: 'pipeline 0x1: its layout has no free set' },
    { label: 'Light tiles', kind: 'dispatch' as const, call: 'vkCmdDispatch' },
  ];
  const trace: Trace = { ...base, draws: base.draws.map((d, i) => ({ ...d, ...calls[i], barriersBefore: barriersOf(i) })) };
  return decodeTrace(encodeWtrace(trace));
}

const syncRemedyOf = (trace: Trace): string => {
  const sync = analyzeTrace(trace).findings.find((f) => f.kind === 'sync');
  assert.ok(sync !== undefined, 'the 4 µs gap is a sync');
  return sync.remedy!;
};

test('a sync\'s remedy names the barriers the layer saw between its two draws, not those before the first', () => {
  const before = (d: number) => (d === 0 ? ['vkCmdPipelineBarrier(TOP_OF_PIPE → TRANSFER, 1 image)'] : d === 1 ? [COLOR_TO_FRAGMENT] : [WAIT]);
  const r = syncRemedyOf(syncedTrace(before));
  assert.match(r, /^Between draw 0 "Shadow caster" \(vkCmdDrawIndexed\) and dispatch 2 "Light tiles" \(vkCmdDispatch\)/);
  assert.ok(r.includes(`The layer saw ${COLOR_TO_FRAGMENT} before draw 1; ${WAIT} before draw 2:`), r);
  assert.match(r, /if draw 2 does not read what draw 0 writes, narrow their stage masks or drop them/);
  assert.doesNotMatch(r, /TOP_OF_PIPE/, 'the barrier before draw 0 is not between the two draws');
  assert.doesNotMatch(r, /records no barriers/);
});

test('one barrier reads in the singular; many are named up to the limit and counted past it', () => {
  const one = syncRemedyOf(syncedTrace((d) => (d === 2 ? [COLOR_TO_FRAGMENT] : null)));
  assert.ok(one.includes(`The layer saw ${COLOR_TO_FRAGMENT} before draw 2: if draw 2 does not read what draw 0 writes, narrow its stage masks or drop it;`), one);
  const six = Array.from({ length: 6 }, (_, k) => `vkCmdPipelineBarrier(COMPUTE_SHADER → COMPUTE_SHADER, ${k + 1} buffers)`);
  const many = syncRemedyOf(syncedTrace((d) => (d === 1 ? six.slice(0, 3) : d === 2 ? six.slice(3) : null)));
  assert.ok(many.includes(`${six.slice(0, 3).join(', ')} before draw 1; ${six[3]} before draw 2 and 2 more:`), many);
  assert.ok(!many.includes(six[4]!));
});

test('a trace without barriers keeps the sentence that says where to look', () => {
  const r = syncRemedyOf(syncedTrace(() => null));
  assert.match(r, /the capture records no barriers: look for one between these calls in the API trace/);
  assert.doesNotMatch(r, /The layer saw/);
});

test('in a trace whose layer saw barriers, a sync with none between its draws says so instead of sending the reader to look', () => {
  const r = syncRemedyOf(syncedTrace((d) => (d === 0 ? [COLOR_TO_FRAGMENT] : null)));
  assert.match(r, /The layer saw no pipeline barrier or event wait recorded there: the driver made the GPU drain\./);
  assert.doesNotMatch(r, /records no barriers|before draw 0/);
});
