// The capture layer's additions to a trace (regions, each draw's call
// details, the layer's record) travel from a raw dump to .wtrace and JSON and
// read back unchanged; malformed ones are refused naming the field; files
// without them read as before and write the same bytes as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packr, unpack } from 'msgpackr';
import {
  H100_CLOCKS,
  TraceFormatError,
  buildTrace,
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
  type RawCapture,
  type Trace,
} from '../../shared-schema/index.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { ConvertPool } from '../../shared-schema/node/convert-pool.js';
import { LAYER_INFO, LAYER_REGIONS, checkInvariants, withPassHierarchy } from './fixtures.js';
import { repoPath } from './paths.js';

// Several draws (every fourth one without call details), on the synthetic H100-like GPU.
const plain = synthesizeTrace({ warps: 2400, seed: 9, warpsPerDraw: 300 });
const layered = withPassHierarchy(plain);
const raw: RawCapture = rawCaptureOf(layered, H100_CLOCKS).raw;
const rawMeta = raw.metadata as Record<string, unknown> & { draws: Record<string, unknown>[]; regions: Record<string, unknown>[]; layer: Record<string, unknown> };

/** The metadata a capture layer attaches, as one comparable value. */
function details(t: Trace) {
  return {
    regions: t.regions,
    layer: t.capture.layer,
    draws: t.draws.map(({ index, call, pipeline, region, params }) => ({ index, call, pipeline, region, params })),
  };
}

function jsonText(t: Trace): string {
  return Buffer.concat([...traceJsonChunks(t, 256)]).toString('utf-8');
}

test('the fixture carries regions, call details and a layer record (otherwise the tests below prove nothing)', () => {
  assert.equal(layered.regions.length, LAYER_REGIONS.length);
  assert.deepEqual(layered.regions[2], { index: 2, label: 'Colour Pass #1 (3 Targets)', parent: 1, source: 'render-pass' });
  assert.ok(layered.draws.length >= 4, `${layered.draws.length} draws`);
  assert.ok(layered.draws.some((d) => d.call !== null && d.region !== null && d.params !== null));
  assert.ok(layered.draws.some((d) => d.call === null && d.params === null));
  assert.deepEqual(layered.capture.layer, LAYER_INFO);
  assert.deepEqual(layered.draws[1]!.params, { indexCount: 6, instanceCount: 1, firstIndex: 0, vertexOffset: -1, firstInstance: 0 });
});

test('a raw dump with regions and call details converts to .wtrace and JSON that read back equal', async () => {
  const bytes = encodeWtraw(raw);
  const decoded = decodeWtraw(bytes);
  checkInvariants(decoded);
  assert.deepEqual(details(decoded), details(layered));
  const { wtrace, header } = wtrawToWtrace(bytes);
  assert.deepEqual(details({ ...header, warps: decoded.warps }), details(layered));
  assert.ok(Buffer.from(wtrace).equals(encodeWtrace(decoded)), 'the direct conversion writes encodeWtrace(decodeWtraw) bytes');
  const pool = await ConvertPool.create(2);
  try {
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
    shared.set(bytes);
    assert.ok(Buffer.from((await pool.wtrawToWtrace(shared)).wtrace).equals(wtrace), 'a thread pool writes the same bytes');
  } finally {
    await pool.destroy();
  }
  const fromFile = decodeWtrace(wtrace);
  assert.deepEqual(details(fromFile), details(layered));
  assert.deepEqual(fromFile.capture, decoded.capture);
  assert.deepEqual(fromFile.draws, decoded.draws);
  // Written again from what was read: the same bytes.
  assert.ok(Buffer.from(encodeWtrace(fromFile)).equals(wtrace));

  const text = jsonText(decoded);
  assert.equal(text, JSON.stringify(traceToJson(decoded)), 'streamed JSON is the JSON object');
  const fromJson = traceFromJson(text);
  assert.deepEqual(details(fromJson), details(layered));
  assert.deepEqual(fromJson.capture, decoded.capture);
  assert.deepEqual(fromJson.draws, decoded.draws);
  assert.equal(jsonText(fromJson), text);
  assert.deepEqual(details(decodeTrace(new TextEncoder().encode(text))), details(layered));
});

test('the metadata exactly as the layer writes it (nulls, a queue list, keys this reader does not know) is accepted', () => {
  const metadata = {
    ...rawMeta,
    regions: [
      { label: 'Frame', parent: null, source: 'debug-label' },
      { label: 'Colour Pass #1 (1 Target)', parent: 0, source: 'render-pass', depth: 1 },
    ],
    draws: rawMeta.draws.map((d, i) => ({
      label: d['label'],
      kind: d['kind'],
      call: i === 0 ? 'vkCmdDrawIndexedIndirect' : null,
      pipeline: null,
      region: i === 0 ? 1 : null,
      params: i === 0 ? { drawCount: 4, stride: 20 } : null,
    })),
    layer: { version: '0.2.0', set: 3, submits: '0..4', skipped: [], queues: [{ family: 0, traced: true }] },
  };
  const t = decodeWtraw(encodeWtraw({ ...raw, metadata }));
  assert.deepEqual(t.regions, [
    { index: 0, label: 'Frame', parent: null, source: 'debug-label' },
    { index: 1, label: 'Colour Pass #1 (1 Target)', parent: 0, source: 'render-pass' },
  ]);
  assert.deepEqual(details(t).draws[0], { index: 0, call: 'vkCmdDrawIndexedIndirect', pipeline: null, region: 1, params: { drawCount: 4 } });
  assert.deepEqual(details(t).draws[1], { index: 1, call: null, pipeline: null, region: null, params: null });
  assert.deepEqual(t.capture.layer, { version: '0.2.0', set: 3, frame: null, submits: '0..4', skipped: [], notes: [] });
});

function expectRefused(decode: () => unknown, code: string, field: string, message?: RegExp): void {
  assert.throws(decode, (e: unknown) => {
    assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
    assert.equal(e.field, field, e.message);
    assert.equal(e.code, code, e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}

/** The raw dump with its metadata changed by `change` (given a deep copy). */
function rawWith(change: (meta: typeof rawMeta) => void): Uint8Array {
  const meta = JSON.parse(JSON.stringify(rawMeta)) as typeof rawMeta;
  change(meta);
  return encodeWtraw({ ...raw, metadata: meta });
}

const malformed: readonly { name: string; change: (meta: typeof rawMeta) => void; code: string; field: string; message?: RegExp }[] = [
  { name: 'a parent later than its region', change: (m) => (m.regions[0]!['parent'] = 3), code: 'bad-value', field: 'regions[0].parent', message: /^metadata\.regions\[0\]\.parent: 3, but there is no region to refer to$/ },
  { name: 'a region its own parent', change: (m) => (m.regions[3]!['parent'] = 3), code: 'bad-value', field: 'regions[3].parent', message: /expected an index below 3, got 3$/ },
  { name: 'a parent cycle', change: (m) => ((m.regions[1]!['parent'] = 2), (m.regions[2]!['parent'] = 1)), code: 'bad-value', field: 'regions[1].parent', message: /expected an index below 1, got 2/ },
  { name: 'a negative parent', change: (m) => (m.regions[2]!['parent'] = -1), code: 'bad-value', field: 'regions[2].parent' },
  { name: 'a fractional parent', change: (m) => (m.regions[2]!['parent'] = 0.5), code: 'bad-type', field: 'regions[2].parent' },
  { name: 'an unknown region source', change: (m) => (m.regions[1]!['source'] = 'pass'), code: 'bad-value', field: 'regions[1].source' },
  { name: 'a region without a source', change: (m) => delete m.regions[1]!['source'], code: 'bad-type', field: 'regions[1].source' },
  { name: 'a region label that is no string', change: (m) => (m.regions[1]!['label'] = 7), code: 'bad-type', field: 'regions[1].label' },
  { name: 'a region label too long', change: (m) => (m.regions[1]!['label'] = 'x'.repeat(4097)), code: 'too-large', field: 'regions[1].label' },
  { name: 'regions that are no list', change: (m) => ((m as Record<string, unknown>)['regions'] = { 0: {} }), code: 'bad-type', field: 'regions' },
  { name: 'a draw region past the last region', change: (m) => (m.draws[0]!['region'] = LAYER_REGIONS.length), code: 'bad-value', field: 'draws[0].region', message: /expected an index below 5, got 5$/ },
  { name: 'a draw region given as a string', change: (m) => (m.draws[0]!['region'] = '1'), code: 'bad-type', field: 'draws[0].region' },
  { name: 'a draw region without regions', change: (m) => delete (m as Record<string, unknown>)['regions'], code: 'bad-value', field: 'draws[0].region', message: /there is no region to refer to/ },
  { name: 'a negative count', change: (m) => ((m.draws[0]!['params'] as Record<string, unknown>)['indexCount'] = -3), code: 'bad-value', field: 'draws[0].params.indexCount' },
  { name: 'a count beyond 32 bits', change: (m) => ((m.draws[0]!['params'] as Record<string, unknown>)['instanceCount'] = 2 ** 32), code: 'bad-value', field: 'draws[0].params.instanceCount' },
  { name: 'a fractional count', change: (m) => ((m.draws[0]!['params'] as Record<string, unknown>)['groupCountX'] = 1.5), code: 'bad-value', field: 'draws[0].params.groupCountX' },
  { name: 'a vertex offset beyond int32', change: (m) => ((m.draws[0]!['params'] as Record<string, unknown>)['vertexOffset'] = 2 ** 31), code: 'bad-value', field: 'draws[0].params.vertexOffset' },
  { name: 'params that are a list', change: (m) => (m.draws[0]!['params'] = [3, 1]), code: 'bad-type', field: 'draws[0].params' },
  { name: 'a call that is no string', change: (m) => (m.draws[0]!['call'] = 5), code: 'bad-type', field: 'draws[0].call' },
  { name: 'a pipeline name too long', change: (m) => (m.draws[0]!['pipeline'] = 'p'.repeat(4097)), code: 'too-large', field: 'draws[0].pipeline' },
  { name: 'a layer record that is no object', change: (m) => ((m as Record<string, unknown>)['layer'] = 'v1'), code: 'bad-type', field: 'layer' },
  { name: 'a layer without a version', change: (m) => delete m.layer['version'], code: 'bad-type', field: 'layer.version' },
  { name: 'a negative descriptor set', change: (m) => (m.layer['set'] = -1), code: 'bad-value', field: 'layer.set' },
  { name: 'a fractional frame', change: (m) => (m.layer['frame'] = 1.5), code: 'bad-value', field: 'layer.frame' },
  { name: 'skipped work without a reason', change: (m) => delete (m.layer['skipped'] as Record<string, unknown>[])[1]!['why'], code: 'bad-type', field: 'layer.skipped[1].why' },
  { name: 'skipped work that is no list', change: (m) => (m.layer['skipped'] = 'pipelines'), code: 'bad-type', field: 'layer.skipped' },
];

/** A trace's JSON or .wtrace body, given the raw metadata's shape: `layer` reads and writes capture.layer (not enumerable: not written). */
function asRawShape(value: unknown): typeof rawMeta {
  const doc = value as typeof rawMeta & { capture: Record<string, unknown> };
  Object.defineProperty(doc, 'layer', { get: () => doc.capture['layer'], set: (v: unknown) => (doc.capture['layer'] = v), enumerable: false, configurable: true });
  return doc;
}

test('malformed regions, call details and layer records are refused naming the field, in every format', () => {
  for (const { name, change, code, field, message } of malformed) {
    // The raw dump names the metadata field.
    expectRefused(() => decodeWtraw(rawWith(change)), code, `metadata.${field}`, message);
    // JSON and .wtrace name the trace's field (the layer record lives in capture).
    const modelField = field.startsWith('layer') ? `capture.${field}` : field;
    const json = asRawShape(JSON.parse(JSON.stringify(traceToJson(layered))));
    change(json);
    expectRefused(() => traceFromJson(JSON.stringify(json)), code, modelField);
    const body = asRawShape(unpack(encodeWtrace(layered).subarray(8)));
    change(body);
    const file = Buffer.concat([encodeWtrace(layered).subarray(0, 8), new Packr({ useRecords: false }).pack(body)]);
    expectRefused(() => decodeWtrace(file), code, modelField);
  }
});

test('buildTrace refuses what the readers would, and the writers refuse a trace that did not come through it', () => {
  const input = { device: plain.device, capture: plain.capture, draws: plain.draws, warps: { startNs: [], endNs: [], sm: [], warpSlot: [], stage: [], draw: [], customId: [], activeMask: [] } };
  const empty = { ...input, capture: { ...plain.capture, recordsKept: 0 } };
  expectRefused(() => buildTrace({ ...empty, regions: [{ label: 'a', parent: 0, source: 'debug-label' }] }), 'bad-value', 'regions[0].parent');
  expectRefused(() => buildTrace({ ...empty, regions: [{ index: 1, label: 'a', parent: null, source: 'debug-label' }] }), 'bad-value', 'regions[0].index');
  expectRefused(() => buildTrace({ ...empty, draws: [{ ...plain.draws[0]!, region: 0 }] }), 'bad-value', 'draws[0].region');
  expectRefused(() => buildTrace({ ...empty, draws: [{ ...plain.draws[0]!, params: { vertexCount: -1 } }] }), 'bad-value', 'draws[0].params.vertexCount');
  const built = buildTrace({ ...empty, regions: [{ label: 'a', parent: null, source: 'debug-label' }], draws: [{ ...plain.draws[0]!, region: 0 }] });
  const broken: Trace = { ...built, regions: [{ index: 0, label: 'a', parent: 0, source: 'debug-label' }] };
  expectRefused(() => encodeWtrace(broken), 'bad-value', 'regions[0].parent');
  expectRefused(() => traceToJson(broken), 'bad-value', 'regions[0].parent');
});

/** Samples captured through the capture layer (the others predate regions and call details). */
const LAYER_SAMPLES = ['h200-ray-tracing-reorder.wtrace', 'h100-raytracingreflections-blocks.wtrace'];

test('files without these details read with none, and write the bytes they did before', () => {
  const older = repoPath('test', 'node', 'older-files');
  const samples = repoPath('samples');
  const files = [
    ...readdirSync(older).filter((f) => f.endsWith('.wtrace')).map((f) => `${older}/${f}`),
    ...readdirSync(samples).filter((f) => f.endsWith('.wtrace') && !LAYER_SAMPLES.includes(f)).map((f) => `${samples}/${f}`),
  ];
  assert.ok(files.length >= 4, files.join(', '));
  // The samples captured through the layer carry what it records.
  for (const f of LAYER_SAMPLES) {
    const t = decodeWtrace(readFileSync(`${samples}/${f}`));
    assert.ok(t.capture.layer !== null && t.regions.length > 0 && t.draws.every((d) => d.call !== null), f);
  }
  for (const path of files) {
    const bytes = readFileSync(path);
    const t = decodeWtrace(bytes);
    assert.deepEqual(t.regions, [], path);
    assert.equal(t.capture.layer, null, path);
    assert.ok(t.draws.every((d) => d.call === null && d.pipeline === null && d.region === null && d.params === null), path);
    const body = unpack(encodeWtrace(t).subarray(8)) as Record<string, unknown> & { capture: object; draws: object[] };
    assert.ok(!('regions' in body) && !('layer' in body.capture), `${path}: no empty keys written`);
    assert.ok(body.draws.every((d) => !('call' in d || 'pipeline' in d || 'region' in d || 'params' in d)), path);
    const json = jsonText(t);
    assert.ok(!/"regions"|"layer"|"call"|"pipeline"|"params"/.test(json.slice(0, json.indexOf('"warps"'))), `${path}: JSON as before`);
    // The current samples were written by today's writer: re-encoding gives them back exactly.
    if (path.startsWith(samples)) assert.ok(Buffer.from(encodeWtrace(t)).equals(bytes), `${path}: re-encoded byte for byte`);
  }
  // A raw dump without them (as the reference harness writes) converts to the trace without them.
  const rawPlain = rawCaptureOf(plain, H100_CLOCKS).raw;
  assert.ok(!/"regions"|"layer"|"call"/.test(JSON.stringify(rawPlain.metadata)));
  const converted = decodeWtraw(encodeWtraw(rawPlain));
  assert.deepEqual(converted.regions, []);
  assert.equal(converted.capture.layer, null);
});

function info(path: string, ...args: string[]): string {
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'info', path, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('warptrace info lists the regions, each draw\'s call and region, and what the layer did not trace; nothing of it for other captures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-regions-'));
  const layeredPath = join(dir, 'layered.wtrace');
  const plainPath = join(dir, 'plain.wtrace');
  writeFileSync(layeredPath, encodeWtrace(layered));
  writeFileSync(plainPath, encodeWtrace(plain));
  const out = info(layeredPath);
  assert.match(out, /\nregions {5}5 labelled regions, 2 at the top level: Frame, Depth-only Pass #2\n/);
  assert.match(out, /\nlayer {7}version 0\.1\.0, frame 60, descriptor set 7\n/);
  assert.match(out, /\n {12}Not traced: pipeline 0x0000558a3c2f1e40 \(mesh shaders are not instrumented\)\n {12}Not traced: queue family 2 \(no timestamp support\)\n/);
  // A note misses no warp: told apart from skipped work.
  assert.match(out, /\n {12}Note: instance \(the app asked for Vulkan 1\.0; the layer created its instance as 1\.1 below the app\)\n/);
  assert.match(out, /#\s+label\s+kind\s+call\s+region\s+warps/);
  assert.match(out, /\n1\s+draw 1\s+draw\s+vkCmdDrawIndexed\s+Lighting\s+\d+/);
  const json = JSON.parse(info(layeredPath, '--json')) as { capture: { layer: unknown }; regions: unknown[]; summary: { draws: { call?: string; region?: string }[] } };
  assert.deepEqual(json.capture.layer, LAYER_INFO);
  assert.equal(json.regions.length, LAYER_REGIONS.length);
  assert.deepEqual([json.summary.draws[1]!.call, json.summary.draws[1]!.region], ['vkCmdDrawIndexed', 'Lighting']);

  const plainOut = info(plainPath);
  assert.doesNotMatch(plainOut, /\nregions |\nlayer |Not traced|call\s+region/);
  const plainJson = info(plainPath, '--json');
  assert.doesNotMatch(plainJson, /"layer"|"regions"|"call"|"pipeline"/);
});
