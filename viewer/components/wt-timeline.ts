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
 *   wt-ghost-toggle  {shown}          the baseline's ghost track shown or hidden (its gutter label)
 *
 * Keys: W/S zoom, A/D pan (hold), arrows pan / move lane focus, Enter/Space
 * expand the focused lane, `,`/`.` previous/next warp on the focused lane,
 * F fit the selection, 0 fit all, C cursor at the view centre, G show/hide
 * the A/B ghost track, Shift+←/→ grow or shrink the time range (from the
 * cursor), M the range from the selected warp or draw, Esc clear.
 *
 * This file is the input side (pointer and keyboard targets). The parts:
 * timeline-element (properties, frames, view and lane state, public
 * navigation), timeline-surface (renderer lifecycle and frames),
 * timeline-lanes (expanded lanes, focus, vertical scroll), timeline-hit /
 * timeline-hover (what lies under the pointer, tooltips), timeline-navigation
 * (stepping and fitting), timeline-pointer / timeline-keys (input),
 * timeline-template, timeline-styles.
 */
import type { Region } from '../model/screen-layout.js';
import type { TimeRange } from '../timeline/frame.js';
import { TimelineElement } from './timeline-element.js';
import { warpAtPoint } from './timeline-hit.js';
import { clickActionAt } from './timeline-hover.js';
import { TimelineKeys, type KeyboardTarget } from './timeline-keys.js';
import { extendKeyRange, fitTarget, type KeyRange } from './timeline-navigation.js';
import { panBy, spanOf } from '../model/time-scale.js';
import { TimelinePointer, type PointerTarget } from './timeline-pointer.js';
import { placeTooltipIn, timelineTemplate } from './timeline-template.js';

export { occupancyScaleFor } from '../model/occupancy.js';

export class WtTimeline extends TimelineElement implements KeyboardTarget, PointerTarget {
  private readonly keys = new TimelineKeys(this);
  private pointer: TimelinePointer | null = null;
  /** The range Shift+← / → made last (it goes on growing while the range is still that one). */
  private keyRange: KeyRange | null = null;

  override render() {
    return timelineTemplate({ pointer: () => this.pointer, keys: this.keys, tooltip: this.hover.state.tooltip, onScrollbar: this.onScrollbar });
  }

  override updated(): void {
    super.updated();
    placeTooltipIn(this.surface.element);
  }

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
    } else if (action.kind === 'toggle-ghost') {
      this.toggleGhost();
    }
  }

  /** Shows or hides the baseline's ghost track (its gutter label, or G). */
  toggleGhost(): void {
    if (this.baseline === null) return;
    this.showGhost = !this.showGhost;
    this.emit('wt-ghost-toggle', { shown: this.showGhost });
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

  /** Moves the time range's moving edge by 2% of the view, keeping it in view (Shift+← / →). */
  extendRange(direction: 1 | -1): void {
    if (this.trace === null) return;
    const v = this.view;
    const span = spanOf(v);
    const start = this.cursorNs ?? (v.startNs + v.endNs) / 2;
    const next = extendKeyRange(this.keyRange, this.range, start, direction * span * 0.02, this.bounds);
    this.keyRange = next.key;
    const edge = next.key.edgeNs;
    // Past the view: pan so the edge sits a little inside it.
    if (edge < v.startNs) this.setView(panBy(v, (edge - v.startNs) / span - 0.05, this.bounds));
    else if (edge > v.endNs) this.setView(panBy(v, (edge - v.endNs) / span + 0.05, this.bounds));
    this.emit('wt-range-select', { range: next.range });
  }

  /** The range becomes the selected warp's span, else the selected draw's, else the visible window (M). */
  markSelection(): void {
    if (this.trace === null) return;
    const target = fitTarget(this.trace, this.drawLayout, null, this.selectedWarp, this.selectedDraw);
    const range = target === null ? { startNs: this.view.startNs, endNs: this.view.endNs } : { startNs: target.startNs, endNs: target.endNs };
    this.keyRange = null;
    this.emit('wt-range-select', { range });
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
