// Block profiles (issue 23): the .wtraw section decoded, carried through .wtrace, and refused when malformed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  H100_CLOCKS,
  TraceFormatError,
  WtrawHeaderWord,
  decodeWtrace,
  describeByMark,
  decodeWtraw,
  encodeWtrace,
  encodeWtraw,
  rawCaptureOf,
  synthesizeTrace,
  traceFromJson,
  traceToJson,
  wtrawToWtrace,
  type RawCapture,
} from '../../shared-schema/index.js';
import { blockSectionOf, markedModule, type SyntheticBlockSection } from '../../shared-schema/synthetic-blocks.js';
import { traceJsonChunks } from '../../shared-schema/json-stream.js';

const truth = synthesizeTrace({ warps: 2000, seed: 5, warpsPerDraw: 500 });
const base = rawCaptureOf(truth, H100_CLOCKS).raw;
const drawCount = truth.draws.length;

/** Two modules (3 and 2 blocks); draws 0 and 2 profiled, draw 2's row holding only the second module. */
const SECTION: SyntheticBlockSection = {
  subgroupSize: 32,
  dropped: 7,
  unprofiledDraws: 1,
  modules: [
    { name: 'shade.vert', spirv: markedModule(3, 'warp', 'sm') },
    { name: 'shade.frag', spirv: markedModule(2, 'invocation', 'device') },
  ],
  rows: [
    { draw: 2, cell: 5, modules: [{ module: 1, offset: 0 }] },
    { draw: 0, cell: 0, modules: [{ module: 0, offset: 0 }, { module: 1, offset: 3 }] },
  ],
  cells: [
    { executions: 10, lanes: 320, ticks: 1000 },
    { executions: 4, lanes: 90, ticks: 2n ** 40n + 3n },
    { executions: 0, lanes: 0, ticks: 0 },
    { executions: 64, lanes: 64, ticks: 6400 },
    { executions: 1, lanes: 1, ticks: 5 },
    { executions: 8, lanes: 8, ticks: 80 },
    { executions: 2, lanes: 2, ticks: 9 },
  ],
};

function withBlocks(section: SyntheticBlockSection, change: (blocks: Record<string, unknown>) => object = (b) => b): RawCapture {
  const { blocks, section: bytes } = blockSectionOf(section);
  return { ...base, metadata: { ...base.metadata, blocks: change(blocks as Record<string, unknown>) }, blockSection: bytes };
}

function expectError(bytes: Uint8Array, code: string, field: RegExp): void {
  assert.throws(
    () => decodeWtraw(bytes),
    (e: unknown) => {
      assert.ok(e instanceof TraceFormatError, `got ${String(e)}`);
      assert.equal(e.code, code, e.message);
      assert.match(e.field, field, e.message);
      return true;
    },
  );
}

test('a dump without a block section decodes without a profile, and its .wtrace has no blocks key', () => {
  const trace = decodeWtraw(encodeWtraw(base));
  assert.equal('blocks' in trace, false);
  const file = wtrawToWtrace(encodeWtraw(base)).wtrace;
  assert.deepEqual(file, encodeWtrace(trace));
  assert.equal(new TextDecoder().decode(file).includes('blocks'), false);
  assert.equal(decodeWtrace(file).blocks ?? null, null);
});

test('the block section decodes into rows per draw with 64-bit counters, and survives .wtrace', () => {
  const raw = encodeWtraw(withBlocks(SECTION));
  const trace = decodeWtraw(raw);
  const p = trace.blocks!;
  assert.equal(p.subgroupSize, 32);
  assert.equal(p.dropped, 7);
  assert.equal(p.unprofiledDraws, 1);
  assert.deepEqual(
    p.modules.map((m) => [m.name, m.per, m.clock, m.blocks.length]),
    [
      ['shade.vert', 'warp', 'sm', 3],
      ['shade.frag', 'invocation', 'device', 2],
    ],
  );
  // Rows come in draw order whatever order the host listed them in.
  assert.deepEqual(p.rows.map((r) => r.draw), [0, 2]);
  const [vert, frag] = p.rows[0]!.modules;
  assert.deepEqual([...vert!.executions], [10, 4, 0]);
  assert.deepEqual([...vert!.lanes], [320, 90, 0]);
  assert.deepEqual([...vert!.ticks], [1000, 2 ** 40 + 3, 0]);
  assert.deepEqual([...frag!.ticks], [6400, 5]);
  assert.deepEqual([...p.rows[1]!.modules[0]!.executions], [8, 2]);

  const file = encodeWtrace(trace);
  assert.deepEqual(wtrawToWtrace(raw).wtrace, file, 'the direct conversion writes the same bytes');
  const back = decodeWtrace(file);
  assert.deepEqual(back.blocks, p);
  // Written again, no byte changes.
  assert.deepEqual(encodeWtrace(back), file);
  // The warps are those of the same dump without blocks.
  assert.deepEqual(back.warps, decodeWtrace(encodeWtrace(decodeWtraw(encodeWtraw(base)))).warps);
});

test('a describer replaces the mark-only description', () => {
  const trace = decodeWtraw(encodeWtraw(withBlocks(SECTION)), {
    describeModule: (spirv) => {
      const marked = describeByMark(spirv);
      return { ...marked, stages: ['FS'], blocks: marked.blocks.map((_, b) => ({ function: 'main', file: 'a.frag', line: 10 + b, column: null, text: null })), sources: [{ file: 'a.frag', text: 'void main() {}' }] };
    },
  });
  assert.equal(trace.blocks!.modules[0]!.blocks[2]!.line, 12);
  assert.deepEqual(decodeWtrace(encodeWtrace(trace)).blocks, trace.blocks);
});

test('a module its describer cannot map keeps its counts, each block saying why it has no line', () => {
  const plain = decodeWtraw(encodeWtraw(withBlocks(SECTION)));
  const trace = decodeWtraw(encodeWtraw(withBlocks(SECTION)), {
    describeModule: () => {
      throw new Error('block 3 entered twice');
    },
  });
  const module = trace.blocks!.modules[0]!;
  assert.equal(module.blocks.length, plain.blocks!.modules[0]!.blocks.length);
  for (const site of module.blocks) assert.equal(site.text, 'no block map: block 3 entered twice');
  assert.deepEqual(
    trace.blocks!.rows.map((r) => r.modules.map((m) => [...m.executions])),
    plain.blocks!.rows.map((r) => r.modules.map((m) => [...m.executions])),
  );
});

test('malformed block sections are refused, naming the field', () => {
  const good = encodeWtraw(withBlocks(SECTION));
  const header = (word: number, value: number) => {
    const bytes = good.slice();
    new DataView(bytes.buffer).setUint32(word * 4, value, true);
    return bytes;
  };
  expectError(header(WtrawHeaderWord.BLOCK_BYTES, 0x7fffffff), 'too-large', /^header\.blockBytes$/);
  expectError(header(WtrawHeaderWord.BLOCK_BYTES, 8), 'size-mismatch', /^file$/);
  expectError(encodeWtraw({ ...base, blockSection: new Uint8Array(32) }), 'bad-value', /^metadata\.blocks$/);
  expectError(encodeWtraw({ ...withBlocks(SECTION), blockSection: new Uint8Array(0) }), 'bad-value', /^header\.blockBytes$/);
  expectError(encodeWtraw(withBlocks(SECTION, (b) => ({ ...b, cells: 8 }))), 'size-mismatch', /^header\.blockBytes$/);
  expectError(encodeWtraw(withBlocks(SECTION, (b) => ({ ...b, cells: -1 }))), 'bad-value', /^metadata\.blocks\.cells$/);
  expectError(encodeWtraw(withBlocks(SECTION, (b) => ({ ...b, modules: 'x' }))), 'bad-type', /^metadata\.blocks\.modules$/);
  expectError(encodeWtraw(withBlocks(SECTION, (b) => ({ ...b, modules: [{ name: 'a', bytes: 42 }, { name: 'b', bytes: 40 }] }))), 'bad-value', /^metadata\.blocks\.modules\[0\]\.bytes$/);
  const rows = (r: object[]) => (b: Record<string, unknown>) => ({ ...b, rows: r });
  expectError(encodeWtraw(withBlocks(SECTION, rows([{ draw: drawCount, cell: 0, modules: [] }]))), 'bad-value', /^metadata\.blocks\.rows\[0\]\.draw$/);
  expectError(encodeWtraw(withBlocks(SECTION, rows([{ draw: 1, cell: 0, modules: [] }, { draw: 1, cell: 0, modules: [] }]))), 'bad-value', /^metadata\.blocks\.rows\[1\]\.draw$/);
  expectError(encodeWtraw(withBlocks(SECTION, rows([{ draw: 1, cell: 0, modules: [{ module: 2, offset: 0 }] }]))), 'bad-value', /^metadata\.blocks\.rows\[0\]\.modules\[0\]\.module$/);
  // Module 0's three blocks from cell 5 run past the 7 cells.
  expectError(encodeWtraw(withBlocks(SECTION, rows([{ draw: 1, cell: 5, modules: [{ module: 0, offset: 0 }] }]))), 'bad-value', /^metadata\.blocks\.rows\[0\]\.modules\[0\]\.offset$/);
  const cells = (change: (c: SyntheticBlockSection['cells']) => SyntheticBlockSection['cells']) => encodeWtraw(withBlocks({ ...SECTION, cells: change(SECTION.cells) }));
  expectError(cells((c) => [{ executions: 1, lanes: 33, ticks: 0 }, ...c.slice(1)]), 'bad-value', /^metadata\.blocks\.rows\[\d\]\.modules\[0\]\.lanes\[0\]$/);
  expectError(cells((c) => [...c.slice(0, 2), { executions: 2n ** 60n, lanes: 0, ticks: 0 }, ...c.slice(3)]), 'bad-value', /^blocks\.cells\[2\]\.executions$/);
  // A module whose SPIR-V carries no block mark.
  const unmarked = { ...SECTION, modules: [{ name: 'x', spirv: markedModule(3, 'warp', 'sm').slice(0, 20) }, SECTION.modules[1]!] };
  expectError(encodeWtraw(withBlocks(unmarked)), 'bad-value', /^metadata\.blocks\.modules\[0\]$/);
});

test('a .wtrace blocks key is checked on reading, naming the field', async () => {
  const { Packr } = await import('msgpackr');
  const trace = decodeWtraw(encodeWtraw(withBlocks(SECTION)));
  const file = encodeWtrace(trace);
  const packr = new Packr({ useRecords: false, variableMapSize: true });
  const body = packr.unpack(file.subarray(8)) as Record<string, unknown>;
  const stored = body['blocks'] as Record<string, unknown>;
  const rewrite = (blocks: unknown): Uint8Array => {
    const packed = packr.pack({ ...body, blocks });
    const out = new Uint8Array(8 + packed.length);
    out.set(file.subarray(0, 8));
    out.set(packed, 8);
    return out;
  };
  const refuses = (blocks: unknown, code: string, field: RegExp) =>
    assert.throws(
      () => decodeWtrace(rewrite(blocks)),
      (e: unknown) => e instanceof TraceFormatError && e.code === code && field.test(e.field),
      `${code} ${field}`,
    );
  // Unchanged, it reads back.
  assert.deepEqual(decodeWtrace(rewrite(stored)).blocks, trace.blocks);
  const rows = stored['rows'] as Record<string, unknown>[];
  const row0 = rows[0]!;
  const counts0 = (row0['modules'] as Record<string, unknown>[])[0]!;
  const withRow0 = (change: object) => ({ ...stored, rows: [{ ...row0, modules: [{ ...counts0, ...change }] }, rows[1]] });
  refuses('x', 'bad-type', /^blocks$/);
  refuses({ ...stored, subgroupSize: 0 }, 'bad-value', /^blocks\.subgroupSize$/);
  refuses({ ...stored, rows: [rows[1], rows[0]] }, 'bad-value', /^blocks\.rows\[1\]\.draw$/);
  refuses({ ...stored, rows: [{ ...row0, draw: drawCount }] }, 'bad-value', /^blocks\.rows\[0\]\.draw$/);
  refuses(withRow0({ module: 5 }), 'bad-value', /^blocks\.rows\[0\]\.modules\[0\]\.module$/);
  refuses(withRow0({ executions: Uint8Array.of(1, 2) }), 'size-mismatch', /^blocks\.rows\[0\]\.modules\[0\]\.executions$/);
  refuses(withRow0({ ticks: Uint8Array.of(1, 2, 3, 4) }), 'size-mismatch', /^blocks\.rows\[0\]\.modules\[0\]\.ticks$/);
  refuses(withRow0({ lanes: 'many' }), 'bad-type', /^blocks\.rows\[0\]\.modules\[0\]\.lanes$/);
  refuses(withRow0({ lanes: Uint8Array.of(0xff, 0x7f, 0, 0) }), 'bad-value', /^blocks\.rows\[0\]\.modules\[0\]\.lanes\[0\]$/);
  const modules = stored['modules'] as Record<string, unknown>[];
  const module0 = modules[0]!;
  refuses({ ...stored, modules: [{ ...module0, per: 'lane' }, modules[1]] }, 'bad-value', /^blocks\.modules\[0\]\.per$/);
  refuses({ ...stored, modules: [{ ...module0, stages: ['PS'] }, modules[1]] }, 'bad-value', /^blocks\.modules\[0\]\.stages\[0\]$/);
  const site = (module0['blocks'] as object[])[0]!;
  refuses({ ...stored, modules: [{ ...module0, blocks: [{ ...site, line: 3 }, site, site] }, modules[1]] }, 'bad-value', /^blocks\.modules\[0\]\.blocks\[0\]\.line$/);
});

test('the JSON import format carries the profile: written (at once or in chunks) and read back equal, refused when malformed', () => {
  const trace = decodeWtraw(encodeWtraw(withBlocks(SECTION)));
  const text = JSON.stringify(traceToJson(trace));
  // The chunked writer writes the same text, the profile included.
  assert.equal(Buffer.concat([...traceJsonChunks(trace, 4096)]).toString('utf8'), text);
  const back = traceFromJson(text);
  assert.deepEqual(back.blocks, trace.blocks);
  // A trace without a profile writes what it did before: no "blocks" key.
  assert.equal('blocks' in (traceToJson(decodeWtraw(encodeWtraw(base))) as Record<string, unknown>), false);
  const json = JSON.parse(text) as { blocks: { rows: { modules: { lanes: unknown[] }[] }[] } };
  json.blocks.rows[1]!.modules[0]!.lanes[0] = -1;
  assert.throws(() => traceFromJson(json), (e: unknown) => e instanceof TraceFormatError && e.field === 'blocks.rows[1].modules[0].lanes[0]');
  json.blocks.rows[1]!.modules[0]!.lanes[0] = 10 * 32 + 1;
  assert.throws(() => traceFromJson(json), (e: unknown) => e instanceof TraceFormatError && /lanes/.test(e.field));
});
