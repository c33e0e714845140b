/**
 * The timeline's chrome and overlay rectangles (CSS px): what every frame
 * draws around and over the lanes. Pure geometry into an InstanceWriter; the
 * renderer uploads it.
 */
import { THEME, packRgba } from '../model/colors.js';
import type { InstanceWriter } from '../model/instances.js';
import { slotRowOf } from '../model/lane-layout.js';
import { timeWidth } from '../model/screen-layout.js';
import { spanOf } from '../model/time-scale.js';
import type { TimelineFrame } from './frame.js';

const OVERLAY_DIM = packRgba(0x000000, 110);
const RANGE_FILL = packRgba(THEME.selection, 46);
const RANGE_EDGE = packRgba(THEME.selection, 220);
const CURSOR = packRgba(THEME.cursor, 230);
const HOVER = packRgba(THEME.hover, 230);
const SELECTED = packRgba(THEME.selection, 255);
const VIEW_BOX = packRgba(0xffffff, 40);
const VIEW_EDGE = packRgba(0xffffff, 160);
const FOCUS = packRgba(THEME.selection, 255);

/** The fixed backgrounds and separators, in CSS px. */
export function pushChrome(f: TimelineFrame, w: InstanceWriter): void {
  const s = f.screen;
  w.reset();
  w.push(0, s.width, s.overview.y, s.overview.y + s.overview.height, packRgba(0x101216));
  w.push(0, s.width, s.axis.y, s.axis.y + s.axis.height, packRgba(THEME.headerBackground));
  w.push(0, s.width, s.draws.y, s.draws.y + s.draws.height, packRgba(0x181b21));
  if (s.ghost.height > 0) w.push(0, s.width, s.ghost.y, s.ghost.y + s.ghost.height, packRgba(0x13151a));
  w.push(0, s.width, s.lanes.y - 1, s.lanes.y, packRgba(THEME.laneLine));
  w.push(0, s.gutter, s.lanes.y, s.height, packRgba(THEME.headerBackground));
  w.push(s.gutter - 1, s.gutter, 0, s.height, packRgba(THEME.laneLine));
}

/**
 * What changes with every pointer move, in CSS px: the selected draw's dimming, the
 * range, hover and selection outlines, the cursor, the focused lane's mark and the
 * overview's window box.
 */
export function pushOverlay(f: TimelineFrame, pxPerNs: number, w: InstanceWriter): void {
  const s = f.screen;
  w.reset();
  const x = (ns: number) => s.gutter + (ns - f.view.startNs) * pxPerNs;
  const contentTop = s.axis.y;
  const lanesTop = s.lanes.y;
  // Dim time outside the selected draw.
  if (f.selectedDraw >= 0) {
    const ds = f.drawLayout.spans[2 * f.selectedDraw]!;
    const de = f.drawLayout.spans[2 * f.selectedDraw + 1]!;
    if (!Number.isNaN(ds)) {
      w.push(s.gutter, Math.max(s.gutter, x(ds)), s.draws.y, s.height, OVERLAY_DIM);
      w.push(Math.min(s.width, x(de)), s.width, s.draws.y, s.height, OVERLAY_DIM);
    }
  }
  if (f.range !== null) {
    const x0 = x(f.range.startNs);
    const x1 = Math.max(x0 + 1, x(f.range.endNs));
    w.push(x0, x1, contentTop, s.height, RANGE_FILL);
    w.push(x0 - 1, x0, contentTop, s.height, RANGE_EDGE);
    w.push(x1, x1 + 1, contentTop, s.height, RANGE_EDGE);
  }
  // Warp outlines: hover, then selection on top.
  pushWarpOutline(f, f.hoverWarp, pxPerNs, HOVER, 1, w);
  pushWarpOutline(f, f.selectedWarp, pxPerNs, SELECTED, 2, w);
  if (f.cursorNs !== null) {
    const cx = Math.round(x(f.cursorNs));
    w.push(cx, cx + 1, contentTop, s.height, CURSOR);
  }
  if (f.focusedLane >= 0 && f.focusedLane < f.lanes.rows.length) {
    const row = f.lanes.rows[f.focusedLane]!;
    const y0 = lanesTop + row.y - f.scrollY;
    w.push(0, 3, Math.max(lanesTop, y0), Math.max(lanesTop, y0 + row.height), FOCUS);
  }
  // Overview: the visible window.
  const ob = f.bounds;
  const os = timeWidth(s) / spanOf(ob);
  const ox0 = s.gutter + (f.view.startNs - ob.startNs) * os;
  const ox1 = Math.max(ox0 + 2, s.gutter + (f.view.endNs - ob.startNs) * os);
  const oy0 = s.overview.y;
  const oy1 = s.overview.y + s.overview.height;
  w.push(ox0, ox1, oy0, oy1, VIEW_BOX);
  w.push(ox0, ox0 + 1, oy0, oy1, VIEW_EDGE);
  w.push(ox1 - 1, ox1, oy0, oy1, VIEW_EDGE);
  if (f.cursorNs !== null) {
    const cx = s.gutter + (f.cursorNs - ob.startNs) * os;
    w.push(cx, cx + 1, oy0, oy1, CURSOR);
  }
}

function pushWarpOutline(f: TimelineFrame, row: number, pxPerNs: number, color: number, thickness: number, w: InstanceWriter): void {
  if (row < 0 || row >= f.trace.warps.count) return;
  const s = f.screen;
  const g = groupOfRow(f.trace.warps.smGroups.offsets, row);
  const laneRow = f.lanes.rows.findIndex((r) => r.group === g);
  if (laneRow < 0) return;
  const lane = f.lanes.rows[laneRow]!;
  const start = f.trace.warps.startNs[row]!;
  const end = start + f.trace.warps.durationNs[row]!;
  let x0 = s.gutter + (start - f.view.startNs) * pxPerNs;
  let x1 = s.gutter + (end - f.view.startNs) * pxPerNs;
  if (x1 - x0 < 3) {
    const mid = (x0 + x1) / 2;
    x0 = mid - 1.5;
    x1 = mid + 1.5;
  }
  if (x1 < s.gutter || x0 > s.width) return;
  x0 = Math.max(s.gutter, x0);
  x1 = Math.min(s.width, x1);
  const base = s.lanes.y + lane.y - f.scrollY;
  let y0: number;
  let y1: number;
  if (lane.expanded) {
    const r = slotRowOf(lane, f.index.lanes[g]!, f.trace.warps.warpSlot[row]!, row);
    y0 = base + lane.headerHeight + 2 + r * lane.slotRowHeight;
    y1 = y0 + lane.slotRowHeight;
  } else {
    y0 = base + lane.headerHeight - 3;
    y1 = base + lane.headerHeight;
  }
  if (y1 < s.lanes.y || y0 > s.height) return;
  const t = thickness;
  w.push(x0 - t, x1 + t, y0 - t, y0, color);
  w.push(x0 - t, x1 + t, y1, y1 + t, color);
  w.push(x0 - t, x0, y0, y1, color);
  w.push(x1, x1 + t, y0, y1, color);
}

/** SM group (index into smGroups) of warp row `row`. */
export function groupOfRow(offsets: Uint32Array, row: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (offsets[mid]! <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
