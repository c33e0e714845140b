// Ray events (issue 23 part 3): the .wtraw section decoded into the model, and refused when malformed, naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  RAY_CELL_BYTES,
  RAY_EVENTS,
  RayCellWord,
  RayRowHeaderWord,
  TraceFormatError,
  WtrawHeaderWord,
  decodeWtrace,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  checkRayEventProfile,
  makeRandom,
  traceToJson,
  wtrawToWtrace,
  type DrawKind,
  type RawCapture,
  type RayEventProfile,
} from '../../shared-schema/index.js';
import { RAY_ROW_HEADER_BYTES, readRayEventSection } from '../../shared-schema/ray-event-raw.js';
import { jsonRayEvents, readJsonRayEvents, readRayEventProfile, storedRayEvents } from '../../shared-schema/ray-event-wtrace.js';
import { foliageScene, type SyntheticRayCapture } from '../../shared-schema/synthetic-rays.js';
import { repoPath } from './paths.js';
import { CAPTURE, CELLS_PER_ROW, Draw, base, drawCount, layeredScene, rowOf, sceneSums, size, withRays } from './ray-scenes.js';

function expectError(bytes: Uint8Array, code: string, field: string): void {
  assert.throws(
    () => decodeWtraw(bytes),
    (e: unknown) => {
      assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
      assert.equal(e.field, field, e.message);
      assert.equal(e.code, code, e.message);
      return true;
    },
  );
}

test('a dump without a ray-event section decodes as before: no rayEvents key, the same .wtrace bytes', () => {
  const trace = decodeWtraw(encodeWtraw(base));
  assert.equal('rayEvents' in trace, false);
  assert.deepEqual(wtrawToWtrace(encodeWtraw(base)).wtrace, encodeWtrace(trace));
  // The committed ray-tracing sample: its raw dump converts to the very bytes committed, which read back without ray events and write again unchanged.
  const sample = new Uint8Array(readFileSync(repoPath('samples', 'h100-ray-tracing.wtrace')));
  assert.ok(Buffer.from(wtrawToWtrace(new Uint8Array(readFileSync(repoPath('samples', 'raw', 'h100-ray-tracing.wtraw')))).wtrace).equals(sample));
  const read = decodeWtrace(sample);
  assert.equal(read.rayEvents ?? null, null);
  assert.ok(Buffer.from(encodeWtrace(read)).equals(sample));
  assert.equal(new TextDecoder().decode(sample).includes('rayEvents'), false);
  assert.equal('rayEvents' in (traceToJson(read) as Record<string, unknown>), false);
});

test('the section decodes into one row per profiled trace-rays call, in draw order, with the scene\'s counts', () => {
  const trace = decodeWtraw(encodeWtraw(withRays()));
  const p = trace.rayEvents!;
  assert.equal(p.cellsPerRow, CELLS_PER_ROW);
  assert.equal(p.uncountedTraversals, 9);
  assert.equal(p.unprofiledLaunches, 1);
  assert.deepEqual(p.rows.map((r) => r.draw), [Draw.MIXED, Draw.LAYERED, Draw.FRAMES, Draw.TOO_DEEP, Draw.IDLE]);
  const row = (draw: number) => p.rows.find((r) => r.draw === draw)!;

  // Two frames of 40 × 24 in 256 cells: binned 2 × 2 into 20 × 12 cells, each summing its 4 pixels of both frames.
  const frames = row(Draw.FRAMES);
  assert.equal(frames.launches, 2);
  assert.deepEqual([frames.launchWidth, frames.launchHeight, frames.launchDepth, frames.mixedSizes], [40, 24, 1, false]);
  assert.deepEqual(frames.grid, { scale: 1, width: 20, height: 12, depth: 1, cells: 240 });
  const framesRow = rowOf(CAPTURE, Draw.FRAMES);
  assert.deepEqual(frames.totals, sceneSums(framesRow.scene, framesRow.launches));
  for (const [cx, cy] of [[0, 0], [10, 6], [19, 11], [7, 3]] as const) {
    const expected = sceneSums(framesRow.scene, framesRow.launches, (x, y) => x >> 1 === cx && y >> 1 === cy);
    for (const e of RAY_EVENTS) assert.equal(frames.counts[e][cy * 20 + cx], expected[e], `cell ${cx},${cy} ${e}`);
  }
  // The scene has alpha-tested leaves in the middle: some cells count ignored and useless any-hits, the corners none.
  assert.ok(frames.totals.anyHitsIgnored > 0 && frames.totals.uselessAnyHits > 0);
  assert.equal(frames.counts.anyHits[0], 0);

  // 8 × 4 × 3 fits unbinned: cell (x, y, z) is (z × 4 + y) × 8 + x.
  const layered = row(Draw.LAYERED);
  assert.deepEqual(layered.grid, { scale: 0, width: 8, height: 4, depth: 3, cells: 96 });
  assert.equal(layered.counts.traceCalls[(2 * 4 + 1) * 8 + 5], layeredScene(5, 1, 2, 0).traceCalls);
  assert.equal(layered.counts.intersections[(1 * 4 + 3) * 8 + 3], 1);
  assert.deepEqual(layered.totals, sceneSums(layeredScene, [size(8, 4, 3)]));

  // Launches of different sizes: the totals of both, no picture.
  const mixed = row(Draw.MIXED);
  assert.deepEqual([mixed.launches, mixed.launchWidth, mixed.launchHeight, mixed.mixedSizes, mixed.grid], [2, 16, 32, true, null]);
  for (const e of RAY_EVENTS) assert.equal(mixed.counts[e].length, 0);
  const mixedRow = rowOf(CAPTURE, Draw.MIXED);
  assert.deepEqual(mixed.totals, sceneSums(mixedRow.scene, mixedRow.launches));

  // A launch no row holds counted nothing: its events are the dropped ones.
  const deep = row(Draw.TOO_DEEP);
  assert.deepEqual([deep.launches, deep.grid, deep.totals.traceCalls], [0, null, 0]);
  const deepSums = sceneSums(foliageScene(1, 1), [size(1, 1, 257)]);
  assert.equal(p.dropped, RAY_EVENTS.reduce((sum, e) => sum + deepSums[e], 0));
  const idle = row(Draw.IDLE);
  assert.deepEqual([idle.launches, idle.launchWidth, idle.grid, idle.counts.misses.length], [0, 0, null, 0]);

  // The warps are those of the same dump without ray events.
  assert.deepEqual(trace.warps, decodeWtraw(encodeWtraw(base)).warps);
});

/** The capture's raw dump with `change` applied to its metadata key, or its section's bytes. */
function changed(change: { key?: (k: Record<string, unknown>) => object; section?: (s: Uint8Array) => Uint8Array; capture?: SyntheticRayCapture }): Uint8Array {
  const raw = withRays(change.capture ?? CAPTURE);
  const key = (raw.metadata as { rayEvents: Record<string, unknown> }).rayEvents;
  const edited: RawCapture = {
    ...raw,
    metadata: { ...raw.metadata, rayEvents: change.key?.(key) ?? key },
    rayEventSection: change.section?.(raw.rayEventSection!.slice()) ?? raw.rayEventSection!,
  };
  return encodeWtraw(edited);
}

/** Section offset of row `i`'s header (rows in the section's order). */
function rowAt(capture: SyntheticRayCapture, i: number): number {
  const key = (withRays(capture).metadata as { rayEvents: { rows: { cells: number }[] } }).rayEvents;
  return key.rows.slice(0, i).reduce((at, r) => at + RAY_ROW_HEADER_BYTES + r.cells * RAY_CELL_BYTES, 0);
}

function setWord(bytes: Uint8Array, at: number, value: number): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, value, true);
  return bytes;
}

test('a section and its metadata key come together, as long as each other says', () => {
  const good = encodeWtraw(withRays());
  const header = (word: number, value: number) => setWord(good.slice(), word * 4, value);
  expectError(header(WtrawHeaderWord.RAY_EVENT_BYTES, 0x7fffffff), 'too-large', 'header.rayEventBytes');
  expectError(header(WtrawHeaderWord.RAY_EVENT_BYTES, 8), 'size-mismatch', 'file');
  expectError(encodeWtraw({ ...base, rayEventSection: new Uint8Array(32) }), 'bad-value', 'metadata.rayEvents');
  expectError(encodeWtraw({ ...withRays(), rayEventSection: new Uint8Array(0) }), 'bad-value', 'header.rayEventBytes');
  // No row, no bytes: what was lost is still told.
  const rowless = decodeWtraw(encodeWtraw(withRays({ cellsPerRow: 64, rows: [], unprofiledLaunches: 3, extraDropped: 12 })));
  assert.deepEqual(rowless.rayEvents, { cellsPerRow: 64, dropped: 12, uncountedTraversals: 0, unprofiledLaunches: 3, rows: [] });
  assert.deepEqual(decodeWtrace(encodeWtrace(rowless)).rayEvents, rowless.rayEvents);
  expectError(changed({ section: (s) => Uint8Array.from([...s, ...new Uint8Array(32)]) }), 'size-mismatch', 'header.rayEventBytes');
  // One cell more for the first row: the section is a cell short of what the key describes.
  expectError(changed({ key: (k) => ({ ...k, rows: (k['rows'] as { draw: number; cells: number }[]).map((r, i) => (i === 0 ? { ...r, cells: r.cells + 1 } : r)) }) }), 'size-mismatch', 'header.rayEventBytes');
});

test('malformed metadata keys are refused, naming the field', () => {
  const rows = (k: Record<string, unknown>) => k['rows'] as { draw: number; cells: number }[];
  const withRows = (change: (r: { draw: number; cells: number }[]) => object[]) => changed({ key: (k) => ({ ...k, rows: change(rows(k)) }) });
  expectError(changed({ key: (k) => ({ ...k, cellsPerRow: 2 ** 25 }) }), 'bad-value', 'metadata.rayEvents.cellsPerRow');
  expectError(changed({ key: (k) => ({ ...k, dropped: 2 ** 32 }) }), 'bad-value', 'metadata.rayEvents.dropped');
  expectError(changed({ key: (k) => ({ ...k, unprofiledLaunches: drawCount + 1 }) }), 'bad-value', 'metadata.rayEvents.unprofiledLaunches');
  expectError(changed({ key: (k) => ({ ...k, rows: 'all' }) }), 'bad-type', 'metadata.rayEvents.rows');
  expectError(changed({ key: () => [] }), 'bad-type', 'metadata.rayEvents');
  expectError(withRows((r) => r.map((x, i) => (i === 2 ? { ...x, cells: -1 } : x))), 'bad-value', 'metadata.rayEvents.rows[2].cells');
  expectError(withRows((r) => r.map((x, i) => (i === 1 ? { ...x, draw: drawCount } : x))), 'bad-value', 'metadata.rayEvents.rows[1].draw');
  expectError(withRows((r) => r.map((x, i) => (i === 1 ? { ...x, draw: r[0]!.draw } : x))), 'bad-value', 'metadata.rayEvents.rows[1].draw');
  // A row on a dispatch: no launch pixels to count.
  const onDispatch: SyntheticRayCapture = { ...CAPTURE, rows: [CAPTURE.rows[0]!] };
  const raw = withRays(onDispatch);
  const draws = (raw.metadata as { draws: { kind: string }[] }).draws.map((d, i) => (i === Draw.FRAMES ? { ...d, kind: 'dispatch' } : d));
  expectError(encodeWtraw({ ...raw, metadata: { ...raw.metadata, draws } }), 'bad-value', 'metadata.rayEvents.rows[0].draw');
});

test('row headers and cells no GPU could have written are refused, naming the field', () => {
  // Section order: FRAMES, MIXED, LAYERED, TOO_DEEP, IDLE.
  const word = (row: number, w: number, value: number) => changed({ section: (s) => setWord(s, rowAt(CAPTURE, row) + w * 4, value) });
  // The frames' row says 40 wide; 48 wide would take 24 × 12 = 288 cells at scale 1, so scale 2: 12 × 6 = 72, not 240.
  expectError(
    changed({ section: (s) => setWord(setWord(s, rowAt(CAPTURE, 0) + RayRowHeaderWord.MAX_WIDTH * 4, 48), rowAt(CAPTURE, 0) + RayRowHeaderWord.MIN_WIDTH * 4, 48) }),
    'bad-value',
    'metadata.rayEvents.rows[0].cells',
  );
  // No launch, yet a size; sizes of 0, a min above the max; one launch of two sizes; more invocations than a launch has.
  expectError(word(4, RayRowHeaderWord.MAX_HEIGHT, 16), 'bad-value', 'rayEvents.rows[4].maxHeight');
  expectError(word(4, RayRowHeaderWord.MIN_DEPTH, 1), 'bad-value', 'rayEvents.rows[4].minDepth');
  expectError(word(2, RayRowHeaderWord.MIN_WIDTH, 0), 'bad-value', 'rayEvents.rows[2].minWidth');
  expectError(word(2, RayRowHeaderWord.MIN_HEIGHT, 5), 'bad-value', 'rayEvents.rows[2].minHeight');
  expectError(word(1, RayRowHeaderWord.LAUNCHES, 1), 'bad-value', 'rayEvents.rows[1].launches');
  const huge: SyntheticRayCapture = { cellsPerRow: 1, rows: [{ draw: Draw.FRAMES, launches: [size(1, 1)], scene: () => ({ traceCalls: 1 }) }] };
  // 2^17 × 2^16 = 2^33 invocations of one size: more than vkCmdTraceRaysKHR takes.
  const launchOf = (s: Uint8Array, width: number, height: number) => {
    for (const w of [RayRowHeaderWord.MAX_WIDTH, RayRowHeaderWord.MIN_WIDTH]) setWord(s, w * 4, width);
    for (const w of [RayRowHeaderWord.MAX_HEIGHT, RayRowHeaderWord.MIN_HEIGHT]) setWord(s, w * 4, height);
    return s;
  };
  expectError(changed({ capture: huge, section: (s) => launchOf(s, 2 ** 17, 2 ** 16) }), 'bad-value', 'rayEvents.rows[0].maxWidth');
  // Cells: more ignored any-hits than any-hits, more useless ones than accepted ones (the layered row's cell 13).
  const cell = (w: number, value: number) => changed({ section: (s) => setWord(s, rowAt(CAPTURE, 2) + RAY_ROW_HEADER_BYTES + 13 * RAY_CELL_BYTES + w * 4, value) });
  expectError(cell(RayCellWord.ANY_HITS_IGNORED, 1), 'bad-value', 'rayEvents.rows[2].cells[13].anyHitsIgnored');
  expectError(cell(RayCellWord.USELESS_ANY_HITS, 1), 'bad-value', 'rayEvents.rows[2].cells[13].uselessAnyHits');
  // The same in a scene: a pixel whose any-hits both ignored and accepted its one hit.
  const liar: SyntheticRayCapture = { cellsPerRow: 4, rows: [{ draw: Draw.FRAMES, launches: [size(2, 2)], scene: (x, y) => (x === 1 && y === 1 ? { anyHits: 1, anyHitsIgnored: 1, uselessAnyHits: 1 } : {}) }] };
  expectError(encodeWtraw(withRays(liar)), 'bad-value', 'rayEvents.rows[0].cells[3].uselessAnyHits');
});

test('fuzz: a mutated section or metadata key gives a TraceFormatError or a profile every reader takes back', () => {
  const raw = withRays();
  const section = raw.rayEventSection!;
  const key = (raw.metadata as { rayEvents: Record<string, unknown> }).rayEvents;
  const draws = (raw.metadata as { draws: { kind: DrawKind }[] }).draws;
  const random = makeRandom(23);
  const pick = (n: number) => Math.floor(random() * n);
  const weird: unknown[] = [null, -1, 0, 1, 2.5, 2 ** 32, 'x', [], {}, true];
  let accepted = 0;
  for (let c = 0; c < 3000; c++) {
    const bytes = section.slice();
    let meta: Record<string, unknown> = key;
    if (c % 3 === 0) {
      // A row header or cell word set to an extreme.
      const extremes = [0, 1, 2, 7, 0x7fffffff, 0xffffffff, pick(2 ** 32)];
      setWord(bytes, pick(bytes.length / 4) * 4, extremes[pick(extremes.length)]!);
    } else if (c % 3 === 1) {
      for (let k = 1 + pick(4); k > 0; k--) bytes[pick(bytes.length)] = pick(256);
    } else {
      // A random value in a random place of the key.
      meta = JSON.parse(JSON.stringify(key)) as Record<string, unknown>;
      let node = meta;
      for (;;) {
        const keys = Object.keys(node);
        const name = keys[pick(keys.length)]!;
        const child = node[name];
        if (typeof child !== 'object' || child === null || random() < 0.3) {
          node[name] = weird[pick(weird.length)];
          break;
        }
        node = child as Record<string, unknown>;
      }
    }
    let profile: RayEventProfile | null;
    try {
      profile = readRayEventSection(bytes, meta, draws);
    } catch (error) {
      if (!(error instanceof TraceFormatError)) assert.fail(`case ${c}: ${error instanceof Error ? error.stack : String(error)}`);
      continue;
    }
    accepted++;
    checkRayEventProfile(profile!, draws);
    assert.deepEqual(readRayEventProfile(storedRayEvents(profile!), draws), profile);
    assert.deepEqual(readJsonRayEvents(JSON.parse(JSON.stringify(jsonRayEvents(profile!))), draws), profile);
  }
  // Most counts can take any value: many mutations still give a profile (and the refusals are the tests above).
  assert.ok(accepted > 300, `${accepted} accepted`);
});
