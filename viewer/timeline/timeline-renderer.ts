/**
 * Draws a TimelineFrame with pixi.js (WebGL) plus a Canvas2D layer for text.
 *
 * Lifecycle: `await TimelineRenderer.create(canvas, textCanvas)`, then
 * `resize` / `render(frame)` as often as needed, then `destroy()`.
 *
 * The lane geometry is rebuilt only when the level of detail changes (zoom
 * by 2×), the view leaves the precomputed range (a quarter view beyond each
 * side), or what is drawn changes; otherwise a frame only updates uniforms.
 * Every mesh is one draw call.
 */
import { Application } from 'pixi.js';
import { THEME, packRgba } from '../model/colors.js';
import { drawsInWindow } from '../model/draw-layout.js';
import { buildDrawTrack } from '../model/draw-track.js';
import { pushGhostBars } from '../model/ghost-track.js';
import { InstanceWriter } from '../model/instances.js';
import { lanesInRange, slotRowOf } from '../model/lane-layout.js';
import { LaneLodBuilder, type LodStats } from '../model/lane-lod.js';
import { buildOverview } from '../model/overview.js';
import { timeWidth } from '../model/screen-layout.js';
import { lodColumnNs, spanOf } from '../model/time-scale.js';
import type { TimelineFrame } from './frame.js';
import { QuadMesh, isSoftwareRenderer, type QuadLayout } from './quad-mesh.js';
import { drawText, type TextGeometry } from './text-overlay.js';

interface LodKey {
  readonly frameSource: object;
  readonly hiddenStages: number;
  readonly selectedDraw: number;
  readonly highlight: object | null;
  readonly ghost: object | null;
  readonly colNs: number;
  readonly originNs: number;
  readonly columns: number;
  readonly firstLane: number;
  readonly lastLane: number;
  readonly occupancyScale: number;
}

export interface FrameStats {
  /** ms spent building geometry this frame (0 when reused). */
  buildMs: number;
  rebuilt: boolean;
  instances: number;
  lod: LodStats | null;
}

/** Geometry is built this fraction of the view beyond each side. */
const MARGIN = 0.25;
const LANE_MARGIN_PX = 60;
const OVERLAY_DIM = packRgba(0x000000, 110);
const RANGE_FILL = packRgba(THEME.selection, 46);
const RANGE_EDGE = packRgba(THEME.selection, 220);
const CURSOR = packRgba(THEME.cursor, 230);
const HOVER = packRgba(THEME.hover, 230);
const SELECTED = packRgba(THEME.selection, 255);
const VIEW_BOX = packRgba(0xffffff, 40);
const VIEW_EDGE = packRgba(0xffffff, 160);
const FOCUS = packRgba(THEME.selection, 255);

export class TimelineRenderer {
  private readonly chrome: QuadMesh;
  private readonly lanesMesh: QuadMesh;
  private readonly drawsMesh: QuadMesh;
  private readonly overviewMesh: QuadMesh;
  private readonly overlay: QuadMesh;
  private readonly lod = new LaneLodBuilder();
  private readonly scratch = new InstanceWriter(256);
  private lodKey: LodKey | null = null;
  private overviewKey = '';
  private overviewSource: object | null = null;
  private drawsOrigin = 0;
  private width = 1;
  private height = 1;
  private destroyed = false;

  private constructor(
    readonly app: Application,
    private readonly textCanvas: HTMLCanvasElement,
    readonly layout: QuadLayout,
  ) {
    this.chrome = new QuadMesh('timeline-chrome', layout);
    this.lanesMesh = new QuadMesh('timeline-lanes', layout);
    this.drawsMesh = new QuadMesh('timeline-draws', layout);
    this.overviewMesh = new QuadMesh('timeline-overview', layout);
    this.overlay = new QuadMesh('timeline-overlay', layout);
    app.stage.eventMode = 'none';
    app.stage.addChild(this.chrome.mesh, this.lanesMesh.mesh, this.drawsMesh.mesh, this.overviewMesh.mesh, this.overlay.mesh);
  }

  /**
   * @param layout quad layout; by default instanced on GPUs and per-vertex on
   * software rasterizers (see QuadMesh).
   */
  static async create(
    canvas: HTMLCanvasElement,
    textCanvas: HTMLCanvasElement,
    width: number,
    height: number,
    layout?: QuadLayout,
  ): Promise<TimelineRenderer> {
    const app = new Application();
    await app.init({
      canvas,
      width: Math.max(1, width),
      height: Math.max(1, height),
      preference: 'webgl',
      background: THEME.background,
      antialias: false,
      autoStart: false,
      sharedTicker: false,
      resolution: globalThis.devicePixelRatio || 1,
      autoDensity: true,
    });
    const gl = (app.renderer as unknown as { gl: WebGL2RenderingContext }).gl;
    const r = new TimelineRenderer(app, textCanvas, layout ?? (isSoftwareRenderer(gl) ? 'vertices' : 'instanced'));
    r.resize(width, height);
    return r;
  }

  resize(width: number, height: number): void {
    this.width = Math.max(1, Math.floor(width));
    this.height = Math.max(1, Math.floor(height));
    this.app.renderer.resize(this.width, this.height);
    const dpr = globalThis.devicePixelRatio || 1;
    this.textCanvas.width = Math.round(this.width * dpr);
    this.textCanvas.height = Math.round(this.height * dpr);
    this.textCanvas.style.width = `${this.width}px`;
    this.textCanvas.style.height = `${this.height}px`;
    this.overviewKey = '';
  }

  /** Forgets cached geometry (call when the trace or lane layout object changes identity is not enough). */
  invalidate(): void {
    this.lodKey = null;
    this.overviewKey = '';
  }

  render(f: TimelineFrame): FrameStats {
    const stats: FrameStats = { buildMs: 0, rebuilt: false, instances: 0, lod: null };
    if (this.destroyed) return stats;
    const s = f.screen;
    const tw = timeWidth(s);
    const span = spanOf(f.view);
    const pxPerNs = tw / span;
    const colNs = lodColumnNs(span / tw);
    const lanesTop = s.lanes.y;
    const lanesBottom = s.lanes.y + s.lanes.height;

    // Lanes: rebuild geometry only when needed.
    const [visFirst, visLast] = lanesInRange(f.lanes, f.scrollY, f.scrollY + s.lanes.height);
    const key = this.lodKey;
    const needs =
      key === null ||
      key.frameSource !== f.lanes ||
      key.hiddenStages !== f.hiddenStages ||
      key.selectedDraw !== f.selectedDraw ||
      key.highlight !== f.highlight ||
      key.ghost !== f.ghost ||
      key.colNs !== colNs ||
      key.occupancyScale !== f.occupancyScale ||
      f.view.startNs < key.originNs ||
      f.view.endNs > key.originNs + key.columns * key.colNs ||
      visFirst < key.firstLane ||
      visLast > key.lastLane;
    if (needs) {
      const t0 = performance.now();
      // A quarter view of margin on each side and a few lanes above and below:
      // small pans and scrolls reuse the geometry, and the GPU (software GL in CI)
      // gets few rectangles it will not show.
      const originNs = Math.floor((f.view.startNs - span * MARGIN) / colNs) * colNs;
      const columns = Math.ceil((span * (1 + 2 * MARGIN)) / colNs) + 2;
      const [firstLane, lastLane] = lanesInRange(f.lanes, f.scrollY - LANE_MARGIN_PX, f.scrollY + s.lanes.height + LANE_MARGIN_PX);
      stats.lod = this.lod.build({
        trace: f.trace,
        index: f.index,
        layout: f.lanes,
        firstLane,
        lastLane,
        originNs,
        colNs,
        columns,
        occupancyScale: f.occupancyScale,
        hiddenStages: f.hiddenStages,
        selectedDraw: f.selectedDraw,
        highlight: f.highlight,
      });
      this.lanesMesh.setInstances(this.lod.bars);
      const draws = drawsInWindow(f.drawLayout, originNs, originNs + columns * colNs);
      buildDrawTrack(
        { trace: f.trace, layout: f.drawLayout, draws, originNs, y: s.draws.y, rowHeight: s.drawRowHeight, selectedDraw: f.selectedDraw, windowNs: [originNs, originNs + columns * colNs] },
        this.scratch,
      );
      if (f.ghost !== null && f.ghost.shown) {
        const windowNs = [originNs, originNs + columns * colNs] as const;
        pushGhostBars({ ghost: f.ghost.track, layout: f.drawLayout, originNs, windowNs, y: s.ghost.y, rowHeight: s.ghostRowHeight }, this.scratch);
      }
      this.drawsMesh.setInstances(this.scratch);
      this.drawsOrigin = originNs;
      this.lodKey = {
        frameSource: f.lanes,
        hiddenStages: f.hiddenStages,
        selectedDraw: f.selectedDraw,
        highlight: f.highlight,
        ghost: f.ghost,
        colNs,
        originNs,
        columns,
        firstLane,
        lastLane,
        occupancyScale: f.occupancyScale,
      };
      stats.rebuilt = true;
      stats.buildMs = performance.now() - t0;
    }
    const lk = this.lodKey!;
    this.lanesMesh.setMap(pxPerNs, s.gutter + (lk.originNs - f.view.startNs) * pxPerNs, lanesTop - f.scrollY, 1);
    this.lanesMesh.setClip(s.gutter, s.width, lanesTop, lanesBottom);
    this.drawsMesh.setMap(pxPerNs, s.gutter + (this.drawsOrigin - f.view.startNs) * pxPerNs, 0, 1);
    this.drawsMesh.setClip(s.gutter, s.width, s.draws.y, s.ghost.y + s.ghost.height);

    // Overview: whole bounds, one column per pixel; rebuilt on resize or filter change.
    const overviewKey = `${tw}|${f.bounds.startNs}|${f.bounds.endNs}|${f.hiddenStages}|${s.overview.height}`;
    if (overviewKey !== this.overviewKey || this.overviewSource !== f.index) {
      const columns = Math.max(1, Math.floor(tw));
      buildOverview(f.index, f.bounds.startNs, spanOf(f.bounds) / columns, columns, f.hiddenStages, s.overview.y + 2, s.overview.height - 4, this.scratch);
      this.overviewMesh.setInstances(this.scratch);
      this.overviewKey = overviewKey;
      this.overviewSource = f.index;
    }
    const overviewScale = tw / spanOf(f.bounds);
    this.overviewMesh.setMap(overviewScale, s.gutter, 0, 1);
    this.overviewMesh.setClip(s.gutter, s.width, s.overview.y, s.overview.y + s.overview.height);

    this.buildChrome(f);
    this.buildOverlay(f, pxPerNs);
    this.app.render();
    const text: TextGeometry = { labels: this.lod.labels, labelsOriginNs: lk.originNs };
    drawText(this.textCanvas, f, text);
    stats.instances = this.lanesMesh.count + this.drawsMesh.count + this.overviewMesh.count + this.overlay.count + this.chrome.count;
    return stats;
  }

  private buildChrome(f: TimelineFrame): void {
    const s = f.screen;
    const w = this.scratch;
    w.reset();
    w.push(0, s.width, s.overview.y, s.overview.y + s.overview.height, packRgba(0x101216));
    w.push(0, s.width, s.axis.y, s.axis.y + s.axis.height, packRgba(THEME.headerBackground));
    w.push(0, s.width, s.draws.y, s.draws.y + s.draws.height, packRgba(0x181b21));
    if (s.ghost.height > 0) w.push(0, s.width, s.ghost.y, s.ghost.y + s.ghost.height, packRgba(0x13151a));
    w.push(0, s.width, s.lanes.y - 1, s.lanes.y, packRgba(THEME.laneLine));
    w.push(0, s.gutter, s.lanes.y, s.height, packRgba(THEME.headerBackground));
    w.push(s.gutter - 1, s.gutter, 0, s.height, packRgba(THEME.laneLine));
    this.chrome.setInstances(w);
    this.chrome.setMap(1, 0, 0, 0);
    this.chrome.setClip(0, s.width, 0, s.height);
  }

  private buildOverlay(f: TimelineFrame, pxPerNs: number): void {
    const s = f.screen;
    const w = this.scratch;
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
    this.pushWarpOutline(f, f.hoverWarp, pxPerNs, HOVER, 1);
    this.pushWarpOutline(f, f.selectedWarp, pxPerNs, SELECTED, 2);
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
    this.overlay.setInstances(w);
    this.overlay.setMap(1, 0, 0, 0);
    this.overlay.setClip(0, s.width, 0, s.height);
  }

  private pushWarpOutline(f: TimelineFrame, row: number, pxPerNs: number, color: number, thickness: number): void {
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
    const w = this.scratch;
    const t = thickness;
    w.push(x0 - t, x1 + t, y0 - t, y0, color);
    w.push(x0 - t, x1 + t, y1, y1 + t, color);
    w.push(x0 - t, x0, y0, y1, color);
    w.push(x1, x1 + t, y0, y1, color);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const m of [this.chrome, this.lanesMesh, this.drawsMesh, this.overviewMesh, this.overlay]) m.destroy();
    this.app.destroy({ removeView: false }, { children: true });
  }
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
