/**
 * The .wtraw ray-event section (README "Ray events", ray-event-layout.ts):
 * the metadata's `rayEvents` key and the section's bytes, checked against
 * each other before anything is allocated, read into the model's
 * RayEventProfile. The counts are copies (the section interleaves a cell's
 * eight counters; the model holds one Uint32Array per event), so the profile
 * never refers to the file's buffer, shared memory included.
 */
import { describeValue, fail } from './errors.js';
import { readArray, readInteger, readObject } from './fields.js';
import type { DrawKind } from './model.js';
import { RAY_CELL_BYTES, RAY_CELL_WORDS, RAY_ROW_HEADER_WORDS, RayCellWord, RayRowHeaderWord } from './ray-event-layout.js';
import { RAY_EVENTS, type RayEvent, type RayEventProfile, type RayEventRow } from './ray-event-model.js';
import { MAX_RAY_CELLS_PER_ROW, U32_MAX, cellProblem, checkRowDraw, gridOfRow, rawCellsOfRow } from './ray-event-check.js';

/** Largest ray-event section accepted (bytes): 32 rows of a million cells, small enough to never exhaust memory. */
export const MAX_RAY_EVENT_BYTES = 1024 * 1024 * 1024;
/** A row header's bytes in the section. */
export const RAY_ROW_HEADER_BYTES = RAY_ROW_HEADER_WORDS * 4;

const FIELD = 'metadata.rayEvents';

/** The metadata's `rayEvents` key, as far as it can be checked without the section. */
interface RayEventMetadata {
  readonly cellsPerRow: number;
  readonly dropped: number;
  readonly uncountedTraversals: number;
  readonly unprofiledLaunches: number;
  /** In the section's order. */
  readonly rows: readonly { readonly draw: number; readonly cells: number }[];
}

function readRayEventMetadata(value: unknown, draws: readonly { readonly kind: DrawKind }[]): RayEventMetadata {
  const o = readObject(value, FIELD);
  const cellsPerRow = readInteger(o, 'cellsPerRow', FIELD, 1, MAX_RAY_CELLS_PER_ROW);
  const seen = new Set<number>();
  const rows = readArray(o, 'rows', FIELD, draws.length).map((r, i) => {
    const f = `${FIELD}.rows[${i}]`;
    const ro = readObject(r, f);
    const draw = readInteger(ro, 'draw', f, 0, draws.length - 1);
    checkRowDraw(draw, draws, `${f}.draw`);
    if (seen.has(draw)) fail('bad-value', `${f}.draw`, `draw ${draw} has a row already`);
    seen.add(draw);
    return { draw, cells: readInteger(ro, 'cells', f, 0, cellsPerRow) };
  });
  return {
    cellsPerRow,
    dropped: readInteger(o, 'dropped', FIELD, 0, U32_MAX),
    uncountedTraversals: readInteger(o, 'uncountedTraversals', FIELD, 0, U32_MAX),
    unprofiledLaunches: readInteger(o, 'unprofiledLaunches', FIELD, 0, draws.length),
    rows,
  };
}

type RowHead = Pick<RayEventRow, 'draw' | 'launches' | 'launchWidth' | 'launchHeight' | 'launchDepth' | 'mixedSizes'>;

/** A row header as read back: launches and the max / min launch sizes the GPU folded in (`field`: the row). */
function readRowHeader(view: DataView, at: number, draw: number, field: string): RowHead {
  const word = (w: number) => view.getUint32(at + w * 4, true);
  const launches = word(RayRowHeaderWord.LAUNCHES);
  const names = ['Width', 'Height', 'Depth'] as const;
  const max = [word(RayRowHeaderWord.MAX_WIDTH), word(RayRowHeaderWord.MAX_HEIGHT), word(RayRowHeaderWord.MAX_DEPTH)];
  const min = [word(RayRowHeaderWord.MIN_WIDTH), word(RayRowHeaderWord.MIN_HEIGHT), word(RayRowHeaderWord.MIN_DEPTH)];
  if (launches === 0) {
    // Untouched since the host wrote it: no launch, no size.
    names.forEach((name, k) => {
      if (max[k] !== 0) fail('bad-value', `${field}.max${name}`, `${max[k]}, but no launch counted into the row (the host writes 0)`);
      if (min[k] !== U32_MAX) fail('bad-value', `${field}.min${name}`, `${min[k]}, but no launch counted into the row (the host writes ${U32_MAX})`);
    });
    return { draw, launches, launchWidth: 0, launchHeight: 0, launchDepth: 0, mixedSizes: false };
  }
  names.forEach((name, k) => {
    if ((min[k] as number) < 1 || (min[k] as number) > (max[k] as number)) fail('bad-value', `${field}.min${name}`, `${min[k]}, the largest is ${max[k]}: LaunchSizeKHR is 1 or more`);
  });
  const mixedSizes = names.some((_, k) => min[k] !== max[k]);
  if (mixedSizes && launches < 2) fail('bad-value', `${field}.launches`, `1, but launches of sizes ${min.join(' × ')} to ${max.join(' × ')} counted into the row`);
  const [launchWidth, launchHeight, launchDepth] = max as [number, number, number];
  if (!mixedSizes && launchWidth * launchHeight * launchDepth > U32_MAX) fail('bad-value', `${field}.maxWidth`, `${max.join(' × ')} is more than 2^32 - 1 invocations`);
  return { draw, launches, launchWidth, launchHeight, launchDepth, mixedSizes };
}

/** A row's cells, one column per event when it has a grid; totals either way (every cell checked; `field`: the row). */
function readRowCells(view: DataView, at: number, cells: number, keep: boolean, field: string): Pick<RayEventRow, 'counts' | 'totals'> {
  const columns = RAY_EVENTS.map(() => new Uint32Array(keep ? cells : 0));
  const sums = new Float64Array(RAY_EVENTS.length);
  const cell = new Uint32Array(RAY_CELL_WORDS);
  for (let c = 0; c < cells; c++) {
    const base = at + c * RAY_CELL_BYTES;
    for (let w = 0; w < RAY_CELL_WORDS; w++) {
      const v = view.getUint32(base + w * 4, true);
      cell[w] = v;
      sums[w] = (sums[w] as number) + v;
      if (keep) (columns[w] as Uint32Array)[c] = v;
    }
    const problem = cellProblem(cell[RayCellWord.ANY_HITS] as number, cell[RayCellWord.ANY_HITS_IGNORED] as number, cell[RayCellWord.USELESS_ANY_HITS] as number);
    if (problem !== null) fail('bad-value', `${field}.cells[${c}].${problem.event}`, problem.detail);
  }
  const counts = {} as Record<RayEvent, Uint32Array>;
  const totals = {} as Record<RayEvent, number>;
  RAY_EVENTS.forEach((event, w) => {
    counts[event] = columns[w] as Uint32Array;
    const sum = sums[w] as number;
    // 2^53 events in one row is years of GPU time: a larger sum is no count (and no exact double).
    if (sum > Number.MAX_SAFE_INTEGER) fail('bad-value', `${field}.cells`, `${event} sum to ${describeValue(sum)}, past 2^53`);
    totals[event] = sum;
  });
  return { counts, totals };
}

/**
 * The ray-event section of a .wtraw: `section` the RAY_EVENT_BYTES after the
 * block section (empty when none), `rayEvents` the metadata's key, `draws`
 * the dump's draws. Null when the file has neither; a section without the
 * key, or a key with rows without a section, is refused.
 */
export function readRayEventSection(section: Uint8Array, rayEvents: unknown, draws: readonly { readonly kind: DrawKind }[]): RayEventProfile | null {
  if (rayEvents === undefined || rayEvents === null) {
    if (section.length !== 0) fail('bad-value', FIELD, `missing, but header.rayEventBytes declares a ${section.length}-byte ray-event section`);
    return null;
  }
  const meta = readRayEventMetadata(rayEvents, draws);
  // No rows (no trace-rays call got one) take no bytes: the key alone still says what was lost.
  if (section.length === 0 && meta.rows.length > 0) fail('bad-value', 'header.rayEventBytes', `0, but ${FIELD} describes ${meta.rows.length} rows`);
  const expected = meta.rows.reduce((sum, r) => sum + RAY_ROW_HEADER_BYTES + r.cells * RAY_CELL_BYTES, 0);
  if (section.length !== expected) {
    fail('size-mismatch', 'header.rayEventBytes', `${section.length} bytes, but ${FIELD} describes ${expected} (per row ${RAY_ROW_HEADER_BYTES} header bytes, then its cells of ${RAY_CELL_BYTES})`);
  }
  const view = new DataView(section.buffer, section.byteOffset, section.byteLength);
  let at = 0;
  const rows = meta.rows.map((r, i): RayEventRow => {
    const head = readRowHeader(view, at, r.draw, `rayEvents.rows[${i}]`);
    at += RAY_ROW_HEADER_BYTES;
    const cells = rawCellsOfRow(head, meta.cellsPerRow);
    if (r.cells !== cells) {
      const what = head.launches === 0 ? 'no launch' : head.mixedSizes ? `${head.launches} launches of different sizes (every cell)` : `${head.launches} launches of ${head.launchWidth} × ${head.launchHeight} × ${head.launchDepth}`;
      fail('bad-value', `${FIELD}.rows[${i}].cells`, `${r.cells}, but its header says ${what}: ${cells} cells of ${meta.cellsPerRow} per row`);
    }
    const grid = gridOfRow(head, meta.cellsPerRow);
    const counted = readRowCells(view, at, cells, grid !== null, `rayEvents.rows[${i}]`);
    at += cells * RAY_CELL_BYTES;
    return { ...head, grid, ...counted };
  });
  const { cellsPerRow, dropped, uncountedTraversals, unprofiledLaunches } = meta;
  return { cellsPerRow, dropped, uncountedTraversals, unprofiledLaunches, rows: [...rows].sort((a, b) => a.draw - b.draw) };
}
