/**
 * <wt-phases-panel .trace .table .selectedDraw .selectedWarp>: the time
 * warps spent between their marks (wtMark, instrument --marks;
 * shared-schema README "Marks"): analysis/marks.ts's phase table of the
 * selected draw, else the selected warp's draw, else every draw, one row
 * per (draw,) stage and phase: warps, mean / p50 / max time, mean live
 * lanes at the phase's start, and its share of the stage's warp time.
 * Sortable by each column (again to reverse). `table` is the phase table of
 * every draw, computed off the page (the analysis worker, or the panels'
 * fallback); null while it is under way. Properties down, no events.
 */
import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { PhaseStat, PhaseTable } from '../../analysis/marks.js';
import { formatNs, formatShare } from '../../analysis/format.js';
import { stageLabelOf, type Trace } from '../../shared-schema/index.js';
import { panelStyles } from '../components/shared-styles.js';
import { blockScope, formatInteger, scopeKey, type BlockScope } from '../model/block-view.js';
import {
  DEFAULT_PHASE_SORT,
  PHASE_COLUMNS,
  nextPhaseSort,
  phaseAbsence,
  phaseScopeTitle,
  scopePhases,
  sortPhases,
  warpsWithMarks,
  type PhaseColumn,
  type PhaseSort,
} from '../model/phase-view.js';
import { shaderPanelStyles } from './shader-panel-styles.js';

/** Rows rendered before "Show all" (every draw of a frame can have a few phases per stage). */
export const PHASE_ROWS_SHOWN = 200;

export class WtPhasesPanel extends LitElement {
  static override properties = {
    trace: { attribute: false },
    table: { attribute: false },
    selectedDraw: { attribute: false },
    selectedWarp: { attribute: false },
    sort: { state: true },
    allRows: { state: true },
  };

  static override styles = [panelStyles, shaderPanelStyles];

  declare trace: Trace | null;
  /** The phase table of every draw (null: not computed yet). */
  declare table: PhaseTable | null;
  declare selectedDraw: number;
  declare selectedWarp: number;
  declare sort: PhaseSort;
  declare allRows: boolean;

  private scope: BlockScope = { kind: 'all' };
  private sorted: { table: PhaseTable; scope: string; sort: PhaseSort; rows: PhaseStat[] } | null = null;

  constructor() {
    super();
    this.trace = null;
    this.table = null;
    this.selectedDraw = -1;
    this.selectedWarp = -1;
    this.sort = DEFAULT_PHASE_SORT;
    this.allRows = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const scope = this.trace === null ? ({ kind: 'all' } as const) : blockScope(this.trace, this.selectedDraw, this.selectedWarp);
    if (changed.has('trace') || scopeKey(scope) !== scopeKey(this.scope)) this.allRows = false;
    this.scope = scope;
  }

  private rows(table: PhaseTable): PhaseStat[] {
    const key = scopeKey(this.scope);
    const c = this.sorted;
    if (c !== null && c.table === table && c.scope === key && c.sort === this.sort) return c.rows;
    const rows = sortPhases(scopePhases(table, this.scope), this.sort);
    this.sorted = { table, scope: key, sort: this.sort, rows };
    return rows;
  }

  override render() {
    const trace = this.trace;
    if (trace === null) return html`<p class="muted">Open a trace to see its phases.</p>`;
    const none = phaseAbsence(trace, this.scope, 1);
    if (none !== null) return html`<p class="muted empty" role="status">${none}</p>`;
    const table = this.table;
    if (table === null) return html`<p class="muted" role="status">Measuring phases…</p>`;
    const title = html`<p class="scope" data-scope=${this.scope.kind}>${phaseScopeTitle(trace, this.scope, table)}</p>`;
    const rows = this.rows(table);
    const absence = phaseAbsence(trace, this.scope, rows.length);
    if (absence !== null) return html`${title}<p class="muted empty" role="status">${absence}</p>`;
    const all = this.scope.kind === 'all';
    const columns = PHASE_COLUMNS.filter((c) => all || !c.allDrawsOnly);
    const shown = this.allRows ? rows : rows.slice(0, PHASE_ROWS_SHOWN);
    const orphans = table.orphans > 0 ? html`; ${formatInteger(table.orphans)} ${table.orphans === 1 ? 'mark whose warp is' : 'marks whose warps are'} not in the trace` : nothing;
    return html`${title}
      <p class="muted summary">${formatInteger(rows.length)} phases over ${formatInteger(warpsWithMarks(rows))} warps with marks${orphans}</p>
      <div class="table-wrap">
        <table data-table="phases">
          <thead>
            <tr>
              ${columns.map((c) => this.header(c))}
            </tr>
          </thead>
          <tbody>
            ${shown.map((p) => phaseRow(p, all, trace.device.subgroupSize))}
          </tbody>
        </table>
      </div>
      ${shown.length < rows.length ? html`<button data-action="all-rows" @click=${() => (this.allRows = true)}>Show all ${formatInteger(rows.length)} rows</button>` : nothing}`;
  }

  private header(c: PhaseColumn): TemplateResult {
    const sorted = this.sort.column === c.id;
    const apply = () => (this.sort = nextPhaseSort(this.sort, c.id));
    return html`<th
      class=${c.numeric ? 'num' : ''}
      data-column=${c.id}
      tabindex="0"
      aria-sort=${sorted ? (this.sort.descending ? 'descending' : 'ascending') : 'none'}
      @click=${apply}
      @keydown=${(e: KeyboardEvent) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        apply();
      }}
    >
      ${c.title}${sorted ? (this.sort.descending ? ' ▾' : ' ▴') : nothing}
    </th>`;
  }
}

function phaseRow(p: PhaseStat, all: boolean, subgroupSize: number): TemplateResult {
  const repeats = p.occurrences === p.warps ? '' : ` (${formatInteger(p.occurrences)} times: the phase repeats within warps)`;
  return html`<tr data-phase=${p.label}>
    ${all ? html`<td class="num" data-cell="draw">${p.draw}</td>` : nothing}
    <td data-cell="stage">${stageLabelOf(p.stageName)}</td>
    <td data-cell="phase" title=${p.label}>${p.label}</td>
    <td class="num" data-cell="warps" title=${`${formatInteger(p.warps)} warps${repeats}`}>${formatInteger(p.warps)}</td>
    <td class="num" data-cell="mean">${formatNs(p.meanNs)}</td>
    <td class="num" data-cell="p50">${formatNs(p.p50Ns)}</td>
    <td class="num" data-cell="max">${formatNs(p.maxNs)}</td>
    <td class="num" data-cell="lanes" title=${`mean live lanes of ${subgroupSize} at the phase's start`}>${p.meanLiveLanes.toFixed(1)}</td>
    <td class="num" data-cell="share" title=${`${formatNs(p.totalNs)} of the stage's warp time in the draw`}>${formatShare(p.share)}</td>
  </tr>`;
}

if (!customElements.get('wt-phases-panel')) customElements.define('wt-phases-panel', WtPhasesPanel);

declare global {
  interface HTMLElementTagNameMap {
    'wt-phases-panel': WtPhasesPanel;
  }
}
