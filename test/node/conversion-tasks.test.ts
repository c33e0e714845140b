// The pieces that let a busy SM's rows spread over workers: slices sorted on
// their own and merged by parts, cycles unwrapped at a provisional rate (and
// again where it could differ), and the .wtrace file written from chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Packr } from 'msgpackr';
import { H100_CLOCKS, decodeWtraw, encodeWtraw, makeRandom, rawCaptureOf, synthesizeTrace } from '../../shared-schema/index.js';
import { RECORD_WORDS, RecordWord } from '../../shared-schema/raw-layout.js';
import { mergePart, sortSlice, splittersOf } from '../../shared-schema/row-sort.js';
import { SLICE_BLOCK, sliceGroups } from '../../shared-schema/row-tasks.js';
import { measureSlice, roughSlope, sameUnwrap, unwrapSlice, type ClockRows, type DeviceClockMap } from '../../shared-schema/sm-clock.js';
import { encodeColumnsChunk } from '../../shared-schema/column-chunks.js';
import { FILE_START } from '../../shared-schema/warp-encoder.js';
import { encodeWtrace } from '../../shared-schema/wtrace.js';
import { shapeOfTrace, wtraceFile } from '../../shared-schema/wtrace-writer.js';

/** Sorts keys in `parts` slices and merges them back, as the pool does. */
function sortInSlices(keys: Float64Array, parts: number): Uint32Array {
  const n = keys.length;
  const rows = new Uint32Array(n);
  const sortedKeys = new Float64Array(n);
  const slices = Array.from({ length: parts }, (_, p) => [Math.floor((n * p) / parts), Math.floor((n * (p + 1)) / parts)] as const);
  const samples = slices.map(([b, e]) => sortSlice(keys, b, e, rows, sortedKeys));
  const cuts = splittersOf(samples, parts);
  const out = new Uint32Array(n).fill(0xffffffff);
  const outKeys = new Float64Array(n);
  let covered = 0;
  for (let p = 0; p < parts; p++) {
    const [from, to] = mergePart(slices, rows, sortedKeys, p === 0 ? -Infinity : (cuts[p - 1] as number), p === parts - 1 ? Infinity : (cuts[p] as number), out, outKeys);
    covered += to - from;
  }
  assert.equal(covered, n, 'the parts cover every row once');
  return out;
}

test('slices sorted on their own and merged by parts give the one stable order', () => {
  const random = makeRandom(7);
  const cases: [string, Float64Array][] = [
    // Completion order: nearly sorted, local disorder.
    ['nearly sorted', Float64Array.from({ length: 50_000 }, (_, i) => i * 10 + Math.floor(random() * 200))],
    ['random', Float64Array.from({ length: 50_000 }, () => Math.floor(random() * 1e9))],
    // Many equal keys: ties must keep row order across slices.
    ['ties', Float64Array.from({ length: 50_000 }, () => Math.floor(random() * 20))],
    ['descending', Float64Array.from({ length: 20_000 }, (_, i) => 1e6 - i)],
    ['sorted', Float64Array.from({ length: 20_000 }, (_, i) => i * 3)],
    // Past 64 Ki rows the radix sort takes 16-bit digits; a few rows out of place take the insertion sort.
    ['big', Float64Array.from({ length: 140_000 }, () => Math.floor(random() * 2 ** 30))],
    // Keys spread past 32 bits: the general radix sort.
    ['wide range', Float64Array.from({ length: 30_000 }, () => Math.floor(random() * 2 ** 40))],
    ['a few out of place', Float64Array.from({ length: 30_000 }, (_, i) => (i % 1000 === 999 ? i - 500 : i))],
  ];
  for (const [name, keys] of cases) {
    // A comparison sort by (key, row): the stable order.
    const expected = Uint32Array.from(
      Array.from({ length: keys.length }, (_, i) => i).sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b),
    );
    for (const parts of [1, 2, 7]) assert.deepEqual(sortInSlices(keys, parts), expected, `${name}, ${parts} slices`);
  }
});

test('slices are whole blocks of a group, so per-block sums do not depend on the worker count', () => {
  const offsets = Uint32Array.of(0, 5, 1_000_000, 1_000_100);
  for (const workers of [1, 3, 16]) {
    const slices = sliceGroups(offsets, workers);
    for (let g = 0; g < 3; g++) {
      const own = slices.filter((s) => s.g === g);
      assert.equal(own[0]?.begin, offsets[g]);
      assert.equal(own[own.length - 1]?.end, offsets[g + 1]);
      for (let k = 0; k + 1 < own.length; k++) {
        assert.equal(own[k]?.end, own[k + 1]?.begin);
        assert.equal(((own[k]?.end as number) - (offsets[g] as number)) % SLICE_BLOCK, 0);
      }
    }
    assert.equal(slices.filter((s) => s.g === 1).length > 1, workers > 1);
  }
});

/** One SM whose records span `seconds` of device time at 1.98 GHz: its 32-bit cycle counter wraps every 2.17 s. */
function longCapture(seconds: number): { rows: ClockRows; map: DeviceClockMap; trueX: Float64Array } {
  const n = 6000;
  const nsPerCycle = 1 / 1.98;
  const words = new Uint32Array(n * RECORD_WORDS);
  const trueX = new Float64Array(n);
  const startCycles = 3_000_000_000;
  for (let i = 0; i < n; i++) {
    const ns = (i / (n - 1)) * seconds * 1e9;
    const cycles = Math.round(ns / nsPerCycle);
    trueX[i] = cycles;
    const w = i * RECORD_WORDS;
    words[w + RecordWord.CLOCK_END] = (startCycles + cycles) >>> 0;
    words[w + RecordWord.CLOCK_START] = (startCycles + cycles - 500) >>> 0;
    words[w + RecordWord.DEVICE_CLOCK] = Math.floor(ns) >>> 0;
    words[w + RecordWord.DRAW_ID] = 0;
  }
  const f64 = () => new Float64Array(n);
  const u32 = () => new Uint32Array(n);
  const rows: ClockRows = { words, groups: { sm: Uint16Array.of(0), offsets: Uint32Array.of(0, n) }, y: f64(), x: f64(), byX: u32(), xs: f64(), ys: f64(), sliceRows: u32(), sliceKeys: f64() };
  // Device time 0 is the origin; a 1 ns clock (no half-step); the draw's anchor mid-capture (device words unwrap within ±2 s of it).
  const mid = (seconds / 2) * 1e9;
  const map: DeviceClockMap = {
    drawAnchorRelTicks: Float64Array.of(mid),
    drawAnchorLo: Uint32Array.of(mid >>> 0),
    drawCeilingRelTicks: Float64Array.of(NaN),
    drawCeilingLo: Uint32Array.of(0),
    rowTicks: null,
    deviceNsPerTick: 1,
    halfStepTicks: 0,
  };
  return { rows, map, trueX };
}

test('cycles unwrapped at a provisional rate are checked against the SM\'s own, and unwrapped again where they could differ', () => {
  const { rows, map, trueX } = longCapture(3);
  const slice = { g: 0, begin: 0, end: trueX.length };
  const gotX = () => Float64Array.from(rows.x);
  // A rate 5% off still unwraps 3 s of cycles right, and the check agrees.
  const near = measureSlice(rows, map, slice, (1 / 1.98) * 1.05, true);
  const rough = roughSlope([near.stats]) as number;
  assert.ok(Math.abs(rough * 1.98 - 1) < 1e-6, `rough rate ${rough}`);
  assert.deepEqual(gotX(), trueX);
  assert.equal(sameUnwrap((1 / 1.98) * 1.05, rough, near.maxReachNs), true);
  // Twice the true rate miscounts the wraps over 3 s: the check says so, and unwrapping again at the SM's own rate fixes it.
  const far = measureSlice(rows, map, slice, 1, true);
  assert.notDeepEqual(gotX(), trueX);
  assert.equal(sameUnwrap(1, rough, far.maxReachNs), false);
  const again = unwrapSlice(rows, slice, rough, true);
  assert.deepEqual(gotX(), trueX);
  assert.equal(again.minStartCycles, -500);
  assert.deepEqual(Array.from(rows.xs.subarray(0, 5)), Array.from(trueX.subarray(0, 5)));
});

test('the .wtrace writer lays out exactly the bytes msgpackr packs for the whole body, however the rows are chunked and whichever first rows are left open', () => {
  const packr = new Packr({ useRecords: false, variableMapSize: true });
  const trace = decodeWtraw(encodeWtraw(rawCaptureOf(synthesizeTrace({ warps: 30_000, seed: 5 }), H100_CLOCKS).raw));
  const whole = encodeWtrace(trace);
  // Unpacking and packing again with the writer's options gives the same body: nothing but msgpack in it.
  const body = whole.subarray(8);
  assert.deepEqual(Buffer.from(packr.pack(packr.unpack(body))), Buffer.from(body));
  const n = trace.warps.count;
  const shape = shapeOfTrace(trace);
  // Cuts inside SM groups, at a group's first row and just after it.
  const groupStart = trace.warps.smGroups.offsets[1] as number;
  assert.ok(groupStart > 1 && groupStart < n - 1);
  for (const cuts of [[0, 1, n], [0, 12_345, 12_346, 29_000, n], [0, groupStart, groupStart + 1, n]]) {
    const ranges = cuts.slice(1).map((end, k) => [cuts[k] as number, end] as [number, number]);
    // Deltas carried from the row before (the file's start for row 0), or left open for chunkHeads: the same bytes.
    for (const open of [(k: number) => k > 0, () => true]) {
      const chunks = ranges.map(([b, e], k) => encodeColumnsChunk(trace.warps, b, e, shape.chunk, open(k) ? null : FILE_START));
      if (open(0)) assert.notEqual(chunks[0]?.open, null);
      assert.deepEqual(Buffer.from(wtraceFile(shape, chunks)), Buffer.from(whole), `chunks at ${cuts.join(', ')}`);
    }
  }
});
