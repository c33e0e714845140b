/**
 * <wt-pass-icicle>: the icicle (flame) view of passes → draws over time
 * (../model/pass-icicle.ts) on a canvas: a row per region depth, the draws
 * under their pass coloured by the stage with the most warp-time. It shows
 * the whole frame, or the focused pass's span; the breadcrumb above goes back
 * up. Clicking a pass dispatches `wt-pass-select` {region} (the panel focuses
 * it and the app zooms), clicking a draw `wt-draw-select` {draw}. The line
 * under it names what the pointer is over. Trace strings are drawn as canvas
 * text or set as text, never as markup.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { formatNs, formatNumber, formatShare } from '../../analysis/format.js';
import type { PassSection } from '../../analysis/passes.js';
import type { DrawSummary } from '../../analysis/summary.js';
import { stageCssColor, type Trace } from '../../shared-schema/index.js';
import { icicleHit, icicleLayout, regionTrail, type IcicleBar, type IcicleLayout } from '../model/pass-icicle.js';
import { panelStyles } from '../components/shared-styles.js';

export const ICICLE_ROW_PX = 18;
const REGION_FILL = ['#3a4a68', '#34435d', '#2f3c53', '#2a3549', '#252f40'];

export class WtPassIcicle extends LitElement {
  static override properties = {
    trace: { attribute: false },
    section: { attribute: false },
    draws: { attribute: false },
    focusRegion: { attribute: false },
    selectedDraw: { attribute: false },
    width: { state: true },
    hover: { state: true },
  };

  static override styles = [
    panelStyles,
    css`
      .crumbs {
        display: flex;
        flex-wrap: wrap;
        gap: 2px 4px;
        align-items: center;
        margin-bottom: 3px;
        overflow-wrap: anywhere;
      }
      .crumbs button {
        padding: 0 6px;
        max-width: 100%;
        overflow-wrap: anywhere;
        text-align: left;
      }
      canvas {
        display: block;
        width: 100%;
        cursor: pointer;
      }
      .status {
        min-height: 1.4em;
        overflow-wrap: anywhere;
      }
    `,
  ];

  declare trace: Trace | null;
  declare section: PassSection | null;
  declare draws: readonly DrawSummary[];
  /** The pass the view is zoomed to (null: the frame). */
  declare focusRegion: number | null;
  declare selectedDraw: number;
  declare width: number;
  declare hover: IcicleBar | null;
  private layout: IcicleLayout = { rows: 1, bars: [] };
  /** Each draw's colour (its costliest stage's), made once per set of draws. */
  private colors: { draws: readonly DrawSummary[]; css: string[] } | null = null;
  private observer: ResizeObserver | null = null;

  constructor() {
    super();
    this.trace = null;
    this.section = null;
    this.draws = [];
    this.focusRegion = null;
    this.selectedDraw = -1;
    this.width = 0;
    this.hover = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Set a frame later: drawing may change the page's height (a scrollbar, a new width), which must not re-enter the observer.
    this.observer = new ResizeObserver(() => requestAnimationFrame(() => (this.width = Math.floor(this.clientWidth))));
    this.observer.observe(this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.observer?.disconnect();
    this.observer = null;
  }

  /** The time window shown: the focused pass's span, else the frame's. */
  get window(): { startNs: number; endNs: number } | null {
    const s = this.section;
    if (s === null) return null;
    const p = this.focusRegion !== null ? s.passes[this.focusRegion] : undefined;
    if (p !== undefined && p.firstStartNs !== null && p.lastEndNs !== null && p.lastEndNs > p.firstStartNs) return { startNs: p.firstStartNs, endNs: p.lastEndNs };
    let lo = Infinity;
    let hi = -Infinity;
    for (const d of this.draws) {
      if (d.firstStartNs !== null && d.firstStartNs < lo) lo = d.firstStartNs;
      if (d.lastEndNs !== null && d.lastEndNs > hi) hi = d.lastEndNs;
    }
    return hi > lo ? { startNs: lo, endNs: hi } : null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (['trace', 'section', 'draws', 'focusRegion', 'width'].some((k) => changed.has(k as keyof WtPassIcicle))) {
      const view = this.window;
      this.layout = this.trace === null || this.section === null || view === null ? { rows: 1, bars: [] } : icicleLayout(this.trace, this.section.passes, this.draws, view, this.width);
    }
  }

  override render() {
    const s = this.section;
    if (s === null) return nothing;
    const trail = regionTrail(s.passes, this.focusRegion);
    return html`<div class="crumbs" aria-label="Icicle zoom">
        <button data-crumb="frame" aria-pressed=${trail.length === 0 ? 'true' : 'false'} @click=${() => this.pick(null)}>Frame</button>
        ${trail.map((r) => html`› <button data-crumb=${r} aria-pressed=${r === this.focusRegion ? 'true' : 'false'} @click=${() => this.pick(r)}>${s.passes[r]!.label}</button>`)}
      </div>
      <canvas
        role="img"
        aria-label="Passes and their draws over time; click a pass to zoom to it, a draw to select it"
        style="height:${this.layout.rows * ICICLE_ROW_PX}px"
        @pointermove=${this.onMove}
        @pointerleave=${() => (this.hover = null)}
        @click=${this.onClick}
      ></canvas>
      <div class="status muted" role="status">${this.describe(this.hover)}</div>`;
  }

  protected override updated(): void {
    this.paint();
  }

  private describe(bar: IcicleBar | null): string {
    const s = this.section;
    if (bar === null || s === null) return 'Click a pass to zoom to it, a draw to select it.';
    if (bar.kind === 'region') {
      const p = s.passes[bar.index]!;
      // A sampled trace (issue 25) withholds busy time and estimates warp-time.
      const sampled = this.trace?.capture.sampling != null;
      const busy = sampled ? 'busy withheld (sampled trace)' : `busy ${formatNs(p.busyNs)} (${formatShare(p.shareOfFrame)} of the frame)`;
      return `${p.label}: ${formatNumber(p.draws)} draws · span ${formatNs(p.spanNs)} · ${busy} · warp-time ${sampled ? '≈ ' : ''}${formatNs(p.warpTimeNs)}`;
    }
    const d = this.draws[bar.index];
    return d === undefined ? '' : `draw ${bar.index}: ${d.label} · span ${formatNs(d.spanNs)} · warp-time ${formatNs(d.warpTimeNs)}`;
  }

  private paint(): void {
    const canvas = this.renderRoot.querySelector('canvas');
    if (canvas === null || this.width <= 0) return;
    const dpr = window.devicePixelRatio || 1;
    const h = this.layout.rows * ICICLE_ROW_PX;
    canvas.width = Math.round(this.width * dpr);
    canvas.height = Math.round(h * dpr);
    const ctx = canvas.getContext('2d');
    if (ctx === null) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, h);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (const b of this.layout.bars) {
      const y = b.row * ICICLE_ROW_PX;
      const w = b.x1 - b.x0;
      if (b.kind === 'region') {
        ctx.fillStyle = b.index === this.focusRegion ? '#4d6590' : REGION_FILL[Math.min(b.row, REGION_FILL.length - 1)]!;
        ctx.fillRect(b.x0, y + 1, Math.max(1, w - 1), ICICLE_ROW_PX - 2);
        this.label(ctx, this.section!.passes[b.index]!.label, b, y);
      } else {
        ctx.globalAlpha = 0.8;
        ctx.fillStyle = this.drawColors()[b.index] ?? '#8b909c';
        ctx.fillRect(b.x0, y + 2, w, ICICLE_ROW_PX - 4);
        ctx.globalAlpha = 1;
        if (b.index === this.selectedDraw) {
          ctx.strokeStyle = '#ffffff';
          ctx.strokeRect(b.x0 + 0.5, y + 1.5, Math.max(1, w - 1), ICICLE_ROW_PX - 3);
        }
      }
    }
  }

  /** The label elided to fit its bar (nothing when not even "…" fits). */
  private label(ctx: CanvasRenderingContext2D, text: string, b: IcicleBar, y: number): void {
    const room = b.x1 - b.x0 - 6;
    if (room < 14) return;
    let shown = text;
    if (ctx.measureText(shown).width > room) {
      let lo = 0;
      let hi = text.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ctx.measureText(`${text.slice(0, mid)}…`).width <= room) lo = mid;
        else hi = mid - 1;
      }
      if (lo === 0) return;
      shown = `${text.slice(0, lo)}…`;
    }
    ctx.fillStyle = '#d8dbe2';
    ctx.fillText(shown, b.x0 + 3, y + ICICLE_ROW_PX / 2);
  }

  /** Each draw's colour: its stage with the most warp-time. */
  private drawColors(): string[] {
    if (this.colors?.draws === this.draws) return this.colors.css;
    const byStage = new Map<number, string>();
    const css = this.draws.map((d) => {
      let best: DrawSummary['stages'][number] | null = null;
      for (const st of d.stages) if (best === null || st.totalNs > best.totalNs) best = st;
      if (best === null) return '#8b909c';
      let c = byStage.get(best.stageCode);
      if (c === undefined) byStage.set(best.stageCode, (c = stageCssColor(best.stageCode)));
      return c;
    });
    this.colors = { draws: this.draws, css };
    return css;
  }

  private barAt(e: MouseEvent): IcicleBar | null {
    const rect = (e.currentTarget as HTMLElement).getBoundingClientRect();
    return icicleHit(this.layout, e.clientX - rect.left, Math.floor((e.clientY - rect.top) / ICICLE_ROW_PX));
  }

  private onMove = (e: PointerEvent): void => {
    this.hover = this.barAt(e);
  };

  private onClick = (e: MouseEvent): void => {
    const bar = this.barAt(e);
    if (bar === null) return;
    if (bar.kind === 'region') this.pick(bar.index);
    else this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw: bar.index }, bubbles: true, composed: true }));
  };

  private pick(region: number | null): void {
    this.dispatchEvent(new CustomEvent('wt-pass-select', { detail: { region: region ?? -1 }, bubbles: true, composed: true }));
  }
}

if (!customElements.get('wt-pass-icicle')) customElements.define('wt-pass-icicle', WtPassIcicle);

declare global {
  interface HTMLElementTagNameMap {
    'wt-pass-icicle': WtPassIcicle;
  }
  interface HTMLElementEventMap {
    'wt-pass-select': CustomEvent<{ region: number }>;
  }
}
