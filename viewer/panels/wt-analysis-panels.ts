/**
 * <wt-analysis-panels slot="panels">: the analysis panels composed for the
 * app shell, which hands every slotted panel `.trace`, `.selectedDraw` and `.selectedWarp`
 * (see viewer/components/warptrace-app.ts). It runs `analyzeTrace` once per
 * trace in a Web Worker (viewer/loading/analysis-client.ts; ~1-2 s at 10 M
 * warps, none of it on the page's thread), shows "Analyzing…" meanwhile (a
 * newer trace cancels the older analysis), and lays out the findings list,
 * the statistics, the shader panel (traces with a block profile: where the
 * selected draw's shaders spent their time, wt-shader-panel.ts), the phases
 * panel (traces with marks: time between them, wt-phases-panel.ts; the
 * worker sends the phase table with the summary) and the export buttons; their
 * events bubble on to the shell. A shell that already has a summary (e.g.
 * from its decode worker) sets `.summary` and no analysis runs here.
 *
 * Passes (traces with regions): the cost per pass and its icicle
 * (wt-passes-panel.ts). Thresholds: the findings section's editor
 * (wt-thresholds.ts); changed values are kept in localStorage
 * (loading/threshold-store.ts), every trace is analyzed with them, and
 * applying them analyzes the open trace again (the old findings stay until
 * the new ones come).
 *
 * A/B: "Use as baseline" keeps the current trace's summary; every trace
 * opened afterwards is compared against it (the 2016 "15% longer TCS warps
 * but a shorter draw" comparison) until the baseline is cleared.
 * `wt-baseline-change` {trace} (bubbles, composed) says when the baseline's
 * trace changes (null: cleared), for the timeline's ghost track.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import type { AnalysisSummary } from '../../analysis/summary.js';
import { phaseTable, type PhaseTable } from '../../analysis/marks.js';
import type { Trace } from '../../shared-schema/model.js';
import { nextTask } from '../base/tasks.js';
import { analyzeInWorker } from '../loading/analysis-client.js';
import { loadThresholdOverrides, saveThresholdOverrides, type ThresholdOverrides } from '../loading/threshold-store.js';
import { changedThresholds } from '../../analysis/thresholds.js';
import { panelStyles } from '../components/shared-styles.js';
import type { DurationFilter } from '../model/warp-filter.js';
import './wt-compare-panel.js';
import './wt-export-buttons.js';
import './wt-findings-list.js';
import './wt-passes-panel.js';
import './wt-thresholds.js';
import './wt-phases-panel.js';
import './wt-shader-panel.js';
import './wt-stats-panel.js';

export class WtAnalysisPanels extends LitElement {
  static override properties = {
    trace: { attribute: false },
    summary: { attribute: false },
    selectedDraw: { attribute: false },
    selectedWarp: { attribute: false },
    durationFilter: { attribute: false },
    fileName: { type: String },
    analyzing: { state: true },
    problem: { state: true },
    baseline: { state: true },
    comparedSummary: { state: true },
    phases: { state: true },
    range: { attribute: false },
    drawMatches: { attribute: false },
    selectedPass: { attribute: false },
    overrides: { state: true },
    reanalyzing: { state: true },
  };

  static override styles = [
    panelStyles,
    css`
      section + section {
        margin-top: 10px;
      }
      details.thresholds > summary {
        cursor: pointer;
        color: var(--wt-muted, #8b909c);
        margin-top: 6px;
      }
    `,
  ];

  declare trace: Trace | null;
  declare summary: AnalysisSummary | null;
  declare selectedDraw: number;
  /** The app's selected warp (-1: none): the shader panel shows its draw when no draw is selected. */
  declare selectedWarp: number;
  /** The app's duration filter (its histogram bins show picked in Statistics). */
  declare durationFilter: DurationFilter | null;
  declare fileName: string;
  declare analyzing: boolean;
  /** Why the analysis failed, or null. */
  declare problem: string | null;
  /** The A side of the comparison: a summary kept from an earlier trace, with its name. */
  declare baseline: { summary: AnalysisSummary; name: string; trace: Trace | null } | null;
  /**
   * The summary the comparison shows for: set a task after the summary is shown, so that
   * the panels and the comparison (pairing thousands of draws, every per-draw delta) are
   * not one long task; until then the comparison says it is coming.
   */
  declare comparedSummary: AnalysisSummary | null;
  /** The phase table of every draw (traces with marks), from the worker; null until it comes. */
  declare phases: PhaseTable | null;
  /** The app's time range, find matches and selected pass (the draws table narrows by them; -1: no pass). */
  declare range: { readonly startNs: number; readonly endNs: number } | null;
  declare drawMatches: Uint32Array | null;
  declare selectedPass: number;
  /** Thresholds changed from their defaults (kept in localStorage). */
  declare overrides: ThresholdOverrides;
  /** The open trace is being analyzed again with new thresholds (the shown summary is the old one). */
  declare reanalyzing: boolean;
  private compareScheduled = false;
  /** The trace the summary belongs to (a new trace invalidates it). */
  private analyzedTrace: Trace | null = null;
  private pending: AbortController | null = null;

  constructor() {
    super();
    this.trace = null;
    this.summary = null;
    this.selectedDraw = -1;
    this.selectedWarp = -1;
    this.durationFilter = null;
    this.fileName = 'warptrace';
    this.analyzing = false;
    this.problem = null;
    this.baseline = null;
    this.comparedSummary = null;
    this.phases = null;
    this.range = null;
    this.drawMatches = null;
    this.selectedPass = -1;
    this.overrides = loadThresholdOverrides();
    this.reanalyzing = false;
    this.addEventListener('wt-thresholds-change', (e) => this.setThresholds(e.detail.overrides));
  }

  /** Keeps `overrides` and analyzes the open trace again with them. */
  setThresholds(overrides: ThresholdOverrides): void {
    this.overrides = overrides;
    saveThresholdOverrides(overrides);
    if (this.trace !== null) this.analyze(this.trace, true);
  }

  private useAsBaseline(): void {
    if (this.summary !== null) this.baseline = { summary: this.summary, name: this.fileName, trace: this.trace };
  }

  private renderCompare() {
    const current = this.summary;
    if (current === null) return null;
    const base = this.baseline;
    if (base === null) {
      return html`<section>
        <h3>Compare</h3>
        <button @click=${() => this.useAsBaseline()}>Use as baseline (A)</button>
        <p class="muted">Then open another trace (B) to see per-stage and per-draw deltas.</p>
      </section>`;
    }
    const same = base.trace === this.trace;
    return html`<section>
      <h3>Compare</h3>
      ${same
        ? html`<p class="muted">Baseline A: ${base.name}. Open another trace to compare it with.</p>`
        : this.comparedSummary !== current
          ? html`<p class="muted" role="status">Comparing with ${base.name}…</p>`
          : html`<wt-compare-panel .a=${base.summary} .b=${current} .traceA=${base.trace} .traceB=${this.trace} labelA=${base.name} labelB=${this.fileName}></wt-compare-panel>`}
      <button @click=${() => (this.baseline = null)}>Clear baseline</button>
      ${same ? null : html`<button @click=${() => this.useAsBaseline()}>Use this trace as A</button>`}
    </section>`;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('summary') && this.summary !== null) {
      // A summary from the shell: use it for the current trace, cancel our own analysis.
      this.cancel();
      if (this.analyzedTrace !== this.trace) this.phases = null;
      this.analyzedTrace = this.trace;
      this.analyzing = false;
      this.phasesOnPage();
      return;
    }
    if (!changed.has('trace') || this.trace === this.analyzedTrace) return;
    this.cancel();
    this.summary = null;
    this.phases = null;
    this.problem = null;
    this.analyzedTrace = this.trace;
    this.analyzing = this.trace !== null;
    if (this.trace !== null) this.analyze(this.trace, false);
  }

  /** Runs the analysis of `trace` in the worker; `again`: the shown summary stays until the new one comes. */
  private analyze(trace: Trace, again: boolean): void {
    this.cancel();
    this.reanalyzing = again;
    if (again) this.problem = null;
    const abort = new AbortController();
    this.pending = abort;
    analyzeInWorker(trace, abort.signal, this.overrides).then(
      ({ summary, phases }) => {
        if (this.pending !== abort) return;
        this.pending = null;
        this.analyzing = false;
        this.reanalyzing = false;
        this.summary = summary;
        this.phases = phases;
        this.dispatchEvent(new CustomEvent('wt-analysis-ready', { detail: { summary }, bubbles: true, composed: true }));
      },
      (e: unknown) => {
        if (this.pending !== abort) return;
        this.pending = null;
        this.analyzing = false;
        this.reanalyzing = false;
        this.problem = e instanceof Error ? e.message : String(e);
      },
    );
  }

  protected override updated(changed: PropertyValues<this>): void {
    const wantsCompare = this.summary !== null && this.baseline !== null && this.baseline.trace !== this.trace;
    if (wantsCompare && this.comparedSummary !== this.summary && !this.compareScheduled) {
      this.compareScheduled = true;
      void nextTask().then(() => {
        this.compareScheduled = false;
        this.comparedSummary = this.summary;
      });
    }
    // The shell shows the baseline on the timeline (its ghost track): tell it when A changes.
    if (changed.has('baseline') && (changed.get('baseline')?.trace ?? null) !== (this.baseline?.trace ?? null)) {
      this.dispatchEvent(new CustomEvent('wt-baseline-change', { detail: { trace: this.baseline?.trace ?? null }, bubbles: true, composed: true }));
    }
  }

  /**
   * A summary from the shell comes without the phase table: it is computed here, a task
   * later (a string key per phase occurrence: the worker's path is the one for large traces).
   */
  private phasesOnPage(): void {
    const trace = this.trace;
    if (trace === null || (trace.marks?.count ?? 0) === 0 || this.phases !== null) return;
    void nextTask().then(() => {
      if (this.trace === trace && this.phases === null) this.phases = phaseTable(trace, { draws: null, stage: null });
    });
  }

  private cancel(): void {
    this.pending?.abort();
    this.pending = null;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.cancel();
  }

  /**
   * The shader panel, only for traces with a block profile (it needs no analysis: it is
   * there while the analysis runs, and when it fails).
   */
  private renderShader() {
    if (this.trace?.blocks == null) return nothing;
    return html`<section><h3>Shader</h3><wt-shader-panel .trace=${this.trace} .selectedDraw=${this.selectedDraw} .selectedWarp=${this.selectedWarp}></wt-shader-panel></section>`;
  }

  /** The phases panel, only for traces with marks (time between them: wt-phases-panel.ts). */
  private renderPhases() {
    if ((this.trace?.marks?.count ?? 0) === 0) return nothing;
    return html`<section><h3>Phases</h3><wt-phases-panel .trace=${this.trace} .table=${this.phases} .selectedDraw=${this.selectedDraw} .selectedWarp=${this.selectedWarp}></wt-phases-panel></section>`;
  }

  /** "Thresholds (2 changed)": the editor, folded. */
  private renderThresholds(summary: AnalysisSummary) {
    const changed = changedThresholds(summary.thresholds).length;
    return html`<details class="thresholds">
      <summary>Thresholds${changed > 0 ? ` (${changed} changed)` : ''}</summary>
      <wt-thresholds .thresholds=${summary.thresholds}></wt-thresholds>
    </details>`;
  }

  /** The cost per pass, only for traces with regions. */
  private renderPasses(summary: AnalysisSummary) {
    if (summary.passes === undefined) return nothing;
    return html`<section>
      <h3>Passes</h3>
      <wt-passes-panel .trace=${this.trace} .section=${summary.passes} .draws=${summary.draws} .selectedPass=${this.selectedPass} .selectedDraw=${this.selectedDraw}></wt-passes-panel>
    </section>`;
  }

  override render() {
    if (this.trace === null && this.summary === null) return html`<p class="muted">Open a trace to analyze it.</p>`;
    if (this.summary === null) {
      if (this.problem !== null) return html`<p class="muted" role="alert">Analysis failed: ${this.problem}</p>${this.renderShader()}`;
      return html`<p class="muted" role="status">${this.analyzing ? 'Analyzing…' : ''}</p>${this.renderShader()}`;
    }
    return html`
      <section>
        <h3>Findings</h3>
        ${this.reanalyzing ? html`<p class="muted" role="status">Analyzing with the new thresholds…</p>` : nothing}
        <wt-findings-list .findings=${this.summary.findings} .groups=${this.summary.findingGroups} .minShare=${this.summary.thresholds.findingGroupMinShare} .sampled=${this.summary.sampling?.every}></wt-findings-list>
        ${this.renderThresholds(this.summary)}
      </section>
      ${this.renderPasses(this.summary)}
      <section>
        <h3>Statistics</h3>
        <wt-stats-panel
          .summary=${this.summary}
          .trace=${this.trace}
          .selectedDraw=${this.selectedDraw}
          .range=${this.range}
          .drawMatches=${this.drawMatches}
          .selectedPass=${this.selectedPass}
          .durationFilter=${this.durationFilter}
        ></wt-stats-panel>
      </section>
      ${this.renderShader()} ${this.renderPhases()}
      <section><h3>Export</h3><wt-export-buttons .summary=${this.summary} .trace=${this.trace} .phases=${this.phases} fileName=${this.fileName}></wt-export-buttons></section>
      ${this.renderCompare()}
    `;
  }
}

if (!customElements.get('wt-analysis-panels')) customElements.define('wt-analysis-panels', WtAnalysisPanels);

declare global {
  interface HTMLElementTagNameMap {
    'wt-analysis-panels': WtAnalysisPanels;
  }
}
