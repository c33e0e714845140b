/** <wt-range-summary>: warps per stage and per draw inside the selected time range. */
import { LitElement, html, nothing } from 'lit';
import { STAGES, formatNs, stageCssColor, type Trace } from '../../shared-schema/index.js';
import type { RangeCounts } from '../../analysis/range-counts.js';
import { detailStyles } from './details-styles.js';
import { panelStyles } from './shared-styles.js';

const TOP_DRAWS = 12;

export class WtRangeSummary extends LitElement {
  static override properties = { trace: { attribute: false }, counts: { attribute: false } };
  declare trace: Trace | null;
  declare counts: RangeCounts | null;
  static override styles = [panelStyles, detailStyles];

  constructor() {
    super();
    this.trace = null;
    this.counts = null;
  }

  override render() {
    const c = this.counts;
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
      <p>${count(c.warps, 'warp')} on ${count(c.smsWithWarps, 'SM')}, in ${count(draws.length, 'draw')}</p>
      <table>
        <tr><th>stage</th><th class="num">warps</th><th class="num">warp time in range</th><th class="num">avg in flight</th></tr>
        ${STAGES.filter((s) => c.perStage[s.code]! > 0).map(
          (s) => html`<tr>
            <td><span class="swatch" style="background:${stageCssColor(s.code)}"></span>${s.label}</td>
            <td class="num">${c.perStage[s.code]!.toLocaleString('en-US')}</td>
            <td class="num">${formatNs(c.busyNsPerStage[s.code]!)}</td>
            <td class="num">${span > 0 ? (c.busyNsPerStage[s.code]! / span).toFixed(2) : '–'}</td>
          </tr>`,
        )}
      </table>
      ${draws.length === 0
        ? nothing
        : html`<table style="margin-top:6px">
            <tr><th>draw</th><th class="num">warps</th></tr>
            ${draws.slice(0, TOP_DRAWS).map(
              ({ d, n }) => html`<tr>
                <td><button class="link" @click=${() => this.selectDraw(d)}>${d}</button> ${t.draws[d]?.label ?? ''}</td>
                <td class="num">${n.toLocaleString('en-US')}</td>
              </tr>`,
            )}
            ${draws.length > TOP_DRAWS ? html`<tr><td class="muted" colspan="2">… ${draws.length - TOP_DRAWS} more draws</td></tr>` : nothing}
          </table>`}
    `;
  }

  private selectDraw(draw: number): void {
    this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw }, bubbles: true, composed: true }));
  }
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

customElements.define('wt-range-summary', WtRangeSummary);
declare global {
  interface HTMLElementTagNameMap {
    'wt-range-summary': WtRangeSummary;
  }
}
