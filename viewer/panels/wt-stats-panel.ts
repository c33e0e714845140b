/**
 * <wt-stats-panel .summary=${summary} .draw=${null | n}>: the statistics of
 * an AnalysisSummary: per stage (durations, histogram, lanes, SMs), occupancy
 * (warps in flight per SM against the SM's slots) and per draw. Clicking a
 * draw row dispatches `wt-zoom-to` {startNs, endNs} and `wt-draw-select`
 * {draw}. With `.draw` set it shows that draw's stages; `.selectedDraw` (the
 * app's selection) shows that draw's stages above the tabs and is
 * highlighted in the draws table (wt-draws-table.ts), which sorts on a
 * header click, is virtualized and is narrowed by the app's find matches,
 * time range and pass. Stages are named as the header names them (RGen, not
 * RAYGEN); long labels wrap. Shows, never computes.
 */
import { LitElement, css, html, nothing } from 'lit';
import { formatNs, formatNumber, formatShare, gapBeforeText } from '../../analysis/format.js';
import type { AnalysisSummary, DrawSummary, DurationStats } from '../../analysis/summary.js';
import { parseStageName, stageCssColor, stageLabelOf } from '../../shared-schema/stages.js';
import { binEdges, histogramSpark, type SparkPick } from './histogram-spark.js';
import type { DurationFilter } from '../model/warp-filter.js';
import { panelStyles } from '../components/shared-styles.js';
import { knownSmCount, type Trace } from '../../shared-schema/index.js';
import { drawTableStyles } from './draw-table.js';
import './wt-draws-table.js';
import { approxMark, drawSampled, estimateMark, samplingNote, withheldNote } from './sampling-note.js';

export type StatsTab = 'stages' | 'occupancy' | 'draws';
const TABS: readonly { id: StatsTab; label: string }[] = [
  { id: 'stages', label: 'Stages' },
  { id: 'occupancy', label: 'Occupancy' },
  { id: 'draws', label: 'Draws' },
];

const colorOf = (stage: string) => stageCssColor(parseStageName(stage) ?? 0);
/** The UI's one name for a stage ("RGen", as the header's chips say; the summary keeps "RAYGEN"). */
const labelOf = stageLabelOf;

export class WtStatsPanel extends LitElement {
  static override properties = {
    summary: { attribute: false },
    draw: { attribute: false },
    selectedDraw: { attribute: false },
    tab: { type: String, reflect: true },
    trace: { attribute: false },
    durationFilter: { attribute: false },
    range: { attribute: false },
    drawMatches: { attribute: false },
    selectedPass: { attribute: false },
    allStageColumns: { state: true },
  };

  static override styles = [
    panelStyles,
    drawTableStyles,
    css`
      .sampling-note {
        margin: 4px 0;
        color: #c9b6ff;
      }
      .sampling-note ul {
        margin: 2px 0;
        padding-left: 18px;
      }
      .tabs {
        display: flex;
        gap: 4px;
        margin: 4px 0 6px;
      }
      .overview {
        margin-bottom: 4px;
      }
      svg.pickable {
        cursor: pointer;
        touch-action: none;
      }
      svg.pickable:focus-visible {
        outline: 2px solid #7fb2ff;
      }
      ul.sentences {
        margin: 6px 0 0;
        padding-left: 16px;
      }
      /* A label without spaces (an asset path) wraps inside the column instead of widening it. */
      h3,
      .overview,
      .draw-line,
      ul.sentences {
        overflow-wrap: anywhere;
      }
      .stage-table {
        overflow-x: auto;
      }
      :host {
        container-type: inline-size;
      }
      /* A narrow column (a small window gives the timeline the room) drops the mean, which is
         warp-time / warps, so Histogram stays whole; All columns brings it back (the table scrolls). */
      @container (max-width: 400px) {
        div.stage-table:not(.all) .mean {
          display: none;
        }
        div.stage-table:not(.all) :is(th, td) {
          padding-right: 6px;
        }
      }
      th.histogram {
        min-width: 64px;
      }
      /* Long headers ("Peak on one SM") wrap between words so the table fits the column. */
      table.wrap-heads th {
        white-space: normal;
        vertical-align: bottom;
      }
    `,
  ];

  declare summary: AnalysisSummary | null;
  declare draw: number | null;
  /** The app's selected draw (-1: none): highlighted in the draws table. */
  declare selectedDraw: number;
  declare tab: StatsTab;
  /** The trace, when given: the draws table gets a pass column and the pass filter from its regions. */
  declare trace: Trace | null;
  /** The app's duration filter: its bins show picked in their histogram. */
  declare durationFilter: DurationFilter | null;
  /** The app's time range, find matches and pass: they narrow the draws table (wt-draws-table.ts). */
  declare range: { readonly startNs: number; readonly endNs: number } | null;
  declare drawMatches: Uint32Array | null;
  declare selectedPass: number;
  declare allStageColumns: boolean;

  constructor() {
    super();
    this.summary = null;
    this.draw = null;
    this.selectedDraw = -1;
    this.tab = 'stages';
    this.trace = null;
    this.durationFilter = null;
    this.range = null;
    this.drawMatches = null;
    this.selectedPass = -1;
    this.allStageColumns = false;
  }

  override render() {
    const s = this.summary;
    if (s === null) return html`<p class="muted">No trace analyzed yet.</p>`;
    const d = this.draw !== null ? s.draws[this.draw] : undefined;
    const selected = d === undefined && this.selectedDraw >= 0 ? s.draws[this.selectedDraw] : undefined;
    return html`
      <div class="overview">
        ${formatNumber(s.trace.warps)} warps${s.sampling !== undefined ? ' recorded' : ''} · ${formatNumber(s.trace.draws)} draws · frame ${formatNs(s.frame.spanNs)} ·
        ${smCountText(s.sms.map((x) => x.sm))} · ${s.sampling !== undefined ? 'busy time withheld (sampled)' : `warps running ${formatNs(s.frame.gpuBusyNs)}, draws open ${formatNs(s.frame.drawBusyNs)}`}${s.trace.dropped > 0 ? html` · <span class="warning">${formatNumber(s.trace.dropped)} records dropped</span>` : nothing}
      </div>
      ${s.reliability.warnings.map((w) => html`<div class="warning" role="note">${w}</div>`)} ${samplingNote(s)}
      ${d !== undefined
        ? this.renderDraw(d)
        : html`
            ${selected !== undefined ? html`<section class="selected-draw" aria-label="Selected draw">${this.renderDraw(selected)}</section>` : nothing}
            <div class="tabs" role="tablist">
              ${TABS.map(
                (t) => html`<button role="tab" aria-selected=${t.id === this.tab ? 'true' : 'false'} aria-pressed=${t.id === this.tab ? 'true' : 'false'} data-tab=${t.id} @click=${() => (this.tab = t.id)}>${t.label}</button>`,
              )}
            </div>
            ${this.tab === 'stages' ? this.renderStages(s) : this.tab === 'occupancy' ? this.renderOccupancy(s) : this.renderDraws(s)}
          `}
    `;
  }

  /** Stage tables show Stage, Warps, Warp-time, Mean, p90, Max and the histogram; "All columns" adds median, p99, σ, lanes, SMs. */
  private durationHead() {
    const all = this.allStageColumns;
    return html`<th>Stage</th><th class="num">Warps</th><th class="num">Warp-time</th><th class="num mean">Mean</th>${all ? html`<th class="num">Median</th>` : nothing}<th class="num">p90</th>
      ${all ? html`<th class="num">p99</th>` : nothing}<th class="num">Max</th>${all ? html`<th class="num">σ</th>` : nothing}<th class="histogram">Histogram</th>${all ? html`<th class="num">Lanes</th><th class="num">SMs</th>` : nothing}`;
  }

  /** A histogram's bins picked as a duration filter (`wt-duration-filter`): its stage's warps, in draw `draw` or all. */
  private histogramPick(stage: string, st: DurationStats, draw: number | null): SparkPick | null {
    const code = parseStageName(stage);
    if (code === undefined) return null;
    const h = st.histogram;
    const f = this.durationFilter;
    const bins: [number, number] | null =
      f !== null && f.stage === code && f.draw === draw ? [h.lowerNs.indexOf(f.minNs), h.lowerNs.findIndex((_, k) => binEdges(h, k)[1] === f.maxNs)] : null;
    return {
      bins: bins !== null && bins[0] >= 0 && bins[1] >= bins[0] ? bins : null,
      onPick: (picked) => {
        const filter: DurationFilter | null = picked === null ? null : { stage: code, draw, minNs: binEdges(h, picked[0])[0], maxNs: binEdges(h, picked[1])[1] };
        this.dispatchEvent(new CustomEvent('wt-duration-filter', { detail: { filter }, bubbles: true, composed: true }));
      },
    };
  }

  private durationCells(stage: string, st: DurationStats, draw: number | null = null) {
    const all = this.allStageColumns;
    return html`<td><span class="swatch" style="background:${colorOf(stage)}"></span>${labelOf(stage)}</td>
      <td class="num">${estimateMark(this.summary, stage)}${formatNumber(st.warps)}</td><td class="num">${estimateMark(this.summary, stage)}${formatNs(st.totalNs)}</td><td class="num mean">${formatNs(st.meanNs)}</td>
      ${all ? html`<td class="num">${formatNs(st.medianNs)}</td>` : nothing}<td class="num">${formatNs(st.p90Ns)}</td>${all ? html`<td class="num">${formatNs(st.p99Ns)}</td>` : nothing}
      <td class="num">${formatNs(st.maxNs)}</td>${all ? html`<td class="num">${formatNs(st.stddevNs)}</td>` : nothing}<td>${histogramSpark(st.histogram, colorOf(stage), 64, 14, this.histogramPick(stage, st, draw))}</td>
      ${all ? html`<td class="num" title="SIMT efficiency ${formatShare(st.simtEfficiency)}">${formatNumber(st.meanActiveLanes)}</td><td class="num">${st.smsUsed}</td>` : nothing}`;
  }

  private stageColumnsButton() {
    const all = this.allStageColumns;
    return html`<button data-action="stage-columns" aria-pressed=${all ? 'true' : 'false'} @click=${() => (this.allStageColumns = !all)}>${all ? 'Fewer columns' : 'All columns'}</button>`;
  }

  private renderStages(s: AnalysisSummary) {
    return html`${this.stageColumnsButton()}<div class=${this.allStageColumns ? 'stage-table all' : 'stage-table'}><table data-table="stages">
      <thead><tr>${this.durationHead()}</tr></thead>
      <tbody>${s.stages.map((st) => html`<tr data-stage=${st.stage}>${this.durationCells(st.stage, st)}</tr>`)}</tbody>
    </table></div>`;
  }

  private renderOccupancy(s: AnalysisSummary) {
    return html`${withheldNote(s.sampling?.every, 'occupancy', 'peaks and means per SM of sampled stages need every warp (–); their device means are estimates (≈)')}
      <div class=${this.allStageColumns ? 'stage-table all' : 'stage-table'}><table data-table="occupancy" class="wrap-heads">
        <thead>
          <tr>
            <th>Stage</th><th class="num">Peak on one SM</th><th class="num">SM</th><th class="num">Mean per SM</th><th class="num">Slots</th>
            <th class="num">Capacity</th><th class="num">Device mean</th><th class="num">Of capacity</th>
          </tr>
        </thead>
        <tbody>
          ${s.stages.map((st) => {
            const o = st.occupancy;
            return html`<tr data-stage=${st.stage}>
              <td><span class="swatch" style="background:${colorOf(st.stage)}"></span>${labelOf(st.stage)}</td>
              <td class="num">${o.perSm?.peak ?? '–'}</td><td class="num">${o.perSm?.peakSm ?? '–'}</td>
              <td class="num">${formatNumber(o.perSm?.meanWhileActive)}</td><td class="num">${formatNumber(o.warpsPerSm)}</td>
              <td class="num">${formatNumber(o.capacityWarps)}</td><td class="num">${estimateMark(s, st.stage)}${formatNumber(o.deviceMeanInFlight)}</td>
              <td class="num">${o.deviceMeanShareOfCapacity === null ? nothing : estimateMark(s, st.stage)}${formatShare(o.deviceMeanShareOfCapacity)}</td>
            </tr>`;
          })}
        </tbody>
      </table></div>
      <ul class="sentences">
        ${s.stages.map((st) => {
          const o = st.occupancy;
          if (o.perSm === null) return o.unknownSm ? html`<li>${labelOf(st.stage)} (no SM id): at most ${o.unknownSm.peak} warps at once device-wide.</li>` : nothing;
          return html`<li data-stage=${st.stage}>
            At most ${o.perSm.peak} ${labelOf(st.stage)} warps ran at once on an SM${o.warpsPerSm !== null ? ` (${formatShare(o.perSm.peak / o.warpsPerSm, 0)} of ${o.warpsPerSm} slots)` : ''};
            ${formatNumber(o.perSm.meanWhileActive)} on average while running, on ${smCountText(st.sms)}.
          </li>`;
        })}
      </ul>`;
  }

  private renderDraws(s: AnalysisSummary) {
    return html`<wt-draws-table
      .summary=${s}
      .trace=${this.trace}
      .selectedDraw=${this.selectedDraw}
      .range=${this.range}
      .drawMatches=${this.drawMatches}
      .selectedPass=${this.selectedPass}
    ></wt-draws-table>`;
  }

  /** Done when the draws table (its own element) has rendered too. */
  protected override async getUpdateComplete(): Promise<boolean> {
    const done = await super.getUpdateComplete();
    await this.renderRoot.querySelector('wt-draws-table')?.updateComplete;
    return done;
  }

  private renderDraw(d: DrawSummary) {
    const every = this.summary?.sampling?.every;
    const mark = approxMark(drawSampled(every, d));
    return html`<h3>Draw ${d.index}${d.label ? html` · ${d.label}` : nothing}</h3>
      <div class="draw-line">
        ${mark}${formatNumber(d.warps)} warps · span ${mark}${formatNs(d.spanNs)} · warp-time ${mark}${formatNs(d.warpTimeNs)}${every !== undefined
          ? nothing
          : html` · hidden behind other draws ${formatShare(d.hiddenShare, 0)} · ${gapBeforeText(d.gapBeforeNs)} · no warp on any SM for ${formatNs(d.idleNs)} of its span`}
      </div>
      ${withheldNote(every, 'draw', 'overlap with other draws, gap before, idle time and peaks on one SM of sampled stages need every warp')}
      ${this.stageColumnsButton()}
      <div class=${this.allStageColumns ? 'stage-table all' : 'stage-table'}><table data-table="draw-stages">
        <thead><tr>${this.durationHead()}<th class="num">Peak on one SM</th><th class="num">Mean per SM</th></tr></thead>
        <tbody>
          ${d.stages.map(
            (st) => html`<tr data-stage=${st.stage}>${this.durationCells(st.stage, st, d.index)}<td class="num">${st.occupancy?.peak ?? '–'}</td><td class="num">${formatNumber(st.occupancy?.meanWhileActive)}</td></tr>`,
          )}
        </tbody>
      </table></div>`;
  }
}

if (!customElements.get('wt-stats-panel')) customElements.define('wt-stats-panel', WtStatsPanel);

declare global {
  interface HTMLElementTagNameMap {
    'wt-stats-panel': WtStatsPanel;
  }
}

/** "4 SMs", "1 SM"; "SM ids unknown" when every warp lacks an SM id (the 0xffff sentinel is not an SM). */
function smCountText(sms: readonly number[]): string {
  const known = knownSmCount(sms);
  if (known === 0 && sms.length > 0) return 'SM ids unknown';
  return `${known} SM${known === 1 ? '' : 's'}${known < sms.length ? ' and warps without SM id' : ''}`;
}
