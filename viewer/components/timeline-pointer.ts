/**
 * Mouse control of the timeline: wheel zooms at the pointer (Shift or a
 * horizontal wheel pans, over the SM labels it scrolls); drag pans time and
 * lanes; Shift+drag selects a time range; on the axis, click or drag moves
 * the time cursor; in the overview, click or drag moves the view there.
 * A press without movement is a click, handed back to the timeline.
 */
import { regionAt, timeWidth, type Region, type ScreenLayout } from '../model/screen-layout.js';
import { clampWindow, panBy, pxToTime, spanOf, zoomAround, type TimeWindow } from '../model/time-scale.js';
import type { TimeRange } from '../timeline/frame.js';

/** What the mouse drives: implemented by <wt-timeline>. */
export interface PointerTarget {
  readonly hasTrace: boolean;
  readonly screenLayout: ScreenLayout;
  readonly visibleWindow: TimeWindow;
  readonly panLimits: TimeWindow;
  readonly verticalScroll: number;
  setView(view: TimeWindow): void;
  setScroll(y: number): void;
  /** Range and cursor shown while dragging, before the result is emitted. */
  setDragPreview(range: TimeRange | null, cursorNs: number | null): void;
  hoverAt(x: number, y: number): void;
  clearHover(): void;
  clickAt(region: Region, x: number, y: number): void;
  doubleClickAt(region: Region, x: number, y: number): void;
  emit(type: string, detail: unknown): void;
}

type DragMode = 'pan' | 'range' | 'cursor' | 'overview';

interface Drag {
  readonly mode: DragMode;
  readonly pointerId: number;
  readonly x0: number;
  readonly y0: number;
  readonly view0: TimeWindow;
  readonly scroll0: number;
  readonly region: Region;
  moved: boolean;
  range: TimeRange | null;
  cursorNs: number | null;
}

const DRAG_THRESHOLD_PX = 3;
/** Zoom per wheel pixel (exp(-delta · rate)). */
const WHEEL_ZOOM_RATE = 0.0025;

export class TimelinePointer {
  private drag: Drag | null = null;

  constructor(
    private readonly target: PointerTarget,
    private readonly surface: HTMLElement,
  ) {}

  private local(e: MouseEvent): { x: number; y: number } {
    const rect = this.surface.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  }

  private timeAt(x: number, view = this.target.visibleWindow): number {
    const s = this.target.screenLayout;
    return pxToTime(view, timeWidth(s), x - s.gutter);
  }

  onPointerDown = (e: PointerEvent): void => {
    const t = this.target;
    if (e.button !== 0 || !t.hasTrace) return;
    this.surface.focus({ preventScroll: true });
    const { x, y } = this.local(e);
    const region = regionAt(t.screenLayout, x, y);
    let mode: DragMode = 'pan';
    if (region === 'overview') mode = 'overview';
    else if (e.shiftKey && region !== 'gutter') mode = 'range';
    else if (region === 'axis') mode = 'cursor';
    const d: Drag = { mode, pointerId: e.pointerId, x0: x, y0: y, view0: t.visibleWindow, scroll0: t.verticalScroll, region, moved: false, range: null, cursorNs: null };
    this.drag = d;
    try {
      this.surface.setPointerCapture(e.pointerId);
    } catch {
      // Synthetic events have no active pointer to capture; the drag still works inside the surface.
    }
    t.clearHover();
    if (mode === 'overview') this.centreOverviewAt(x);
    if (mode === 'cursor') this.moveCursor(d, x);
  };

  onPointerMove = (e: PointerEvent): void => {
    const t = this.target;
    const { x, y } = this.local(e);
    const d = this.drag;
    if (d === null || d.pointerId !== e.pointerId) {
      t.hoverAt(x, y);
      return;
    }
    if (!d.moved && Math.hypot(x - d.x0, y - d.y0) < DRAG_THRESHOLD_PX) return;
    d.moved = true;
    if (d.mode === 'pan') {
      const dt = ((x - d.x0) / timeWidth(t.screenLayout)) * spanOf(d.view0);
      t.setView(clampWindow({ startNs: d.view0.startNs - dt, endNs: d.view0.endNs - dt }, t.panLimits));
      if (d.region === 'lanes' || d.region === 'gutter') t.setScroll(d.scroll0 - (y - d.y0));
      this.surface.style.cursor = 'grabbing';
    } else if (d.mode === 'range') {
      const t0 = this.timeAt(d.x0, d.view0);
      const t1 = this.timeAt(x);
      d.range = { startNs: Math.min(t0, t1), endNs: Math.max(t0, t1) };
      t.setDragPreview(d.range, null);
    } else if (d.mode === 'cursor') {
      this.moveCursor(d, x);
    } else {
      this.centreOverviewAt(x);
    }
  };

  onPointerUp = (e: PointerEvent): void => {
    const t = this.target;
    const d = this.drag;
    if (d === null || d.pointerId !== e.pointerId) return;
    this.drag = null;
    this.surface.style.cursor = '';
    if (this.surface.hasPointerCapture(e.pointerId)) this.surface.releasePointerCapture(e.pointerId);
    const { x, y } = this.local(e);
    t.setDragPreview(null, null);
    if (d.mode === 'range') {
      if (d.moved && d.range !== null && d.range.endNs > d.range.startNs) t.emit('wt-range-select', { range: d.range });
      else if (!d.moved) t.emit('wt-range-select', { range: null });
    } else if (d.mode === 'cursor') {
      t.emit('wt-cursor-change', { cursorNs: d.cursorNs });
    } else if (d.mode === 'pan' && !d.moved) {
      t.clickAt(d.region, x, y);
    }
  };

  onPointerLeave = (): void => {
    if (this.drag === null) this.target.clearHover();
  };

  onDoubleClick = (e: MouseEvent): void => {
    const { x, y } = this.local(e);
    this.target.doubleClickAt(regionAt(this.target.screenLayout, x, y), x, y);
  };

  onWheel = (e: WheelEvent): void => {
    const t = this.target;
    if (!t.hasTrace) return;
    const s = t.screenLayout;
    const { x, y } = this.local(e);
    const region = regionAt(s, x, y);
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? s.height : 1;
    const dx = e.deltaX * unit;
    const dy = e.deltaY * unit;
    e.preventDefault();
    if (region === 'gutter' && !e.ctrlKey) {
      t.setScroll(t.verticalScroll + dy);
      return;
    }
    const view = t.visibleWindow;
    if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) {
      const delta = e.shiftKey && dx === 0 ? dy : dx;
      t.setView(panBy(view, delta / timeWidth(s), t.panLimits));
    } else {
      const anchor = region === 'gutter' ? (view.startNs + view.endNs) / 2 : this.timeAt(Math.max(x, s.gutter));
      t.setView(zoomAround(view, anchor, Math.exp(-dy * WHEEL_ZOOM_RATE), t.panLimits));
    }
    t.hoverAt(x, y);
  };

  private moveCursor(d: Drag, x: number): void {
    d.cursorNs = this.timeAt(x);
    this.target.setDragPreview(null, d.cursorNs);
    this.target.emit('wt-cursor-change', { cursorNs: d.cursorNs });
  }

  private centreOverviewAt(x: number): void {
    const t = this.target;
    const s = t.screenLayout;
    const time = pxToTime(t.panLimits, timeWidth(s), x - s.gutter);
    const span = spanOf(t.visibleWindow);
    t.setView(clampWindow({ startNs: time - span / 2, endNs: time + span / 2 }, t.panLimits));
  }
}
