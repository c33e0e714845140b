// Ray events (issue 23 part 3) through the formats: .wtraw → Trace → .wtrace / JSON → Trace, each reader refusing what no capture gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import {
  RAY_EVENTS,
  TraceFormatError,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  traceFromJson,
  traceToJson,
  wtrawToWtrace,
  type RayEventProfile,
  type RayEventRow,
  type Trace,
} from '../../shared-schema/index.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';
import { ConvertPool } from '../../shared-schema/node/convert-pool.js';
import { foliageScene } from '../../shared-schema/synthetic-rays.js';
import { repoPath } from './paths.js';
import { CAPTURE, Draw, rowOf, sceneSums, size, withRays } from './ray-scenes.js';

const raw = encodeWtraw(withRays());
const trace = decodeWtraw(raw);
const profile = trace.rayEvents!;

function refuses(action: () => unknown, code: string, field: string): void {
  assert.throws(action, (e: unknown) => {
    assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
    assert.equal(e.field, field, e.message);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

test('.wtraw → Trace → .wtrace → Trace: the same profile, and the same bytes however the dump is converted', async () => {
  const file = encodeWtrace(trace);
  assert.deepEqual(wtrawToWtrace(raw).wtrace, file, 'the direct conversion writes the same bytes');
  const back = decodeWtrace(file);
  assert.deepEqual(back.rayEvents, profile);
  assert.deepEqual(encodeWtrace(back), file, 'written again, no byte changes');
  const pool = await ConvertPool.create(2);
  try {
    assert.deepEqual((await pool.wtrawToWtrace(raw)).wtrace, file);
    assert.deepEqual((await pool.decodeWtraw(raw)).rayEvents, profile);
  } finally {
    await pool.destroy();
  }
});

test('.wtraw → Trace → JSON → Trace: the same profile, written at once or in chunks', () => {
  const text = JSON.stringify(traceToJson(trace));
  assert.equal(Buffer.concat([...traceJsonChunks(trace, 512)]).toString('utf8'), text);
  const back = traceFromJson(text);
  assert.deepEqual(back.rayEvents, profile);
  assert.deepEqual(encodeWtrace(back), encodeWtrace(trace));
  // Counts are plain arrays: the JSON is the .wtrace's form with numbers for byte strings.
  const json = JSON.parse(text) as { rayEvents: { rows: { draw: number; counts: Record<string, number[]> }[] } };
  const layered = json.rayEvents.rows.find((r) => r.draw === Draw.LAYERED)!;
  assert.deepEqual(layered.counts['traceCalls'], [...profile.rows.find((r) => r.draw === Draw.LAYERED)!.counts.traceCalls]);
});

/** The .wtrace body with `rayEvents` replaced. */
function rewritten(change: (stored: Record<string, unknown>) => unknown): Uint8Array {
  const file = encodeWtrace(trace);
  const packr = new Packr({ useRecords: false, variableMapSize: true });
  const body = packr.unpack(file.subarray(8)) as Record<string, unknown>;
  const packed = packr.pack({ ...body, rayEvents: change(body['rayEvents'] as Record<string, unknown>) });
  const out = new Uint8Array(8 + packed.length);
  out.set(file.subarray(0, 8));
  out.set(packed, 8);
  return out;
}

/** Stored rows: FRAMES is row 2 (draw order: MIXED, LAYERED, FRAMES, TOO_DEEP, IDLE). */
function withRow(k: number, change: (row: Record<string, unknown>) => object) {
  return (stored: Record<string, unknown>) => ({ ...stored, rows: (stored['rows'] as Record<string, unknown>[]).map((r, i) => (i === k ? change(r) : r)) });
}

test('a .wtrace rayEvents key is checked on reading, naming the field', () => {
  const read = (change: (stored: Record<string, unknown>) => unknown) => () => decodeWtrace(rewritten(change));
  assert.deepEqual(decodeWtrace(rewritten((s) => s)).rayEvents, profile);
  const counts = (k: number, event: string, value: unknown) => withRow(k, (r) => ({ ...r, counts: { ...(r['counts'] as object), [event]: value } }));
  const totals = (k: number, event: string, value: unknown) => withRow(k, (r) => ({ ...r, totals: { ...(r['totals'] as object), [event]: value } }));
  refuses(read(() => 'x'), 'bad-type', 'rayEvents');
  refuses(read((s) => ({ ...s, cellsPerRow: 0 })), 'bad-value', 'rayEvents.cellsPerRow');
  refuses(read((s) => ({ ...s, rows: [...(s['rows'] as object[])].reverse() })), 'bad-value', 'rayEvents.rows[1].draw');
  refuses(read(withRow(0, (r) => ({ ...r, draw: 0 }))), 'bad-value', 'rayEvents.rows[0].draw');
  refuses(read(counts(2, 'misses', Uint8Array.of(1, 2))), 'size-mismatch', 'rayEvents.rows[2].counts.misses');
  refuses(read(counts(2, 'misses', 'many')), 'bad-type', 'rayEvents.rows[2].counts.misses');
  refuses(read(counts(2, 'misses', Uint8Array.from({ length: 240 }, (_, c) => (c === 239 ? 0x80 : 0)))), 'truncated', 'rayEvents.rows[2].counts.misses');
  refuses(read(counts(4, 'misses', Uint8Array.of(1))), 'size-mismatch', 'rayEvents.rows[4].counts.misses');
  // A cell's ignored any-hits past its any-hits: cell 0 of the frames has none.
  refuses(read(counts(2, 'anyHitsIgnored', Uint8Array.from({ length: 240 }, (_, c) => (c === 0 ? 1 : 0)))), 'bad-value', 'rayEvents.rows[2].counts.anyHitsIgnored[0]');
  refuses(read(totals(2, 'traceCalls', 1)), 'bad-value', 'rayEvents.rows[2].totals.traceCalls');
  refuses(read(totals(3, 'misses', 1)), 'bad-value', 'rayEvents.rows[3].totals.misses');
  refuses(read(totals(0, 'uselessAnyHits', 10 ** 9)), 'bad-value', 'rayEvents.rows[0].totals.uselessAnyHits');
  refuses(read(withRow(0, (r) => ({ ...r, launches: 1 }))), 'bad-value', 'rayEvents.rows[0].mixedSizes');
  refuses(read(withRow(4, (r) => ({ ...r, launchWidth: 3 }))), 'bad-value', 'rayEvents.rows[4].launchWidth');
  // A row said to be of one size bins its cells: the mixed row's empty counts no longer fit.
  refuses(read(withRow(0, (r) => ({ ...r, mixedSizes: false }))), 'size-mismatch', 'rayEvents.rows[0].counts.traceCalls');
});

test('JSON import refuses what the .wtrace reader does, naming the field', () => {
  const json = traceToJson(trace) as { rayEvents: Record<string, unknown> };
  const read = (change: (stored: Record<string, unknown>) => unknown) => () => traceFromJson({ ...json, rayEvents: change(json.rayEvents) });
  const counts = (k: number, event: string, value: unknown) => withRow(k, (r) => ({ ...r, counts: { ...(r['counts'] as object), [event]: value } }));
  const frames = profile.rows[2]!;
  refuses(read(counts(2, 'misses', [...frames.counts.misses, 0])), 'size-mismatch', 'rayEvents.rows[2].counts.misses');
  refuses(read(counts(2, 'misses', [-1, ...frames.counts.misses.slice(1)])), 'bad-value', 'rayEvents.rows[2].counts.misses[0]');
  refuses(read(counts(2, 'misses', [2 ** 32, ...frames.counts.misses.slice(1)])), 'bad-value', 'rayEvents.rows[2].counts.misses[0]');
  refuses(read(counts(2, 'misses', [frames.counts.misses[0]! + 1, ...frames.counts.misses.slice(1)])), 'bad-value', 'rayEvents.rows[2].totals.misses');
  refuses(read((s) => ({ ...s, rows: 7 })), 'bad-type', 'rayEvents.rows');
});

test('the writers refuse a profile their readers would, naming the field', () => {
  const frames = profile.rows[2]!;
  const broken = (row: Partial<RayEventRow>): Trace => ({ ...trace, rayEvents: { ...profile, rows: profile.rows.map((r, i) => (i === 2 ? { ...r, ...row } : r)) } });
  const lying = broken({ totals: { ...frames.totals, closestHits: frames.totals.closestHits + 1 } });
  refuses(() => encodeWtrace(lying), 'bad-value', 'rayEvents.rows[2].totals.closestHits');
  refuses(() => traceToJson(lying), 'bad-value', 'rayEvents.rows[2].totals.closestHits');
  refuses(() => encodeWtrace(broken({ grid: null })), 'bad-value', 'rayEvents.rows[2].grid');
  const onDraw: RayEventProfile = { ...profile, rows: [{ ...frames, draw: 0 }] };
  refuses(() => encodeWtrace({ ...trace, rayEvents: onDraw }), 'bad-value', 'rayEvents.rows[0].draw');
});

test('a launch of 1280 × 720 in a million cells per row: 921,600 cells per event, the JSON streamed in chunks of its size', () => {
  const [width, height] = [1280, 720];
  const scene = foliageScene(width, height);
  const capture = { cellsPerRow: 1 << 20, rows: [{ draw: Draw.FRAMES, launches: [size(width, height)], scene }] };
  const big = decodeWtraw(encodeWtraw(withRays(capture)));
  const row = big.rayEvents!.rows[0]!;
  assert.deepEqual(row.grid, { scale: 0, width, height, depth: 1, cells: width * height });
  assert.deepEqual(row.totals, sceneSums(scene, [size(width, height)]));
  assert.equal(row.counts.anyHits[(height / 2) * width + width / 2], scene(width / 2, height / 2, 0, 0).anyHits);
  const chunkBytes = 1 << 16;
  const chunks = [...traceJsonChunks(big, chunkBytes)];
  // No piece of the ray events holds a whole event's counts (each is over 1.8 MB of text): the writer streams them.
  const from = chunks.findIndex((c) => Buffer.from(c).includes(',"rayEvents":'));
  assert.ok(from > 0);
  const rayBytes = chunks.slice(from).reduce((sum, c) => sum + c.length, 0);
  assert.ok(rayBytes > 8 * width * height * 2, `${rayBytes} bytes of ray events`);
  const largest = Math.max(...chunks.slice(from).map((c) => c.length));
  assert.ok(largest < chunkBytes + 1024, `largest ray-event chunk ${largest} bytes`);
  const back = traceFromJson(Buffer.concat(chunks).toString('utf8'));
  for (const e of RAY_EVENTS) assert.deepEqual(back.rayEvents!.rows[0]!.counts[e], row.counts[e], e);
  assert.deepEqual(decodeWtrace(encodeWtrace(big)).rayEvents, big.rayEvents);
});

test('warptrace info says what the ray events cover, and what went uncounted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-rays-'));
  const path = join(dir, 'rays.wtraw');
  writeFileSync(path, raw);
  const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'info', path], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const frames = rowOf(CAPTURE, Draw.FRAMES);
  const traceCalls = sceneSums(frames.scene, frames.launches).traceCalls + sceneSums(rowOf(CAPTURE, Draw.MIXED).scene, rowOf(CAPTURE, Draw.MIXED).launches).traceCalls + sceneSums(rowOf(CAPTURE, Draw.LAYERED).scene, rowOf(CAPTURE, Draw.LAYERED).launches).traceCalls;
  const line = r.stdout.split('\n').find((l) => l.startsWith('ray events'));
  assert.ok(line !== undefined, r.stdout);
  // Five rows; launches: two frames, two sizes, one layered (the too-deep one counted none).
  assert.match(line, new RegExp(`5 trace-rays calls profiled \\(5 launches\\), ${traceCalls.toLocaleString('en-US')} trace calls`));
  assert.match(line, /1 call without a row \(table full\)/);
  assert.match(line, new RegExp(`${profile.dropped.toLocaleString('en-US')} events dropped`));
  assert.match(line, /9 traversals without useless any-hit counts/);
  // A trace without ray events prints no such line.
  const plain = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'info', repoPath('samples', 'h100-ray-tracing.wtrace')], { encoding: 'utf8' });
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(/^ray events/m.test(plain.stdout), false);
});
