/**
 * <wt-draw-list>: every draw and dispatch with its warp span. When the trace
 * has regions, a collapsible pass tree (regions nested, draws under their
 * innermost region; a region row shows its draw count and span); otherwise
 * the draws in submission order. Virtualized: only visible rows exist, and
 * a collapsed tree is a row per pass.
 *
 * A search box filters the draws (syntax in ../model/draw-search.ts): `[` /
 * `]` step to the previous / next match (select and reveal it), Enter zooms
 * the timeline to it (`wt-zoom-to`), Esc clears the filter, then the
 * selected draw. The matches go up as `wt-draw-filter` {matches | null}, so
 * the timeline's `[` / `]` step through them too. Arrow keys move the
 * selection; a region row expands or collapses on click.
 *
 * A sampled trace (issue 25): the span of a draw with warps of a sampled
 * stage, and of a region holding one, is that of its recorded warps, an
 * estimate: "≈" before it, as the panels mark estimates.
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { describeRates, formatNs, sampledStages, Stage, type Trace } from '../../shared-schema/index.js';
import { drawMatcher, drawStageMasks, parseDrawQuery, stepMatch, type DrawMatcher } from '../model/draw-search.js';
import { ancestorsOf, buildPassTree, visibleRows, type PassTree, type TreeRow } from '../model/pass-tree.js';
import { approxMark } from '../panels/sampling-note.js';
import { zoomToEvent } from '../panels/zoom-event.js';
import { INDENT_PX, ROW_PX, drawListStyles } from './draw-list-styles.js';
import { panelStyles } from './shared-styles.js';

export class WtDrawList extends LitElement {
  static override properties = {
    trace: { attribute: false },
    spans: { attribute: false },
    tree: { attribute: false },
    selectedDraw: { type: Number },
    query: { state: true },
    expanded: { state: true },
    cursor: { state: true },
    scrollTop: { state: true },
    viewportHeight: { state: true },
  };
  declare trace: Trace | null;
  /** [start, end] ns per draw (NaN when unknown). */
  declare spans: Float64Array | null;
  /** The pass tree (built here from trace and spans when not given). */
  declare tree: PassTree | null;
  declare selectedDraw: number;
  /** The search text. */
  declare query: string;
  /** Expanded regions. */
  declare expanded: ReadonlySet<number>;
  /** The keyboard's row (index into view.rows), -1 for none. */
  declare cursor: number;
  declare scrollTop: number;
  declare viewportHeight: number;
  private resizeObserver: ResizeObserver | null = null;
  private masks: Uint32Array | null = null;
  private pendingScroll = false;
  private ownTree: { trace: Trace; spans: Float64Array | null; tree: PassTree } | null = null;
  private cache: { key: readonly unknown[]; rows: TreeRow[]; matches: Uint32Array | null; errors: readonly string[] } | null = null;
  private estimates: { trace: Trace; draws: Uint8Array; regions: Uint8Array; note: string } | null = null;

  static override styles = [panelStyles, drawListStyles];

  constructor() {
    super();
    this.trace = null;
    this.spans = null;
    this.tree = null;
    this.selectedDraw = -1;
    this.query = '';
    this.expanded = new Set();
    this.cursor = -1;
    this.scrollTop = 0;
    this.viewportHeight = 400;
  }

  override firstUpdated(): void {
    const list = this.list;
    this.resizeObserver = new ResizeObserver(() => {
      this.viewportHeight = list.clientHeight;
    });
    this.resizeObserver.observe(list);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
  }

  private get list(): HTMLElement {
    return this.renderRoot.querySelector('.list') as HTMLElement;
  }

  /** True when the trace has regions (the list is a tree). */
  get isTree(): boolean {
    return (this.trace?.regions.length ?? 0) > 0;
  }

  /** The rows shown (after the filter and the expanded regions), and the matches of the filter (null: none). */
  get view(): { rows: TreeRow[]; matches: Uint32Array | null; errors: readonly string[] } {
    const t = this.trace;
    const key = [t, this.spans, this.tree, this.query, this.expanded];
    if (this.cache !== null && key.every((k, i) => k === this.cache!.key[i])) return this.cache;
    let rows: TreeRow[] = [];
    let matches: Uint32Array | null = null;
    let errors: readonly string[] = [];
    if (t !== null) {
      const q = parseDrawQuery(this.query);
      errors = q.errors;
      const m: DrawMatcher | null = q.terms.length === 0 ? null : drawMatcher(t, q, () => (this.masks ??= drawStageMasks(t)));
      const match = m === null ? null : (d: number) => m.matches(d);
      if (match !== null) {
        const found: number[] = [];
        for (let d = 0; d < t.draws.length; d++) if (match(d)) found.push(d);
        matches = Uint32Array.from(found);
      }
      if (this.isTree) {
        rows = visibleRows(this.passTree(t), this.expanded, matches === null ? null : (d) => inSorted(matches!, d));
      } else {
        const list = matches ?? Array.from({ length: t.draws.length }, (_, d) => d);
        rows = Array.from(list, (d) => ({ kind: 'draw', draw: d, depth: 0 }) as const);
      }
    }
    this.cache = { key, rows, matches, errors };
    return this.cache;
  }

  /** For a sampled trace: which draws and regions have warps of a sampled stage (their spans are estimates); null for a full trace. */
  private estimated(t: Trace): { draws: Uint8Array; regions: Uint8Array; note: string } | null {
    const sampling = t.capture.sampling;
    if (sampling === null) return null;
    if (this.estimates?.trace === t) return this.estimates;
    let bits = 0;
    for (const stage of sampledStages(sampling)) bits |= 1 << Stage[stage];
    const masks = (this.masks ??= drawStageMasks(t));
    const draws = new Uint8Array(t.draws.length);
    const regions = new Uint8Array(t.regions.length);
    for (let d = 0; d < draws.length; d++) {
      if ((masks[d]! & bits) === 0) continue;
      draws[d] = 1;
      // Each region up the draw's path: parents come before their children, as the pass tree reads them.
      for (let r = t.draws[d]!.region; r !== null && r >= 0 && r < regions.length && regions[r] === 0; r = t.regions[r]!.parent) regions[r] = 1;
    }
    const note = `the span of the recorded warps (sampled: ${describeRates(sampling.every)})`;
    this.estimates = { trace: t, draws, regions, note };
    return this.estimates;
  }

  private passTree(t: Trace): PassTree {
    if (this.tree !== null) return this.tree;
    if (this.ownTree === null || this.ownTree.trace !== t || this.ownTree.spans !== this.spans) this.ownTree = { trace: t, spans: this.spans, tree: buildPassTree(t, this.spans) };
    return this.ownTree.tree;
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace')) {
      this.masks = null;
      if (changed.get('trace') !== undefined) {
        this.query = '';
        this.expanded = new Set();
      }
    }
    if (changed.has('selectedDraw') && this.selectedDraw >= 0 && this.trace !== null && this.isTree) {
      const missing = ancestorsOf(this.trace, this.selectedDraw).filter((r) => !this.expanded.has(r));
      if (missing.length > 0) this.expanded = new Set([...this.expanded, ...missing]);
    }
    if (changed.has('selectedDraw') && this.selectedDraw >= 0) this.reveal(this.selectedDraw);
  }

  override updated(): void {
    if (this.pendingScroll) {
      this.pendingScroll = false;
      this.list.scrollTop = this.scrollTop;
    }
  }

  /** Scrolls the draw's row into view (before the render, so the rows there get drawn). */
  private reveal(draw: number): void {
    const i = this.view.rows.findIndex((r) => r.kind === 'draw' && r.draw === draw);
    if (i < 0) return;
    this.cursor = i;
    this.revealRow(i);
  }

  private revealRow(i: number): void {
    const y = i * ROW_PX;
    if (y < this.scrollTop || y + ROW_PX > this.scrollTop + this.viewportHeight) {
      this.scrollTop = Math.max(0, y - this.viewportHeight / 3);
      this.pendingScroll = true;
    }
  }

  override render() {
    const t = this.trace;
    const n = t?.draws.length ?? 0;
    const { rows, matches, errors } = this.view;
    const first = Math.max(0, Math.floor(this.scrollTop / ROW_PX) - 4);
    const last = Math.min(rows.length, Math.ceil((this.scrollTop + this.viewportHeight) / ROW_PX) + 4);
    const shown = [];
    for (let i = first; i < last; i++) shown.push(this.renderRow(t!, rows[i]!, i));
    return html`
      <h3>Draws (${n})${this.isTree ? html` · ${t!.regions.length} regions` : nothing}</h3>
      <div class="search">
        <input
          type="search"
          placeholder="Find: label, glob *?, #12, pass:…, stage:FS"
          aria-label="Find draws: label substring or glob (* ?), #index or #from-to, pass:name, stage:FS, kind:dispatch; [ and ] step, Enter zooms, Esc clears"
          .value=${this.query}
          @input=${(e: Event) => this.setQuery((e.target as HTMLInputElement).value)}
          @keydown=${this.onKeyDown}
        />
        ${matches === null
          ? nothing
          : html`<span class="hint" role="status"
              >${matches.length} of ${n} draws match${errors.length > 0 ? html` · <span class="bad">not understood: ${errors.join(' ')}</span>` : nothing} · [ ] step,
              Enter zooms, Esc clears</span
            >`}
      </div>
      <div
        class="list"
        role=${this.isTree ? 'tree' : 'listbox'}
        tabindex="0"
        aria-label="Draws; arrow keys select, [ and ] step through matches"
        aria-activedescendant=${this.activeId() ?? nothing}
        @scroll=${(e: Event) => (this.scrollTop = (e.target as HTMLElement).scrollTop)}
        @keydown=${this.onKeyDown}
      >
        <div style="height:${rows.length * ROW_PX}px"></div>
        ${shown}
      </div>
    `;
  }

  private activeId(): string | null {
    const row = this.view.rows[this.cursor];
    if (row !== undefined) return row.kind === 'region' ? `region-${row.region}` : `draw-${row.draw}`;
    return this.selectedDraw >= 0 ? `draw-${this.selectedDraw}` : null;
  }

  private renderRow(t: Trace, row: TreeRow, i: number) {
    const pad = `padding-left:${6 + row.depth * INDENT_PX}px;top:${i * ROW_PX}px`;
    if (row.kind === 'region') {
      const r = row.region;
      const tree = this.passTree(t);
      const s = tree.spans[2 * r]!;
      const span = Number.isNaN(s) ? 'no warps' : formatNs(tree.spans[2 * r + 1]! - s);
      const est = this.estimated(t);
      const approx = !Number.isNaN(s) && est !== null && est.regions[r] === 1;
      const label = t.regions[r]!.label;
      const count = row.shown === tree.drawCount[r] ? `${row.shown}` : `${row.shown} of ${tree.drawCount[r]}`;
      return html`<div
        class="row region ${i === this.cursor ? 'cursor' : ''}"
        id="region-${r}"
        data-region=${r}
        role="treeitem"
        aria-expanded=${row.expanded ? 'true' : 'false'}
        aria-level=${row.depth + 1}
        style=${pad}
        title="${label}: ${tree.drawCount[r]} draws, span ${approx ? `≈ ${span}, ${est.note}` : span}"
        @click=${() => this.toggle(r)}
      >
        <span class="twisty">${row.expanded ? '▾' : '▸'}</span><span class="label">${label}</span><span class="count">${count}</span
        ><span class="dur">${approxMark(approx, `an estimate: ${est?.note ?? ''}`)}${span}</span>
      </div>`;
    }
    const d = row.draw;
    const info = t.draws[d]!;
    const s = this.spans?.[2 * d] ?? NaN;
    const e = this.spans?.[2 * d + 1] ?? NaN;
    const dur = Number.isNaN(s) ? 'no warps' : formatNs(e - s);
    const est = this.estimated(t);
    const approx = !Number.isNaN(s) && est !== null && est.draws[d] === 1;
    const gpu = info.gpuBeginNs !== null && info.gpuEndNs !== null ? `; GPU timestamps ${formatNs(info.gpuEndNs - info.gpuBeginNs)}` : '';
    return html`<div
      class="row"
      id="draw-${d}"
      data-draw=${d}
      role=${this.isTree ? 'treeitem' : 'option'}
      aria-selected=${d === this.selectedDraw ? 'true' : 'false'}
      style=${pad}
      title="${info.label} (${info.kind}): warps span ${approx ? `≈ ${dur}, ${est.note}` : dur}${gpu}"
      @click=${() => this.select(d)}
    >
      <span class="idx">${d}</span><span class="kind ${info.kind}"></span><span class="label">${info.label}</span><span class="dur"
        >${approxMark(approx, `an estimate: ${est?.note ?? ''}`)}${dur}</span
      >
    </div>`;
  }

  /** Sets the filter text; the matches go up as `wt-draw-filter`. */
  setQuery(query: string): void {
    this.query = query;
    this.cursor = -1;
    this.scrollTop = 0;
    this.pendingScroll = true;
    this.dispatchEvent(new CustomEvent('wt-draw-filter', { detail: { matches: this.view.matches }, bubbles: true, composed: true }));
  }

  toggle(region: number): void {
    const next = new Set(this.expanded);
    if (!next.delete(region)) next.add(region);
    this.expanded = next;
    this.cursor = this.view.rows.findIndex((r) => r.kind === 'region' && r.region === region);
  }

  /** `[` / `]` over the matches (all draws without a filter): select and reveal. */
  step(delta: number): void {
    const n = this.trace?.draws.length ?? 0;
    const matches = this.view.matches ?? Uint32Array.from({ length: n }, (_, d) => d);
    const d = stepMatch(matches, this.selectedDraw, delta);
    if (d >= 0) this.select(d);
  }

  /** Enter: zoom the timeline to the selected match (the first match when none is selected). */
  zoomToCurrent(): void {
    const { matches } = this.view;
    let d = this.selectedDraw;
    if (matches !== null && !inSorted(matches, d)) d = matches[0] ?? -1;
    if (d < 0) return;
    if (d !== this.selectedDraw) this.select(d);
    const s = this.spans?.[2 * d] ?? NaN;
    const e = this.spans?.[2 * d + 1] ?? NaN;
    if (!Number.isNaN(s)) this.dispatchEvent(zoomToEvent({ startNs: s, endNs: e }));
  }

  private onKeyDown = (e: KeyboardEvent): void => {
    const inInput = e.target instanceof HTMLInputElement;
    const rows = this.view.rows;
    const cur = rows[this.cursor];
    if (e.key === '[' || e.key === ']') this.step(e.key === ']' ? 1 : -1);
    else if ((e.key === 'Enter' || e.key === ' ') && !inInput && cur?.kind === 'region') this.toggle(cur.region);
    else if (e.key === 'Enter') this.zoomToCurrent();
    else if (e.key === 'Escape') {
      if (this.query !== '') this.setQuery('');
      else this.select(-1);
    } else if (inInput || rows.length === 0) return;
    else if (e.key === 'ArrowDown') this.moveCursor(Math.min(rows.length - 1, this.cursor + 1));
    else if (e.key === 'ArrowUp') this.moveCursor(Math.max(0, this.cursor - 1));
    else if (e.key === 'Home') this.moveCursor(0);
    else if (e.key === 'End') this.moveCursor(rows.length - 1);
    else if (e.key === 'ArrowRight' && cur?.kind === 'region' && !cur.expanded) this.toggle(cur.region);
    else if (e.key === 'ArrowLeft' && cur?.kind === 'region' && cur.expanded && this.query === '') this.toggle(cur.region);
    else if (e.key === 'ArrowLeft' && cur !== undefined && cur.depth > 0) {
      let i = this.cursor;
      while (i > 0 && rows[i]!.depth >= cur.depth) i--;
      this.moveCursor(i);
    } else return;
    e.preventDefault();
    e.stopPropagation();
  };

  /** Moves the keyboard cursor to row i; a draw row selects its draw. */
  private moveCursor(i: number): void {
    this.cursor = i;
    const row = this.view.rows[i];
    if (row?.kind === 'draw') this.select(row.draw);
    else this.revealRow(i);
  }

  private select(draw: number): void {
    this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw }, bubbles: true, composed: true }));
  }
}

function inSorted(a: Uint32Array, v: number): boolean {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo] === v;
}

customElements.define('wt-draw-list', WtDrawList);
declare global {
  interface HTMLElementTagNameMap {
    'wt-draw-list': WtDrawList;
  }
  interface HTMLElementEventMap {
    'wt-draw-filter': CustomEvent<{ matches: Uint32Array | null }>;
  }
}
