/**
 * The state and view side of <wt-timeline> (wt-timeline.ts adds the input):
 * its properties, the renderer surface and frames, the visible time window,
 * the lanes (expanded, focused, scrolled), and the public navigation the app
 * and deep links use (setView/zoomTo, expandedSms, revealWarp, scrollToSm).
 */
import { LitElement, type PropertyValues } from 'lit';
import type { Trace } from '../../shared-schema/index.js';
import { buildDrawLayout, type DrawLayout } from '../model/draw-layout.js';
import { culpritWarp, type FindingPlace } from '../model/finding-warp.js';
import { drawWarpsPerLane } from '../model/draw-lanes.js';
import type { LaneColoring } from '../model/class-occupancy.js';
import type { LaneIndex } from '../model/lane-index.js';
import type { LaneLayout } from '../model/lane-layout.js';
import { occupancyScaleFor } from '../model/occupancy.js';
import { rowHighlight, type RowHighlight } from '../model/row-highlight.js';
import { buildGhostTrack, ghostRows, rememberDrawSpans } from '../model/ghost-track.js';
import { ghostBandHeight, screenLayout, type ScreenLayout } from '../model/screen-layout.js';
import { clampWindow, spanOf, traceBounds, windowAround, type TimeWindow } from '../model/time-scale.js';
import type { GhostFrame, TimeRange, TimelineFrame } from '../timeline/frame.js';
import type { FrameStats } from '../timeline/timeline-renderer.js';
import type { HitScene } from './timeline-hit.js';
import { TimelineHover } from './timeline-hover.js';
import { TimelineLanes } from './timeline-lanes.js';
import { timelineStyles } from './timeline-styles.js';
import { TimelineSurface, type SurfaceHost } from './timeline-surface.js';

export class TimelineElement extends LitElement implements SurfaceHost {
  static override properties = {
    trace: { attribute: false },
    index: { attribute: false },
    hiddenStages: { type: Number, attribute: false },
    showAllSms: { type: Boolean, attribute: 'show-all-sms' },
    selectedDraw: { type: Number, attribute: false },
    selectedWarp: { type: Number, attribute: false },
    range: { attribute: false },
    cursorNs: { attribute: false },
    highlightRows: { attribute: false },
    filterHighlight: { attribute: false },
    baseline: { attribute: false },
    showGhost: { type: Boolean, attribute: false },
    sharedDrawLayout: { attribute: false },
    coloring: { attribute: false },
  };

  declare trace: Trace | null;
  declare index: LaneIndex | null;
  declare hiddenStages: number;
  declare showAllSms: boolean;
  declare selectedDraw: number;
  declare selectedWarp: number;
  declare range: TimeRange | null;
  declare cursorNs: number | null;
  /** Warp rows drawn highlighted (any order), all other warps dimmed; null for none. */
  declare highlightRows: Uint32Array | null;
  /** A highlight built already (the app's filters: model/warp-filter.ts); wins over highlightRows. */
  declare filterHighlight: RowHighlight | null;
  /** The A/B baseline trace: its draws show as a ghost track under the draw track; null for none. */
  declare baseline: Trace | null;
  /** Whether the ghost track shows its draws (else only its label strip). */
  declare showGhost: boolean;
  /**
   * buildDrawLayout(trace, index) when the app has built it already (it is set with the
   * trace, in the same update), so the open does not build it twice; null: the timeline
   * builds its own.
   */
  declare sharedDrawLayout: DrawLayout | null;
  /** Warps colored by a color-by mode (model/color-by.ts, class-occupancy.ts); null: by stage. */
  declare coloring: LaneColoring | null;

  /** Statistics of the last rendered frame (for the benchmark). */
  lastFrame: FrameStats | null = null;
  /** Frames drawn so far (frameDrawnSince waits on it). */
  framesDrawn = 0;
  private readonly frameWaiters = new Set<() => void>();
  /** The trace changed: the next frame builds all its geometry, in a task before it (prepareThenDraw). */
  private newTraceFrame = false;
  /** Called after every rendered frame with its timings (benchmark hook). */
  onFrame: ((stats: FrameStats, ms: number) => void) | null = null;

  protected readonly surface = new TimelineSurface(this);
  protected readonly lanes = new TimelineLanes(() => this.lanesChanged());
  protected screen: ScreenLayout = screenLayout(1, 1, 1);
  protected drawLayout: DrawLayout | null = null;
  protected highlight: RowHighlight | null = null;
  protected ghost: GhostFrame | null = null;
  protected bounds: TimeWindow = { startNs: 0, endNs: 1 };
  protected view: TimeWindow = { startNs: 0, endNs: 1 };
  protected dragRange: TimeRange | null = null;
  protected dragCursor: number | null = null;
  protected occupancyScale = 1;
  protected viewEventPending = false;
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
    this.highlightRows = null;
    this.filterHighlight = null;
    this.baseline = null;
    this.showGhost = true;
    this.sharedDrawLayout = null;
    this.coloring = null;
  }

  static override styles = timelineStyles;


  /** Resolves once the renderer exists (tests and the benchmark wait on it). */
  async ready(): Promise<void> {
    await this.updateComplete;
    await this.surface.ready();
  }

  surfaceResized(width: number, height: number): void {
    this.updateScreen(width, height);
  }

  private updateScreen(width: number, height: number): void {
    const ghostPx = this.drawLayout === null ? 0 : ghostBandHeight(this.ghost !== null, this.showGhost, ghostRows(this.drawLayout));
    this.screen = screenLayout(Math.max(1, Math.floor(width)), Math.max(1, Math.floor(height)), this.drawLayout?.rowCount ?? 1, ghostPx);
    this.lanes.resize(this.screen.lanes.height);
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace') || changed.has('index')) {
      this.newTraceFrame = true;
      this.lanes.reset();
      this.hover.clear();
      this.surface.invalidate();
      if (this.trace !== null && this.index !== null) {
        this.drawLayout = this.sharedDrawLayout ?? buildDrawLayout(this.trace, this.index);
        rememberDrawSpans(this.trace, this.index.drawSpans);
        this.bounds = traceBounds(this.index.startNs, this.index.endNs);
        this.view = this.bounds;
        this.occupancyScale = occupancyScaleFor(this.index.peakOccupancy, this.trace.device.warpsPerSm);
      } else {
        this.drawLayout = null;
      }
      this.updateScreen(this.screen.width, this.screen.height);
    }
    if (changed.has('trace') || changed.has('index') || changed.has('baseline')) {
      const { trace, index, baseline } = this;
      const track = trace === null || index === null || baseline === null || baseline === trace ? null : buildGhostTrack(trace, index.drawSpans, baseline);
      this.ghost = track === null ? null : { track, shown: this.showGhost };
      this.updateScreen(this.screen.width, this.screen.height);
    } else if (changed.has('showGhost') && this.ghost !== null) {
      this.ghost = { track: this.ghost.track, shown: this.showGhost };
      this.updateScreen(this.screen.width, this.screen.height);
    }
    if (changed.has('trace') || changed.has('highlightRows') || changed.has('filterHighlight')) {
      this.highlight = this.trace === null ? null : (this.filterHighlight ?? (this.highlightRows === null ? null : rowHighlight(this.highlightRows, this.trace.warps.count)));
    }
    if (changed.has('trace') || changed.has('index') || changed.has('showAllSms') || changed.has('hiddenStages')) this.relayout();
  }

  override updated(): void {
    if (this.newTraceFrame) {
      this.newTraceFrame = false;
      this.surface.prepareThenDraw();
    } else {
      this.requestFrame();
    }
  }

  protected relayout(): void {
    const { trace, index } = this;
    this.lanes.update(trace === null || index === null ? null : { trace, index, showAllSms: this.showAllSms, hiddenStages: this.hiddenStages }, this.screen.lanes.height);
  }

  /** The lane layout or scroll changed: size the scrollbar to it, follow the scroll, redraw. */
  protected lanesChanged(): void {
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
      highlight: this.highlight,
      selectedWarp: this.selectedWarp,
      hoverWarp: this.hover.state.hoverWarp,
      range: this.dragRange ?? this.range,
      cursorNs: this.dragCursor ?? this.cursorNs,
      focusedLane: this.lanes.focused,
      occupancyScale: this.occupancyScale,
      ghost: this.ghost,
      coloring: this.coloring,
    };
  }

  /** Resolves true once more than `count` frames have been drawn, false after `timeoutMs` without. */
  frameDrawnSince(count: number, timeoutMs: number): Promise<boolean> {
    if (this.framesDrawn > count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (drawn: boolean) => {
        clearTimeout(timer);
        this.frameWaiters.delete(waiter);
        resolve(drawn);
      };
      const waiter = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.frameWaiters.add(waiter);
    });
  }

  frameDrawn(stats: FrameStats, ms: number): void {
    this.lastFrame = stats;
    this.framesDrawn++;
    for (const waiter of [...this.frameWaiters]) waiter();
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

  /** Scrolls the lanes to where draw `draw` ran, when none of its lanes is in view. */
  revealDraw(draw: number): void {
    if (this.trace !== null && this.index !== null && draw >= 0) this.lanes.revealGroups(drawWarpsPerLane(this.trace, this.index, draw));
  }

  /**
   * Shows a finding: zooms to its span and, when it names a warp (a stall's long
   * warp, a leftover's tail on one SM), expands that warp's lane, scrolls it into
   * view and selects it (wt-warp-select). Returns that row, or -1.
   */
  revealFinding(finding: FindingPlace): number {
    if (this.trace === null || this.index === null) return -1;
    this.zoomTo(finding.startNs, finding.endNs);
    const row = culpritWarp(this.trace, this.index, finding);
    if (row < 0) {
      if (finding.sm !== null) this.scrollToSm(finding.sm);
      return -1;
    }
    this.revealWarp(row);
    this.emit('wt-warp-select', { row });
    return row;
  }

  /** Scrolls the lane area to y px (clamped). */
  setScroll(y: number): void {
    this.lanes.setScroll(y);
  }

  emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }


  /** What the frame shows, for hit testing. */
  protected get scene(): HitScene {
    const { trace, index, drawLayout, screen, view, hiddenStages } = this;
    return { trace, index, drawLayout, screen, view, hiddenStages, ghost: this.ghost, lanes: this.lanes.layout, scrollY: this.lanes.scrollY, coloring: this.coloring };
  }

  protected readonly onScrollbar = (e: Event): void => {
    const top = (e.target as HTMLElement).scrollTop;
    if (Math.abs(top - this.lanes.scrollY) > 0.5) this.lanes.setScroll(top);
  };


  get panLimits(): TimeWindow {
    return this.bounds;
  }

  setViewAndRender(view: TimeWindow): void {
    this.view = clampWindow(view, this.bounds);
    this.viewEventPending = true;
    this.renderNow();
  }
}
