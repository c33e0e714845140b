/**
 * The block profile in a .wtrace body (README "`.wtrace`": the `blocks`
 * key, written only when a trace has one): modules and their blocks as
 * maps, each row's counters as varint byte strings (unsigned, below 2^53).
 * Read back with every field checked (untrusted input).
 */
import { BLOCK_CLOCKS, BLOCK_COUNTINGS, type BlockCounts, type BlockModule, type BlockProfile, type BlockRow, type BlockSite, type SourceText } from './block-model.js';
import { MAX_BLOCK_MODULES } from './block-raw.js';
import { MAX_MODULE_BLOCKS, checkLanes } from './block-profile.js';
import { describeValue, fail } from './errors.js';
import { type Obj, readArray, readEnum, readInteger, readNullableInteger, readObject, readString } from './fields.js';
import { STAGES, type StageName } from './stages.js';
import { putUint } from './varint-write.js';
import { ByteReader } from './varint.js';

/** Longest embedded source file (characters). */
export const MAX_SOURCE_CHARS = 16 * 1024 * 1024;
/** Longest block disassembly or function name (characters). */
const MAX_TEXT_CHARS = 64 * 1024;
const U32_MAX = 0xffffffff;
const STAGE_NAMES = STAGES.map((s) => s.name);

function countBytes(values: Float64Array): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  let p = 0;
  for (const v of values) p = putUint(out, p, v);
  return out.slice(0, p);
}

/** The profile as the file stores it (msgpack-ready: plain objects, byte strings). */
export function storedBlocks(profile: BlockProfile): object {
  return storedWith(profile, countBytes);
}

/** The profile in the JSON import format: the .wtrace's form with each row's counters as arrays of numbers. */
export function jsonBlocks(profile: BlockProfile): object {
  return storedWith(profile, (values) => Array.from(values));
}

/**
 * A JSON import file's `blocks`: the counters' arrays become the .wtrace's byte strings, and the .wtrace's reader
 * checks everything (one set of checks for both formats).
 */
export function readJsonBlocks(value: unknown, drawCount: number): BlockProfile {
  const o = readObject(value, 'blocks');
  const rows = readArray(o, 'rows', 'blocks', MAX_JSON_ROWS).map((row, r) => {
    const ro = readObject(row, `blocks.rows[${r}]`);
    const modules = readArray(ro, 'modules', `blocks.rows[${r}]`, MAX_BLOCK_MODULES).map((c, k) => {
      const field = `blocks.rows[${r}].modules[${k}]`;
      const co = readObject(c, field);
      const counts = (key: string) => countBytes(Float64Array.from(readArray(co, key, field, MAX_MODULE_BLOCKS), (v, b) => jsonCount(v, `${field}.${key}[${b}]`)));
      return { ...co, executions: counts('executions'), lanes: counts('lanes'), ticks: counts('ticks') };
    });
    return { ...ro, modules };
  });
  return readBlockProfile({ ...o, rows }, drawCount, 'blocks');
}

/** Rows a JSON import file may hold: one per draw at most. */
const MAX_JSON_ROWS = 10_000_000;

function jsonCount(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail('bad-value', field, `expected a count (a whole number from 0 to 2^53 - 1), got ${describeValue(v)}`);
  return v;
}

function storedWith(profile: BlockProfile, counts: (values: Float64Array) => Uint8Array | number[]): object {
  return {
    subgroupSize: profile.subgroupSize,
    dropped: profile.dropped,
    unprofiledDraws: profile.unprofiledDraws,
    modules: profile.modules.map((m) => ({
      name: m.name,
      stages: m.stages,
      per: m.per,
      clock: m.clock,
      blocks: m.blocks.map((b) => ({ function: b.function, file: b.file, line: b.line, column: b.column, text: b.text })),
      sources: m.sources.map((s) => ({ file: s.file, text: s.text })),
    })),
    rows: profile.rows.map((r) => ({
      draw: r.draw,
      modules: r.modules.map((c) => ({ module: c.module, executions: counts(c.executions), lanes: counts(c.lanes), ticks: counts(c.ticks) })),
    })),
  };
}

function nullableString(o: Obj, key: string, field: string, max: number): string | null {
  return o[key] === undefined || o[key] === null ? null : readString(o, key, field, max);
}

function readSite(value: unknown, field: string): BlockSite {
  const o = readObject(value, field);
  const line = readNullableInteger(o, 'line', field, 0, U32_MAX);
  const file = nullableString(o, 'file', field, MAX_TEXT_CHARS);
  // Line information names its file (OpLine, DebugLine): one without the other is no location.
  if ((line === null) !== (file === null)) fail('bad-value', `${field}.line`, 'a block has both a file and a line, or neither');
  return {
    function: readString(o, 'function', field, MAX_TEXT_CHARS),
    file,
    line,
    column: readNullableInteger(o, 'column', field, 0, U32_MAX),
    text: nullableString(o, 'text', field, MAX_TEXT_CHARS),
  };
}

function readModule(value: unknown, field: string): BlockModule {
  const o = readObject(value, field);
  const stages = readArray(o, 'stages', field, STAGE_NAMES.length).map((s, k) => {
    if (typeof s !== 'string' || !(STAGE_NAMES as readonly string[]).includes(s)) fail('bad-value', `${field}.stages[${k}]`, `expected a stage name, got ${describeValue(s)}`);
    return s as StageName;
  });
  return {
    name: readString(o, 'name', field),
    stages,
    per: readEnum(o, 'per', field, BLOCK_COUNTINGS),
    clock: readEnum(o, 'clock', field, BLOCK_CLOCKS),
    blocks: readArray(o, 'blocks', field, MAX_MODULE_BLOCKS).map((b, k) => readSite(b, `${field}.blocks[${k}]`)),
    sources: readArray(o, 'sources', field, MAX_MODULE_BLOCKS).map((s, k): SourceText => {
      const f = `${field}.sources[${k}]`;
      const so = readObject(s, f);
      return { file: readString(so, 'file', f, MAX_TEXT_CHARS), text: readString(so, 'text', f, MAX_SOURCE_CHARS) };
    }),
  };
}

/** `n` counts from a varint byte string; its size is checked before the column is allocated. */
function readCounts(o: Obj, key: string, field: string, n: number): Float64Array {
  const bytes = o[key];
  if (!(bytes instanceof Uint8Array)) return fail('bad-type', `${field}.${key}`, `expected binary data, got ${describeValue(bytes)}`);
  // Each varint takes 1 to 8 bytes.
  if (bytes.length < n || bytes.length > n * 8) fail('size-mismatch', `${field}.${key}`, `${bytes.length} bytes cannot hold exactly ${n} counts`);
  const out = new Float64Array(n);
  const reader = new ByteReader(bytes, `${field}.${key}`);
  for (let b = 0; b < n; b++) out[b] = reader.uint();
  if (!reader.atEnd) fail('size-mismatch', `${field}.${key}`, `${reader.remaining} bytes left after ${n} counts`);
  return out;
}

function readRow(value: unknown, field: string, modules: readonly BlockModule[], drawCount: number, subgroupSize: number): BlockRow {
  const o = readObject(value, field);
  const draw = readInteger(o, 'draw', field, 0, drawCount - 1);
  const seen = new Set<number>();
  const counts = readArray(o, 'modules', field, modules.length).map((c, k): BlockCounts => {
    const f = `${field}.modules[${k}]`;
    const co = readObject(c, f);
    const module = readInteger(co, 'module', f, 0, modules.length - 1);
    if (seen.has(module)) fail('bad-value', `${f}.module`, `module ${module} appears twice in one row`);
    seen.add(module);
    const n = (modules[module] as BlockModule).blocks.length;
    const out = { module, executions: readCounts(co, 'executions', f, n), lanes: readCounts(co, 'lanes', f, n), ticks: readCounts(co, 'ticks', f, n) };
    checkLanes(out.executions, out.lanes, subgroupSize, f);
    return out;
  });
  return { draw, modules: counts };
}

/** A stored profile read back (`drawCount`: the trace's draws, which rows refer to). */
export function readBlockProfile(value: unknown, drawCount: number, field = 'blocks'): BlockProfile {
  const o = readObject(value, field);
  const subgroupSize = readInteger(o, 'subgroupSize', field, 1, 128);
  const modules = readArray(o, 'modules', field, MAX_BLOCK_MODULES).map((m, k) => readModule(m, `${field}.modules[${k}]`));
  const rows = readArray(o, 'rows', field, drawCount).map((r, k) => readRow(r, `${field}.rows[${k}]`, modules, drawCount, subgroupSize));
  rows.forEach((r, k) => {
    if (k > 0 && r.draw <= (rows[k - 1] as BlockRow).draw) fail('bad-value', `${field}.rows[${k}].draw`, 'rows are in strictly ascending draw order');
  });
  return {
    subgroupSize,
    dropped: readInteger(o, 'dropped', field, 0, U32_MAX),
    unprofiledDraws: readInteger(o, 'unprofiledDraws', field, 0, drawCount),
    modules,
    rows,
  };
}
