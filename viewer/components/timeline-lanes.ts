/**
 * The vertical side of the timeline: which SM lanes are expanded, the lane
 * layout that follows, the keyboard-focused lane and the vertical scroll of
 * the lane area (clamped to the layout).
 */
import type { Trace } from '../../shared-schema/index.js';
import type { LaneIndex } from '../model/lane-index.js';
import { fittedLaneLayout } from '../model/lane-fit.js';
import { DEFAULT_LANE_OPTIONS, type LaneLayout } from '../model/lane-layout.js';
import { groupOfRow } from '../timeline/frame-chrome.js';
import { stepWarpOnLane, warpSlotY } from './timeline-navigation.js';

/** What the lanes are laid out from. */
export interface LaneSource {
  readonly trace: Trace;
  readonly index: LaneIndex;
  readonly showAllSms: boolean;
  readonly hiddenStages: number;
}

const EMPTY: LaneLayout = { rows: [], height: 0 };
/** Room left below the last lane when scrolled to the end, px. */
const SCROLL_END_PX = 8;

export class TimelineLanes {
  layout: LaneLayout = EMPTY;
  /** Layout row with keyboard focus, -1 for none. */
  focused = -1;
  private expanded: ReadonlySet<number> = new Set<number>();
  private scroll = 0;
  private source: LaneSource | null = null;
  private viewportHeight = 0;

  /** Called after the layout or the scroll changed (to sync the scrollbar and redraw). */
  constructor(private readonly changed: () => void) {}

  /** A new trace: nothing expanded, no focus, back to the top. */
  reset(): void {
    this.expanded = new Set();
    this.focused = -1;
    this.scroll = 0;
  }

  get scrollY(): number {
    return this.scroll;
  }

  get expandedSms(): ReadonlySet<number> {
    return this.expanded;
  }

  set expandedSms(sms: ReadonlySet<number>) {
    this.expanded = new Set(sms);
    this.relayout();
  }

  /** Lays the lanes out again for `source` in a lane area `viewportHeight` px tall. */
  update(source: LaneSource | null, viewportHeight: number): void {
    this.source = source;
    this.viewportHeight = viewportHeight;
    this.relayout();
  }

  /** The viewport height changed: lay out again only if it did. */
  resize(viewportHeight: number): void {
    if (viewportHeight !== this.viewportHeight) this.update(this.source, viewportHeight);
    else this.setScroll(this.scroll);
  }

  private relayout(): void {
    const s = this.source;
    if (s === null) {
      this.layout = EMPTY;
    } else {
      const options = { ...DEFAULT_LANE_OPTIONS, showAllSms: s.showAllSms, hiddenStages: s.hiddenStages, expandedSms: this.expanded };
      this.layout = fittedLaneLayout(s.trace, s.index, options, this.viewportHeight);
    }
    if (this.focused >= this.layout.rows.length) this.focused = this.layout.rows.length - 1;
    this.setScroll(this.scroll);
  }

  isExpanded(sm: number): boolean {
    return this.expanded.has(sm);
  }

  /** Expands or collapses the lane of SM `sm`. */
  toggle(sm: number, expanded = !this.expanded.has(sm)): void {
    const next = new Set(this.expanded);
    if (expanded) next.add(sm);
    else next.delete(sm);
    this.expandedSms = next;
  }

  /** Scrolls the lane area to y px (clamped). */
  setScroll(y: number): void {
    const max = Math.max(0, this.layout.height - this.viewportHeight + SCROLL_END_PX);
    this.scroll = Math.max(0, Math.min(max, y));
    this.changed();
  }

  /** Scrolls just enough that [y0, y1) (lane-area px) is in view. */
  scrollIntoView(y0: number, y1: number): void {
    const h = Math.min(y1 - y0, this.viewportHeight);
    if (y0 < this.scroll) this.setScroll(y0);
    else if (y0 + h > this.scroll + this.viewportHeight) this.setScroll(y0 + h - this.viewportHeight);
  }

  /** Moves the keyboard focus to the next/previous lane, scrolling it into view. */
  moveFocus(delta: number): void {
    const n = this.layout.rows.length;
    if (n === 0) return;
    this.focused = Math.max(0, Math.min(n - 1, (this.focused < 0 ? (delta > 0 ? -1 : n) : this.focused) + delta));
    const row = this.layout.rows[this.focused]!;
    this.scrollIntoView(row.y, row.y + row.height);
    this.changed();
  }

  /** Brings y (lane-area px) into view with some room above, if it is off screen. */
  revealY(y: number): void {
    if (y < this.scroll || y > this.scroll + this.viewportHeight - 20) this.setScroll(Math.max(0, y - this.viewportHeight / 3));
  }

  /**
   * When no lane whose group has `weight[group] > 0` is in view, scrolls the first of them
   * to the top (a selected draw's lanes: model/draw-lanes.ts).
   */
  revealGroups(weight: ArrayLike<number>): void {
    const rows = this.layout.rows.filter((r) => r.group >= 0 && (weight[r.group] ?? 0) > 0);
    if (rows.length === 0) return;
    const top = this.scroll;
    const bottom = top + this.viewportHeight;
    if (rows.some((r) => r.y < bottom && r.y + r.height > top)) return;
    this.setScroll(rows[0]!.y);
  }

  /** Expands the lane of warp `row`, focuses it and scrolls its slot row into view. */
  revealWarp(row: number): void {
    const s = this.source;
    if (s === null || row < 0 || row >= s.trace.warps.count) return;
    const g = groupOfRow(s.trace.warps.smGroups.offsets, row);
    const sm = s.trace.warps.smGroups.sm[g]!;
    if (!this.expanded.has(sm)) this.toggle(sm, true);
    const lane = this.layout.rows.findIndex((r) => r.group === g);
    if (lane < 0) return;
    this.focused = lane;
    this.revealY(warpSlotY(s.trace, s.index, this.layout.rows[lane]!, row));
  }

  /** The next/previous visible warp on the focused lane (the first lane if none has focus), from `selected` or `centreNs`; -1 for none. */
  stepWarp(selected: number, centreNs: number, delta: 1 | -1): number {
    const s = this.source;
    if (s === null) return -1;
    if (this.focused < 0) this.moveFocus(1);
    const lane = this.layout.rows[this.focused];
    if (lane === undefined || lane.group < 0) return -1;
    return stepWarpOnLane(s.trace, s.index.lanes[lane.group]!, selected, centreNs, delta, s.hiddenStages);
  }
}
