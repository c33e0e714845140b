/**
 * <wt-export-buttons .summary=${summary} .trace=${trace} fileName="frame">:
 * buttons that make export files with the pure formatters (analysis/export):
 * summary JSON, Markdown report, CSV tables, and the Perfetto protobuf trace
 * (needs `.trace` only; made in a Web Worker, perfetto-export-worker.ts, so
 * the page stays responsive at millions of warps). For a trace with block
 * profiles, marks or ray events the summary's sections for them are added
 * from `.trace` where the summary lacks them (the analysis worker has no
 * block profile; `.phases`, the phase table, saves making it again), and
 * their CSV buttons appear. Each export dispatches a
 * cancelable, bubbling, composed `wt-export` {format, fileName, blob} once its
 * blob is made; unless a listener cancels it (to save the blob its own way),
 * the panel downloads the blob. An export that fails (a browser out of memory
 * for a huge trace) says so beside the buttons.
 */
import { LitElement, css, html } from 'lit';
import { drawsCsv, findingsCsv, stagesCsv, summaryCsv } from '../../analysis/export/csv.js';
import { summaryToJson } from '../../analysis/export/json.js';
import { summaryToMarkdown } from '../../analysis/export/markdown.js';
import type { AnalysisSummary } from '../../analysis/summary.js';
import type { PhaseTable } from '../../analysis/marks.js';
import { withTraceSections } from '../../analysis/trace-sections.js';
import type { Trace } from '../../shared-schema/model.js';
import { panelStyles } from '../components/shared-styles.js';
import type { PerfettoExportRequest, PerfettoExportResponse } from './perfetto-export-worker.js';

export type ExportFormat = 'summary-json' | 'markdown' | 'stages-csv' | 'draws-csv' | 'findings-csv' | 'passes-csv' | 'blocks-csv' | 'phases-csv' | 'rays-csv' | 'perfetto';

/** The trace data a section's CSV needs (the button is there only when the summary or the trace has it). */
type SectionKey = 'blocks' | 'phases' | 'rays' | 'passes';

export interface ExportDetail {
  readonly format: ExportFormat;
  readonly fileName: string;
  readonly blob: Blob;
}

const FORMATS: readonly { id: ExportFormat; label: string; suffix: string; type: string; needsTrace: boolean; section?: SectionKey }[] = [
  { id: 'summary-json', label: 'Summary JSON', suffix: '.summary.json', type: 'application/json', needsTrace: false },
  { id: 'markdown', label: 'Report (Markdown)', suffix: '.report.md', type: 'text/markdown', needsTrace: false },
  { id: 'stages-csv', label: 'Stages CSV', suffix: '.stages.csv', type: 'text/csv', needsTrace: false },
  { id: 'draws-csv', label: 'Draws CSV', suffix: '.draws.csv', type: 'text/csv', needsTrace: false },
  { id: 'findings-csv', label: 'Findings CSV', suffix: '.findings.csv', type: 'text/csv', needsTrace: false },
  { id: 'passes-csv', label: 'Passes CSV', suffix: '.passes.csv', type: 'text/csv', needsTrace: false, section: 'passes' },
  { id: 'blocks-csv', label: 'Blocks CSV', suffix: '.blocks.csv', type: 'text/csv', needsTrace: false, section: 'blocks' },
  { id: 'phases-csv', label: 'Phases CSV', suffix: '.phases.csv', type: 'text/csv', needsTrace: false, section: 'phases' },
  { id: 'rays-csv', label: 'Ray events CSV', suffix: '.rays.csv', type: 'text/csv', needsTrace: false, section: 'rays' },
  { id: 'perfetto', label: 'Perfetto trace', suffix: '.perfetto-trace', type: 'application/octet-stream', needsTrace: true },
];

export class WtExportButtons extends LitElement {
  static override properties = {
    summary: { attribute: false },
    trace: { attribute: false },
    phases: { attribute: false },
    fileName: { type: String },
    failure: { state: true },
    busy: { state: true },
  };

  static override styles = [
    panelStyles,
    css`
      :host {
        display: flex;
        flex-wrap: wrap;
        gap: 4px;
      }
      .failure {
        color: var(--wt-bad, #c0392b);
        flex-basis: 100%;
      }
    `,
  ];

  declare summary: AnalysisSummary | null;
  declare trace: Trace | null;
  /** The trace's phase table of every draw, when made elsewhere (else made here, for an export, from `.trace`'s marks). */
  declare phases: PhaseTable | null;
  /** Base name of the files, without extension. */
  declare fileName: string;
  /** Why the last export failed, shown until the next one. */
  declare failure: string | null;
  /** The export being made in the worker (its button is disabled meanwhile). */
  declare busy: ExportFormat | null;

  constructor() {
    super();
    this.summary = null;
    this.trace = null;
    this.phases = null;
    this.fileName = 'warptrace';
    this.failure = null;
    this.busy = null;
  }

  /** Whether the summary has (or `.trace` can add) the section. */
  private hasSection(key: SectionKey): boolean {
    if (this.summary?.[key] !== undefined) return true;
    const t = this.trace;
    // Passes come with the summary (analyzeTrace makes them for a trace with regions).
    return t !== null && key !== 'passes' && (key === 'blocks' ? t.blocks != null : key === 'phases' ? t.marks != null : t.rayEvents != null);
  }

  override render() {
    return html`${FORMATS.filter((f) => f.section === undefined || this.hasSection(f.section)).map(
      (f) => html`<button
        data-format=${f.id}
        ?disabled=${(f.needsTrace ? this.trace === null : this.summary === null) || this.busy === f.id}
        title=${f.needsTrace ? 'Perfetto protobuf trace for ui.perfetto.dev: a process per SM, a thread per warp slot, draws and regions' : `Save ${f.label}`}
        @click=${() => this.export(f.id)}
      >
        ${f.label}
      </button>`,
    )}${this.failure === null ? null : html`<span class="failure" role="alert">${this.failure}</span>`}`;
  }

  /** Builds the file for `format` (also callable by the shell, e.g. from a keyboard shortcut). */
  async makeBlob(format: ExportFormat): Promise<Blob> {
    if (format === 'perfetto') {
      if (this.trace === null) throw new Error('the Perfetto export needs the trace');
      return perfettoInWorker(this.trace);
    }
    const s = this.summary === null || this.trace === null ? this.summary : withTraceSections(this.summary, this.trace, { phases: this.phases });
    if (s === null) throw new Error('no summary to export');
    const type = FORMATS.find((f) => f.id === format)!.type;
    switch (format) {
      case 'summary-json':
        return new Blob([summaryToJson(s)], { type });
      case 'markdown':
        return new Blob([summaryToMarkdown(s)], { type });
      case 'stages-csv':
        return new Blob([stagesCsv(s)], { type });
      case 'draws-csv':
        return new Blob([drawsCsv(s)], { type });
      case 'findings-csv':
        return new Blob([findingsCsv(s)], { type });
      case 'passes-csv':
        return new Blob([summaryCsv(s, 'passes')], { type });
      case 'blocks-csv':
        return new Blob([summaryCsv(s, 'blocks')], { type });
      case 'phases-csv':
        return new Blob([summaryCsv(s, 'phases')], { type });
      case 'rays-csv':
        return new Blob([summaryCsv(s, 'rays')], { type });
    }
  }

  private async export(format: ExportFormat): Promise<void> {
    this.failure = null;
    this.busy = format;
    let blob: Blob;
    try {
      blob = await this.makeBlob(format);
    } catch (error) {
      // A click handler's exception would only reach the console: say it where the user looks.
      this.failure = `${FORMATS.find((f) => f.id === format)!.label} export failed: ${error instanceof Error ? error.message : String(error)}`;
      return;
    } finally {
      this.busy = null;
    }
    const fileName = `${this.fileName}${FORMATS.find((f) => f.id === format)!.suffix}`;
    const event = new CustomEvent<ExportDetail>('wt-export', { detail: { format, fileName, blob }, bubbles: true, composed: true, cancelable: true });
    if (!this.dispatchEvent(event)) return;
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = fileName;
    a.style.display = 'none';
    this.renderRoot.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** The Perfetto protobuf of `trace`, made in a worker (one per export: it ends with it). */
function perfettoInWorker(trace: Trace): Promise<Blob> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./perfetto-export-worker.ts', import.meta.url), { type: 'module', name: 'warptrace-perfetto-export' });
    worker.onmessage = (event: MessageEvent<PerfettoExportResponse>) => {
      worker.terminate();
      const m = event.data;
      if (m.kind === 'done') resolve(m.blob);
      else reject(new Error(m.message));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message || 'the export worker failed'));
    };
    try {
      worker.postMessage({ trace } satisfies PerfettoExportRequest);
    } catch (error) {
      // A trace that cannot be cloned (or a browser out of memory copying it).
      worker.terminate();
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

if (!customElements.get('wt-export-buttons')) customElements.define('wt-export-buttons', WtExportButtons);

declare global {
  interface HTMLElementTagNameMap {
    'wt-export-buttons': WtExportButtons;
  }
  interface HTMLElementEventMap {
    'wt-export': CustomEvent<ExportDetail>;
  }
}
