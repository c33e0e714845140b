/**
 * The sortable draw table of the statistics panel: its columns, which are
 * shown by default, and sorting (nulls last whatever the direction, ties
 * by draw index). Pure: no DOM.
 */
import type { DrawSummary } from '../../analysis/summary.js';

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
  for (const s of stages) cols.push({ id: `stage:${s}`, title: `${s} time`, numeric: true, byDefault: false });
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
