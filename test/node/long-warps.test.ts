// Warps of 2^20 ns (~1 ms) or longer: the model holds durations as float32,
// which rounds them. Converting a raw dump must write the durations the model
// holds, so .wtraw → .wtrace → .wtrace is a fixed point and wtrawToWtrace
// writes what encodeWtrace(decodeWtraw(...)) writes, byte for byte. Before,
// the raw path wrote exact ticks and the second conversion rounded them
// (66 of 629 fuzzed round trips from raw seeds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordWord, WTRAW_SECTION_ALIGN, WtrawHeaderWord, decodeWtrace, decodeWtraw, encodeWtrace, wtrawToWtrace } from '../../shared-schema/index.js';
import { repoPath } from './paths.js';

const SAMPLE = repoPath('samples/raw/h100-syncs.wtraw');

/** The sample dump with `cycles` added to record 0's end SM-clock word: one warp that long. */
function withLongFirstWarp(cycles: number): Uint8Array {
  const bytes = new Uint8Array(readFileSync(SAMPLE));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (w: number) => view.getUint32(w * 4, true);
  const align = (n: number) => Math.ceil(n / WTRAW_SECTION_ALIGN) * WTRAW_SECTION_ALIGN;
  const records = word(WtrawHeaderWord.HEADER_BYTES) + align(word(WtrawHeaderWord.METADATA_BYTES)) + word(WtrawHeaderWord.TIMESTAMP_COUNT) * 16;
  const end = records + RecordWord.CLOCK_END * 4;
  view.setUint32(end, (view.getUint32(end, true) + cycles) >>> 0, true);
  return bytes;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

// ~1.06 ms, ~3.9 ms (the issue's case) and ~17 ms at the H100's ~1.98 GHz.
for (const cycles of [2_100_005, 7_777_777, 33_333_333]) {
  test(`a warp ${cycles.toLocaleString('en')} cycles long: raw → .wtrace → .wtrace is a fixed point, and both raw paths agree`, { timeout: 120_000 }, () => {
    const raw = withLongFirstWarp(cycles);
    const trace = decodeWtraw(raw);
    let longest = 0;
    for (let i = 0; i < trace.warps.count; i++) longest = Math.max(longest, trace.warps.durationNs[i] as number);
    assert.ok(longest >= 2 ** 20, `the patched warp is long: ${longest} ns`);

    const direct = wtrawToWtrace(raw).wtrace;
    assert.ok(same(direct, encodeWtrace(trace)), 'wtrawToWtrace(raw) writes the bytes of encodeWtrace(decodeWtraw(raw))');
    assert.ok(same(encodeWtrace(decodeWtrace(direct)), direct), 'reading the .wtrace and writing it again gives the same bytes');
  });
}

test('warptrace convert: a raw dump with a long warp, converted, converts again to the same bytes', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'warptrace-long-warps-'));
  const input = join(dir, 'long.wtraw');
  writeFileSync(input, withLongFirstWarp(7_777_777));
  const convert = (from: string, to: string) => {
    const r = spawnSync(process.execPath, [repoPath('bin/warptrace.js'), 'convert', from, '-o', to], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(to);
  };
  const once = convert(input, join(dir, 'a.wtrace'));
  const twice = convert(join(dir, 'a.wtrace'), join(dir, 'b.wtrace'));
  assert.ok(same(once, twice), 'the second conversion changes no byte');
});
