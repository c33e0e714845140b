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
 *   wt-zoom-to       {startNs, endNs} click a region (pass) bar
 *   wt-view-change   {view}           after the visible window changed
 *
 * Keys: W/S zoom, A/D pan (hold), arrows pan / move lane focus, Enter/Space
 * expand the focused lane, `,`/`.` previous/next warp on the focused lane,
 * F fit the selection, 0 fit all, C cursor at the view centre, Esc clear.
 *
 * The parts: timeline-surface (renderer lifecycle and frames), timeline-lanes
 * (expanded lanes, focus, vertical scroll), timeline-hit / timeline-hover
 * (what lies under the pointer, tooltips), timeline-navigation (stepping and
 * fitting), timeline-pointer / timeline-keys (input), timeline-styles.
 */
import { LitElement, type PropertyValues } from 'lit';
import type { Trace } from '../../shared-schema/index.js';
import { buildDrawLayout, type DrawLayout } from '../model/draw-layout.js';
import type { LaneIndex } from '../model/lane-index.js';
import type { LaneLayout } from '../model/lane-layout.js';
import { occupancyScaleFor } from '../model/occupancy.js';
import { screenLayout, type Region, type ScreenLayout } from '../model/screen-layout.js';
import { clampWindow, spanOf, traceBounds, windowAround, type TimeWindow } from '../model/time-scale.js';
import type { TimeRange, TimelineFrame } from '../timeline/frame.js';
import type { FrameStats } from '../timeline/timeline-renderer.js';
import { warpAtPoint, type HitScene } from './timeline-hit.js';
import { TimelineHover, clickActionAt } from './timeline-hover.js';
import { TimelineKeys, type KeyboardTarget } from './timeline-keys.js';
import { TimelineLanes } from './timeline-lanes.js';
import { fitTarget } from './timeline-navigation.js';
import { TimelinePointer, type PointerTarget } from './timeline-pointer.js';
import { timelineStyles } from './timeline-styles.js';
import { timelineTemplate } from './timeline-template.js';
import { TimelineSurface, type SurfaceHost } from './timeline-surface.js';

export { occupancyScaleFor };

export class WtTimeline extends LitElement implements KeyboardTarget, PointerTarget, SurfaceHost {
  static override properties = {
    trace: { attribute: false },
    index: { attribute: false },
    hiddenStages: { type: Number, attribute: false },
    showAllSms: { type: Boolean, attribute: 'show-all-sms' },
    selectedDraw: { type: Number, attribute: false },
    selectedWarp: { type: Number, attribute: false },
    range: { attribute: false },
    cursorNs: { attribute: false },
  };

  declare trace: Trace | null;
  declare index: LaneIndex | null;
  declare hiddenStages: number;
  declare showAllSms: boolean;
  declare selectedDraw: number;
  declare selectedWarp: number;
  declare range: TimeRange | null;
  declare cursorNs: number | null;

  /** Statistics of the last rendered frame (for the benchmark). */
  lastFrame: FrameStats | null = null;
  /** Called after every rendered frame with its timings (benchmark hook). */
  onFrame: ((stats: FrameStats, ms: number) => void) | null = null;

  private readonly surface = new TimelineSurface(this);
  private readonly lanes = new TimelineLanes(() => this.lanesChanged());
  private screen: ScreenLayout = screenLayout(1, 1, 1);
  private drawLayout: DrawLayout | null = null;
  private bounds: TimeWindow = { startNs: 0, endNs: 1 };
  private view: TimeWindow = { startNs: 0, endNs: 1 };
  private dragRange: TimeRange | null = null;
  private dragCursor: number | null = null;
  private readonly keys = new TimelineKeys(this);
  private pointer: TimelinePointer | null = null;
  private occupancyScale = 1;
  private viewEventPending = false;
  /** The warp outlined under the pointer and the tooltip shown there. */
  readonly hover = new TimelineHover(this);

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
  }

  static override styles = timelineStyles;

  override render() {
    return timelineTemplate({ pointer: () => this.pointer, keys: this.keys, tooltip: this.hover.state.tooltip, onScrollbar: this.onScrollbar });
  }

  // ---- lifecycle -------------------------------------------------------

  override firstUpdated(): void {
    const surface = this.surface.element;
    this.pointer = new TimelinePointer(this, surface);
    surface.addEventListener('wheel', this.pointer.onWheel, { passive: false });
    void this.surface.start();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.keys.stop();
  }

  /** Resolves once the renderer exists (tests and the benchmark wait on it). */
  async ready(): Promise<void> {
    await this.updateComplete;
    await this.surface.ready();
  }

  surfaceResized(width: number, height: number): void {
    this.updateScreen(width, height);
  }

  private updateScreen(width: number, height: number): void {
    this.screen = screenLayout(Math.max(1, Math.floor(width)), Math.max(1, Math.floor(height)), this.drawLayout?.rowCount ?? 1);
    this.lanes.resize(this.screen.lanes.height);
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace') || changed.has('index')) {
      this.lanes.reset();
      this.hover.clear();
      this.surface.invalidate();
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
    const { trace, index } = this;
    this.lanes.update(trace === null || index === null ? null : { trace, index, showAllSms: this.showAllSms, hiddenStages: this.hiddenStages }, this.screen.lanes.height);
  }

  /** The lane layout or scroll changed: size the scrollbar to it, follow the scroll, redraw. */
  private lanesChanged(): void {
    const spacer = this.renderRoot.querySelector('.spacer') as HTMLElement | null;
    if (spacer !== null) spacer.style.height = `${this.lanes.layout.height + this.screen.lanes.y}px`;
    const bar = this.renderRoot.querySelector('.vscroll') as HTMLElement | null;
    if (bar !== null && Math.abs(bar.scrollTop - this.lanes.scrollY) > 0.5) bar.scrollTop = this.lanes.scrollY;
    this.requestFrame();
  }

  // ---- frames ----------------------------------------------------------

  requestFrame(): void {
    this.surface.requestFrame();
  }

  /** Renders synchronously (tests and the benchmark call this directly). */
  renderNow(): FrameStats | null {
    return this.surface.renderNow();
  }

  frameToDraw(): TimelineFrame | null {
    if (this.trace === null || this.index === null || this.drawLayout === null) return null;
    this.hover.flush(this.scene);
    return {
      trace: this.trace,
      index: this.index,
      lanes: this.lanes.layout,
      drawLayout: this.drawLayout,
      screen: this.screen,
      view: this.view,
      bounds: this.bounds,
      scrollY: this.lanes.scrollY,
      hiddenStages: this.hiddenStages,
      selectedDraw: this.selectedDraw,
      selectedWarp: this.selectedWarp,
      hoverWarp: this.hover.state.hoverWarp,
      range: this.dragRange ?? this.range,
      cursorNs: this.dragCursor ?? this.cursorNs,
      focusedLane: this.lanes.focused,
      occupancyScale: this.occupancyScale,
    };
  }

  frameDrawn(stats: FrameStats, ms: number): void {
    this.lastFrame = stats;
    this.onFrame?.(stats, ms);
    if (this.viewEventPending) {
      this.viewEventPending = false;
      this.emit('wt-view-change', { view: this.view });
    }
  }

  /** Renders a frame and reads a CSS-px rectangle of the timeline canvas back (tests and screenshots). */
  readPixels(x: number, y: number, width: number, height: number): Uint8ClampedArray {
    return this.surface.readPixels(this.screen.width, x, y, width, height);
  }

  // ---- public navigation --------------------------------------------------

  get visibleWindow(): TimeWindow {
    return this.view;
  }

  get screenLayout(): ScreenLayout {
    return this.screen;
  }

  get laneLayout(): LaneLayout {
    return this.lanes.layout;
  }

  get verticalScroll(): number {
    return this.lanes.scrollY;
  }

  /** SMs whose lanes are expanded (one row per warp slot); setting it lays the lanes out again. */
  get expandedSms(): ReadonlySet<number> {
    return this.lanes.expandedSms;
  }

  set expandedSms(sms: ReadonlySet<number>) {
    this.lanes.expandedSms = sms;
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
  toggleLane(sm: number, expanded?: boolean): void {
    this.lanes.toggle(sm, expanded);
  }

  isExpanded(sm: number): boolean {
    return this.lanes.isExpanded(sm);
  }

  /** Scrolls the lane area vertically so the lane of `sm` is at the top. */
  scrollToSm(sm: number): void {
    const row = this.lanes.layout.rows.find((r) => r.sm === sm);
    if (row !== undefined) this.setScroll(row.y);
  }

  /** Brings a warp into view: expands its lane, scrolls to it and centres it if off screen. */
  revealWarp(row: number): void {
    if (this.trace === null || row < 0 || row >= this.trace.warps.count) return;
    this.lanes.revealWarp(row);
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
    this.lanes.setScroll(y);
  }

  emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // ---- pointer (see TimelinePointer) ---------------------------------------

  /** What the frame shows, for hit testing. */
  private get scene(): HitScene {
    const { trace, index, drawLayout, screen, view, hiddenStages } = this;
    return { trace, index, drawLayout, screen, view, hiddenStages, lanes: this.lanes.layout, scrollY: this.lanes.scrollY };
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
    this.hover.moveTo(x, y);
  }

  clearHover(): void {
    this.hover.clear();
  }

  clickAt(region: Region, x: number, y: number): void {
    const action = clickActionAt(this.scene, region, x, y);
    if (action.kind === 'toggle-lane') {
      this.lanes.focused = action.lane;
      this.lanes.toggle(this.lanes.layout.rows[action.lane]!.sm);
    } else if (action.kind === 'select-warp') {
      if (action.lane >= 0) this.lanes.focused = action.lane;
      this.emit('wt-warp-select', { row: action.row });
    } else if (action.kind === 'zoom') {
      this.emit('wt-zoom-to', { startNs: action.startNs, endNs: action.endNs });
    } else if (action.kind === 'select-draw') {
      this.emit('wt-draw-select', { draw: action.draw });
    }
  }

  doubleClickAt(region: Region, x: number, y: number): void {
    if (region !== 'lanes' || this.trace === null) return;
    const row = this.warpAtPoint(x, y);
    if (row < 0) return;
    const s = this.trace.warps.startNs[row]!;
    this.zoomTo(s, s + this.trace.warps.durationNs[row]!, 0.5);
  }

  /** Warp row under a point of the lane area, or -1. */
  warpAtPoint(x: number, y: number): number {
    return warpAtPoint(this.scene, x, y);
  }

  private onScrollbar = (e: Event): void => {
    const top = (e.target as HTMLElement).scrollTop;
    if (Math.abs(top - this.lanes.scrollY) > 0.5) this.lanes.setScroll(top);
  };

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
    const row = this.lanes.layout.rows[this.lanes.focused];
    if (row !== undefined) this.lanes.toggle(row.sm);
  }

  /** Moves the keyboard focus to the next/previous lane, scrolling it into view. */
  moveFocus(delta: number): void {
    this.lanes.moveFocus(delta);
  }

  /** Selects the next/previous warp (by start) on the focused lane, from the selection or the view centre. */
  stepWarp(delta: number): void {
    const next = this.lanes.stepWarp(this.selectedWarp, (this.view.startNs + this.view.endNs) / 2, delta > 0 ? 1 : -1);
    if (next < 0) return;
    this.emit('wt-warp-select', { row: next });
    this.revealWarp(next);
  }

  /** Zooms to the range, else the selected warp, else the selected draw, else everything. */
  fitSelection(): void {
    const target = fitTarget(this.trace, this.drawLayout, this.range, this.selectedWarp, this.selectedDraw);
    if (target === null) this.fitAll();
    else this.zoomTo(target.startNs, target.endNs, target.margin);
  }
}

customElements.define('wt-timeline', WtTimeline);

declare global {
  interface HTMLElementTagNameMap {
    'wt-timeline': WtTimeline;
  }
}
