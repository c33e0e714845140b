/**
 * <wt-draw-list>: every draw and dispatch, in submission order, with its
 * warp span and GPU time. Virtualized (only visible rows exist), so 10 000
 * draws cost the same as 20. Arrow keys move the selection.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { formatNs, type Trace } from '../../shared-schema/index.js';
import { panelStyles } from './shared-styles.js';

const ROW_PX = 22;

export class WtDrawList extends LitElement {
  static override properties = {
    trace: { attribute: false },
    spans: { attribute: false },
    selectedDraw: { type: Number },
    scrollTop: { state: true },
    viewportHeight: { state: true },
  };
  declare trace: Trace | null;
  /** [start, end] ns per draw (NaN when unknown). */
  declare spans: Float64Array | null;
  declare selectedDraw: number;
  declare scrollTop: number;
  declare viewportHeight: number;
  private resizeObserver: ResizeObserver | null = null;

  static override styles = [
    panelStyles,
    css`
      :host {
        display: flex;
        flex-direction: column;
        min-height: 0;
      }
      .list {
        flex: 1;
        overflow-y: auto;
        position: relative;
        outline: none;
      }
      .list:focus-visible {
        box-shadow: inset 0 0 0 2px #7fb2ff;
      }
      .row {
        position: absolute;
        left: 0;
        right: 0;
        height: ${ROW_PX}px;
        display: flex;
        gap: 6px;
        align-items: center;
        padding: 0 6px;
        box-sizing: border-box;
        cursor: pointer;
        white-space: nowrap;
        overflow: hidden;
      }
      .row:hover {
        background: #232730;
      }
      .row[aria-selected='true'] {
        background: #2c4a78;
      }
      .idx {
        width: 3.5em;
        text-align: right;
        color: #8b909c;
        font-variant-numeric: tabular-nums;
      }
      .label {
        flex: 1;
        min-width: 4em;
        overflow: hidden;
        text-overflow: ellipsis;
      }
      .dur {
        color: #8b909c;
        font-variant-numeric: tabular-nums;
      }
      .kind {
        width: 7px;
        height: 7px;
        border-radius: 50%;
        background: #66738d;
      }
      .kind.dispatch {
        background: #1490e1;
      }
      .kind.trace-rays {
        background: #ffd400;
      }
      h3 {
        padding: 6px 6px 0;
      }
    `,
  ];

  constructor() {
    super();
    this.trace = null;
    this.spans = null;
    this.selectedDraw = -1;
    this.scrollTop = 0;
    this.viewportHeight = 400;
  }

  override firstUpdated(): void {
    const list = this.list;
    this.resizeObserver = new ResizeObserver(() => {
      this.viewportHeight = list.clientHeight;
    });
    this.resizeObserver.observe(list);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
  }

  private get list(): HTMLElement {
    return this.renderRoot.querySelector('.list') as HTMLElement;
  }

  override updated(changed: PropertyValues<this>): void {
    if (changed.has('selectedDraw') && this.selectedDraw >= 0) {
      const list = this.list;
      const y = this.selectedDraw * ROW_PX;
      if (y < list.scrollTop || y + ROW_PX > list.scrollTop + list.clientHeight) list.scrollTop = Math.max(0, y - list.clientHeight / 3);
    }
  }

  override render() {
    const t = this.trace;
    const n = t?.draws.length ?? 0;
    const first = Math.max(0, Math.floor(this.scrollTop / ROW_PX) - 4);
    const last = Math.min(n, Math.ceil((this.scrollTop + this.viewportHeight) / ROW_PX) + 4);
    const rows = [];
    for (let d = first; d < last; d++) rows.push(this.renderRow(t!, d));
    return html`
      <h3>Draws (${n})</h3>
      <div
        class="list"
        role="listbox"
        tabindex="0"
        aria-label="Draws; arrow keys select, [ and ] in the timeline step"
        aria-activedescendant=${this.selectedDraw >= 0 ? `draw-${this.selectedDraw}` : nothing}
        @scroll=${(e: Event) => (this.scrollTop = (e.target as HTMLElement).scrollTop)}
        @keydown=${this.onKeyDown}
      >
        <div style="height:${n * ROW_PX}px"></div>
        ${rows}
      </div>
    `;
  }

  private renderRow(t: Trace, d: number) {
    const info = t.draws[d]!;
    const s = this.spans?.[2 * d] ?? NaN;
    const e = this.spans?.[2 * d + 1] ?? NaN;
    const dur = Number.isNaN(s) ? 'no warps' : formatNs(e - s);
    const gpu = info.gpuBeginNs !== null && info.gpuEndNs !== null ? `; GPU timestamps ${formatNs(info.gpuEndNs - info.gpuBeginNs)}` : '';
    return html`<div
      class="row"
      id="draw-${d}"
      role="option"
      aria-selected=${d === this.selectedDraw ? 'true' : 'false'}
      style="top:${d * ROW_PX}px"
      title="${info.label} (${info.kind}): warps span ${dur}${gpu}"
      @click=${() => this.select(d)}
    >
      <span class="idx">${d}</span><span class="kind ${info.kind}"></span><span class="label">${info.label}</span><span class="dur">${dur}</span>
    </div>`;
  }

  private onKeyDown = (e: KeyboardEvent): void => {
    const n = this.trace?.draws.length ?? 0;
    if (n === 0) return;
    let next = this.selectedDraw;
    if (e.key === 'ArrowDown') next = Math.min(n - 1, next + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, next < 0 ? 0 : next - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = n - 1;
    else if (e.key === 'Escape') next = -1;
    else return;
    e.preventDefault();
    this.select(next);
  };

  private select(draw: number): void {
    this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw }, bubbles: true, composed: true }));
  }
}

customElements.define('wt-draw-list', WtDrawList);
declare global {
  interface HTMLElementTagNameMap {
    'wt-draw-list': WtDrawList;
  }
}
