/**
 * <wt-timeline>: the warp-lane timeline (overview, time axis, draw track,
 * one lane per SM). Owns the view (time window, vertical scroll, expanded
 * lanes, hover) and the pixi renderer; selections come down as properties
 * and go up as events:
 *
 *   wt-warp-select   {row}            click a warp (-1: clicked empty space)
 *   wt-range-select  {range}          shift-drag or drag on the axis with Shift ({startNs, endNs} | null)
 *   wt-cursor-change {cursorNs}       click/drag on the time axis (null: cleared)
 *   wt-draw-select   {draw}           click a draw in the draw track
 *   wt-draw-step     {delta}          `[` / `]`
 *   wt-view-change   {view}           after the visible window changed
 *
 * Keys: W/S zoom, A/D pan (hold), arrows pan / move lane focus, Enter/Space
 * expand the focused lane, `,`/`.` previous/next warp on the focused lane,
 * F fit the selection, 0 fit all, C cursor at the view centre, Esc clear.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { formatNs, type Trace } from '../../shared-schema/index.js';
import { buildDrawLayout, drawsInWindow, regionBarAt, type DrawLayout } from '../model/draw-layout.js';
import { stagesInFlightAt, warpAt, type WarpHit } from '../model/hit-test.js';
import type { LaneIndex } from '../model/lane-index.js';
import { fittedLaneLayout } from '../model/lane-fit.js';
import { DEFAULT_LANE_OPTIONS, laneAtY, packedRowOf, slotOfRow, slotRowOf, type LaneLayout } from '../model/lane-layout.js';
import { regionAt, screenLayout, timeWidth, type Region, type ScreenLayout } from '../model/screen-layout.js';
import {
  clampWindow,
  pxToTime,
  spanOf,
  traceBounds,
  windowAround,
  type TimeWindow,
} from '../model/time-scale.js';
import type { TimeRange, TimelineFrame } from '../timeline/frame.js';
import { TimelineRenderer, groupOfRow, type FrameStats } from '../timeline/timeline-renderer.js';
import { TimelineKeys, type KeyboardTarget } from './timeline-keys.js';
import { TimelinePointer, type PointerTarget } from './timeline-pointer.js';
import { drawTooltip, occupancyTooltip, warpTooltip } from './timeline-tooltips.js';

const SCROLLBAR_PX = 12;

/** Occupancy scale: a round number of warps at or above the busiest lane's peak. */
export function occupancyScaleFor(peak: number, warpsPerSm: number | null): number {
  const nice = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024];
  let scale = nice.find((n) => n >= peak * 1.15) ?? Math.ceil(peak);
  if (warpsPerSm !== null && warpsPerSm > 0) scale = Math.min(scale, warpsPerSm);
  return Math.max(1, scale);
}

export class WtTimeline extends LitElement implements KeyboardTarget, PointerTarget {
  static override properties = {
    trace: { attribute: false },
    index: { attribute: false },
    hiddenStages: { type: Number, attribute: false },
    showAllSms: { type: Boolean, attribute: 'show-all-sms' },
    selectedDraw: { type: Number, attribute: false },
    selectedWarp: { type: Number, attribute: false },
    range: { attribute: false },
    cursorNs: { attribute: false },
    tooltip: { state: true },
  };

  declare trace: Trace | null;
  declare index: LaneIndex | null;
  declare hiddenStages: number;
  declare showAllSms: boolean;
  declare selectedDraw: number;
  declare selectedWarp: number;
  declare range: TimeRange | null;
  declare cursorNs: number | null;
  declare tooltip: { x: number; y: number; lines: string[] } | null;

  /** Statistics of the last rendered frame (for the benchmark). */
  lastFrame: FrameStats | null = null;
  /** Called after every rendered frame with its timings (benchmark hook). */
  onFrame: ((stats: FrameStats, ms: number) => void) | null = null;

  private renderer: TimelineRenderer | null = null;
  private rendererPending: Promise<void> | null = null;
  private resizeObserver: ResizeObserver | null = null;
  private screen: ScreenLayout = screenLayout(1, 1, 1);
  private lanes: LaneLayout = { rows: [], height: 0 };
  private drawLayout: DrawLayout | null = null;
  private bounds: TimeWindow = { startNs: 0, endNs: 1 };
  private view: TimeWindow = { startNs: 0, endNs: 1 };
  private scrollY = 0;
  private expandedSms = new Set<number>();
  private focusedLane = -1;
  private hoverWarp = -1;
  private dragRange: TimeRange | null = null;
  private dragCursor: number | null = null;
  private frameRequested = 0;
  private readonly keys = new TimelineKeys(this);
  private pointer: TimelinePointer | null = null;
  private occupancyScale = 1;
  private viewEventPending = false;
  private pendingHover: { x: number; y: number } | null = null;

  constructor() {
    super();
    this.trace = null;
    this.index = null;
    this.hiddenStages = 0;
    this.showAllSms = false;
    this.selectedDraw = -1;
    this.selectedWarp = -1;
    this.range = null;
    this.cursorNs = null;
    this.tooltip = null;
  }

  static override styles = css`
    :host {
      display: flex;
      position: relative;
      min-height: 200px;
      background: #15171c;
      outline: none;
    }
    .surface {
      position: relative;
      flex: 1;
      min-width: 0;
      overflow: hidden;
      cursor: default;
      touch-action: none;
    }
    .surface:focus-visible {
      box-shadow: inset 0 0 0 2px #7fb2ff;
    }
    canvas {
      position: absolute;
      left: 0;
      top: 0;
      display: block;
    }
    canvas.text {
      pointer-events: none;
    }
    .vscroll {
      width: ${SCROLLBAR_PX}px;
      overflow-y: scroll;
      overflow-x: hidden;
      background: #1f232b;
      scrollbar-width: thin;
    }
    .tooltip {
      position: absolute;
      pointer-events: none;
      background: rgba(16, 18, 22, 0.95);
      color: #d8dbe2;
      border: 1px solid #3a3f4b;
      border-radius: 4px;
      padding: 4px 6px;
      font: 11px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
      white-space: pre;
      z-index: 2;
    }
  `;

  override render() {
    const tip = this.tooltip;
    return html`
      <div
        class="surface"
        tabindex="0"
        role="application"
        aria-roledescription="warp timeline"
        aria-label="Warp timeline. W and S zoom, A and D pan, up and down move between SM lanes, Enter expands a lane, comma and period step through its warps, brackets step through draws, F fits the selection, 0 shows everything, C places the time cursor, Escape clears."
        @pointerdown=${(e: PointerEvent) => this.pointer?.onPointerDown(e)}
        @pointermove=${(e: PointerEvent) => this.pointer?.onPointerMove(e)}
        @pointerup=${(e: PointerEvent) => this.pointer?.onPointerUp(e)}
        @pointercancel=${(e: PointerEvent) => this.pointer?.onPointerUp(e)}
        @pointerleave=${() => this.pointer?.onPointerLeave()}
        @dblclick=${(e: MouseEvent) => this.pointer?.onDoubleClick(e)}
        @keydown=${this.keys.onKeyDown}
        @keyup=${this.keys.onKeyUp}
        @blur=${this.keys.onBlur}
      >
        <canvas class="gl"></canvas>
        <canvas class="text"></canvas>
        ${tip === null
          ? nothing
          : html`<div class="tooltip" style="left:${tip.x}px;top:${tip.y}px">${tip.lines.join('\n')}</div>`}
      </div>
      <div class="vscroll" @scroll=${this.onScrollbar} aria-hidden="true"><div class="spacer"></div></div>
    `;
  }

  // ---- lifecycle -------------------------------------------------------

  override connectedCallback(): void {
    super.connectedCallback();
    // Re-attached after a disconnect: the renderer was destroyed, make a new one.
    if (this.hasUpdated && this.renderer === null) void this.initRenderer();
  }

  override firstUpdated(): void {
    const surface = this.surface;
    this.pointer = new TimelinePointer(this, surface);
    surface.addEventListener('wheel', this.pointer.onWheel, { passive: false });
    void this.initRenderer();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
    cancelAnimationFrame(this.frameRequested);
    this.frameRequested = 0;
    this.keys.stop();
    this.renderer?.destroy();
    this.renderer = null;
  }

  private get surface(): HTMLDivElement {
    return this.renderRoot.querySelector('.surface') as HTMLDivElement;
  }

  private async initRenderer(): Promise<void> {
    if (this.rendererPending !== null) return this.rendererPending;
    this.rendererPending = (async () => {
      const surface = this.surface;
      const gl = this.renderRoot.querySelector('canvas.gl') as HTMLCanvasElement;
      const text = this.renderRoot.querySelector('canvas.text') as HTMLCanvasElement;
      const { width, height } = surface.getBoundingClientRect();
      const renderer = await TimelineRenderer.create(gl, text, width, height);
      if (!this.isConnected) {
        // Disconnected while pixi initialised: do not leak the context.
        renderer.destroy();
        return;
      }
      this.renderer = renderer;
      this.resizeObserver = new ResizeObserver(() => this.onResize());
      this.resizeObserver.observe(surface);
      this.onResize();
    })().finally(() => {
      this.rendererPending = null;
    });
    return this.rendererPending;
  }

  /** Resolves once the renderer exists (tests and the benchmark wait on it). */
  async ready(): Promise<void> {
    await this.updateComplete;
    if (this.renderer === null) await (this.rendererPending ?? this.initRenderer());
  }

  private onResize(): void {
    const rect = this.surface.getBoundingClientRect();
    this.renderer?.resize(rect.width, rect.height);
    this.updateScreen(rect.width, rect.height);
    this.requestFrame();
  }

  private updateScreen(width: number, height: number): void {
    const lanesBefore = this.screen.lanes.height;
    this.screen = screenLayout(Math.max(1, Math.floor(width)), Math.max(1, Math.floor(height)), this.drawLayout?.rowCount ?? 1);
    if (this.screen.lanes.height !== lanesBefore) this.relayout();
    else this.clampScroll();
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace') || changed.has('index')) {
      this.expandedSms = new Set();
      this.focusedLane = -1;
      this.hoverWarp = -1;
      this.scrollY = 0;
      this.renderer?.invalidate();
      if (this.trace !== null && this.index !== null) {
        this.drawLayout = buildDrawLayout(this.trace, this.index);
        this.bounds = traceBounds(this.index.startNs, this.index.endNs);
        this.view = this.bounds;
        this.occupancyScale = occupancyScaleFor(this.index.peakOccupancy, this.trace.device.warpsPerSm);
      } else {
        this.drawLayout = null;
      }
      this.updateScreen(this.screen.width, this.screen.height);
    }
    if (changed.has('trace') || changed.has('index') || changed.has('showAllSms') || changed.has('hiddenStages')) this.relayout();
  }

  override updated(): void {
    this.requestFrame();
  }

  private relayout(): void {
    if (this.trace === null || this.index === null) {
      this.lanes = { rows: [], height: 0 };
      return;
    }
    const options = { ...DEFAULT_LANE_OPTIONS, showAllSms: this.showAllSms, hiddenStages: this.hiddenStages, expandedSms: this.expandedSms };
    this.lanes = fittedLaneLayout(this.trace, this.index, options, this.screen.lanes.height);
    if (this.focusedLane >= this.lanes.rows.length) this.focusedLane = this.lanes.rows.length - 1;
    const spacer = this.renderRoot.querySelector('.spacer') as HTMLElement | null;
    if (spacer !== null) spacer.style.height = `${this.lanes.height + this.screen.lanes.y}px`;
    this.clampScroll();
  }

  // ---- frames ----------------------------------------------------------

  requestFrame(): void {
    if (this.frameRequested !== 0) return;
    this.frameRequested = requestAnimationFrame(() => {
      this.frameRequested = 0;
      this.renderNow();
    });
  }

  /** Renders synchronously (tests and the benchmark call this directly). */
  renderNow(): FrameStats | null {
    const frame = this.frame();
    if (this.renderer === null || frame === null) return null;
    if (this.pendingHover !== null) {
      const { x, y } = this.pendingHover;
      this.pendingHover = null;
      this.updateHover(x, y);
    }
    const t0 = performance.now();
    const stats = this.renderer.render(this.frame()!);
    const ms = performance.now() - t0;
    this.lastFrame = stats;
    this.onFrame?.(stats, ms);
    if (this.viewEventPending) {
      this.viewEventPending = false;
      this.emit('wt-view-change', { view: this.view });
    }
    return stats;
  }

  private frame(): TimelineFrame | null {
    if (this.trace === null || this.index === null || this.drawLayout === null) return null;
    return {
      trace: this.trace,
      index: this.index,
      lanes: this.lanes,
      drawLayout: this.drawLayout,
      screen: this.screen,
      view: this.view,
      bounds: this.bounds,
      scrollY: this.scrollY,
      hiddenStages: this.hiddenStages,
      selectedDraw: this.selectedDraw,
      selectedWarp: this.selectedWarp,
      hoverWarp: this.hoverWarp,
      range: this.dragRange ?? this.range,
      cursorNs: this.dragCursor ?? this.cursorNs,
      focusedLane: this.focusedLane,
      occupancyScale: this.occupancyScale,
    };
  }

  /**
   * Reads back the rendered pixels of the timeline canvas (CSS px rectangle),
   * after rendering a frame: for tests and screenshots. The copy happens in the
   * same task as the frame, while the WebGL drawing buffer still holds it.
   */
  readPixels(x: number, y: number, width: number, height: number): Uint8ClampedArray {
    this.renderNow();
    const gl = this.renderRoot.querySelector('canvas.gl') as HTMLCanvasElement;
    const dpr = gl.width / Math.max(1, this.screen.width);
    const c = document.createElement('canvas');
    c.width = Math.max(1, Math.round(width * dpr));
    c.height = Math.max(1, Math.round(height * dpr));
    const ctx = c.getContext('2d')!;
    ctx.drawImage(gl, x * dpr, y * dpr, width * dpr, height * dpr, 0, 0, c.width, c.height);
    return ctx.getImageData(0, 0, c.width, c.height).data;
  }

  // ---- public navigation --------------------------------------------------

  get visibleWindow(): TimeWindow {
    return this.view;
  }

  get screenLayout(): ScreenLayout {
    return this.screen;
  }

  get laneLayout(): LaneLayout {
    return this.lanes;
  }

  get verticalScroll(): number {
    return this.scrollY;
  }

  setView(view: TimeWindow): void {
    this.view = clampWindow(view, this.bounds);
    this.viewEventPending = true;
    this.requestFrame();
  }

  /** Shows [startNs, endNs] with a margin on each side. */
  zoomTo(startNs: number, endNs: number, margin = 0.08): void {
    this.setView(windowAround(startNs, endNs, margin, this.bounds));
  }

  fitAll(): void {
    this.setView(this.bounds);
  }

  /** Expands or collapses the lane of SM `sm`. */
  toggleLane(sm: number, expanded = !this.expandedSms.has(sm)): void {
    const next = new Set(this.expandedSms);
    if (expanded) next.add(sm);
    else next.delete(sm);
    this.expandedSms = next;
    this.relayout();
    this.requestFrame();
  }

  isExpanded(sm: number): boolean {
    return this.expandedSms.has(sm);
  }

  /** Scrolls the lane area vertically so the lane of `sm` is at the top. */
  scrollToSm(sm: number): void {
    const row = this.lanes.rows.find((r) => r.sm === sm);
    if (row === undefined) return;
    this.setScroll(row.y);
  }

  /** Brings a warp into view: expands its lane, scrolls to it and centres it if off screen. */
  revealWarp(row: number): void {
    if (this.trace === null || row < 0 || row >= this.trace.warps.count) return;
    const g = groupOfRow(this.trace.warps.smGroups.offsets, row);
    const sm = this.trace.warps.smGroups.sm[g]!;
    if (!this.expandedSms.has(sm)) this.toggleLane(sm, true);
    const laneIdx = this.lanes.rows.findIndex((r) => r.group === g);
    if (laneIdx >= 0) {
      this.focusedLane = laneIdx;
      const lane = this.lanes.rows[laneIdx]!;
      const slotY = lane.y + lane.headerHeight + slotRowOf(lane, this.index!.lanes[g]!, this.trace.warps.warpSlot[row]!, row) * lane.slotRowHeight;
      if (slotY < this.scrollY || slotY > this.scrollY + this.screen.lanes.height - 20) this.setScroll(Math.max(0, slotY - this.screen.lanes.height / 3));
    }
    const s = this.trace.warps.startNs[row]!;
    const e = s + this.trace.warps.durationNs[row]!;
    if (e < this.view.startNs || s > this.view.endNs) {
      const span = spanOf(this.view);
      this.setView({ startNs: (s + e) / 2 - span / 2, endNs: (s + e) / 2 + span / 2 });
    }
    this.requestFrame();
  }

  /** Scrolls the lane area to y px (clamped). */
  setScroll(y: number): void {
    this.scrollY = y;
    this.clampScroll();
    const bar = this.renderRoot.querySelector('.vscroll') as HTMLElement | null;
    if (bar !== null && Math.abs(bar.scrollTop - this.scrollY) > 0.5) bar.scrollTop = this.scrollY;
    this.requestFrame();
  }

  private clampScroll(): void {
    const max = Math.max(0, this.lanes.height - this.screen.lanes.height + 8);
    this.scrollY = Math.max(0, Math.min(max, this.scrollY));
  }

  emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // ---- pointer (see TimelinePointer) ---------------------------------------

  private timeAtX(x: number): number {
    return pxToTime(this.view, timeWidth(this.screen), x - this.screen.gutter);
  }

  get hasTrace(): boolean {
    return this.trace !== null;
  }

  setDragPreview(range: TimeRange | null, cursorNs: number | null): void {
    this.dragRange = range;
    this.dragCursor = cursorNs;
    this.requestFrame();
  }

  hoverAt(x: number, y: number): void {
    // Hit-test once per frame at most.
    this.pendingHover = { x, y };
    this.requestFrame();
  }

  clearHover(): void {
    this.pendingHover = null;
    if (this.hoverWarp !== -1 || this.tooltip !== null) {
      this.hoverWarp = -1;
      this.tooltip = null;
      this.requestFrame();
    }
  }

  clickAt(region: Region, x: number, y: number): void {
    if (region === 'gutter' && y >= this.screen.lanes.y) {
      const hit = laneAtY(this.lanes, y - this.screen.lanes.y + this.scrollY);
      if (hit !== null) {
        this.focusedLane = hit.lane;
        this.toggleLane(this.lanes.rows[hit.lane]!.sm);
      }
    } else if (region === 'lanes') {
      const row = this.warpAtPoint(x, y);
      const hit = laneAtY(this.lanes, y - this.screen.lanes.y + this.scrollY);
      if (hit !== null) this.focusedLane = hit.lane;
      this.emit('wt-warp-select', { row });
    } else if (region === 'draws') {
      const r = this.regionAtPoint(x, y);
      const tree = this.drawLayout?.tree;
      // A region bar zooms to its span; a draw selects it.
      if (r >= 0 && tree !== undefined) this.emit('wt-zoom-to', { startNs: tree.spans[2 * r]!, endNs: tree.spans[2 * r + 1]! });
      else this.emit('wt-draw-select', { draw: this.drawAtPoint(x, y) });
    }
  }

  doubleClickAt(region: Region, x: number, y: number): void {
    if (region !== 'lanes' || this.trace === null) return;
    const row = this.warpAtPoint(x, y);
    if (row < 0) return;
    const s = this.trace.warps.startNs[row]!;
    this.zoomTo(s, s + this.trace.warps.durationNs[row]!, 0.5);
  }

  private onScrollbar = (e: Event): void => {
    const top = (e.target as HTMLElement).scrollTop;
    if (Math.abs(top - this.scrollY) > 0.5) {
      this.scrollY = top;
      this.clampScroll();
      this.requestFrame();
    }
  };

  // ---- hit testing ---------------------------------------------------------

  /** Warp row under a point of the lane area, or -1. */
  warpAtPoint(x: number, y: number): number {
    return this.warpHitAt(x, y)?.row ?? -1;
  }

  /** The warp under a point and how many warps of that row share its pixels. */
  private warpHitAt(x: number, y: number): WarpHit | null {
    if (this.trace === null || this.index === null) return null;
    const hit = laneAtY(this.lanes, y - this.screen.lanes.y + this.scrollY);
    if (hit === null) return null;
    const lane = this.lanes.rows[hit.lane]!;
    if (lane.group < 0) return null;
    const t = this.timeAtX(x);
    const tolerance = (2.5 * spanOf(this.view)) / timeWidth(this.screen);
    const slot = lane.expanded && hit.slotRow >= 0 ? slotOfRow(lane, hit.slotRow) : -1;
    if (lane.expanded && hit.slotRow < 0 && y - this.screen.lanes.y + this.scrollY - lane.y >= lane.headerHeight) return null;
    const packed = lane.expanded && hit.slotRow >= 0 ? packedRowOf(lane, hit.slotRow) : -1;
    return warpAt(this.trace, this.index.lanes[lane.group]!, slot, t, tolerance, this.hiddenStages, packed);
  }

  /** Tooltip lines for a collapsed lane at a point (occupancy by stage at that time), or null elsewhere. */
  private collapsedOccupancyAt(x: number, y: number): string[] | null {
    if (this.trace === null || this.index === null) return null;
    const hit = laneAtY(this.lanes, y - this.screen.lanes.y + this.scrollY);
    if (hit === null) return null;
    const lane = this.lanes.rows[hit.lane]!;
    if (lane.group < 0 || lane.expanded) return null;
    const t = this.timeAtX(x);
    return occupancyTooltip(lane.sm, t, stagesInFlightAt(this.trace, this.index.lanes[lane.group]!, t, this.hiddenStages));
  }

  private regionAtPoint(x: number, y: number): number {
    if (this.drawLayout === null) return -1;
    const row = Math.floor((y - this.screen.draws.y - 3) / this.screen.drawRowHeight);
    return regionBarAt(this.drawLayout, row, this.timeAtX(x), (3 * spanOf(this.view)) / timeWidth(this.screen));
  }

  private drawAtPoint(x: number, y: number): number {
    if (this.drawLayout === null) return -1;
    const t = this.timeAtX(x);
    const tol = (3 * spanOf(this.view)) / timeWidth(this.screen);
    const row = Math.floor((y - this.screen.draws.y - 3) / this.screen.drawRowHeight);
    let best = -1;
    let bestSpan = Infinity;
    for (const d of drawsInWindow(this.drawLayout, t - tol, t + tol)) {
      if (this.drawLayout.row[d] !== row) continue;
      const span = this.drawLayout.spans[2 * d + 1]! - this.drawLayout.spans[2 * d]!;
      if (span < bestSpan) {
        best = d;
        bestSpan = span;
      }
    }
    return best;
  }

  private updateHover(x: number, y: number): void {
    const region = regionAt(this.screen, x, y);
    const collapsed = region === 'lanes' ? this.collapsedOccupancyAt(x, y) : null;
    if (collapsed !== null) {
      // A collapsed lane draws occupancy, not warps: say what is in flight there, per stage.
      this.hoverWarp = -1;
      this.tooltip = { x: x + 14, y: y + 14, lines: collapsed };
      return;
    }
    const hit = region === 'lanes' ? this.warpHitAt(x, y) : null;
    const row = hit?.row ?? -1;
    if (region === 'draws') {
      const d = this.drawAtPoint(x, y);
      const r = this.regionAtPoint(x, y);
      this.hoverWarp = -1;
      if (r >= 0 && this.trace !== null) {
        const tree = this.drawLayout!.tree;
        const lines = [this.trace.regions[r]!.label, `${tree.drawCount[r]} draws · span ${formatNs(tree.spans[2 * r + 1]! - tree.spans[2 * r]!)} · click to zoom`];
        this.tooltip = { x: x + 14, y: y + 14, lines };
        return;
      }
      this.tooltip = d < 0 || this.trace === null ? null : { x: x + 14, y: y + 14, lines: drawTooltip(this.trace, this.drawLayout!, d) };
      return;
    }
    if (row === this.hoverWarp && this.tooltip !== null) {
      this.tooltip = { ...this.tooltip, x: x + 14, y: y + 14 };
      return;
    }
    this.hoverWarp = row;
    this.tooltip = hit === null ? null : { x: x + 14, y: y + 14, lines: warpTooltip(this.trace!, hit.row, hit.overlapping) };
  }

  // ---- keyboard ------------------------------------------------------------

  get panLimits(): TimeWindow {
    return this.bounds;
  }

  setViewAndRender(view: TimeWindow): void {
    this.view = clampWindow(view, this.bounds);
    this.viewEventPending = true;
    this.renderNow();
  }

  toggleFocusedLane(): void {
    const row = this.lanes.rows[this.focusedLane];
    if (row !== undefined) this.toggleLane(row.sm);
  }

  /** Moves the keyboard focus to the next/previous lane, scrolling it into view. */
  moveFocus(delta: number): void {
    const n = this.lanes.rows.length;
    if (n === 0) return;
    this.focusedLane = Math.max(0, Math.min(n - 1, (this.focusedLane < 0 ? (delta > 0 ? -1 : n) : this.focusedLane) + delta));
    const row = this.lanes.rows[this.focusedLane]!;
    if (row.y < this.scrollY) this.setScroll(row.y);
    else if (row.y + Math.min(row.height, this.screen.lanes.height) > this.scrollY + this.screen.lanes.height) {
      this.setScroll(row.y + Math.min(row.height, this.screen.lanes.height) - this.screen.lanes.height);
    }
    this.requestFrame();
  }

  /** Selects the next/previous warp (by start) on the focused lane, from the selection or the view centre. */
  stepWarp(delta: number): void {
    if (this.trace === null || this.index === null) return;
    if (this.focusedLane < 0) this.moveFocus(1);
    const lane = this.lanes.rows[this.focusedLane];
    if (lane === undefined || lane.group < 0) return;
    const info = this.index.lanes[lane.group]!;
    const w = this.trace.warps;
    let row = this.selectedWarp;
    if (row < info.rowBegin || row >= info.rowEnd) {
      // Start from the view centre.
      const t = (this.view.startNs + this.view.endNs) / 2;
      let lo = info.rowBegin;
      let hi = info.rowEnd;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (w.startNs[mid]! < t) lo = mid + 1;
        else hi = mid;
      }
      row = delta > 0 ? lo - 1 : lo;
    }
    let next = row + delta;
    while (next >= info.rowBegin && next < info.rowEnd && (this.hiddenStages & (1 << w.stage[next]!)) !== 0) next += delta;
    if (next < info.rowBegin || next >= info.rowEnd) return;
    this.emit('wt-warp-select', { row: next });
    this.revealWarp(next);
  }

  /** Zooms to the range, else the selected warp, else the selected draw, else everything. */
  fitSelection(): void {
    const r = this.range;
    if (r !== null) return this.zoomTo(r.startNs, r.endNs, 0.05);
    if (this.selectedWarp >= 0 && this.trace !== null) {
      const s = this.trace.warps.startNs[this.selectedWarp]!;
      return this.zoomTo(s, s + this.trace.warps.durationNs[this.selectedWarp]!, 0.5);
    }
    if (this.selectedDraw >= 0 && this.drawLayout !== null) {
      const s = this.drawLayout.spans[2 * this.selectedDraw]!;
      if (!Number.isNaN(s)) return this.zoomTo(s, this.drawLayout.spans[2 * this.selectedDraw + 1]!, 0.05);
    }
    this.fitAll();
  }
}

customElements.define('wt-timeline', WtTimeline);

declare global {
  interface HTMLElementTagNameMap {
    'wt-timeline': WtTimeline;
  }
}
