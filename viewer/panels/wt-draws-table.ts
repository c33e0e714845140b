/**
 * <wt-draws-table>: the statistics panel's Draws tab (rendered into the
 * panel's shadow root, so the panel's styles apply). Every draw, sortable and
 * virtualized (./draw-table.ts), narrowed by what the rest of the viewer
 * selects: the draw list's find box (`drawMatches`), the selected time range
 * (draws whose warps meet it) and a pass (the app's selected pass, also
 * chosen here: `wt-pass-select` {region}). Find and range can be switched off
 * here; so one pass's draws, or one range's, can be ranked by warp-time.
 * `[` / `]` (and ↑ / ↓) step through the rows in the table's order: select
 * the draw (`wt-draw-select`, the app zooms to it) and keep it in view.
 */
import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { formatNs, formatNumber } from '../../analysis/format.js';
import type { AnalysisSummary, DrawSummary } from '../../analysis/summary.js';
import type { Trace } from '../../shared-schema/index.js';
import { drawColumns, filterDraws, nextSort, sortDraws, stepRow, type DrawSort } from '../model/draw-table.js';
import { passChoices, passDrawMask, validRegion } from '../model/pass-filter.js';
import { TABLE_HEIGHT_PX, TABLE_ROW_PX, renderDrawTable } from './draw-table.js';
import { zoomToEvent } from './zoom-event.js';

export class WtDrawsTable extends LitElement {
  static override properties = {
    summary: { attribute: false },
    trace: { attribute: false },
    selectedDraw: { attribute: false },
    range: { attribute: false },
    drawMatches: { attribute: false },
    selectedPass: { attribute: false },
    drawSort: { state: true },
    allColumns: { state: true },
    tableScroll: { state: true },
    useFind: { state: true },
    useRange: { state: true },
  };

  declare summary: AnalysisSummary | null;
  /** The trace, when given: a pass column and the pass filter from its regions. */
  declare trace: Trace | null;
  declare selectedDraw: number;
  declare range: { readonly startNs: number; readonly endNs: number } | null;
  /** The draw list's find matches (null: no filter). */
  declare drawMatches: Uint32Array | null;
  /** The app's selected pass (-1: none). */
  declare selectedPass: number;
  declare drawSort: DrawSort;
  declare allColumns: boolean;
  declare tableScroll: number;
  /** Whether the find matches and the range narrow the table (they do until switched off). */
  declare useFind: boolean;
  declare useRange: boolean;
  private sorted: { key: readonly unknown[]; rows: DrawSummary[] } | null = null;
  private shown: { key: readonly unknown[]; rows: DrawSummary[] } | null = null;
  private mask: { key: readonly unknown[]; mask: Uint8Array } | null = null;

  constructor() {
    super();
    this.summary = null;
    this.trace = null;
    this.selectedDraw = -1;
    this.range = null;
    this.drawMatches = null;
    this.selectedPass = -1;
    this.drawSort = { column: 'index', descending: false };
    this.allColumns = false;
    this.tableScroll = 0;
    this.useFind = true;
    this.useRange = true;
  }

  /** Rendered into the parent's shadow root: the statistics panel's table styles apply. */
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  private get hasPasses(): boolean {
    return this.trace !== null && this.summary !== null && this.trace.regions.length > 0 && this.trace.draws.length === this.summary.draws.length;
  }

  private get pass(): number | null {
    return this.hasPasses ? validRegion(this.trace!, this.selectedPass) : null;
  }

  /** The rows shown: sorted, then filtered. */
  get rows(): DrawSummary[] {
    const s = this.summary;
    if (s === null) return [];
    const passOf = this.passOf;
    const sortKey = [s, this.drawSort, this.trace];
    if (this.sorted === null || sortKey.some((k, i) => k !== this.sorted!.key[i])) this.sorted = { key: sortKey, rows: sortDraws(s.draws, this.drawSort, passOf) };
    const pass = this.pass;
    if (pass !== null && (this.mask === null || this.mask.key[0] !== this.trace || this.mask.key[1] !== pass)) this.mask = { key: [this.trace, pass], mask: passDrawMask(this.trace!, pass) };
    const filter = { matches: this.useFind ? this.drawMatches : null, range: this.useRange ? this.range : null, passMask: pass === null ? null : this.mask!.mask };
    const key = [this.sorted.rows, filter.matches, filter.range, filter.passMask];
    if (this.shown === null || key.some((k, i) => k !== this.shown!.key[i])) this.shown = { key, rows: filterDraws(this.sorted.rows, filter) };
    return this.shown.rows;
  }

  private readonly passOf = (d: number): string | null => {
    const t = this.trace;
    const r = this.hasPasses ? t!.draws[d]?.region ?? null : null;
    return r === null ? null : t!.regions[r]?.label ?? null;
  };

  protected override willUpdate(changed: PropertyValues<this>): void {
    // A new filter shows the table from its top.
    if (changed.has('drawMatches') || changed.has('range') || changed.has('selectedPass')) this.tableScroll = 0;
  }

  override render() {
    const s = this.summary;
    if (s === null) return nothing;
    return renderDrawTable({
      rows: this.rows,
      total: s.draws.length,
      filters: this.filters(),
      columns: drawColumns(s.draws, this.hasPasses, this.allColumns),
      sort: this.drawSort,
      allColumns: this.allColumns,
      scrollTop: this.tableScroll,
      selectedDraw: this.selectedDraw,
      passOf: this.passOf,
      sampled: s.sampling?.every,
      onSort: (c) => (this.drawSort = nextSort(this.drawSort, c)),
      onToggleColumns: () => (this.allColumns = !this.allColumns),
      onScroll: (top) => (this.tableScroll = top),
      onSelect: (d) => this.selectDraw(d.index),
      onKey: (e) => this.onKey(e),
    });
  }

  protected override updated(): void {
    // The scroll position is state: a step that moved it (or a new filter) moves the box.
    const box = this.querySelector<HTMLElement>('.draw-table');
    if (box !== null && Math.abs(box.scrollTop - this.tableScroll) > 1) box.scrollTop = this.tableScroll;
  }

  private filters(): TemplateResult {
    const m = this.drawMatches;
    const r = this.range;
    const t = this.trace;
    const pass = this.pass;
    return html`${m === null
      ? nothing
      : html`<button data-filter="find" aria-pressed=${this.useFind ? 'true' : 'false'} title="Only the draws the find box matches" @click=${() => (this.useFind = !this.useFind)}>
          find: ${formatNumber(m.length)}
        </button>`}
    ${r === null
      ? nothing
      : html`<button data-filter="range" aria-pressed=${this.useRange ? 'true' : 'false'} title="Only the draws that ran in the selected time range" @click=${() => (this.useRange = !this.useRange)}>
          range ${formatNs(r.startNs)}–${formatNs(r.endNs)}
        </button>`}
    ${t === null || !this.hasPasses
      ? nothing
      : html`<select data-filter="pass" aria-label="Only the draws of a pass" @change=${(e: Event) => this.selectPass(Number((e.target as HTMLSelectElement).value))}>
          <option value="-1" ?selected=${pass === null}>All passes</option>
          ${passChoices(t).map((p) => html`<option value=${p.region} ?selected=${p.region === pass}>${'\u00a0\u00a0'.repeat(p.depth)}${p.label}</option>`)}
        </select>`}`;
  }

  private onKey(e: KeyboardEvent): void {
    const delta = e.key === ']' || e.key === 'ArrowDown' ? 1 : e.key === '[' || e.key === 'ArrowUp' ? -1 : 0;
    if (delta === 0) return;
    e.preventDefault();
    e.stopPropagation();
    const rows = this.rows;
    const d = stepRow(rows, this.selectedDraw, delta);
    if (d < 0) return;
    // Keep the row in view (before the render, so its row exists), then give it the focus.
    const at = rows.findIndex((x) => x.index === d);
    const view = TABLE_HEIGHT_PX - 2 * TABLE_ROW_PX;
    if (at * TABLE_ROW_PX < this.tableScroll || at * TABLE_ROW_PX > this.tableScroll + view) this.tableScroll = Math.max(0, at * TABLE_ROW_PX - view / 2);
    this.selectDraw(d);
    void this.updateComplete.then(() => this.querySelector<HTMLElement>(`tr[data-draw="${d}"]`)?.focus({ preventScroll: true }));
  }

  private selectDraw(draw: number): void {
    const d = this.summary?.draws[draw];
    if (d !== undefined && d.firstStartNs !== null && d.lastEndNs !== null) this.dispatchEvent(zoomToEvent({ startNs: d.firstStartNs, endNs: d.lastEndNs }));
    this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw }, bubbles: true, composed: true }));
  }

  private selectPass(region: number): void {
    this.dispatchEvent(new CustomEvent('wt-pass-select', { detail: { region }, bubbles: true, composed: true }));
  }
}

if (!customElements.get('wt-draws-table')) customElements.define('wt-draws-table', WtDrawsTable);

declare global {
  interface HTMLElementTagNameMap {
    'wt-draws-table': WtDrawsTable;
  }
}
