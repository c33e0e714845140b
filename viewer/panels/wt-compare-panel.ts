/**
 * <wt-compare-panel .a=${summaryA} .b=${summaryB} .traceA=${a} .traceB=${b} labelA="before" labelB="after">:
 * A/B comparison of two analyzed traces: highlights, frame, per stage and
 * per draw (the largest changes first). The deltas come from the pure
 * `diffSummaries` (analysis/diff.ts); the panel only lays them out. Duration
 * increases show as bad, decreases as good. Draws are paired by
 * analysis/draw-match.ts (by order within each pass, labels counting where
 * they agree with it, then label, pipeline, index; the traces, when given,
 * supply passes and pipelines): each draw row says how its pair was matched,
 * strong pairs are listed apart from weak ones (which need checking), and the
 * draws of one trace only are listed. Every table fits the column: a draw's
 * label gets a row of its own, wrapped to at most two lines (the full text in
 * its title), and the traces' names are one line above the tables. A sampled
 * A or B (issue 25): the diff's first warning names the rates, estimates
 * read "≈ …" and the sampled side's withheld figures "withheld" (the reason
 * in the cell's title); a change within sampling noise, or of an estimate
 * without a standard error, is dimmed (not good or bad), its ± and verdict in
 * the title (analysis/diff-noise.ts), and a draw with a sampled stage is
 * listed only when its warp-time changed beyond the noise.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { diffSummaries, type Delta, type DrawDiff, type SummaryDiff } from '../../analysis/diff.js';
import { changedDraws, noiseTitle } from '../../analysis/diff-noise.js';
import { isEstimated, sideText } from '../../analysis/diff-sampling.js';
import { MATCH_HOWS, drawIdentities, type MatchHow } from '../../analysis/draw-match.js';
import { formatChange, formatNs, formatNumber } from '../../analysis/format.js';
import type { AnalysisSummary } from '../../analysis/summary.js';
import type { Trace } from '../../shared-schema/model.js';
import { parseStageName, stageCssColor, stageLabelOf } from '../../shared-schema/stages.js';
import { panelStyles } from '../components/shared-styles.js';

/** Draw rows shown (largest span changes first), of strong and of weak pairs. */
const MAX_DRAW_ROWS = 30;
const MAX_WEAK_ROWS = 12;
/** Draws of one trace only listed by name; the rest are counted. */
const MAX_ONLY_LISTED = 12;
const MATCHED_BY: Record<MatchHow, string> = { 'label-pass': 'label, pass', order: 'order', label: 'label', pipeline: 'pipeline', index: 'index' };
const MATCHED_BY_TITLE: Record<MatchHow, string> = {
  'label-pass': 'same label in the same pass, in order',
  order: 'same place in the same pass\'s draw order (the labels differ)',
  label: 'same label, in another pass or out of order',
  pipeline: 'same pipeline in the same pass, out of order',
  index: 'same index: nothing else matched',
};
const STRENGTH_TITLE = {
  strong: 'strong: its label in order within its pass, its place in a stretch of the pass that lines up one to one with A (same count, kinds and pipelines), or a label unique in both traces',
  weak: 'weak: an insertion or removal had to be placed, or a shared label, pipeline or index paired it',
} as const;

export class WtComparePanel extends LitElement {
  static override properties = {
    a: { attribute: false },
    b: { attribute: false },
    traceA: { attribute: false },
    traceB: { attribute: false },
    labelA: { type: String },
    labelB: { type: String },
    allColumns: { state: true },
  };

  static override styles = [
    panelStyles,
    css`
      :host {
        container-type: inline-size;
      }
      ul {
        margin: 4px 0;
        padding-left: 16px;
      }
      /* The column narrowed towards its minimum: warp-time changes go (the span change's tooltip keeps them) and row names wrap. */
      @container (max-width: 340px) {
        .wide {
          display: none;
        }
        td:first-child {
          white-space: normal;
        }
      }
      /* Highlights, warnings and lists quote draw labels, often asset paths without a space. */
      ul,
      p,
      .warning {
        overflow-wrap: anywhere;
      }
      /* Headers wrap at their spaces ("Peak on one SM"); the traces' names are in the line above the tables. */
      th {
        white-space: normal;
      }
      /* Cells that may break at their arrow ("300 → 301", "1073317 → 858761"), so the tables fit the column. */
      td.wrap {
        white-space: normal;
      }
      /* A draw's label row: as wide as the table whatever the label, at most two lines (the title has it whole). */
      tr.draw-label td {
        max-width: 0;
        padding-top: 3px;
        border-top: 1px solid var(--wt-border, #3a3f4b);
      }
      tr.draw-label div {
        white-space: normal;
        overflow-wrap: anywhere;
        overflow: hidden;
        display: -webkit-box;
        -webkit-box-orient: vertical;
        -webkit-line-clamp: 2;
      }
      tr.draw-label .was {
        color: var(--wt-muted, #8b909c);
      }
      td.matched {
        white-space: normal;
        color: var(--wt-muted, #8b909c);
      }
      h4 {
        margin: 6px 0 2px;
        font-size: 11px;
      }
      /* A change within sampling noise, or untested: no finding, so neither good nor bad. */
      td.noise {
        color: var(--wt-muted, #8b909c);
        opacity: 0.75;
      }
    `,
  ];

  declare a: AnalysisSummary | null;
  declare b: AnalysisSummary | null;
  /** The traces of A and B, when at hand: their passes and pipelines pair draws better than labels alone. */
  declare traceA: Trace | null;
  declare traceB: Trace | null;
  declare labelA: string;
  declare labelB: string;
  /** The stages table shows warps, means and warp-time; "All columns" adds median, p90 and peak on one SM. */
  declare allColumns: boolean;
  private diff: SummaryDiff | null = null;

  constructor() {
    super();
    this.a = null;
    this.b = null;
    this.traceA = null;
    this.traceB = null;
    this.labelA = 'A';
    this.labelB = 'B';
    this.allColumns = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!changed.has('a') && !changed.has('b') && !changed.has('traceA') && !changed.has('traceB')) return;
    const { a, b, traceA, traceB } = this;
    // Trace identities only when they are the summaries' own traces (same draw counts).
    const fit = traceA !== null && traceB !== null && a !== null && b !== null && traceA.draws.length === a.draws.length && traceB.draws.length === b.draws.length;
    this.diff = a !== null && b !== null ? diffSummaries(a, b, fit ? { a: drawIdentities(traceA), b: drawIdentities(traceB) } : undefined) : null;
  }

  override render() {
    const d = this.diff;
    if (d === null) return html`<p class="muted">Open two traces to compare them.</p>`;
    const all = this.allColumns;
    // Largest changes first; a draw with a sampled stage by its warp-time, and only beyond the noise.
    const changed = changedDraws(d.draws).map((c) => c.draw);
    const strong = changed.filter((x) => x.confidence === 'strong').slice(0, MAX_DRAW_ROWS);
    const weak = changed.filter((x) => x.confidence === 'weak').slice(0, MAX_WEAK_ROWS);
    const none = d.sampling === undefined ? 'No draw changed its span.' : 'No draw changed beyond sampling noise.';
    return html`
      ${d.warnings.map((w) => html`<div class="warning" role="note">${w}</div>`)}
      ${d.highlights.length > 0 ? html`<h3>Highlights</h3><ul class="highlights">${d.highlights.map((h) => html`<li>${h}</li>`)}</ul>` : nothing}
      <p class="names" data-names><b>A</b> ${this.labelA} · <b>B</b> ${this.labelB}</p>
      <h3>Frame</h3>
      <table data-table="frame">
        <thead><tr><th></th><th class="num">A</th><th class="num">B</th><th class="num">Change</th></tr></thead>
        <tbody>
          ${this.row('Span', d.frame.spanNs, formatNs)} ${this.row('Warp-time', d.frame.warpTimeNs, formatNs)}
          ${this.row('Warps running', d.frame.gpuBusyNs, formatNs, 'busy')} ${this.row('Time lost to syncs', d.syncs.totalNs, formatNs, 'syncs')}
          ${this.row('SMs idle inside draws', d.idle.totalNs, formatNs, 'idle')} ${this.row('Leftover time', d.leftovers.totalNs, formatNs, 'leftovers')}
          ${this.row('Stalled time', d.stalls.totalNs, formatNs, 'stalls')}
        </tbody>
      </table>
      <h3>Stages</h3>
      <button data-action="columns" aria-pressed=${all ? 'true' : 'false'} @click=${() => (this.allColumns = !all)}>${all ? 'Fewer columns' : 'All columns'}</button>
      <table data-table="stages">
        <thead>
          <tr>
            <th>Stage</th><th class="num">Warps</th><th class="num">Mean A</th><th class="num">Mean B</th><th class="num">Change</th>
            ${all ? html`<th class="num">Median</th><th class="num">p90</th>` : nothing}<th class="num wide">Warp-time</th>${all ? html`<th class="num">Peak on one SM</th>` : nothing}
          </tr>
        </thead>
        <tbody>
          ${d.stages.map((s) => {
            const one = [s.stage];
            const side = (x: Delta, which: 'a' | 'b', format: (v: number | null) => string, withheld = false) => sideText(d.sampling, which, x[which], format, one, withheld);
            return html`<tr data-stage=${s.stage}>
              <td><span class="swatch" style="background:${stageCssColor(parseStageName(s.stage) ?? 0)}"></span>${stageLabelOf(s.stage)}</td>
              <td class="num wrap">${side(s.warps, 'a', formatNumber)} → ${side(s.warps, 'b', formatNumber)}</td>
              <td class="num">${side(s.meanNs, 'a', formatNs)}</td><td class="num">${side(s.meanNs, 'b', formatNs)}</td>
              ${this.change(s.meanNs, `warp-time ${formatChange(s.totalNs.relative)}`, '', one)} ${all ? html`${this.change(s.medianNs, '', '', one)} ${this.change(s.p90Ns, '', '', one)}` : nothing}
              ${this.change(s.totalNs, '', 'wide', one)}
              ${all ? html`<td class="num" title=${this.withheldWhy('occupancy')}>${side(s.peakPerSm, 'a', formatNumber, true)} → ${side(s.peakPerSm, 'b', formatNumber, true)}</td>` : nothing}
            </tr>`;
          })}
        </tbody>
      </table>
      <h3>Draws${strong.length > 0 ? ' (largest changes)' : ''}</h3>
      ${strong.length > 0
        ? this.drawTable('draws', strong)
        : html`<p class="muted">${changed.length === 0 ? none : 'No strongly paired draw changed its span.'}</p>`}
      ${weak.length === 0
        ? nothing
        : html`<h4>Weak pairs: check before trusting</h4>
            <p class="muted">Paired by a guess (an insertion's place, a shared label, pipeline or index): their changes may compare different draws.</p>
            ${this.drawTable('weak-draws', weak)}`}
      ${this.renderMatching(d)}
    `;
  }

  /** Draws and their span changes: each draw's label on a row of its own, then its pair, spans and changes. */
  private drawTable(name: string, draws: readonly DrawDiff[]) {
    return html`<table data-table=${name}>
      <thead>
        <tr>
          <th>Draw</th><th>Paired by</th><th class="num">Span A</th><th class="num">Span B</th><th class="num">Change</th
          ><th class="num wide">Warp-time</th>
        </tr>
      </thead>
      <tbody>
        ${draws.map((x) => {
          const label = x.labelB ?? x.labelA ?? '';
          const stages = x.stages.map((s) => s.stage);
          const was = x.labelA !== null && x.labelB !== null && x.labelA !== x.labelB ? x.labelA : null;
          return html`<tr class="draw-label">
              <td colspan="6" title=${was === null ? label : `B: ${label}\nA: ${was}`}>
                <div>${label}${was === null ? nothing : html` <span class="was">(A: ${was})</span>`}</div>
              </td>
            </tr>
            <tr data-draw=${x.index} data-matched=${x.matchedBy ?? ''} data-confidence=${x.confidence ?? ''}>
              <td class="num wrap">${drawIndexText(x)}</td>
              <td class="matched" title=${x.matchedBy === null ? '' : `${MATCHED_BY_TITLE[x.matchedBy]}; ${STRENGTH_TITLE[x.confidence!]}`}>${x.matchedBy === null ? '' : MATCHED_BY[x.matchedBy]}</td>
              <td class="num">${sideText(this.diff?.sampling, 'a', x.spanNs.a, formatNs, stages)}</td><td class="num">${sideText(this.diff?.sampling, 'b', x.spanNs.b, formatNs, stages)}</td
              >${this.change(x.spanNs, `warp-time ${formatChange(x.warpTimeNs.relative)}`, '', stages)}
              ${this.change(x.warpTimeNs, '', 'wide', stages)}
            </tr>`;
        })}
      </tbody>
    </table>`;
  }

  /** How the draws were paired, and the draws of one trace only. */
  private renderMatching(d: SummaryDiff) {
    const { counts, strong, weak, onlyA, onlyB } = d.matching;
    const pairs = MATCH_HOWS.filter((how) => counts[how] > 0).map((how) => `${formatNumber(counts[how])} by ${MATCHED_BY[how]}`);
    const sureness = strong + weak > 0 ? ` (${formatNumber(strong)} strong, ${formatNumber(weak)} weak)` : '';
    const only = (side: 'a' | 'b', draws: readonly number[], summary: AnalysisSummary, name: string) =>
      draws.length === 0
        ? nothing
        : html`<h4>Only in ${name} (${formatNumber(draws.length)})</h4>
            <ul data-list=${`only-${side}`}>
              ${draws.slice(0, MAX_ONLY_LISTED).map((i) => html`<li data-draw=${i}>#${i} ${summary.draws[i]?.label ?? ''}</li>`)}
              ${draws.length > MAX_ONLY_LISTED ? html`<li class="muted">and ${formatNumber(draws.length - MAX_ONLY_LISTED)} more</li>` : nothing}
            </ul>`;
    return html`<p class="matching muted" data-matching>Draws paired: ${pairs.length > 0 ? pairs.join(' · ') : 'none'}${sureness}.</p>
      ${only('a', onlyA, this.a!, this.labelA)} ${only('b', onlyB, this.b!, this.labelB)}`;
  }

  /** A frame row; `withheld`: the summary's name of a figure a sampled side withholds (its cell says so, the reason in the title). */
  private row(name: string, x: Delta, format: (v: number | null) => string, withheld: string | null = null) {
    const s = this.diff?.sampling;
    const cell = (side: 'a' | 'b') => {
      const text = sideText(s, side, x[side], format, null, withheld !== null);
      return html`<td class="num" title=${text === 'withheld' ? this.withheldWhy(withheld!) : ''}>${text}</td>`;
    };
    return html`<tr data-row=${name}><td>${name}</td>${cell('a')}${cell('b')}${this.change(x, '', '', withheld === null ? null : [])}</tr>`;
  }

  /** Why a sampled side withholds `what` (summary.sampling.withheld), or ''. */
  private withheldWhy(what: string): string {
    return this.diff?.sampling?.withheld.find((w) => w.what === what)?.why ?? '';
  }

  /**
   * A change cell: more time is bad, less is good; "≈" when either side's figure of `stages` (null: any) is an
   * estimate; within sampling noise or untested: dimmed, neither (the ± and the verdict in the title).
   */
  private change(x: Delta, title = '', extraClass = '', stages: readonly string[] | null = null) {
    const noise = x.noise?.verdict;
    const quiet = noise === 'within-noise' || noise === 'untested';
    const cls = quiet ? 'noise' : x.relative === null || x.relative === 0 ? '' : x.relative > 0 ? 'bad' : 'good';
    const s = this.diff?.sampling;
    const estimated = x.relative !== null && (x.noise !== undefined || isEstimated(s, 'a', stages) || isEstimated(s, 'b', stages));
    const tip = [noiseTitle(x), title].filter((t) => t !== '').join('; ');
    return html`<td class="num ${cls} ${extraClass}" title=${tip} data-noise=${noise ?? nothing}>${estimated ? '≈ ' : ''}${formatChange(x.relative)}</td>`;
  }
}

/** "12" when both traces number the draw alike, else "12 → 13" (A's index → B's). */
function drawIndexText(x: DrawDiff): string {
  if (x.indexA === null || x.indexB === null || x.indexA === x.indexB) return String(x.index);
  return `${x.indexA} → ${x.indexB}`;
}

if (!customElements.get('wt-compare-panel')) customElements.define('wt-compare-panel', WtComparePanel);

declare global {
  interface HTMLElementTagNameMap {
    'wt-compare-panel': WtComparePanel;
  }
}
