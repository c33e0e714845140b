/**
 * The checks every ray-event profile passes (README "Ray events"), whichever
 * format it came from: the .wtraw decoder builds only profiles that pass them,
 * the .wtrace and JSON readers refuse any other, and the writers refuse to
 * write one their readers would refuse.
 */
import { describeValue, fail } from './errors.js';
import type { DrawKind } from './model.js';
import { rayCellGrid, type RayCellGrid } from './ray-event-layout.js';
import { RAY_EVENTS, type RayEvent, type RayEventProfile, type RayEventRow } from './ray-event-model.js';

/** Largest cells per row accepted: a 4096 × 4096 launch unbinned, far above a real table, small enough to allocate. */
export const MAX_RAY_CELLS_PER_ROW = 1 << 24;
export const U32_MAX = 0xffffffff;

/** What the grid of a row depends on. */
export type RowShape = Pick<RayEventRow, 'launches' | 'launchWidth' | 'launchHeight' | 'launchDepth' | 'mixedSizes'>;

/** How a row's cells are laid out: null when launches of different sizes shared it, none counted, or its launch fit no row. */
export function gridOfRow(row: RowShape, cellsPerRow: number): RayCellGrid | null {
  if (row.launches === 0 || row.mixedSizes) return null;
  return rayCellGrid(row.launchWidth, row.launchHeight, row.launchDepth, cellsPerRow);
}

/** Cells a row holds in the .wtraw section: its grid's, all of a row launches of different sizes shared, none otherwise. */
export function rawCellsOfRow(row: RowShape, cellsPerRow: number): number {
  return row.mixedSizes ? cellsPerRow : (gridOfRow(row, cellsPerRow)?.cells ?? 0);
}

/**
 * Which event of a cell no GPU could have counted: an any-hit ignores its
 * hit or accepts it, and only an accepted one can be useless.
 */
export function cellProblem(anyHits: number, ignored: number, useless: number): { readonly event: RayEvent; readonly detail: string } | null {
  if (ignored > anyHits) return { event: 'anyHitsIgnored', detail: `${ignored} any-hits ignored of ${anyHits} any-hit invocations` };
  if (useless > anyHits - ignored) return { event: 'uselessAnyHits', detail: `${useless} useless any-hits, but only ${anyHits - ignored} of ${anyHits} any-hits accepted their hit` };
  return null;
}

/** Refuses launch sizes no launch or row header could have: `field` names the row. */
function checkSizes(row: RayEventRow, field: string): void {
  const sizes = [row.launchWidth, row.launchHeight, row.launchDepth];
  if (row.launches === 0) {
    if (row.mixedSizes) fail('bad-value', `${field}.mixedSizes`, 'a row no launch counted into has no sizes to differ');
    if (sizes.some((s) => s !== 0)) fail('bad-value', `${field}.launchWidth`, `${sizes.join(' × ')}, but no launch counted into the row (0 × 0 × 0)`);
    return;
  }
  if (sizes.some((s) => s < 1)) fail('bad-value', `${field}.launchWidth`, `${sizes.join(' × ')}: a launch is at least 1 × 1 × 1`);
  if (row.mixedSizes && row.launches < 2) fail('bad-value', `${field}.mixedSizes`, 'one launch has one size');
  // vkCmdTraceRaysKHR: width × height × depth ≤ maxRayDispatchInvocationCount, a uint32.
  if (!row.mixedSizes && sizes.reduce((p, s) => p * s, 1) > U32_MAX) fail('bad-value', `${field}.launchWidth`, `${sizes.join(' × ')} is more than 2^32 - 1 invocations`);
}

function sameGrid(a: RayCellGrid | null, b: RayCellGrid | null): boolean {
  if (a === null || b === null) return a === b;
  return a.scale === b.scale && a.width === b.width && a.height === b.height && a.depth === b.depth && a.cells === b.cells;
}

function describeGrid(g: RayCellGrid | null): string {
  return g === null ? 'no grid' : `${g.width} × ${g.height} × ${g.depth} cells at scale ${g.scale}`;
}

function isCount(v: number): boolean {
  return Number.isSafeInteger(v) && v >= 0;
}

/** One row: sizes, counts against its grid, cells and totals. */
function checkRow(row: RayEventRow, cellsPerRow: number, field: string): void {
  for (const key of ['launches', 'launchWidth', 'launchHeight', 'launchDepth'] as const) {
    const v = row[key];
    if (!(isCount(v) && v <= U32_MAX)) fail('bad-value', `${field}.${key}`, `expected an integer in [0, ${U32_MAX}], got ${describeValue(v)}`);
  }
  if (typeof row.mixedSizes !== 'boolean') fail('bad-type', `${field}.mixedSizes`, `expected true or false, got ${describeValue(row.mixedSizes)}`);
  checkSizes(row, field);
  const grid = gridOfRow(row, cellsPerRow);
  if (!sameGrid(row.grid, grid)) fail('bad-value', `${field}.grid`, `${describeGrid(row.grid)}, but its launches bin into ${describeGrid(grid)}`);
  const cells = grid?.cells ?? 0;
  for (const event of RAY_EVENTS) {
    const counts = row.counts[event];
    if (!(counts instanceof Uint32Array)) fail('bad-type', `${field}.counts.${event}`, `expected a Uint32Array, got ${describeValue(counts)}`);
    if (counts.length !== cells) fail('size-mismatch', `${field}.counts.${event}`, `${counts.length} cells, but the row's grid has ${cells}`);
  }
  const { anyHits, anyHitsIgnored, uselessAnyHits } = row.counts;
  for (let c = 0; c < cells; c++) {
    const problem = cellProblem(anyHits[c] as number, anyHitsIgnored[c] as number, uselessAnyHits[c] as number);
    if (problem !== null) fail('bad-value', `${field}.counts.${problem.event}[${c}]`, problem.detail);
  }
  for (const event of RAY_EVENTS) {
    const counts = row.counts[event];
    const total = row.totals[event];
    if (!isCount(total)) fail('bad-value', `${field}.totals.${event}`, `expected a count (a whole number from 0 to 2^53 - 1), got ${describeValue(total)}`);
    if (grid !== null) {
      let sum = 0;
      for (let c = 0; c < cells; c++) sum += counts[c] as number;
      if (sum !== total) fail('bad-value', `${field}.totals.${event}`, `${total}, but the cells sum to ${sum}`);
    } else if (!row.mixedSizes && total !== 0) {
      fail('bad-value', `${field}.totals.${event}`, `${total}, but the row counted into no cell`);
    }
  }
  const totalProblem = cellProblem(row.totals.anyHits, row.totals.anyHitsIgnored, row.totals.uselessAnyHits);
  if (totalProblem !== null) fail('bad-value', `${field}.totals.${totalProblem.event}`, totalProblem.detail);
}

/** Refuses a profile no capture could have given for these draws, naming the field. */
export function checkRayEventProfile(profile: RayEventProfile, draws: readonly { readonly kind: DrawKind }[], field = 'rayEvents'): void {
  const { cellsPerRow, dropped, uncountedTraversals, unprofiledLaunches, rows } = profile;
  if (!(Number.isInteger(cellsPerRow) && cellsPerRow >= 1 && cellsPerRow <= MAX_RAY_CELLS_PER_ROW)) {
    fail('bad-value', `${field}.cellsPerRow`, `expected an integer in [1, ${MAX_RAY_CELLS_PER_ROW}], got ${describeValue(cellsPerRow)}`);
  }
  if (!(isCount(dropped) && dropped <= U32_MAX)) fail('bad-value', `${field}.dropped`, `expected an integer in [0, ${U32_MAX}], got ${describeValue(dropped)}`);
  if (!(isCount(uncountedTraversals) && uncountedTraversals <= U32_MAX)) {
    fail('bad-value', `${field}.uncountedTraversals`, `expected an integer in [0, ${U32_MAX}], got ${describeValue(uncountedTraversals)}`);
  }
  if (!(isCount(unprofiledLaunches) && unprofiledLaunches <= draws.length)) {
    fail('bad-value', `${field}.unprofiledLaunches`, `expected an integer in [0, ${draws.length}], got ${describeValue(unprofiledLaunches)}`);
  }
  rows.forEach((row, r) => {
    const f = `${field}.rows[${r}]`;
    checkRowDraw(row.draw, draws, `${f}.draw`);
    if (r > 0 && row.draw <= (rows[r - 1] as RayEventRow).draw) fail('bad-value', `${f}.draw`, 'rows are in strictly ascending draw order');
    checkRow(row, cellsPerRow, f);
  });
}

/** A row's draw: an index into the draws, a trace-rays call. */
export function checkRowDraw(draw: number, draws: readonly { readonly kind: DrawKind }[], field: string): void {
  if (!(Number.isInteger(draw) && draw >= 0 && draw < draws.length)) fail('bad-value', field, `expected a draw index in [0, ${draws.length - 1}], got ${describeValue(draw)}`);
  const kind = (draws[draw] as { kind: DrawKind }).kind;
  if (kind !== 'trace-rays') fail('bad-value', field, `draw ${draw} is a ${kind}, not a trace-rays call`);
}
