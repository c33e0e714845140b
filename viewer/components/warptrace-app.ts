/**
 * <warptrace-app>: the viewer application. Opens traces (default sample,
 * ?trace=URL, file picker, drag and drop, recent traces), decodes them in a
 * worker with progress, and wires the timeline to the side panels.
 *
 * State flows down as properties; the children report user actions as
 * events (wt-draw-select, wt-warp-select, wt-range-select, wt-cursor-change,
 * wt-draw-step, wt-zoom-to), which the app handles on its host element, so
 * panels slotted in from outside take part the same way: slot="panels" (the
 * right column) or slot="beside-timeline" (right of the timeline, above the
 * detail panels); both get the properties of panelProperties().
 *
 * The trace view's layout is trace-view.ts; opening lives in trace-opener.ts,
 * the header's parts in app-header.ts, drag
 * and drop in file-drop.ts, the slots in panel-slots.ts, view links in
 * view-link-sync.ts.
 */
import { LitElement, html, nothing } from 'lit';
import { rangeCounts, type RangeCounts } from '../../analysis/range-counts.js';
import { warpsInFlight, type InFlight } from '../../analysis/in-flight.js';
import { nextTask } from '../base/tasks.js';
import { stepDrawIndex } from '../model/draw-search.js';
import type { FindingPlace } from '../model/finding-warp.js';
import type { Trace } from '../../shared-schema/index.js';
import type { TimeRange } from '../timeline/frame.js';
import { RecentsStore, type RecentTrace } from '../loading/recents-store.js';
import { fetchSampleIndex, type SampleIndex } from '../loading/samples.js';
import { appStyles } from './app-styles.js';
import { renderProgress, type Loading } from './progress-bar.js';
import { SideColumns, sideColumnStyles } from './side-columns.js';
import { DismissController } from './dismiss-controller.js';
import { FileDrop } from './file-drop.js';
import { PanelSlots } from './panel-slots.js';
import { traceView } from './trace-view.js';
import { TraceOpener } from './trace-opener.js';
import { allSmsToggle, banner, emptyPage, helpDismiss, helpMenu, samplesMenu, smSummary, smSummaryPlaceholder, stageChips, traceTitle } from './app-header.js';
import { PassSelection } from './pass-selection.js';
import { pngButton, savePng, timelinePng, type ViewPng } from './view-png.js';
import type { OpenTimings, OpenedTrace, TraceOpenedDetail } from './app-types.js';
import { ViewLinkSync, viewPortOf, type ViewPort } from './view-link-sync.js';
import type { WtTimeline } from './wt-timeline.js';
import type { WtDrawList } from './wt-draw-list.js';
import { ColorBySync } from './color-by-sync.js';
import { colorByStyles, colorLegend, colorBySelect } from './color-by-control.js';
import { COLOR_BY_STAGE, type ColorBy } from '../model/color-by.js';
import type { LaneColoring } from '../model/class-occupancy.js';
import { WarpFilterSync } from './warp-filter-sync.js';
import { filterBar, filterBarStyles } from './filter-bar.js';
import './wt-recents.js';

export type { OpenTimings, OpenedTrace, TraceOpenedDetail } from './app-types.js';

export class WarptraceApp extends LitElement {
  static override properties = {
    opened: { state: true },
    loading: { state: true },
    error: { state: true },
    notice: { state: true },
    recents: { state: true },
    samples: { state: true },
    sampleProblem: { state: true },
    selectedDraw: { state: true },
    selectedWarp: { state: true },
    range: { state: true },
    counts: { state: true },
    cursorNs: { state: true },
    inFlight: { state: true },
    hiddenStages: { state: true },
    showAllSms: { state: true },
    recentsOpen: { state: true },
    highlightRows: { state: true },
    baselineTrace: { state: true },
    colorBy: { state: true },
    coloring: { state: true },
    pageLink: { type: Boolean, attribute: 'page-link' },
  };

  declare opened: OpenedTrace | null;
  declare loading: Loading | null;
  declare error: string | null;
  declare notice: string | null;
  declare recents: RecentTrace[];
  declare samples: SampleIndex | null;
  declare sampleProblem: string | null;
  declare selectedDraw: number;
  /** The draw list's search matches (null: no filter): `[` / `]` step through them; the draws table filters by them. */
  drawMatches: Uint32Array | null = null;
  declare selectedWarp: number;
  declare range: TimeRange | null;
  declare counts: RangeCounts | null;
  declare cursorNs: number | null;
  declare inFlight: InFlight | null;
  /** Warps highlighted on the timeline (the screen panel's brush); null for none. */
  declare highlightRows: Uint32Array | null;
  /** The A/B baseline (the analysis panels' A): the timeline draws its ghost track; null for none. */
  declare baselineTrace: Trace | null;
  declare hiddenStages: number;
  /** What warp bars are colored by (the header's Color by), and what the timeline draws for it (color-by-sync.ts). */
  declare colorBy: ColorBy;
  declare coloring: LaneColoring | null;
  declare showAllSms: boolean;
  declare recentsOpen: boolean;
  /**
   * The page URL is this app's (index.html sets the page-link attribute): a view link in
   * it is restored, and it follows the view (view-link-sync.ts). Off for embedded apps and tests.
   */
  declare pageLink: boolean;

  /** Where recent traces are kept (replace before connecting, e.g. in tests). */
  store: RecentsStore = new RecentsStore();
  /** Esc or a press outside closes the Recent popover. */
  private readonly recentsDismiss = new DismissController(
    this,
    () => this.recentsOpen,
    (t) => t instanceof HTMLElement && (t.classList.contains('recents-popover') || t.hasAttribute('data-recents-toggle')),
    () => (this.recentsOpen = false),
  );
  /** Set to false to start without opening ?trace= or the default sample. */
  autoOpen = true;
  /** Folder holding index.json and the sample captures (relative to the page). */
  sampleBase = 'samples/';
  lastOpenTimings: OpenTimings | null = null;
  private booted = false;

  static override styles = [appStyles, sideColumnStyles, colorByStyles, filterBarStyles];
  private readonly columns = new SideColumns(this);
  private readonly opener = new TraceOpener(this);
  private readonly drop = new FileDrop(this, (file) => void this.openFile(file));
  private readonly link = new ViewLinkSync(this);
  private readonly slots = new PanelSlots(this, () => this.panelProperties());
  readonly colors = new ColorBySync(this);
  /** The find, duration and brush filters, and the highlight they make (warp-filter-sync.ts). */
  readonly filters = new WarpFilterSync(this);
  /** The selected pass (pass-selection.ts). */
  readonly passes = new PassSelection(this);
  private readonly helpDismiss = helpDismiss(this);

  constructor() {
    super();
    this.opened = null;
    this.loading = null;
    this.error = null;
    this.notice = null;
    this.recents = [];
    this.samples = null;
    this.sampleProblem = null;
    this.clearViewState();
    this.showAllSms = false;
    this.recentsOpen = false;
    this.baselineTrace = null;
    this.coloring = null;
    this.pageLink = false;
    // Events from the shadow tree (composed) and from slotted panels arrive here.
    this.addEventListener('wt-draw-select', (e) => this.selectDraw((e as CustomEvent<{ draw: number }>).detail.draw));
    this.addEventListener('wt-draw-step', (e) => this.stepDraw((e as CustomEvent<{ delta: number }>).detail.delta));
    this.addEventListener('wt-draw-filter', (e) => {
      this.drawMatches = e.detail.matches;
      this.requestUpdate();
    });
    this.addEventListener('wt-warp-select', (e) => this.selectWarp((e as CustomEvent<{ row: number }>).detail.row));
    this.addEventListener('wt-range-select', (e) => this.selectRange((e as CustomEvent<{ range: TimeRange | null }>).detail.range));
    this.addEventListener('wt-cursor-change', (e) => this.setCursor((e as CustomEvent<{ cursorNs: number | null }>).detail.cursorNs));
    this.addEventListener('wt-zoom-to', (e) => {
      const { startNs, endNs, sm } = (e as CustomEvent<TimeRange & { sm?: number }>).detail;
      this.timeline?.zoomTo(startNs, endNs);
      if (sm !== undefined) this.timeline?.scrollToSm(sm);
    });
    // A finding naming a warp (a stall's long warp) selects it, expanded and in view (wt-zoom-to came first).
    this.addEventListener('wt-finding-select', (e) => this.timeline?.revealFinding((e as CustomEvent<{ finding: FindingPlace }>).detail.finding));
    this.addEventListener('wt-recent-open', (e) => void this.opener.openRecent((e as CustomEvent<{ id: string }>).detail.id));
    this.addEventListener('wt-trace-opened', (e) => this.link.traceOpened((e as CustomEvent<TraceOpenedDetail>).detail));
    this.addEventListener('wt-baseline-change', (e) => (this.baselineTrace = (e as CustomEvent<{ trace: Trace | null }>).detail.trace));
    this.addEventListener('wt-rows-highlight', (e) => (this.highlightRows = (e as CustomEvent<{ rows: Uint32Array | null }>).detail.rows));
    this.addEventListener('wt-recent-delete', (e) => void this.opener.deleteRecent((e as CustomEvent<{ id: string }>).detail.id));
  }

  /** What a newly opened trace starts without: selections, range, cursor, hidden stages, a color-by mode. */
  clearViewState(): void {
    this.selectedDraw = -1;
    this.drawMatches = null;
    this.selectedWarp = -1;
    this.range = null;
    this.counts = null;
    this.cursorNs = null;
    this.inFlight = null;
    this.highlightRows = null;
    this.hiddenStages = 0;
    this.colorBy = COLOR_BY_STAGE;
    this.passes?.clear();
  }

  /** The selected pass (region index), -1 for none. */
  get selectedPass(): number {
    return this.passes.region;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (!this.booted) {
      this.booted = true;
      void this.boot();
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.opener.cancel();
  }

  protected override async scheduleUpdate(): Promise<void> {
    if (!this.hasUpdated) await nextTask(); // the first render (the whole page) in a task of its own, not in the modules' evaluation
    super.scheduleUpdate();
  }

  get timeline(): WtTimeline | null {
    return this.renderRoot.querySelector('wt-timeline');
  }

  get drawList(): WtDrawList | null {
    return this.renderRoot.querySelector('wt-draw-list');
  }

  /** The view a link saves and restores: the timeline's window and lanes, the find text. */
  get viewPort(): ViewPort | null {
    return viewPortOf(this.timeline, this.drawList);
  }

  /** A link to the current view (?trace= when the trace came from a URL, the view in the hash); null with no trace. */
  viewLink(): string | null {
    return this.link.link();
  }

  /** Copies viewLink() to the clipboard. */
  copyLink(): Promise<void> {
    return this.link.copy();
  }

  /** The timeline as drawn, as a PNG (null with no trace). */
  async viewPng(): Promise<ViewPng | null> {
    const t = this.timeline;
    return this.opened === null || t === null ? null : timelinePng(t, this.opened.name);
  }

  /** A file is being dragged over the app. */
  get dropActive(): boolean {
    return this.drop.active;
  }

  private async boot(): Promise<void> {
    void this.refreshRecents();
    this.link.readPageLink();
    if (!this.autoOpen) return;
    const url = new URL(location.href).searchParams.get('trace');
    const samples = await fetchSampleIndex(this.sampleBase);
    if (samples.ok) this.samples = samples.index;
    else this.sampleProblem = samples.reason;
    if (url !== null && url !== '') {
      await this.openUrl(url);
      return;
    }
    const def = samples.ok ? samples.index.default : null;
    // The default sample was not opened by the user: it stays out of Recent.
    if (def !== null) await this.openUrl(`${this.sampleBase}${def}`, { remember: false });
  }

  // ---- opening traces (trace-opener.ts) -----------------------------------------

  openUrl(url: string, options: { remember?: boolean } = {}): Promise<boolean> {
    return this.opener.openUrl(url, options);
  }

  openFile(file: File | Blob, name?: string): Promise<boolean> {
    return this.opener.openFile(file, name);
  }

  /** A generated H100-shaped trace (for trying the viewer without a capture, and for benchmarks). */
  openSynthetic(warps: number, seed = 1): Promise<boolean> {
    return this.opener.openSynthetic(warps, seed);
  }

  cancelLoading(): void {
    this.opener.cancel();
  }

  refreshRecents(): Promise<void> {
    return this.opener.refreshRecents();
  }

  // ---- selection -----------------------------------------------------------

  selectDraw(draw: number): void {
    const o = this.opened;
    if (o === null) return;
    this.selectedDraw = draw >= 0 && draw < o.trace.draws.length ? draw : -1;
    if (this.selectedDraw < 0) return;
    const s = o.drawLayout.spans[2 * draw]!;
    const e = o.drawLayout.spans[2 * draw + 1]!;
    if (!Number.isNaN(s)) this.timeline?.zoomTo(s, e, 0.08);
    this.timeline?.revealDraw(draw);
  }

  /** `[` / `]`: previous / next draw that has a span (of the draw list's matches while it filters). */
  stepDraw(delta: number): void {
    const o = this.opened;
    const d = o === null ? -1 : stepDrawIndex(o.drawLayout.spans, o.trace.draws.length, this.drawMatches, this.selectedDraw, delta);
    if (d >= 0) this.selectDraw(d);
  }

  selectWarp(row: number): void {
    this.selectedWarp = row;
  }

  selectRange(range: TimeRange | null): void {
    this.range = range;
    const o = this.opened;
    this.counts = range === null || o === null ? null : rangeCounts(o.trace, range.startNs, range.endNs, o.maxDurationNs);
  }

  setCursor(cursorNs: number | null): void {
    this.cursorNs = cursorNs;
    const o = this.opened;
    this.inFlight = cursorNs === null || o === null ? null : warpsInFlight(o.trace.warps, cursorNs, o.maxDurationNs);
  }

  private toggleStage(code: number): void {
    this.hiddenStages ^= 1 << code;
  }

  // ---- panels from outside -----------------------------------------------------

  /** What every slotted panel gets, whenever the app updates. */
  panelProperties() {
    return {
      trace: this.opened?.trace ?? null,
      range: this.range,
      selectedDraw: this.selectedDraw,
      selectedWarp: this.selectedWarp,
      cursorNs: this.cursorNs,
      durationFilter: this.filters.duration,
      selectedPass: this.selectedPass,
      drawMatches: this.drawMatches,
    };
  }

  /** Something is slotted into the right column. */
  get hasPanels(): boolean {
    return this.slots.has('panels');
  }

  // ---- rendering ---------------------------------------------------------------

  override render() {
    const o = this.opened;
    return html`
      <header>
        <span class="brand">warptrace</span>
        <button @click=${this.pickFile} title="Open a .wtrace, .wtraw or warptrace JSON file">Open…</button>
        <input type="file" accept=".wtrace,.wtraw,.json,application/json" hidden @change=${this.onFilePicked} />
        ${samplesMenu(this.samples, (file) => void this.openUrl(`${this.sampleBase}${file}`))}
        <button data-recents-toggle @click=${() => (this.recentsOpen = !this.recentsOpen)} aria-expanded=${this.recentsOpen ? 'true' : 'false'}>Recent (${this.recents.length})</button>
        ${o === null ? nothing : traceTitle(o)}
        ${o === null ? nothing : colorBySelect(this.colors.optionsFor(o.trace), this.colorBy, (by) => (this.colorBy = by))}
        ${o === null ? nothing : stageChips(o, this.hiddenStages, (code) => this.toggleStage(code))}
        ${o === null ? nothing : allSmsToggle(o, this.showAllSms, (on) => (this.showAllSms = on))}
        ${o === null ? nothing : html`${this.link.button()}${pngButton(() => void savePng(this, this.viewPng()).catch((e: unknown) => (this.error = `PNG export failed: ${e instanceof Error ? e.message : String(e)}`)))}`}
        ${helpMenu()}
      </header>
      ${this.recentsOpen ? html`<div class="recents-popover"><wt-recents .recents=${this.recents}></wt-recents></div>` : nothing}
      ${banner('error', this.error, () => (this.error = null))}
      ${banner('notice', this.notice, () => (this.notice = null))}
      ${o !== null ? smSummary(o, this.hiddenStages, (code) => this.toggleStage(code), colorLegend(this.coloring?.colors ?? null)) : this.loading !== null ? smSummaryPlaceholder(this.loading.name) : nothing}
      ${filterBar(this.filters, o?.trace ?? null)}
      <main class="${this.hasPanels ? 'with-panels' : ''} ${this.columns.classes()}" style=${this.columns.style()}>
        ${this.loading === null ? nothing : renderProgress(this.loading, () => this.cancelLoading())}
        ${o === null && this.loading === null ? emptyPage({ sampleProblem: this.sampleProblem, recents: this.recents, onPickFile: this.pickFile, onSynthetic: () => void this.openSynthetic(1_000_000) }) : traceView(this, o, this.slots.has('beside-timeline'), this.slots.onSlotChange, this.columns.edge('left'), this.columns.detailsToggle())}
        ${this.hasPanels ? this.columns.edge('right') : nothing}
        <aside class="panels" aria-label="Analysis panels"><slot name="panels" @slotchange=${this.slots.onSlotChange}></slot></aside>
      </main>
      ${this.dropActive ? html`<div class="drop-overlay">Drop a trace file to open it</div>` : nothing}
    `;
  }

  private pickFile = (): void => {
    (this.renderRoot.querySelector('input[type=file]') as HTMLInputElement).click();
  };

  private onFilePicked = (e: Event): void => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (file !== undefined) void this.openFile(file);
  };
}

customElements.define('warptrace-app', WarptraceApp);
declare global {
  interface HTMLElementTagNameMap {
    'warptrace-app': WarptraceApp;
  }
}
