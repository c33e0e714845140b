/**
 * The sortable draw table of the statistics panel: its columns, which are
 * shown by default, and sorting (nulls last whatever the direction, ties
 * by draw index). Pure: no DOM.
 */
import type { DrawSummary } from '../../analysis/summary.js';
import { stageLabelOf } from '../../shared-schema/stages.js';

export type DrawColumnId = 'index' | 'label' | 'pass' | 'start' | 'span' | 'warps' | 'warpTime' | 'hidden' | 'gapBefore' | 'idle' | `stage:${string}`;

export interface DrawColumn {
  readonly id: DrawColumnId;
  readonly title: string;
  readonly numeric: boolean;
  /** Shown without asking for all columns. */
  readonly byDefault: boolean;
}

export interface DrawSort {
  readonly column: DrawColumnId;
  readonly descending: boolean;
}

export const BASE_COLUMNS: readonly DrawColumn[] = [
  { id: 'index', title: 'Draw', numeric: true, byDefault: true },
  { id: 'label', title: 'Label', numeric: false, byDefault: true },
  { id: 'pass', title: 'Pass', numeric: false, byDefault: true },
  { id: 'start', title: 'Start', numeric: true, byDefault: false },
  { id: 'span', title: 'Span', numeric: true, byDefault: true },
  { id: 'warps', title: 'Warps', numeric: true, byDefault: false },
  { id: 'warpTime', title: 'Warp-time', numeric: true, byDefault: true },
  { id: 'hidden', title: 'Hidden', numeric: true, byDefault: false },
  { id: 'gapBefore', title: 'Gap before', numeric: true, byDefault: false },
  { id: 'idle', title: 'SMs idle', numeric: true, byDefault: false },
];

/** The columns: base ones (pass only with `hasPasses`), then warp-time per stage present, all or the default ones. */
export function drawColumns(draws: readonly DrawSummary[], hasPasses: boolean, all: boolean): DrawColumn[] {
  const stages = new Set<string>();
  for (const d of draws) for (const s of d.stages) stages.add(s.stage);
  const cols = BASE_COLUMNS.filter((c) => c.id !== 'pass' || hasPasses);
  for (const s of stages) cols.push({ id: `stage:${s}`, title: `${stageLabelOf(s)} time`, numeric: true, byDefault: false });
  return all ? cols : cols.filter((c) => c.byDefault);
}

/** A cell's sort value: number, string or null (sorts last). */
export function drawCellValue(d: DrawSummary, column: DrawColumnId, passOf: (draw: number) => string | null): number | string | null {
  switch (column) {
    case 'index':
      return d.index;
    case 'label':
      return d.label;
    case 'pass':
      return passOf(d.index);
    case 'start':
      return d.firstStartNs;
    case 'span':
      return d.spanNs;
    case 'warps':
      return d.warps;
    case 'warpTime':
      return d.warpTimeNs;
    case 'hidden':
      return d.hiddenShare;
    case 'gapBefore':
      return d.gapBeforeNs;
    case 'idle':
      return d.idleNs;
    default: {
      const stage = column.slice('stage:'.length);
      return d.stages.find((s) => s.stage === stage)?.totalNs ?? null;
    }
  }
}

/** Draw summaries in the sort's order (a new array). */
export function sortDraws(draws: readonly DrawSummary[], sort: DrawSort, passOf: (draw: number) => string | null = () => null): DrawSummary[] {
  const keyed = draws.map((d) => ({ d, v: drawCellValue(d, sort.column, passOf) }));
  const sign = sort.descending ? -1 : 1;
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? a.d.index - b.d.index : a.v === null ? 1 : -1;
    const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : String(a.v).localeCompare(String(b.v));
    return c !== 0 ? sign * c : a.d.index - b.d.index;
  });
  return keyed.map((k) => k.d);
}

/** Clicking a column header: the same column flips direction; a new one starts descending for numbers, ascending for text. */
export function nextSort(current: DrawSort, column: DrawColumn): DrawSort {
  if (current.column === column.id) return { column: column.id, descending: !current.descending };
  return { column: column.id, descending: column.numeric && column.id !== 'index' && column.id !== 'start' };
}

/** What narrows the draws table: the find box's matches, the selected time range, a pass. */
export interface DrawFilter {
  /** Draw indices matching the find box, ascending; null: no find filter. */
  readonly matches: Uint32Array | null;
  /** Only draws whose warp span meets this range (closed); null: any time. */
  readonly range: { readonly startNs: number; readonly endNs: number } | null;
  /** passMask[d] = 1 for the draws of the chosen pass; null: every pass. */
  readonly passMask: Uint8Array | null;
}

export const NO_DRAW_FILTER: DrawFilter = { matches: null, range: null, passMask: null };

/** The draws that pass every filter, in their order. */
export function filterDraws(draws: readonly DrawSummary[], f: DrawFilter): DrawSummary[] {
  if (f.matches === null && f.range === null && f.passMask === null) return draws as DrawSummary[];
  let inFind: Uint8Array | null = null;
  if (f.matches !== null) {
    inFind = new Uint8Array(draws.length);
    for (const d of f.matches) if (d < inFind.length) inFind[d] = 1;
  }
  const lo = f.range === null ? 0 : Math.min(f.range.startNs, f.range.endNs);
  const hi = f.range === null ? 0 : Math.max(f.range.startNs, f.range.endNs);
  return draws.filter(
    (d) =>
      (inFind === null || inFind[d.index] === 1) &&
      (f.passMask === null || f.passMask[d.index] === 1) &&
      (f.range === null || (d.firstStartNs !== null && d.lastEndNs !== null && d.firstStartNs <= hi && d.lastEndNs >= lo)),
  );
}

/**
 * `[` / `]` (or ↑ / ↓) in the table: the draw `delta` rows from `current` in the
 * table's order; from none (or a draw not in the table), the first (]) or last ([) row.
 * -1 when the table is empty or the step runs off its end.
 */
export function stepRow(rows: readonly DrawSummary[], current: number, delta: number): number {
  if (rows.length === 0) return -1;
  const at = rows.findIndex((d) => d.index === current);
  if (at < 0) return (delta > 0 ? rows[0] : rows[rows.length - 1])!.index;
  return rows[at + delta]?.index ?? -1;
}
