// Draws the capture layer traced without the block profile a --blocks capture
// asked for (shader objects, pipelines made with descriptor buffers,
// ray-tracing pipelines linking libraries): their warps are in the trace, and
// each says why it has no block counts (draws[i].unprofiled). The reason
// survives .wtraw, .wtrace and JSON, files without it keep their bytes, a bad
// one is refused naming the field, and `warptrace info`, `warptrace blocks`
// and the shader panel's model say it instead of showing nothing.
// The reasons are the layer's own (capture/layer/src/twin_stages.hpp), read from its source.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  type LayerInfo,
  type RawCapture,
  type Trace,
} from '../../shared-schema/index.js';
import { blockSectionOf, markedModule } from '../../shared-schema/synthetic-blocks.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { blockAbsence, skippedProfilesNote } from '../../viewer/model/block-view.js';
import { analyzeTrace, withTraceSections } from '../../analysis/index.js';
import { parseSummary } from '../../analysis/summary-json.js';
import { repoPath } from './paths.js';

const bin = repoPath('bin/warptrace.js');
const dir = mkdtempSync(join(tmpdir(), 'warptrace-unprofiled-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The layer's reasons by constant name: each `inline constexpr const char *kNoBlocks… = "…" "…";` of its header, literals joined. */
function layerReasons(): Record<string, string> {
  const header = readFileSync(repoPath('capture', 'layer', 'src', 'twin_stages.hpp'), 'utf8');
  const out: Record<string, string> = {};
  for (const m of header.matchAll(/inline constexpr const char \*(kNoBlocks\w+) =\s*((?:"(?:[^"\\]|\\.)*"\s*)+);/g)) {
    out[m[1]!] = [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((s) => JSON.parse(`"${s[1]!}"`) as string).join('');
  }
  return out;
}

const REASONS = layerReasons();
const reason = (name: string): string => {
  const text = REASONS[name];
  assert.ok(text !== undefined, `twin_stages.hpp declares ${name}: ${Object.keys(REASONS).join(', ')}`);
  return text;
};
/** As the layer writes draws[i].unprofiled: the program's name, then the reason. */
const SHADERS_WHY = `shaders VS 0x5581c2d0 + FS 0x5581c3e0: ${reason('kNoBlocksShaderObjects')}`;
const BUFFERS_WHY = `pipeline GBuffer PSO: ${reason('kNoBlocksDescriptorBuffers')}`;

const truth = synthesizeTrace({ warps: 2000, seed: 5, warpsPerDraw: 500 });
const LAYER: LayerInfo = {
  version: '0.1.0',
  set: 7,
  frame: 10,
  submits: null,
  skipped: [],
  notes: [
    { what: 'blocks', why: `${reason('kNoBlocksShaderObjects')}: 1 traced draw of the capture without one` },
    { what: 'blocks', why: `${reason('kNoBlocksDescriptorBuffers')}: 1 traced draw of the capture without one` },
  ],
};
/** Draws 1 (shader objects) and 3 (descriptor buffers) traced without a profile; draws 0 and 2 profiled. */
const marked: Trace = {
  ...truth,
  capture: { ...truth.capture, layer: LAYER },
  draws: truth.draws.map((d) => (d.index === 1 ? { ...d, unprofiled: SHADERS_WHY } : d.index === 3 ? { ...d, unprofiled: BUFFERS_WHY } : d)),
};

const SECTION = blockSectionOf({
  subgroupSize: 32,
  modules: [{ name: 'shade.frag', spirv: markedModule(2, 'warp', 'sm') }],
  rows: [
    { draw: 0, cell: 0, modules: [{ module: 0, offset: 0 }] },
    { draw: 2, cell: 2, modules: [{ module: 0, offset: 0 }] },
  ],
  cells: [
    { executions: 10, lanes: 320, ticks: 1000 },
    { executions: 4, lanes: 90, ticks: 300 },
    { executions: 8, lanes: 200, ticks: 500 },
    { executions: 0, lanes: 0, ticks: 0 },
  ],
});

/** A .wtraw as the layer writes it for `trace`: its draws' metadata, then the block section. */
function wtrawOf(trace: Trace, editDraws: (draws: object[]) => object[] = (d) => d): Uint8Array {
  const raw = rawCaptureOf(trace, H100_CLOCKS).raw;
  const draws = editDraws((raw.metadata as { draws: object[] }).draws);
  const withBlocks: RawCapture = { ...raw, metadata: { ...raw.metadata, draws, blocks: SECTION.blocks }, blockSection: SECTION.section };
  return encodeWtraw(withBlocks);
}

const reasons = (t: Trace) => t.draws.map((d) => d.unprofiled);

test('a draw\'s unprofiled reason survives .wtraw, .wtrace and JSON; files without one keep their bytes', () => {
  const raw = wtrawOf(marked);
  const fromRaw = decodeWtraw(raw);
  assert.deepEqual(reasons(fromRaw), [null, SHADERS_WHY, null, BUFFERS_WHY]);
  assert.deepEqual(
    fromRaw.blocks!.rows.map((r) => r.draw),
    [0, 2],
    'the profiled draws keep their rows',
  );
  assert.deepEqual(fromRaw.capture.layer?.notes, LAYER.notes);
  // The CLI's conversion, the .wtrace reader, JSON and the streamed JSON.
  const wtrace = wtrawToWtrace(raw).wtrace;
  const streamed = Buffer.concat([...traceJsonChunks(fromRaw, 4096)]).toString('utf8');
  for (const read of [decodeWtrace(wtrace), decodeTrace(encodeWtrace(fromRaw)), traceFromJson(JSON.parse(JSON.stringify(traceToJson(fromRaw)))), traceFromJson(JSON.parse(streamed))]) {
    assert.deepEqual(reasons(read), reasons(fromRaw));
  }
  // Without a reason, the bytes of a file are those of a draw list that never had the key.
  const plain = encodeWtrace(truth);
  const older = encodeWtrace({ ...truth, draws: truth.draws.map(({ unprofiled: _, ...d }) => d as Trace['draws'][number]) });
  assert.ok(Buffer.from(plain).equals(Buffer.from(older)));
  // (The block profile's own count, `unprofiledDraws`, is another key.)
  assert.doesNotMatch(new TextDecoder().decode(wtrawToWtrace(wtrawOf(truth)).wtrace), /unprofiled(?!Draws)/);
  assert.doesNotMatch(JSON.stringify(traceToJson(decodeWtraw(wtrawOf(truth)))), /unprofiled(?!Draws)/);
  assert.deepEqual(reasons(decodeWtraw(wtrawOf(truth))), [null, null, null, null]);
});

function expectError(decode: () => unknown, code: string, field: string): void {
  assert.throws(decode, (e: unknown) => {
    assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.field, field, e.message);
    return true;
  });
}

test('a capture whose every traced draw went without a profile (a shader-object app) converts: an empty profile, each draw saying why', () => {
  // As the host library writes it: the profile's key with no module, row or cell, and no section.
  const allShaders: Trace = { ...marked, draws: truth.draws.map((d) => ({ ...d, unprofiled: SHADERS_WHY })) };
  const raw = rawCaptureOf(allShaders, H100_CLOCKS).raw;
  const empty = blockSectionOf({ subgroupSize: 32, modules: [], rows: [], cells: [] });
  assert.equal(empty.section.length, 0);
  const bytes = encodeWtraw({ ...raw, metadata: { ...raw.metadata, blocks: empty.blocks } });
  const trace = decodeWtraw(bytes);
  assert.deepEqual([trace.blocks?.rows, trace.blocks?.modules], [[], []]);
  assert.deepEqual(reasons(trace), truth.draws.map(() => SHADERS_WHY));
  for (const read of [decodeWtrace(wtrawToWtrace(bytes).wtrace), traceFromJson(JSON.parse(JSON.stringify(traceToJson(trace))))]) {
    assert.deepEqual(read.blocks?.rows, []);
    assert.deepEqual(reasons(read), reasons(trace));
  }
  assert.equal(blockAbsence(trace, { kind: 'all' }, 0), `No draw of this trace got a block profile row. 4 traced draws (#0, #1, #2 and #3) got no block profile: the capture layer skipped them; select one to see why.`);
  // A key describing modules or cells still needs its section.
  const one = blockSectionOf({ subgroupSize: 32, modules: [], rows: [], cells: [{ executions: 0, lanes: 0, ticks: 0 }] });
  expectError(() => decodeWtraw(encodeWtraw({ ...raw, metadata: { ...raw.metadata, blocks: one.blocks } })), 'bad-value', 'header.blockBytes');
});

test('a reason that is no string, or one on a draw that ran untraced, is refused naming the field', () => {
  const edit = (index: number, change: object) => (draws: object[]) => draws.map((d, i) => (i === index ? { ...d, ...change } : d));
  expectError(() => decodeWtraw(wtrawOf(truth, edit(1, { unprofiled: 7 }))), 'bad-type', 'metadata.draws[1].unprofiled');
  expectError(() => decodeWtraw(wtrawOf(truth, edit(2, { unprofiled: SHADERS_WHY, untraced: 'pipeline 0x5: skipped' }))), 'bad-value', 'metadata.draws[2].unprofiled');
  const json = traceToJson(truth) as { draws: object[] };
  expectError(() => traceFromJson(JSON.parse(JSON.stringify({ ...json, draws: edit(0, { unprofiled: ['x'] })(json.draws) }))), 'bad-type', 'draws[0].unprofiled');
  // null reads as no reason, as an absent key.
  assert.equal(decodeWtraw(wtrawOf(truth, edit(1, { unprofiled: null }))).draws[1]!.unprofiled, null);
});

function cli(...args: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('warptrace info and warptrace blocks list the draws traced without a profile, with why', () => {
  const path = join(dir, 'unprofiled.wtrace');
  writeFileSync(path, wtrawToWtrace(wtrawOf(marked)).wtrace);
  const info = cli('info', path);
  assert.match(info, /^unprofiled +2 of 4 draws traced without a block profile \(warps kept, no block counts\)$/m);
  assert.ok(info.includes(`#1 ${truth.draws[1]!.label}: ${SHADERS_WHY}`), info);
  assert.ok(info.includes(`#3 ${truth.draws[3]!.label}: ${BUFFERS_WHY}`), info);
  // The layer's notes say the same per reason, counted.
  assert.ok(info.includes(`Note: blocks (${LAYER.notes[0]!.why})`), info);
  const summary = JSON.parse(cli('info', path, '--json')) as { summary: { draws: { unprofiled?: string }[] } };
  assert.deepEqual(
    summary.summary.draws.map((d) => d.unprofiled ?? null),
    reasons(marked),
  );
  const blocks = cli('blocks', path);
  assert.match(blocks, /traced without a block profile \(the capture layer skipped it\): 2 draws/);
  assert.ok(blocks.includes(`#1 ${truth.draws[1]!.label}: ${SHADERS_WHY}`), blocks);
  // Asked for one draw: only its reason.
  const one = cli('blocks', path, '--draw', '3');
  assert.ok(one.includes(BUFFERS_WHY) && !one.includes(SHADERS_WHY), one);
  // The stats report's block section lists them; a report on one draw, its own only.
  const stats = cli('stats', path);
  const section = stats.slice(stats.indexOf('## Block profile'));
  assert.match(section, /^2 traced draws got no block profile: the capture layer skipped them\.$/m);
  assert.ok(section.includes(`- Draw 1 "${truth.draws[1]!.label}": ${SHADERS_WHY.replace(/_/g, '\\_')}`), section.slice(0, 800));
  const drawReport = cli('stats', path, '--draw', '3');
  assert.match(drawReport, /^1 traced draw got no block profile: the capture layer skipped it\.$/m);
  assert.ok(!drawReport.includes('0x5581c2d0'), 'not the other draw\'s reason');
  const json = JSON.parse(cli('stats', path, '--format', 'json')) as { blocks: { skipped?: unknown } };
  assert.deepEqual(json.blocks.skipped, [
    { draw: 1, why: SHADERS_WHY },
    { draw: 3, why: BUFFERS_WHY },
  ]);
  // A file without reasons prints none of it, and its summary has no `skipped` key.
  const plainPath = join(dir, 'plain.wtrace');
  writeFileSync(plainPath, wtrawToWtrace(wtrawOf(truth)).wtrace);
  assert.doesNotMatch(cli('info', plainPath), /traced without a block profile|^unprofiled/m);
  assert.ok(!cli('blocks', plainPath).includes('traced without a block profile'));
  assert.ok(!cli('stats', plainPath).includes('got no block profile'));
  assert.equal('skipped' in (JSON.parse(cli('stats', plainPath, '--format', 'json')) as { blocks: object }).blocks, false);
});

test('a stored summary\'s skipped list is read back, and a malformed one refused naming its path', () => {
  const summary = withTraceSections(analyzeTrace(decodeWtraw(wtrawOf(marked))), decodeWtraw(wtrawOf(marked)));
  const stored = JSON.parse(JSON.stringify(summary)) as { blocks: { skipped: { draw: unknown; why: unknown }[] } };
  assert.deepEqual(parseSummary(stored).blocks?.skipped, summary.blocks?.skipped);
  stored.blocks.skipped[1]!.why = 3;
  assert.throws(() => parseSummary(stored), /blocks\.skipped\[1\]\.why/);
});

test('a capture that asked for profiles and got none says the layer\'s reason', () => {
  const refusal = 'no block profiles: they count in 64-bit atomics, and the device lacks shaderBufferInt64Atomics';
  const refused: Trace = { ...truth, capture: { ...truth.capture, layer: { ...LAYER, notes: [{ what: 'blocks', why: refusal }] } } };
  const path = join(dir, 'refused.wtrace');
  writeFileSync(path, encodeWtrace(refused));
  const r = spawnSync(process.execPath, [bin, 'blocks', path], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.ok(r.stderr.includes(`no block profile (${refusal})`), r.stderr);
  assert.equal(blockAbsence(refused, { kind: 'all' }, 0), `This trace has no block profile: the capture layer made none (${refusal}).`);
  // Without the layer's word, the old advice.
  assert.match(blockAbsence(truth, { kind: 'all' }, 0) ?? '', /capture with warptrace instrument --blocks/);
});

test('the shader panel\'s model says why a selected draw has no profile, and counts such draws over all', () => {
  const trace = decodeWtraw(wtrawOf(marked));
  assert.equal(
    blockAbsence(trace, { kind: 'draw', draw: 1, via: 'draw' }, 0),
    `Draw 1 has no block profile: the capture layer traced its warps without one (${SHADERS_WHY}).`,
  );
  // A draw without a row and without a reason keeps the old sentence.
  const plain = decodeWtraw(wtrawOf(truth));
  assert.match(blockAbsence(plain, { kind: 'draw', draw: 1, via: 'draw' }, 0) ?? '', /^Draw 1 has no block profile: its shaders were not instrumented with --blocks/);
  assert.equal(skippedProfilesNote(plain), null);
  assert.equal(skippedProfilesNote(trace), '2 traced draws (#1 and #3) got no block profile: the capture layer skipped them; select one to see why.');
  // No draw profiled at all: the all-draws view names them too.
  const none = { ...trace, blocks: { ...trace.blocks!, rows: [] } };
  assert.equal(blockAbsence(none, { kind: 'all' }, 0), `No draw of this trace got a block profile row. ${skippedProfilesNote(trace)}`);
});
