/**
 * <warptrace-app>: the viewer application. Opens traces (default sample,
 * ?trace=URL, file picker, drag and drop, recent traces), decodes them in a
 * worker with progress, and wires the timeline to the side panels.
 *
 * State flows down as properties; the children report user actions as
 * events (wt-draw-select, wt-warp-select, wt-range-select, wt-cursor-change,
 * wt-draw-step, wt-zoom-to), which the app handles on its host element, so
 * panels slotted in from outside (slot="panels") take part the same way.
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { STAGES, Stage, formatNs, stageCssColor, type Trace } from '../../shared-schema/index.js';
import { rangeCounts, type RangeCounts } from '../../analysis/range-counts.js';
import { warpsInFlight, type InFlight } from '../../analysis/in-flight.js';
import type { CalibrationSummary } from '../../analysis/calibration-quality.js';
import { calibrationBadges } from './calibration-badges.js';
import type { LaneIndex } from '../model/lane-index.js';
import { buildDrawLayout, type DrawLayout } from '../model/draw-layout.js';
import { stepMatch } from '../model/draw-search.js';
import type { TimeRange } from '../timeline/frame.js';
import type { DecodeRequest } from '../loading/protocol.js';
import { loadTrace, type LoadProgress } from '../loading/trace-loader.js';
import { RecentsError, RecentsStore, type RecentTrace } from '../loading/recents-store.js';
import { fetchSampleIndex, type SampleIndex } from '../loading/samples.js';
import { appStyles } from './app-styles.js';
import { renderProgress } from './progress-bar.js';
import { SideColumns, sideColumnStyles } from './side-columns.js';
import { formatBytes } from './wt-recents.js';
import { smSummaryText } from '../model/sm-summary.js';
import { DismissController } from './dismiss-controller.js';
import type { WtTimeline } from './wt-timeline.js';
import './wt-timeline.js';
import './wt-draw-list.js';
import './wt-warp-details.js';
import './wt-range-summary.js';
import './wt-in-flight.js';
import './wt-recents.js';

export interface OpenedTrace {
  readonly trace: Trace;
  readonly index: LaneIndex;
  readonly drawLayout: DrawLayout;
  readonly name: string;
  readonly bytes: number;
  /** Longest warp, ns: bounds the look-back of cursor and range queries. */
  readonly maxDurationNs: number;
  /** What the header says about the clock calibration (made once: an older file's draw check reads every warp). */
  readonly calibration: CalibrationSummary;
}

/** How long opening the last trace took, ms. */
export interface OpenTimings {
  readonly totalMs: number;
  readonly readMs: number;
  readonly decodeMs: number;
  readonly indexMs: number;
  /** From the end of decoding to the first rendered frame (transfer, layout, first frame). */
  readonly firstFrameMs: number;
}

interface OpenMeta {
  readonly name: string;
  readonly source: 'file' | 'url' | 'generated';
  readonly url: string | null;
  /** False: not added to Recent (the default sample opened on start). */
  readonly remember?: boolean;
  readonly file: Blob | null;
  /** The recent entry whose stored file this is, when reopened from Recent. */
  readonly reopened?: string;
}

import type { Loading } from './progress-bar.js';

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
    dropActive: { state: true },
    recentsOpen: { state: true },
    hasPanels: { state: true },
  };

  declare opened: OpenedTrace | null;
  declare loading: Loading | null;
  declare error: string | null;
  declare notice: string | null;
  declare recents: RecentTrace[];
  declare samples: SampleIndex | null;
  declare sampleProblem: string | null;
  declare selectedDraw: number;
  /** The draw list's search matches (null: no filter): `[` / `]` step through them. */
  private drawMatches: Uint32Array | null = null;
  declare selectedWarp: number;
  declare range: TimeRange | null;
  declare counts: RangeCounts | null;
  declare cursorNs: number | null;
  declare inFlight: InFlight | null;
  declare hiddenStages: number;
  declare showAllSms: boolean;
  declare dropActive: boolean;
  declare recentsOpen: boolean;
  declare hasPanels: boolean;

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
  private abort: AbortController | null = null;
  private booted = false;

  static override styles = [appStyles, sideColumnStyles];
  private readonly columns = new SideColumns(this);

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
    this.dropActive = false;
    this.recentsOpen = false;
    this.hasPanels = false;
    // Events from the shadow tree (composed) and from slotted panels arrive here.
    this.addEventListener('wt-draw-select', (e) => this.selectDraw((e as CustomEvent<{ draw: number }>).detail.draw));
    this.addEventListener('wt-draw-step', (e) => this.stepDraw((e as CustomEvent<{ delta: number }>).detail.delta));
    this.addEventListener('wt-draw-filter', (e) => (this.drawMatches = e.detail.matches));
    this.addEventListener('wt-warp-select', (e) => this.selectWarp((e as CustomEvent<{ row: number }>).detail.row));
    this.addEventListener('wt-range-select', (e) => this.selectRange((e as CustomEvent<{ range: TimeRange | null }>).detail.range));
    this.addEventListener('wt-cursor-change', (e) => this.setCursor((e as CustomEvent<{ cursorNs: number | null }>).detail.cursorNs));
    this.addEventListener('wt-zoom-to', (e) => {
      const { startNs, endNs, sm } = (e as CustomEvent<TimeRange & { sm?: number }>).detail;
      this.timeline?.zoomTo(startNs, endNs);
      if (sm !== undefined) this.timeline?.scrollToSm(sm);
    });
    this.addEventListener('wt-recent-open', (e) => void this.openRecent((e as CustomEvent<{ id: string }>).detail.id));
    this.addEventListener('wt-recent-delete', (e) => void this.deleteRecent((e as CustomEvent<{ id: string }>).detail.id));
    this.addEventListener('dragover', this.onDragOver);
    this.addEventListener('dragleave', this.onDragLeave);
    this.addEventListener('drop', this.onDrop);
  }

  /** What a newly opened trace starts without: selections, range, cursor, hidden stages. */
  private clearViewState(): void {
    this.selectedDraw = -1;
    this.drawMatches = null;
    this.selectedWarp = -1;
    this.range = null;
    this.counts = null;
    this.cursorNs = null;
    this.inFlight = null;
    this.hiddenStages = 0;
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
    this.abort?.abort();
  }

  get timeline(): WtTimeline | null {
    return this.renderRoot.querySelector('wt-timeline');
  }

  private async boot(): Promise<void> {
    void this.refreshRecents();
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

  // ---- opening traces --------------------------------------------------------

  async openUrl(url: string, options: { remember?: boolean } = {}): Promise<boolean> {
    const name = decodeURIComponent(url.split(/[?#]/)[0]!.split('/').pop() || url);
    return this.open({ kind: 'url', url }, { name, source: 'url', url, file: null, remember: options.remember ?? true });
  }

  async openFile(file: File | Blob, name = file instanceof File ? file.name : 'trace'): Promise<boolean> {
    return this.open({ kind: 'blob', blob: file }, { name, source: 'file', url: null, file });
  }

  /** A generated H100-shaped trace (for trying the viewer without a capture, and for benchmarks). */
  async openSynthetic(warps: number, seed = 1): Promise<boolean> {
    return this.open({ kind: 'synthetic', warps, seed }, { name: `synthetic ${warps.toLocaleString('en-US')} warps`, source: 'generated', url: null, file: null });
  }

  private async open(request: DecodeRequest, meta: OpenMeta): Promise<boolean> {
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    this.error = null;
    const t0 = performance.now();
    performance.mark('warptrace:open');
    this.loading = { name: meta.name, progress: { phase: 'read', loaded: 0, total: null } };
    let loaded;
    try {
      loaded = await loadTrace(request, (progress) => (this.loading = { name: meta.name, progress }), abort.signal);
    } catch (e) {
      if (abort.signal.aborted) return false;
      this.loading = null;
      const field = e instanceof Error && 'field' in e ? (e as { field: string | null }).field : null;
      const message = e instanceof Error ? e.message : String(e);
      this.error = `Could not open ${meta.name}: ${message}${field !== null && !message.includes(field) ? ` (field ${field})` : ''}`;
      return false;
    }
    const tDecoded = performance.now();
    const { trace, index } = loaded;
    let maxDurationNs = 0;
    for (const lane of index.lanes) maxDurationNs = Math.max(maxDurationNs, lane.maxDurationNs);
    this.opened = { trace, index, drawLayout: buildDrawLayout(trace, index), name: meta.name, bytes: loaded.bytes, maxDurationNs, calibration: loaded.calibration };
    this.loading = null;
    this.abort = null;
    this.clearViewState();
    await this.updateComplete;
    const timeline = this.timeline;
    if (timeline !== null) {
      await timeline.ready();
      await timeline.updateComplete;
      timeline.renderNow();
    }
    const t1 = performance.now();
    performance.mark('warptrace:first-frame');
    this.lastOpenTimings = {
      totalMs: t1 - t0,
      readMs: loaded.timings.readMs,
      decodeMs: loaded.timings.decodeMs,
      indexMs: loaded.timings.indexMs,
      firstFrameMs: t1 - tDecoded,
    };
    this.dispatchEvent(new CustomEvent('wt-trace-opened', { detail: { name: meta.name, timings: this.lastOpenTimings }, bubbles: true, composed: true }));
    if (meta.source !== 'generated' && meta.remember !== false) void this.remember(trace, loaded.bytes, loaded.contentHash, meta);
    return true;
  }

  cancelLoading(): void {
    this.abort?.abort();
    this.abort = null;
    this.loading = null;
  }

  private async remember(trace: Trace, bytes: number, hashing: Promise<string | null>, meta: OpenMeta): Promise<void> {
    try {
      const contentHash = await hashing;
      await this.store.add(
        { name: meta.name, size: bytes, device: trace.device.name, warps: trace.warps.count, source: meta.source === 'file' ? 'file' : 'url', url: meta.url, contentHash },
        meta.file,
        meta.reopened ?? null,
      );
      this.notice = null;
    } catch (e) {
      this.notice = e instanceof RecentsError ? e.message : `Could not keep ${meta.name} in recent traces: ${String(e)}`;
    }
    await this.refreshRecents();
  }

  async refreshRecents(): Promise<void> {
    try {
      this.recents = await this.store.list();
    } catch (e) {
      this.notice = e instanceof Error ? e.message : String(e);
    }
  }

  private async openRecent(id: string): Promise<void> {
    this.recentsOpen = false;
    const entry = this.recents.find((r) => r.id === id);
    if (entry === undefined) return;
    if (entry.source === 'url' && entry.url !== null) {
      await this.openUrl(entry.url);
      return;
    }
    try {
      const blob = await this.store.file(id);
      if (blob === null) {
        this.error = `The stored copy of ${entry.name} is gone; open the file again.`;
        return;
      }
      await this.open({ kind: 'blob', blob }, { name: entry.name, source: 'file', url: null, file: blob, reopened: id });
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  private async deleteRecent(id: string): Promise<void> {
    try {
      await this.store.remove(id);
    } catch (e) {
      this.notice = e instanceof Error ? e.message : String(e);
    }
    await this.refreshRecents();
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
  }

  /** `[` / `]`: previous / next draw that has a span (of the draw list's matches while it filters). */
  stepDraw(delta: number): void {
    const o = this.opened;
    if (o === null) return;
    if (this.drawMatches !== null) {
      const d = stepMatch(this.drawMatches, this.selectedDraw, delta);
      if (d >= 0) this.selectDraw(d);
      return;
    }
    const n = o.trace.draws.length;
    let d = this.selectedDraw < 0 ? (delta > 0 ? -1 : n) : this.selectedDraw;
    for (let k = 0; k < n; k++) {
      d += delta;
      if (d < 0 || d >= n) return;
      if (!Number.isNaN(o.drawLayout.spans[2 * d]!)) break;
    }
    this.selectDraw(d);
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

  // ---- rendering ---------------------------------------------------------------

  override updated(changed: PropertyValues<this>): void {
    // Properties down to panels slotted in from outside.
    for (const el of this.panelElements()) {
      Object.assign(el, {
        trace: this.opened?.trace ?? null,
        range: this.range,
        selectedDraw: this.selectedDraw,
        selectedWarp: this.selectedWarp,
        cursorNs: this.cursorNs,
      });
    }
    void changed;
  }

  private panelElements(): Element[] {
    const slot = this.renderRoot.querySelector('slot[name="panels"]') as HTMLSlotElement | null;
    return slot?.assignedElements() ?? [];
  }

  private onSlotChange = (): void => {
    this.hasPanels = this.panelElements().length > 0;
    this.requestUpdate();
  };

  override render() {
    const o = this.opened;
    return html`
      <header>
        <span class="brand">warptrace</span>
        <button @click=${this.pickFile} title="Open a .wtrace, .wtraw or warptrace JSON file">Open…</button>
        <input type="file" accept=".wtrace,.wtraw,.json,application/json" hidden @change=${this.onFilePicked} />
        ${this.renderSamplesMenu()}
        <button data-recents-toggle @click=${() => (this.recentsOpen = !this.recentsOpen)} aria-expanded=${this.recentsOpen ? 'true' : 'false'}>Recent (${this.recents.length})</button>
        ${o === null ? nothing : this.renderTraceTitle(o)}
        <span class="spacer"></span>
        ${o === null ? nothing : this.renderStageChips(o)}
        ${o === null
          ? nothing
          : html`<label class="toggle" title="Show a lane for every SM of the device, not only SMs that ran warps">
              <input type="checkbox" .checked=${this.showAllSms} @change=${(e: Event) => (this.showAllSms = (e.target as HTMLInputElement).checked)} />
              all ${o.trace.device.smCount ?? ''} SMs
            </label>`}
        <details class="help">
          <summary aria-label="Keyboard and mouse help">?</summary>
          <div class="help-body">${helpText()}</div>
        </details>
      </header>
      ${this.recentsOpen ? html`<div class="recents-popover"><wt-recents .recents=${this.recents}></wt-recents></div>` : nothing}
      ${this.loading === null ? nothing : renderProgress(this.loading, () => this.cancelLoading())}
      ${this.error === null
        ? nothing
        : html`<div class="banner error" role="alert">${this.error}<button @click=${() => (this.error = null)} aria-label="Dismiss">×</button></div>`}
      ${this.notice === null
        ? nothing
        : html`<div class="banner notice" role="status">${this.notice}<button @click=${() => (this.notice = null)} aria-label="Dismiss">×</button></div>`}
      ${o === null ? nothing : this.renderSmSummary(o)}
      <main class="${this.hasPanels ? 'with-panels' : ''} ${this.columns.classes()}" style=${this.columns.style()}>
        ${o === null
          ? this.renderEmpty()
          : html`
              <wt-draw-list class="draws" .trace=${o.trace} .spans=${o.drawLayout.spans} .tree=${o.drawLayout.tree} .selectedDraw=${this.selectedDraw}></wt-draw-list>
              <section class="center">
                <wt-timeline
                  .trace=${o.trace}
                  .index=${o.index}
                  .hiddenStages=${this.hiddenStages}
                  .showAllSms=${this.showAllSms}
                  .selectedDraw=${this.selectedDraw}
                  .selectedWarp=${this.selectedWarp}
                  .range=${this.range}
                  .cursorNs=${this.cursorNs}
                ></wt-timeline>
                <div class="details">
                  <wt-warp-details .trace=${o.trace} .row=${this.selectedWarp}></wt-warp-details>
                  <wt-range-summary .trace=${o.trace} .counts=${this.counts}></wt-range-summary>
                  <wt-in-flight .trace=${o.trace} .inFlight=${this.inFlight}></wt-in-flight>
                </div>
              </section>
              ${this.columns.edge('left')}
            `}
        ${this.hasPanels ? this.columns.edge('right') : nothing}
        <aside class="panels" aria-label="Analysis panels"><slot name="panels" @slotchange=${this.onSlotChange}></slot></aside>
      </main>
      ${this.dropActive ? html`<div class="drop-overlay">Drop a trace file to open it</div>` : nothing}
    `;
  }

  private renderSamplesMenu() {
    const s = this.samples;
    if (s === null || s.samples.length === 0) return nothing;
    return html`<select
      aria-label="Open a sample capture"
      @change=${(e: Event) => {
        const sel = e.target as HTMLSelectElement;
        if (sel.value !== '') void this.openUrl(`${this.sampleBase}${sel.value}`);
        sel.value = '';
      }}
    >
      <option value="">Samples…</option>
      ${s.samples.map((e) => html`<option value=${e.file} title=${e.description}>${e.title}${e.device ? ` (${e.device})` : ''}</option>`)}
    </select>`;
  }

  private renderTraceTitle(o: OpenedTrace) {
    const c = o.trace.capture;
    const dropped = c.recordsWritten - c.recordsKept;
    return html`<span class="title" title=${c.calibration.note}>
      <strong>${o.name}</strong>
      <span class="muted">${o.trace.device.name} · ${o.trace.warps.count.toLocaleString('en-US')} warps · ${o.trace.draws.length} draws${o.bytes > 0 ? ` · ${formatBytes(o.bytes)}` : ''}</span>
      <span class=${dropped > 0 ? 'dropped warn' : 'dropped'}>${dropped > 0 ? `${dropped.toLocaleString('en-US')} records dropped` : 'nothing dropped'}</span>
      ${calibrationBadges(o.calibration, o.trace.warps.count)}
    </span>`;
  }

  private renderStageChips(o: OpenedTrace) {
    let present = 0;
    for (const lane of o.index.lanes) present |= lane.stageMask;
    return html`<span class="chips" role="group" aria-label="Stages shown">
      ${STAGES.filter((s) => present & (1 << s.code)).map((s) => {
        const hidden = (this.hiddenStages & (1 << s.code)) !== 0;
        return html`<button
          class="chip ${hidden ? 'off' : ''}"
          aria-pressed=${hidden ? 'false' : 'true'}
          title="${hidden ? 'Show' : 'Hide'} ${s.title} warps"
          @click=${() => this.toggleStage(s.code)}
        >
          <span class="swatch" style="background:${stageCssColor(s.code)}"></span>${s.label}
        </button>`;
      })}
    </span>`;
  }

  /** One line that makes the SM placement obvious, e.g. graphics on 4 of 132 SMs. */
  private renderSmSummary(o: OpenedTrace) {
    const t = smSummaryText(o.index.lanes, o.trace.device.smCount);
    const csHidden = (this.hiddenStages & (1 << Stage.CS)) !== 0;
    const span = o.index.endNs - o.index.startNs;
    return html`<div class="sm-summary">
      ${t.graphics !== null ? html`<span><strong>${t.graphics}</strong> (${t.graphicsSms})</span>` : nothing}
      ${t.compute !== null ? html`<span>${t.compute}</span>` : nothing}
      <span class="muted">${t.ran} · capture spans ${formatNs(span)}</span>
      ${t.hasGraphics && t.hasCompute
        ? html`<button @click=${() => this.toggleStage(Stage.CS)}>${csHidden ? 'Show compute' : 'Only graphics SMs'}</button>`
        : nothing}
    </div>`;
  }

  private renderEmpty() {
    return html`<section class="empty">
      <h2>Open a warp trace</h2>
      ${this.loading !== null
        ? nothing
        : html`<p class="muted">
            ${this.sampleProblem !== null ? html`No sample capture is available (${this.sampleProblem}). ` : nothing}Open a
            <code>.wtrace</code>, <code>.wtraw</code> or warptrace JSON file, drop one here, or pass <code>?trace=URL</code>.
          </p>`}
      <p>
        <button @click=${this.pickFile}>Open a trace file…</button>
        <button @click=${() => void this.openSynthetic(1_000_000)} title="Generated, H100-shaped; not a real capture">Generate a synthetic trace (1 M warps)</button>
      </p>
      <h3>Recent traces</h3>
      <wt-recents .recents=${this.recents}></wt-recents>
    </section>`;
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

  private onDragOver = (e: DragEvent): void => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    this.dropActive = true;
  };

  private onDragLeave = (e: DragEvent): void => {
    if (e.relatedTarget === null || !this.contains(e.relatedTarget as Node)) this.dropActive = false;
  };

  private onDrop = (e: DragEvent): void => {
    e.preventDefault();
    this.dropActive = false;
    const file = e.dataTransfer?.files[0];
    if (file !== undefined) void this.openFile(file);
  };
}

function helpText() {
  return html`<table>
    <tr><th>W / S</th><td>zoom in / out (hold)</td></tr>
    <tr><th>A / D, ← / →</th><td>pan</td></tr>
    <tr><th>wheel</th><td>zoom at the pointer; Shift+wheel pans; wheel over SM labels scrolls</td></tr>
    <tr><th>drag</th><td>pan; Shift+drag selects a time range</td></tr>
    <tr><th>click</th><td>a warp: details; an SM label: expand to warp slots; the time axis: time cursor</td></tr>
    <tr><th>↑ / ↓, Enter</th><td>move between SM lanes, expand one</td></tr>
    <tr><th>, / .</th><td>previous / next warp on the focused lane</td></tr>
    <tr><th>[ / ]</th><td>previous / next draw, or search match (zooms to it, dims the others)</td></tr>
    <tr><th>Find box</th><td>label or glob (* ?), #12, pass:name, stage:FS; Enter zooms to the match, Esc clears the filter</td></tr>
    <tr><th>F, 0</th><td>fit the selection, show everything</td></tr>
    <tr><th>C, Esc</th><td>time cursor at the centre, clear selections (warp, range, cursor, draw)</td></tr>
  </table>`;
}

customElements.define('warptrace-app', WarptraceApp);
declare global {
  interface HTMLElementTagNameMap {
    'warptrace-app': WarptraceApp;
  }
}
