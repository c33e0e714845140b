/**
 * Ray events in a .wtrace body and in the JSON import format (README
 * "`.wtrace`": the `rayEvents` key, written only when a trace has them):
 * one map per row, each event's per-cell counts as a LEB128 byte string
 * (.wtrace) or an array of numbers (JSON), the totals as numbers. The grid is
 * not stored: readers bin the launch size again (rayCellGrid). Read back with
 * every field checked (untrusted input), then the profile as a whole
 * (ray-event-check.ts).
 */
import { describeValue, fail } from './errors.js';
import { type Obj, readArray, readBoolean, readInteger, readObject } from './fields.js';
import type { DrawKind } from './model.js';
import { MAX_RAY_CELLS_PER_ROW, U32_MAX, checkRayEventProfile, gridOfRow } from './ray-event-check.js';
import { RAY_EVENTS, type RayEvent, type RayEventProfile, type RayEventRow } from './ray-event-model.js';
import { putU32 } from './varint-write.js';
import { ByteReader } from './varint.js';

/** The profile's fields before its rows, as stored. */
export function storedProfileHead(p: RayEventProfile): object {
  return { cellsPerRow: p.cellsPerRow, dropped: p.dropped, uncountedTraversals: p.uncountedTraversals, unprofiledLaunches: p.unprofiledLaunches };
}

/** A row's fields before its counts, as stored (the counts come last: the JSON writer streams them). */
export function storedRowHead(r: RayEventRow): object {
  const totals = Object.fromEntries(RAY_EVENTS.map((e) => [e, r.totals[e]]));
  return { draw: r.draw, launches: r.launches, launchWidth: r.launchWidth, launchHeight: r.launchHeight, launchDepth: r.launchDepth, mixedSizes: r.mixedSizes, totals };
}

function countBytes(values: Uint32Array): Uint8Array {
  const out = new Uint8Array(values.length * 5);
  let p = 0;
  for (const v of values) p = putU32(out, p, v);
  return out.slice(0, p);
}

function storedWith(profile: RayEventProfile, counts: (values: Uint32Array) => Uint8Array | number[]): object {
  return {
    ...storedProfileHead(profile),
    rows: profile.rows.map((r) => ({ ...storedRowHead(r), counts: Object.fromEntries(RAY_EVENTS.map((e) => [e, counts(r.counts[e])])) })),
  };
}

/** The profile as the .wtrace stores it (msgpack-ready: plain objects, byte strings). */
export function storedRayEvents(profile: RayEventProfile): object {
  return storedWith(profile, countBytes);
}

/** The profile in the JSON import format: the .wtrace's form with each event's counts as an array of numbers. */
export function jsonRayEvents(profile: RayEventProfile): object {
  return storedWith(profile, (values) => Array.from(values));
}

/** Reads `n` counts of one event; its size is checked before the column is allocated. */
type CountReader = (value: unknown, field: string, n: number) => Uint32Array;

function readVarintCounts(value: unknown, field: string, n: number): Uint32Array {
  if (!(value instanceof Uint8Array)) return fail('bad-type', field, `expected binary data, got ${describeValue(value)}`);
  // Each varint takes 1 to 5 bytes.
  if (value.length < n || value.length > n * 5) fail('size-mismatch', field, `${value.length} bytes cannot hold exactly ${n} counts`);
  const out = new Uint32Array(n);
  const reader = new ByteReader(value, field);
  for (let c = 0; c < n; c++) out[c] = reader.u32();
  if (!reader.atEnd) fail('size-mismatch', field, `${reader.remaining} bytes left after ${n} counts`);
  return out;
}

function readArrayCounts(value: unknown, field: string, n: number): Uint32Array {
  if (!Array.isArray(value)) return fail('bad-type', field, `expected an array, got ${describeValue(value)}`);
  if (value.length !== n) fail('size-mismatch', field, `${value.length} counts, but the row's grid has ${n} cells`);
  const out = new Uint32Array(n);
  for (let c = 0; c < n; c++) {
    const v: unknown = value[c];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > U32_MAX) fail('bad-value', `${field}[${c}]`, `expected a count from 0 to ${U32_MAX}, got ${describeValue(v)}`);
    out[c] = v;
  }
  return out;
}

function readRow(value: unknown, field: string, cellsPerRow: number, drawCount: number, readCounts: CountReader): RayEventRow {
  const o = readObject(value, field);
  const shape = {
    launches: readInteger(o, 'launches', field, 0, U32_MAX),
    launchWidth: readInteger(o, 'launchWidth', field, 0, U32_MAX),
    launchHeight: readInteger(o, 'launchHeight', field, 0, U32_MAX),
    launchDepth: readInteger(o, 'launchDepth', field, 0, U32_MAX),
    mixedSizes: readBoolean(o, 'mixedSizes', field),
  };
  const grid = gridOfRow(shape, cellsPerRow);
  const totalsObj = readObject(o['totals'], `${field}.totals`);
  const countsObj = readObject(o['counts'], `${field}.counts`);
  const totals = {} as Record<RayEvent, number>;
  const counts = {} as Record<RayEvent, Uint32Array>;
  for (const event of RAY_EVENTS) {
    totals[event] = readInteger(totalsObj, event, `${field}.totals`, 0, Number.MAX_SAFE_INTEGER);
    counts[event] = readCounts(countsObj[event], `${field}.counts.${event}`, grid?.cells ?? 0);
  }
  return { draw: readInteger(o, 'draw', field, 0, Math.max(0, drawCount - 1)), ...shape, grid, counts, totals };
}

function readProfile(value: unknown, draws: readonly { readonly kind: DrawKind }[], field: string, readCounts: CountReader): RayEventProfile {
  const o: Obj = readObject(value, field);
  const cellsPerRow = readInteger(o, 'cellsPerRow', field, 1, MAX_RAY_CELLS_PER_ROW);
  const profile: RayEventProfile = {
    cellsPerRow,
    dropped: readInteger(o, 'dropped', field, 0, U32_MAX),
    uncountedTraversals: readInteger(o, 'uncountedTraversals', field, 0, U32_MAX),
    unprofiledLaunches: readInteger(o, 'unprofiledLaunches', field, 0, draws.length),
    rows: readArray(o, 'rows', field, draws.length).map((r, k) => readRow(r, `${field}.rows[${k}]`, cellsPerRow, draws.length, readCounts)),
  };
  checkRayEventProfile(profile, draws, field);
  return profile;
}

/** A .wtrace's `rayEvents` read back (`draws`: the trace's, which rows refer to). */
export function readRayEventProfile(value: unknown, draws: readonly { readonly kind: DrawKind }[], field = 'rayEvents'): RayEventProfile {
  return readProfile(value, draws, field, readVarintCounts);
}

/** A JSON import file's `rayEvents`: the .wtrace's form with arrays for byte strings, checked the same way. */
export function readJsonRayEvents(value: unknown, draws: readonly { readonly kind: DrawKind }[]): RayEventProfile {
  return readProfile(value, draws, 'rayEvents', readArrayCounts);
}
