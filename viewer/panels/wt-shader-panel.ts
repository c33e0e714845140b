/**
 * <wt-shader-panel .trace .selectedDraw .selectedWarp>: where the shaders
 * of the selected draw (else the selected warp's draw, else every profiled
 * draw) spent their time, from the trace's block profile (`instrument
 * --blocks`, Trace.blocks): analysis/blocks.ts's table per source line (or
 * per basic block), sortable by each column, hottest first; a module chooser
 * when the draws ran several (one per stage); and, when the module embeds
 * its source text, the file with each profiled line's heat, the clicked
 * row's line scrolled to and highlighted. Without a profile for the draws it
 * says why. Properties down, no events: it only reads the selection.
 *
 * The table is computed here, on the page, when the selection changes: it is
 * per block, not per warp (no per-warp work at all), so a draw's table costs
 * what its blocks do: for 3 × 1 500 blocks, ~1 ms in Chromium once the code
 * is compiled and the machine idle; 3-15 ms for the first selections or on a
 * loaded 2-core test machine (test/browser/shader-panel.browser.test.ts logs
 * it). A worker would not save that: the table's few thousand rows would be
 * deserialized here instead. Tables are cached per trace,
 * draws and grouping. The all-draws table sums every row first: past
 * SYNC_CELLS counts that is summed a slice per task (model/block-totals.ts)
 * and the panel says so meanwhile. `tableMs` says what the last table took.
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { blockTable, type BlockGrouping, type BlockStat, type BlockTable } from '../../analysis/blocks.js';
import type { BlockProfile, Trace } from '../../shared-schema/index.js';
import { panelStyles } from '../components/shared-styles.js';
import {
  DEFAULT_BLOCK_SORT,
  blockAbsence,
  blockScope,
  formatInteger,
  moduleTag,
  nextBlockSort,
  scopeDraws,
  scopeKey,
  scopeTitle,
  skippedProfilesNote,
  sortBlockStats,
  statKey,
  type BlockScope,
  type BlockSort,
} from '../model/block-view.js';
import { profileCells, summedProfile } from '../model/block-totals.js';
import { defaultFocus, sourceHeat, sourceText, type SourceFocus } from '../model/source-heat.js';
import { shaderPanelStyles } from './shader-panel-styles.js';
import { renderSourceView } from './shader-source.js';
import { renderShaderTable } from './shader-table.js';

/** Rows rendered before "Show all" (a by-block table of a big shader has thousands). */
export const SHADER_ROWS_SHOWN = 200;
/** Tables kept per trace (scope × grouping): switching back and forth costs nothing. */
const CACHED_TABLES = 16;
/** Profiles of at most this many counts are summed for all draws at once (~1-2 ms); larger ones a slice per task. */
export const SYNC_CELLS = 300_000;

export class WtShaderPanel extends LitElement {
  static override properties = {
    trace: { attribute: false },
    selectedDraw: { attribute: false },
    selectedWarp: { attribute: false },
    by: { state: true },
    sort: { state: true },
    moduleChoice: { state: true },
    sourceFocus: { state: true },
    selectedKey: { state: true },
    allRows: { state: true },
  };

  static override styles = [panelStyles, shaderPanelStyles];

  declare trace: Trace | null;
  /** The app's selected draw (-1: none). */
  declare selectedDraw: number;
  /** The app's selected warp row (-1: none): its draw is shown when no draw is selected. */
  declare selectedWarp: number;
  declare by: BlockGrouping;
  declare sort: BlockSort;
  /** The module shown (an index into the profile's modules), or all of the draws'. */
  declare moduleChoice: number | 'all';
  /** The source view's file and line; null: the hottest line with source text. */
  declare sourceFocus: SourceFocus | null;
  /** statKey of the clicked row. */
  declare selectedKey: string | null;
  declare allRows: boolean;
  /** Milliseconds the last table computed took (tests, and the cost claim above). */
  tableMs = 0;

  private readonly tables = new Map<string, BlockTable>();
  private scope: BlockScope = { kind: 'all' };
  private sorted: { table: BlockTable; module: number | 'all'; sort: BlockSort; rows: BlockStat[] } | null = null;
  /** The focus the source view was last scrolled to (scrolling follows changes, not every update). */
  private scrolledTo: string | null = null;
  /** A large profile's all-draws sums (summed null until they are done). */
  private totals: { profile: BlockProfile; summed: BlockProfile | null; abort: AbortController } | null = null;

  constructor() {
    super();
    this.trace = null;
    this.selectedDraw = -1;
    this.selectedWarp = -1;
    this.by = 'line';
    this.sort = DEFAULT_BLOCK_SORT;
    this.moduleChoice = 'all';
    this.sourceFocus = null;
    this.selectedKey = null;
    this.allRows = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace')) {
      this.totals?.abort.abort();
      this.totals = null;
      this.tables.clear();
      this.sorted = null;
      this.moduleChoice = 'all';
      this.sort = DEFAULT_BLOCK_SORT;
    }
    const scope = this.trace === null ? ({ kind: 'all' } as const) : blockScope(this.trace, this.selectedDraw, this.selectedWarp);
    if (changed.has('trace') || scopeKey(scope) !== scopeKey(this.scope)) {
      // Another draw: its own hottest line, its own rows.
      this.sourceFocus = null;
      this.selectedKey = null;
      this.allRows = false;
      this.scrolledTo = null;
    }
    this.scope = scope;
    const profile = this.trace?.blocks ?? null;
    if (scope.kind === 'all' && profile != null && this.totals?.profile !== profile && profileCells(profile) > SYNC_CELLS) this.startSumming(profile);
  }

  private startSumming(profile: BlockProfile): void {
    this.totals?.abort.abort();
    const totals = { profile, summed: null as BlockProfile | null, abort: new AbortController() };
    this.totals = totals;
    summedProfile(profile, totals.abort.signal).then(
      (summed) => {
        totals.summed = summed;
        if (this.totals === totals) this.requestUpdate();
      },
      () => undefined,
    );
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.totals?.abort.abort();
    this.totals = null;
  }

  /** The table of the current scope, by `by` (cached); 'summing' while a large profile's all-draws sums are under way. */
  private table(by: BlockGrouping): BlockTable | 'summing' | null {
    const profile = this.trace?.blocks ?? null;
    if (this.trace === null || profile === null) return null;
    const key = `${scopeKey(this.scope)}|${by}`;
    let table = this.tables.get(key);
    if (table === undefined) {
      // All draws of a large profile: the table of its pre-summed one-row profile.
      const large = this.scope.kind === 'all' && this.totals?.profile === profile;
      const source = large ? this.totals!.summed : profile;
      if (source === null) return 'summing';
      const t0 = performance.now();
      table = blockTable(source, this.trace.device.clocks, { draws: large ? null : scopeDraws(this.scope), by });
      this.tableMs = performance.now() - t0;
      if (this.tables.size >= CACHED_TABLES) this.tables.delete(this.tables.keys().next().value!);
      this.tables.set(key, table);
    }
    return table;
  }

  /** The modules with rows in the table, in profile order. */
  private modulesOf(table: BlockTable): number[] {
    return [...new Set(table.stats.map((s) => s.module))].sort((a, b) => a - b);
  }

  private sortedRows(table: BlockTable, module: number | 'all'): BlockStat[] {
    const c = this.sorted;
    if (c !== null && c.table === table && c.module === module && c.sort === this.sort) return c.rows;
    const stats = module === 'all' ? table.stats : table.stats.filter((s) => s.module === module);
    const rows = sortBlockStats(stats, this.sort);
    this.sorted = { table, module, sort: this.sort, rows };
    return rows;
  }

  private chooseModule(value: string): void {
    this.moduleChoice = value === 'all' ? 'all' : Number(value);
    this.sourceFocus = null;
    this.selectedKey = null;
    this.allRows = false;
  }

  /** Rows per line or per block; the source view keeps its line (a clicked row is another grouping's). */
  private group(by: BlockGrouping): void {
    if (by === this.by) return;
    this.by = by;
    this.selectedKey = null;
    this.allRows = false;
  }

  private clickRow(s: BlockStat): void {
    this.selectedKey = statKey(s);
    const module = this.trace?.blocks?.modules[s.module];
    // A row without a line leaves the source view where it is.
    if (module === undefined || s.file === null) return;
    this.sourceFocus = { module: s.module, file: s.file, line: s.line };
    this.scrolledTo = null;
  }

  override render() {
    const trace = this.trace;
    if (trace === null) return html`<p class="muted">Open a trace to see its block profile.</p>`;
    const profile = trace.blocks ?? null;
    const table = this.table(this.by);
    const title = html`<p class="scope" data-scope=${this.scope.kind}>${scopeTitle(trace, this.scope)}</p>`;
    if (table === 'summing') return html`${title}<p class="muted summing" role="status">Summing the block counts of ${formatInteger(profile!.rows.length)} draws…</p>`;
    const absence = blockAbsence(trace, this.scope, table?.stats.length ?? 0);
    if (profile === null || table === null || absence !== null) return html`${profile === null ? nothing : title}<p class="muted empty" role="status">${absence}</p>`;

    const modules = this.modulesOf(table);
    const module = this.moduleChoice !== 'all' && modules.includes(this.moduleChoice) ? this.moduleChoice : 'all';
    const rows = this.sortedRows(table, module);
    const shown = this.allRows ? rows : rows.slice(0, SHADER_ROWS_SHOWN);
    // The line table of the same scope: the all-draws sums are done once the other grouping's table exists.
    const lineTable = this.by === 'line' ? table : (this.table('line') as BlockTable);
    const lineStats = module === 'all' ? lineTable.stats : lineTable.stats.filter((s) => s.module === module);
    const focus = this.sourceFocus ?? defaultFocus(lineStats, profile.modules);
    return html`${title}
      <div class="tools">
        <button data-by="line" aria-pressed=${this.by === 'line' ? 'true' : 'false'} @click=${() => this.group('line')}>By line</button>
        <button data-by="block" aria-pressed=${this.by === 'block' ? 'true' : 'false'} @click=${() => this.group('block')}>By block</button>
        ${modules.length > 1
          ? html`<select aria-label="Module" @change=${(e: Event) => this.chooseModule((e.target as HTMLSelectElement).value)}>
              <option value="all" ?selected=${module === 'all'}>All ${modules.length} modules</option>
              ${modules.map((m) => html`<option value=${String(m)} ?selected=${module === m}>${moduleTag(profile.modules[m]!)} · ${profile.modules[m]!.name}</option>`)}
            </select>`
          : html`<span class="muted">${moduleTag(profile.modules[modules[0]!]!)} · ${profile.modules[modules[0]!]!.name}</span>`}
        <span class="muted">${formatInteger(rows.length)} ${rows.length === 1 ? 'row' : 'rows'}</span>
      </div>
      ${this.renderNotes(table)}
      ${renderShaderTable({
        rows: shown,
        total: rows.length,
        sort: this.sort,
        selectedKey: this.selectedKey,
        tagModules: module === 'all' && modules.length > 1,
        modules: profile.modules,
        subgroupSize: profile.subgroupSize,
        onSort: (c) => (this.sort = nextBlockSort(this.sort, c.id)),
        onRow: (s) => this.clickRow(s),
        onShowAll: () => (this.allRows = true),
      })}
      ${focus === null ? nothing : this.renderSource(focus, lineStats)}`;
  }

  /** What the counts leave out: executions dropped, draws without a row. */
  private renderNotes(table: BlockTable) {
    const notes: string[] = [];
    if (table.dropped > 0) notes.push(`${formatInteger(table.dropped)} block executions could not be counted (their cells lay past the block table).`);
    if (this.scope.kind === 'all' && table.unprofiledDraws > 0) notes.push(`${formatInteger(table.unprofiledDraws)} traced draws got no row (the block table was full): they are not summed.`);
    const skipped = this.scope.kind === 'all' && this.trace !== null ? skippedProfilesNote(this.trace) : null;
    if (skipped !== null) notes.push(skipped);
    return notes.map((n) => html`<p class="warning" role="note">${n}</p>`);
  }

  private renderSource(focus: SourceFocus, lineStats: readonly BlockStat[]) {
    const module = this.trace!.blocks!.modules[focus.module]!;
    const text = sourceText(module, focus.file);
    return renderSourceView({
      focus,
      moduleName: `${moduleTag(module)} · ${module.name}`,
      heat: text === null ? null : sourceHeat(text, focus, lineStats),
      files: module.sources.map((s) => s.file),
      onFile: (file) => {
        this.sourceFocus = { module: focus.module, file, line: null };
        this.scrolledTo = null;
      },
    });
  }

  protected override updated(): void {
    const view = this.renderRoot.querySelector<HTMLElement>('.source');
    if (view === null) return;
    const current = view.querySelector<HTMLElement>('.src-line[aria-current="true"]');
    const key = current === null ? `top ${view.getAttribute('aria-label')}` : `${view.getAttribute('aria-label')} ${current.dataset['line']}`;
    if (key === this.scrolledTo) return;
    this.scrolledTo = key;
    // Scroll the source view only (scrollIntoView would also scroll the panels' column).
    view.scrollTop = current === null ? 0 : Math.max(0, current.offsetTop - (view.clientHeight - current.offsetHeight) / 2);
  }
}

if (!customElements.get('wt-shader-panel')) customElements.define('wt-shader-panel', WtShaderPanel);

declare global {
  interface HTMLElementTagNameMap {
    'wt-shader-panel': WtShaderPanel;
  }
}
