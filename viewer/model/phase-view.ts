/**
 * The phases panel's view model (<wt-phases-panel>): the phases of the
 * scope (the selected draw, else the selected warp's draw, else every draw:
 * block-view.ts's blockScope) out of analysis/marks.ts's table of every
 * draw, why there are none, its columns and their sorting. Pure: no DOM.
 */
import type { PhaseStat, PhaseTable } from '../../analysis/marks.js';
import type { Trace } from '../../shared-schema/index.js';
import { formatInteger, type BlockScope } from './block-view.js';

/** The rows of the scope, in the table's order (by draw, stage, then where the phase starts in its warps). */
export function scopePhases(table: PhaseTable, scope: BlockScope): readonly PhaseStat[] {
  return scope.kind === 'all' ? table.phases : table.phases.filter((p) => p.draw === scope.draw);
}

/** Warps with marks among the phases (each such warp has exactly one phase from its start). */
export function warpsWithMarks(phases: readonly PhaseStat[]): number {
  let n = 0;
  for (const p of phases) if (p.from === null) n += p.warps;
  return n;
}

/** The panel's header: which draws, and why those. */
export function phaseScopeTitle(trace: Trace, scope: BlockScope, table: PhaseTable): string {
  if (scope.kind === 'all') {
    const draws = new Set(table.phases.map((p) => p.draw)).size;
    return `All draws (${formatInteger(draws)} with marks; no draw or warp selected)`;
  }
  const label = trace.draws[scope.draw]?.label ?? '';
  const named = label === '' ? `Draw ${scope.draw}` : `Draw ${scope.draw} · ${label}`;
  return `${named} (${scope.via === 'draw' ? 'the selected draw' : "the selected warp's draw"})`;
}

/** Why the scope shows no phases (null: it has some). */
export function phaseAbsence(trace: Trace, scope: BlockScope, rows: number): string | null {
  if ((trace.marks?.count ?? 0) === 0) return 'This trace has no marks: add wtMark(id) to a shader, or capture with warptrace instrument --marks, to see its phases.';
  if (rows > 0) return null;
  if (scope.kind === 'all') return 'No warp of this trace has marks.';
  const untraced = trace.draws[scope.draw]?.untraced ?? null;
  if (untraced !== null) return `Draw ${scope.draw} ran untraced (${untraced}): it has no warps and no marks.`;
  return `No warp of draw ${scope.draw} passed a mark.`;
}

export type PhaseColumnId = 'order' | 'draw' | 'stage' | 'phase' | 'warps' | 'mean' | 'p50' | 'max' | 'lanes' | 'share';

export interface PhaseColumn {
  readonly id: PhaseColumnId;
  readonly title: string;
  readonly numeric: boolean;
  /** Shown only for all draws. */
  readonly allDrawsOnly: boolean;
}

/** The table's columns ('order', the table's own order, has no header: it is the default sort). */
export const PHASE_COLUMNS: readonly PhaseColumn[] = [
  { id: 'draw', title: 'Draw', numeric: true, allDrawsOnly: true },
  { id: 'stage', title: 'Stage', numeric: false, allDrawsOnly: false },
  { id: 'phase', title: 'Phase', numeric: false, allDrawsOnly: false },
  { id: 'warps', title: 'Warps', numeric: true, allDrawsOnly: false },
  { id: 'mean', title: 'Mean', numeric: true, allDrawsOnly: false },
  { id: 'p50', title: 'p50', numeric: true, allDrawsOnly: false },
  { id: 'max', title: 'Max', numeric: true, allDrawsOnly: false },
  { id: 'lanes', title: 'Lanes', numeric: true, allDrawsOnly: false },
  { id: 'share', title: 'Share', numeric: true, allDrawsOnly: false },
];

export interface PhaseSort {
  readonly column: PhaseColumnId;
  readonly descending: boolean;
}

/** The table's order: draw, stage, then phases as they come in their warps. */
export const DEFAULT_PHASE_SORT: PhaseSort = { column: 'order', descending: false };

/** Clicking a header: the same column reverses, another starts descending (numbers: largest first) or ascending (text). */
export function nextPhaseSort(current: PhaseSort, column: PhaseColumnId): PhaseSort {
  if (current.column === column) return { column, descending: !current.descending };
  const text = column === 'stage' || column === 'phase' || column === 'draw' || column === 'order';
  return { column, descending: !text };
}

function sortValue(p: PhaseStat, column: PhaseColumnId, k: number): number | string {
  switch (column) {
    case 'order':
      return k;
    case 'draw':
      return p.draw;
    case 'stage':
      return p.stageName;
    case 'phase':
      return p.label;
    case 'warps':
      return p.warps;
    case 'mean':
      return p.meanNs;
    case 'p50':
      return p.p50Ns;
    case 'max':
      return p.maxNs;
    case 'lanes':
      return p.meanLiveLanes;
    case 'share':
      return p.share;
  }
}

/** The rows sorted (stable: ties keep the table's order). */
export function sortPhases(phases: readonly PhaseStat[], sort: PhaseSort): PhaseStat[] {
  const sign = sort.descending ? -1 : 1;
  const keyed = phases.map((p, k) => ({ p, k, v: sortValue(p, sort.column, k) }));
  keyed.sort((a, b) => {
    const c = typeof a.v === 'string' ? a.v.localeCompare(b.v as string) : a.v - (b.v as number);
    return c !== 0 ? sign * c : a.k - b.k;
  });
  return keyed.map((e) => e.p);
}
