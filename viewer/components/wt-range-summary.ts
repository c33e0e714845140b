/**
 * <wt-range-summary>: warps per stage, per pass and per draw inside the
 * selected time range. For a trace with passes (regions), a pass menu limits
 * the counts to one pass's draws (the app's selected pass: choosing one
 * dispatches `wt-pass-select` {region}, -1 for all); the passes table gives
 * the warps and warp time in the range of each top-level pass, or of the
 * selected pass's children.
 */
import { withheldNote } from '../panels/sampling-note.js';
import { sampleEveryOf } from '../../shared-schema/sampling.js';
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { STAGES, formatNs, stageCssColor, type Trace } from '../../shared-schema/index.js';
import { rangeCounts, type RangeCounts } from '../../analysis/range-counts.js';
import { formatNumber } from '../../analysis/format.js';
import { passChoices, passDrawMask, validRegion } from '../model/pass-filter.js';
import { detailStyles } from './details-styles.js';
import { panelStyles } from './shared-styles.js';

const TOP_DRAWS = 12;
const TOP_PASSES = 8;

export class WtRangeSummary extends LitElement {
  static override properties = {
    trace: { attribute: false },
    counts: { attribute: false },
    selectedPass: { attribute: false },
    maxDurationNs: { attribute: false },
  };
  declare trace: Trace | null;
  /** The range's counts over every draw (the app's). */
  declare counts: RangeCounts | null;
  /** The app's selected pass (-1: none). */
  declare selectedPass: number;
  /** The trace's longest warp, ns (bounds the look-back of the pass's counts); 0: computed. */
  declare maxDurationNs: number;
  static override styles = [
    panelStyles,
    detailStyles,
    css`
      select {
        font: inherit;
        color: inherit;
        background: var(--wt-bg-2, #2a2e37);
        border: 1px solid var(--wt-border, #3a3f4b);
        border-radius: 3px;
        max-width: 100%;
      }
      /* Narrow thirds (1280 px windows): headers wrap between words, a table too wide scrolls in its own box. */
      th {
        white-space: normal;
        vertical-align: bottom;
      }
      table.stages td:first-child {
        white-space: nowrap;
      }
      .scroll {
        overflow-x: auto;
      }
      .scroll + .scroll {
        margin-top: 6px;
      }
    `,
  ];
  private passCounts: { key: readonly unknown[]; counts: RangeCounts } | null = null;

  constructor() {
    super();
    this.trace = null;
    this.counts = null;
    this.selectedPass = -1;
    this.maxDurationNs = 0;
  }

  /** The counts shown: the app's, or those of the selected pass's draws. */
  get shownCounts(): RangeCounts | null {
    const c = this.counts;
    const t = this.trace;
    const pass = t === null ? null : validRegion(t, this.selectedPass);
    if (c === null || t === null || pass === null) return c;
    const key = [c, t, pass];
    if (this.passCounts === null || key.some((k, i) => k !== this.passCounts!.key[i])) {
      const max = this.maxDurationNs > 0 ? this.maxDurationNs : undefined;
      this.passCounts = { key, counts: rangeCounts(t, c.startNs, c.endNs, max, passDrawMask(t, pass)) };
    }
    return this.passCounts.counts;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace')) this.passCounts = null;
  }

  override render() {
    const c = this.shownCounts;
    const t = this.trace;
    if (c === null || t === null) return html`<h3>Range</h3><p class="muted">Shift-drag on the timeline, or Shift+← / → from the time cursor, to select a time range.</p>`;
    const span = c.endNs - c.startNs;
    const draws: { d: number; n: number }[] = [];
    c.perDraw.forEach((n, d) => {
      if (n > 0) draws.push({ d, n });
    });
    draws.sort((a, b) => b.n - a.n || a.d - b.d);
    return html`
      <h3>Range ${formatNs(c.startNs, 6)} – ${formatNs(c.endNs, 6)} (${formatNs(span)})</h3>
      ${this.passMenu(t)}
      <p>${count(c.warps, 'warp')} on ${count(c.smsWithWarps, 'SM')}, in ${count(draws.length, 'draw')}</p>
      ${withheldNote(t.capture.sampling?.every, 'range', 'the counts are the recorded warps; a sampled stage\'s average in flight needs every warp')}
      <div class="scroll"><table class="stages">
        <tr><th>stage</th><th class="num">warps</th><th class="num">warp time in range</th><th class="num">avg in flight</th></tr>
        ${STAGES.filter((s) => c.perStage[s.code]! > 0).map(
          (s) => html`<tr>
            <td><span class="swatch" style="background:${stageCssColor(s.code)}"></span>${s.label}</td>
            <td class="num">${formatNumber(c.perStage[s.code]!)}</td>
            <td class="num">${formatNs(c.busyNsPerStage[s.code]!)}</td>
            <td class="num">${span > 0 && sampleEveryOf(t.capture.sampling, s.name) === 1 ? (c.busyNsPerStage[s.code]! / span).toFixed(2) : '–'}</td>
          </tr>`,
        )}
      </table></div>
      ${this.passTable(t, c)}
      ${draws.length === 0
        ? nothing
        : html`<div class="scroll"><table>
            <tr><th>draw</th><th class="num">warps</th></tr>
            ${draws.slice(0, TOP_DRAWS).map(
              ({ d, n }) => html`<tr>
                <td><button class="link" @click=${() => this.selectDraw(d)}>${d}</button> ${t.draws[d]?.label ?? ''}</td>
                <td class="num">${formatNumber(n)}</td>
              </tr>`,
            )}
            ${draws.length > TOP_DRAWS ? html`<tr><td class="muted" colspan="2">… ${formatNumber(draws.length - TOP_DRAWS)} more draws</td></tr>` : nothing}
          </table></div>`}
    `;
  }

  /** "Pass: [All passes ▾]" for a trace with regions. */
  private passMenu(t: Trace) {
    if (t.regions.length === 0) return nothing;
    const pass = validRegion(t, this.selectedPass);
    return html`<label
      >Pass
      <select aria-label="Count only the draws of a pass" @change=${(e: Event) => this.selectPass(Number((e.target as HTMLSelectElement).value))}>
        <option value="-1" ?selected=${pass === null}>All passes</option>
        ${passChoices(t).map((p) => html`<option value=${p.region} ?selected=${p.region === pass}>${'\u00a0\u00a0'.repeat(p.depth)}${p.label}</option>`)}
      </select></label
    >`;
  }

  /** Warps and warp time in the range per top-level pass (or per child of the selected pass), most warp time first. */
  private passTable(t: Trace, c: RangeCounts) {
    if (t.regions.length === 0) return nothing;
    const parent = validRegion(t, this.selectedPass);
    // Each draw with warps in the range adds to its ancestor just below `parent` (a top-level pass without one).
    const sums = new Map<number, { warps: number; ns: number }>();
    for (let d = 0; d < c.perDraw.length; d++) {
      if (c.perDraw[d] === 0) continue;
      let r = validRegion(t, t.draws[d]?.region);
      let child: number | null = null;
      for (let steps = 0; r !== null && r !== parent && steps < 1024; steps++) {
        const up: number | null = validRegion(t, t.regions[r]!.parent);
        if (up === parent) child = r;
        r = up !== null && up < r ? up : null;
      }
      if (child === null) continue;
      r = child;
      const sum = sums.get(r) ?? { warps: 0, ns: 0 };
      sum.warps += c.perDraw[d]!;
      sum.ns += c.busyNsPerDraw[d]!;
      sums.set(r, sum);
    }
    const rows = [...sums].map(([region, sum]) => ({ region, label: t.regions[region]!.label, ...sum })).sort((a, b) => b.ns - a.ns || a.region - b.region);
    if (rows.length === 0) return nothing;
    return html`<div class="scroll"><table data-table="range-passes">
      <tr><th>${parent === null ? 'pass' : 'inside the pass'}</th><th class="num">warps</th><th class="num">warp time in range</th></tr>
      ${rows.slice(0, TOP_PASSES).map(
        (r) => html`<tr>
          <td><button class="link" @click=${() => this.selectPass(r.region)}>${r.label}</button></td>
          <td class="num">${formatNumber(r.warps)}</td>
          <td class="num">${formatNs(r.ns)}</td>
        </tr>`,
      )}
      ${rows.length > TOP_PASSES ? html`<tr><td class="muted" colspan="3">… ${formatNumber(rows.length - TOP_PASSES)} more passes</td></tr>` : nothing}
    </table></div>`;
  }

  private selectPass(region: number): void {
    this.dispatchEvent(new CustomEvent('wt-pass-select', { detail: { region }, bubbles: true, composed: true }));
  }

  private selectDraw(draw: number): void {
    this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw }, bubbles: true, composed: true }));
  }
}

function count(n: number, noun: string): string {
  return `${formatNumber(n)} ${noun}${n === 1 ? '' : 's'}`;
}

customElements.define('wt-range-summary', WtRangeSummary);
declare global {
  interface HTMLElementTagNameMap {
    'wt-range-summary': WtRangeSummary;
  }
}
