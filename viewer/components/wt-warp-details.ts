/** <wt-warp-details>: everything recorded about one warp (its marks and phases: warp-marks.ts). */
import { LitElement, html, nothing } from 'lit';
import { activeLaneCount, formatNs, smOfWarp, stageCssColor, stageInfo, unpackPosition, type Trace } from '../../shared-schema/index.js';
import { reorderCounterparts, type ReorderCounterparts } from '../../analysis/reorder.js';
import { laneLabel } from '../model/lane-layout.js';
import { renderWarpMarks } from './warp-marks.js';
import { detailStyles } from './details-styles.js';
import { panelStyles } from './shared-styles.js';

/** SM cycles of a warp: recorded, else from the calibrated clock rate, else null. */
export function warpCycles(trace: Trace, row: number): { cycles: number; measured: boolean } | null {
  const w = trace.warps;
  if (w.smCycleDuration !== null) return { cycles: w.smCycleDuration[row]!, measured: true };
  const hz = trace.device.clocks.smClockRateHz;
  if (hz !== null && hz > 0) return { cycles: Math.round((w.durationNs[row]! * hz) / 1e9), measured: false };
  return null;
}

export class WtWarpDetails extends LitElement {
  static override properties = { trace: { attribute: false }, row: { type: Number } };
  declare trace: Trace | null;
  declare row: number;
  static override styles = [panelStyles, detailStyles];

  /** The selected warp's other side of a reorder point (computed once per selection). */
  private reorder: ReorderCounterparts | null = null;

  constructor() {
    super();
    this.trace = null;
    this.row = -1;
  }

  override willUpdate(changed: Map<string, unknown>): void {
    if (!changed.has('trace') && !changed.has('row')) return;
    const t = this.trace;
    this.reorder = t !== null && this.row >= 0 && this.row < t.warps.count ? reorderCounterparts(t, this.row) : null;
  }

  private select(row: number): void {
    this.dispatchEvent(new CustomEvent('wt-warp-select', { detail: { row }, bubbles: true, composed: true }));
  }

  private highlight(rows: readonly number[]): void {
    this.dispatchEvent(new CustomEvent('wt-rows-highlight', { detail: { rows: Uint32Array.from(rows) }, bubbles: true, composed: true }));
  }

  /** Where the warp's lanes were before a reorder point, or went after it; its box on screen. */
  private reorderRow(row: number) {
    const r = this.reorder;
    if (r === null) return nothing;
    const other = r.side === 'before' ? 'after' : 'before';
    const link = (i: number) => html`<button class="link" @click=${() => this.select(i)}>#${i}</button>`;
    const exact =
      r.exact === null
        ? html`no warp ${other} it has exactly these lanes`
        : r.side === 'before'
          ? html`its lanes went on together in ${link(r.exact)}`
          : html`the same lanes as ${link(r.exact)} before it`;
    return html`<tr>
      <th>reorder</th>
      <td>
        ${r.side} the reorder point: ${exact}; ${r.overlapping.length.toLocaleString('en-US')} warp${r.overlapping.length === 1 ? '' : 's'} ${other} it
        meet${r.overlapping.length === 1 ? 's' : ''} its box
        ${r.overlapping.length > 0 ? html`<button class="link" @click=${() => this.highlight([row, ...r.overlapping])}>highlight</button>` : nothing}
      </td>
    </tr>`;
  }

  override render() {
    const t = this.trace;
    const row = this.row;
    if (t === null || row < 0 || row >= t.warps.count) {
      return html`<h3>Warp</h3><p class="muted">Click a warp (expand an SM lane to see its warp slots).</p>`;
    }
    const w = t.warps;
    const st = stageInfo(w.stage[row]!);
    const draw = t.draws[w.draw[row]!];
    const sm = smOfWarp(w.smGroups, row);
    const cycles = warpCycles(t, row);
    const lanes = activeLaneCount(w, row);
    const mask = w.activeMaskHi === null ? hex(w.activeMask[row]!) : `${hex(w.activeMaskHi[row]!)}${hex(w.activeMask[row]!).slice(2)}`;
    const start = w.startNs[row]!;
    const dur = w.durationNs[row]!;
    return html`
      <h3>Warp #${row}</h3>
      <table>
        <tr><th>stage</th><td><span class="swatch" style="background:${stageCssColor(st.code)}"></span>${st.label} (${st.title})</td></tr>
        <tr><th>draw</th><td>${w.draw[row]}${draw === undefined ? nothing : html` · ${draw.label} <span class="muted">(${draw.kind})</span>`}</td></tr>
        <tr><th>SM · slot</th><td>${laneLabel(sm)} · ${w.warpSlot[row] === 0xff ? 'unknown slot' : `slot ${w.warpSlot[row]}`}</td></tr>
        <tr><th>start</th><td>${formatNs(start, 6)} <span class="muted">(${start.toFixed(3)} ns)</span></td></tr>
        <tr><th>end</th><td>${formatNs(start + dur, 6)}</td></tr>
        <tr><th>duration</th><td>${formatNs(dur)} <span class="muted">(${dur.toFixed(3)} ns)</span></td></tr>
        <tr>
          <th>SM cycles</th>
          <td>${cycles === null ? html`<span class="muted">not recorded</span>` : html`${cycles.cycles.toLocaleString('en-US')}${cycles.measured ? nothing : html` <span class="muted">(from the mean clock rate)</span>`}`}</td>
        </tr>
        <tr><th>active lanes</th><td>${lanes} / ${t.device.subgroupSize} <span class="muted">${mask}</span></td></tr>
        <tr><th>custom id</th><td>${w.customId[row]}</td></tr>
        ${screenRow(t, row)} ${this.reorderRow(row)}
      </table>
      ${(t.marks?.count ?? 0) > 0 ? html`<h4>Marks</h4>${renderWarpMarks(t, row)}` : nothing}
    `;
  }
}

/** The warp's screen footprint (position word): its lanes' box, rounded up to powers of two. */
function screenRow(t: Trace, row: number) {
  const p = t.warps.position === null ? null : unpackPosition(t.warps.position[row]!);
  if (p === null) return nothing;
  return html`<tr><th>screen</th><td>${p.x}, ${p.y} · ${p.width}×${p.height} px <span class="muted">(its lanes' box)</span></td></tr>`;
}

function hex(v: number): string {
  return `0x${(v >>> 0).toString(16).padStart(8, '0')}`;
}

customElements.define('wt-warp-details', WtWarpDetails);
declare global {
  interface HTMLElementTagNameMap {
    'wt-warp-details': WtWarpDetails;
  }
}
