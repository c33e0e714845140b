/** <wt-in-flight>: at the time cursor, warps in flight per SM and stage. */
import { LitElement, css, html } from 'lit';
import { STAGES, STAGE_COUNT, formatNs, stageCssColor, type Trace } from '../../shared-schema/index.js';
import type { InFlight } from '../../analysis/in-flight.js';
import { laneLabel } from '../model/lane-layout.js';
import { detailStyles } from './details-styles.js';
import { panelStyles } from './shared-styles.js';
import { withheldNote } from '../panels/sampling-note.js';

const MAX_ROWS = 40;

export class WtInFlight extends LitElement {
  static override properties = { trace: { attribute: false }, inFlight: { attribute: false } };
  declare trace: Trace | null;
  declare inFlight: InFlight | null;
  static override styles = [
    panelStyles,
    detailStyles,
    css`
      .scroll {
        max-height: 220px;
        overflow: auto;
      }
    `,
  ];

  constructor() {
    super();
    this.trace = null;
    this.inFlight = null;
  }

  override render() {
    const f = this.inFlight;
    if (f === null || this.trace === null) return html`<h3>Time cursor</h3><p class="muted">Click the time axis (or press C) to place the cursor.</p>`;
    const stages = STAGES.filter((s) => f.perStage[s.code]! > 0);
    const rows: number[] = [];
    for (let g = 0; g < f.sm.length; g++) if (f.total[g]! > 0) rows.push(g);
    let all = 0;
    for (let g = 0; g < f.total.length; g++) all += f.total[g]!;
    return html`
      <h3>At ${formatNs(f.timeNs, 6)}: ${plural(all, 'warp')} in flight on ${plural(rows.length, 'SM')}</h3>
      ${withheldNote(this.trace.capture.sampling?.every, 'in-flight', 'these are the recorded warps in flight; a sampled stage had about N times as many')}
      <div class="scroll">
        <table>
          <tr>
            <th>SM</th>
            ${stages.map((s) => html`<th class="num"><span class="swatch" style="background:${stageCssColor(s.code)}"></span>${s.label}</th>`)}
            <th class="num">all</th>
          </tr>
          ${rows.slice(0, MAX_ROWS).map(
            (g) => html`<tr>
              <td>${laneLabel(f.sm[g]!)}</td>
              ${stages.map((s) => html`<td class="num">${f.counts[g * STAGE_COUNT + s.code] || ''}</td>`)}
              <td class="num">${f.total[g]}</td>
            </tr>`,
          )}
          ${rows.length > MAX_ROWS ? html`<tr><td class="muted" colspan=${stages.length + 2}>… ${rows.length - MAX_ROWS} more SMs</td></tr>` : ''}
          <tr>
            <th>all</th>
            ${stages.map((s) => html`<th class="num">${f.perStage[s.code]}</th>`)}
            <th class="num">${all}</th>
          </tr>
        </table>
      </div>
    `;
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

customElements.define('wt-in-flight', WtInFlight);
declare global {
  interface HTMLElementTagNameMap {
    'wt-in-flight': WtInFlight;
  }
}
