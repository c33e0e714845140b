/**
 * Level of detail for the lane area: turns the warps of the lanes in view
 * into rectangles whose number follows pixels, not warps.
 *
 * Geometry is computed for a time range [originNs, originNs + columns·colNs)
 * at a power-of-two column width colNs of about a pixel (see lodColumnNs), with x stored in ns
 * relative to originNs so float32 stays precise; the renderer maps it to
 * pixels with two uniforms, so pans and zooms within the range cost nothing.
 *
 * - Collapsed lane: occupancy (average warps in flight per column) stacked by
 *   stage, or by class under a color-by mode (`coloring`: color-by.ts, whose
 *   class pyramids stand in for the stage pyramids). Zoomed out it sums the lane's occupancy pyramid; once a column is
 *   narrower than a pyramid bin it reads the warps themselves (then about
 *   WARPS_PER_BIN per column at most, so cost still follows columns).
 * - Expanded lane: one row per warp slot. A warp at least one column wide is
 *   its own bar; narrower warps of a slot that start in the same column fold
 *   into one bar colored by the longest of them (so a long stall stays visible).
 *   A bar's color is its stage's, or its class's under a color-by mode.
 */
import type { Trace } from '../../shared-schema/index.js';
import { STAGE_DIM_RGBA, STAGE_RGBA, THEME, packRgba } from './colors.js';
import { addCoverage, resolveCoverage } from './coverage.js';
import { INSTANCE_FLOATS, InstanceWriter } from './instances.js';
import { addPyramidColumns } from './occupancy.js';
import { lowerBoundStart, rowsRunningAt, type LaneIndex, type LaneInfo } from './lane-index.js';
import { slotRowOf, type LaneLayout, type LaneRow } from './lane-layout.js';
import { highlightedIn, isHighlighted, type RowHighlight } from './row-highlight.js';
import { MARK_MIN_COLUMNS, MarkedBars, pushMarkTicks } from './mark-ticks.js';
import { LabelList } from './label-list.js';
import type { LaneColoring } from './class-occupancy.js';
import { MAX_COLOR_CLASSES } from './color-by.js';

export interface LodRequest {
  readonly trace: Trace;
  readonly index: LaneIndex;
  readonly layout: LaneLayout;
  /** Layout rows to build: [firstLane, lastLane). */
  readonly firstLane: number;
  readonly lastLane: number;
  readonly originNs: number;
  readonly colNs: number;
  readonly columns: number;
  /** Warps in flight that fill a lane's occupancy chart. */
  readonly occupancyScale: number;
  /** Bit s set: stage s is not drawn. */
  readonly hiddenStages: number;
  /** Draw whose warps stay bright while the others dim; -1 for none. */
  readonly selectedDraw: number;
  /** Rows that stay bright while all others dim (with a selected draw: rows of both); null for none. */
  readonly highlight?: RowHighlight | null;
  /** Color by a mode's classes, collapsed lanes from its class pyramids; null or absent: by stage. */
  readonly coloring?: LaneColoring | null;
}

export interface LodStats {
  /** Warps read one by one (direct occupancy and expanded lanes). */
  rowsVisited: number;
  /** Lanes whose occupancy came from the pyramid. */
  pyramidLanes: number;
  /** Lanes whose occupancy was accumulated from warps. */
  directLanes: number;
  /** Mark ticks drawn inside wide warp bars (mark-ticks.ts). */
  markTicks: number;
}

/** Index of the "other draws" accumulator next to the stage (or class) accumulators. */
const OTHERS = MAX_COLOR_CLASSES;
const OTHERS_RGBA = packRgba(THEME.dimOthers);
const LANE_BG = packRgba(THEME.laneAlt);
const SLOT_BG = packRgba(0x1c1f26);
/** Added to a highlighted warp's duration when folds pick the bar's color (longer than any warp). */
const HIGHLIGHT_FOLD_BONUS = 1e15;
/** Minimum warp length, in columns, that gets a label candidate (the overlay checks real widths). */
const LABEL_MIN_COLUMNS = 10;

export class LaneLodBuilder {
  readonly bars = new InstanceWriter(4096);
  readonly labels = new LabelList();
  /** Wide bars of the lane being built whose marks are drawn (mark-ticks.ts). */
  private readonly marked = new MarkedBars();
  private areaStore: Float32Array[] = [];
  private diffStore: Float32Array[] = [];
  /** Views of exactly `columns` cells (and columns + 1 differences) for the current build. */
  private area: Float32Array[] = [];
  private diff: Float32Array[] = [];
  private running: number[] = [];
  private runStart = new Int32Array(OTHERS + 1);
  private runY0 = new Float32Array(OTHERS + 1);
  private runY1 = new Float32Array(OTHERS + 1);
  /** This build's code per warp (stage or class) and its colors. */
  private codes: Uint8Array = new Uint8Array(0);
  private rgba: Uint32Array = STAGE_RGBA;
  private dimRgba: Uint32Array = STAGE_DIM_RGBA;
  private foldCol = new Float64Array(0);
  private foldX0 = new Float64Array(0);
  private foldX1 = new Float64Array(0);
  private foldBest = new Int32Array(0);
  private foldBestDur = new Float64Array(0);
  private lastBar = new Int32Array(0);

  build(req: LodRequest): LodStats {
    this.bars.reset();
    this.labels.count = 0;
    this.ensureColumns(req.columns);
    const colors = req.coloring?.colors ?? null;
    this.codes = colors?.classOf ?? req.trace.warps.stage;
    this.rgba = colors?.rgba ?? STAGE_RGBA;
    this.dimRgba = colors?.dimRgba ?? STAGE_DIM_RGBA;
    const stats: LodStats = { rowsVisited: 0, pyramidLanes: 0, directLanes: 0, markTicks: 0 };
    const extent = req.columns * req.colNs;
    for (let k = req.firstLane; k < req.lastLane; k++) {
      const row = req.layout.rows[k]!;
      if (k % 2 === 1) this.bars.push(0, extent, row.y, row.y + row.height, LANE_BG);
      if (row.group < 0) continue;
      const lane = req.index.lanes[row.group]!;
      this.buildOccupancy(req, row, lane, stats);
      if (row.expanded) this.buildSlots(req, row, lane, stats);
    }
    return stats;
  }

  private ensureColumns(columns: number): void {
    if ((this.areaStore[0]?.length ?? 0) < columns) {
      const size = Math.max(columns, 1024);
      this.areaStore = [];
      this.diffStore = [];
      for (let s = 0; s <= OTHERS; s++) {
        this.areaStore.push(new Float32Array(size));
        this.diffStore.push(new Float32Array(size + 1));
      }
    }
    this.area = this.areaStore.map((a) => a.subarray(0, columns));
    this.diff = this.diffStore.map((d) => d.subarray(0, columns + 1));
  }

  private buildOccupancy(req: LodRequest, row: LaneRow, lane: LaneInfo, stats: LodStats): void {
    const { columns, colNs, originNs } = req;
    // A class pyramid leaves hidden stages out already; a stage pyramid's codes are stages.
    const classPyr = req.coloring?.pyramids[lane.group] ?? null;
    const pyr = classPyr ?? lane.occupancy;
    let used = 0; // bit per accumulator filled
    const visible = lane.stageMask & ~req.hiddenStages;
    const visibleCodes = classPyr === null ? visible : -1;
    if (colNs >= pyr.binNs && req.highlight != null) {
      stats.pyramidLanes++;
      used = this.highlightedOccupancy(req, req.highlight, lane, visible, visibleCodes);
    } else if (colNs >= pyr.binNs) {
      stats.pyramidLanes++;
      for (let k = 0; k < pyr.stages.length; k++) {
        const code = pyr.stages[k]!;
        if ((visibleCodes & (1 << code)) === 0) continue;
        addPyramidColumns(pyr, k, originNs, colNs, columns, this.area[code]!);
        used |= 1 << code;
      }
    } else {
      stats.directLanes++;
      const { startNs, durationNs, stage, draw } = req.trace.warps;
      const codes = this.codes;
      const inv = 1 / colNs;
      const endNs = originNs + columns * colNs;
      const first = lowerBoundStart(startNs, lane, originNs);
      const last = lowerBoundStart(startNs, lane, endNs);
      rowsRunningAt(req.trace, lane, originNs, first, this.running);
      const sel = req.selectedDraw;
      const hl = req.highlight ?? null;
      const add = (i: number) => {
        const st = stage[i]!;
        if ((visible & (1 << st)) === 0) return;
        const target = (sel >= 0 && draw[i] !== sel) || (hl !== null && !isHighlighted(hl, i)) ? OTHERS : codes[i]!;
        const u0 = (startNs[i]! - originNs) * inv;
        addCoverage(this.area[target]!, this.diff[target]!, u0, u0 + durationNs[i]! * inv);
        used |= 1 << target;
      };
      for (const i of this.running) add(i);
      for (let i = first; i < last; i++) add(i);
      stats.rowsVisited += this.running.length + (last - first);
      for (let t = 0; t <= OTHERS; t++) if (used & (1 << t)) resolveCoverage(this.area[t]!, this.diff[t]!);
    }
    this.emitStacked(req, row, used);
  }

  /**
   * Occupancy with a highlight, zoomed out: the highlighted warps' coverage by
   * stage or class (cost follows the highlighted rows of the lane), and the rest
   * of the pyramid's occupancy as "others" stacked above it. Returns the used mask.
   */
  private highlightedOccupancy(req: LodRequest, h: RowHighlight, lane: LaneInfo, visible: number, visibleCodes: number): number {
    const { columns, colNs, originNs } = req;
    const { startNs, durationNs, stage } = req.trace.warps;
    const codes = this.codes;
    const pyr = req.coloring?.pyramids[lane.group] ?? lane.occupancy;
    const others = this.area[OTHERS]!;
    for (let k = 0; k < pyr.stages.length; k++) if ((visibleCodes & (1 << pyr.stages[k]!)) !== 0) addPyramidColumns(pyr, k, originNs, colNs, columns, others);
    let used = 1 << OTHERS;
    const [lo, hi] = highlightedIn(h, lane.rowBegin, lane.rowEnd);
    const inv = 1 / colNs;
    for (let k = lo; k < hi; k++) {
      const i = h.rows[k]!;
      if ((visible & (1 << stage[i]!)) === 0) continue;
      const c = codes[i]!;
      const u0 = (startNs[i]! - originNs) * inv;
      addCoverage(this.area[c]!, this.diff[c]!, u0, u0 + durationNs[i]! * inv);
      used |= 1 << c;
    }
    for (let t = 0; t < OTHERS; t++) {
      if ((used & (1 << t)) === 0) continue;
      const area = this.area[t]!;
      resolveCoverage(area, this.diff[t]!);
      for (let c = 0; c < columns; c++) others[c] = Math.max(0, others[c]! - area[c]!);
    }
    return used;
  }

  /** Stacked occupancy bars, merging runs of columns with identical pixel heights. */
  private emitStacked(req: LodRequest, row: LaneRow, used: number): void {
    if (used === 0) return;
    const { columns, colNs } = req;
    const chart = row.headerHeight - 3;
    const bottom = row.y + row.headerHeight - 1;
    const pxPerWarp = chart / req.occupancyScale;
    const targets: number[] = [];
    for (let t = 0; t <= OTHERS; t++) if (used & (1 << t)) targets.push(t);
    const runStart = this.runStart.fill(-1);
    const runY0 = this.runY0;
    const runY1 = this.runY1;
    const flush = (t: number, endCol: number) => {
      if (runStart[t]! < 0) return;
      const rgba = t === OTHERS ? OTHERS_RGBA : this.rgba[t]!;
      this.bars.push(runStart[t]! * colNs, endCol * colNs, bottom - runY1[t]!, bottom - runY0[t]!, rgba);
      runStart[t] = -1;
    };
    for (let c = 0; c < columns; c++) {
      let cum = 0;
      let top = 0;
      for (const t of targets) {
        const area = this.area[t]!;
        const occ = area[c]!;
        area[c] = 0;
        let y0 = top;
        let y1 = top;
        if (occ > 1e-6) {
          cum += occ;
          y1 = Math.min(chart, Math.max(top + 1, Math.round(cum * pxPerWarp)));
          if (y1 <= top) y1 = top; // chart full: nothing left to show for this stage
          y0 = top;
          top = y1;
        }
        if (y1 === y0) {
          flush(t, c);
          continue;
        }
        if (runStart[t]! >= 0 && runY0[t] === y0 && runY1[t] === y1) continue;
        flush(t, c);
        runStart[t] = c;
        runY0[t] = y0;
        runY1[t] = y1;
      }
    }
    for (const t of targets) flush(t, columns);
  }

  private buildSlots(req: LodRequest, row: LaneRow, lane: LaneInfo, stats: LodStats): void {
    const { startNs, durationNs, stage, draw } = req.trace.warps;
    const { warpSlot } = req.trace.warps;
    const { colNs, originNs, columns } = req;
    const visible = lane.stageMask & ~req.hiddenStages;
    const endNs = originNs + columns * colNs;
    const rowsN = row.slotRows;
    this.ensureFolds(rowsN);
    const foldCol = this.foldCol.fill(-Infinity, 0, rowsN);
    const foldX0 = this.foldX0;
    const foldX1 = this.foldX1;
    const foldBest = this.foldBest;
    const foldBestDur = this.foldBestDur;
    const top = row.y + row.headerHeight + 2;
    const h = row.slotRowHeight;
    const sel = req.selectedDraw;
    const bars = this.bars;
    const labelMin = colNs * LABEL_MIN_COLUMNS;
    const marks = req.trace.marks ?? null;
    const markMin = marks === null || marks.count === 0 ? Infinity : colNs * MARK_MIN_COLUMNS;
    this.marked.reset();
    for (let r = 0; r < rowsN; r += 2) bars.push(0, columns * colNs, top + r * h, top + (r + 1) * h, SLOT_BG);
    const hl = req.highlight ?? null;
    const dimmed = (i: number) => (sel >= 0 && draw[i] !== sel) || (hl !== null && !isHighlighted(hl, i));
    const codes = this.codes;
    const colorOf = (i: number) => (dimmed(i) ? this.dimRgba : this.rgba)[codes[i]!]!;
    // In a fold, a highlighted warp wins over longer dimmed ones (so a highlighted warp never vanishes).
    const foldWeight = (i: number, d: number) => (hl !== null && isHighlighted(hl, i) ? d + HIGHLIGHT_FOLD_BONUS : d);
    // Last bar emitted per slot row: a bar of the same color starting less
    // than a column after it ends extends it instead (the gap is invisible at
    // this zoom), so busy rows cost a few long rectangles, not one per column.
    const lastBar = this.lastBar.fill(-1, 0, rowsN);
    const emit = (r: number, x0: number, x1: number, rgba: number) => {
      const k = lastBar[r]!;
      if (k >= 0) {
        const o = k * INSTANCE_FLOATS;
        if (bars.u32[o + 4] === rgba && x0 - bars.f32[o + 1]! < colNs) {
          if (x1 > bars.f32[o + 1]!) bars.f32[o + 1] = x1;
          return;
        }
      }
      const y = top + r * h;
      lastBar[r] = bars.count;
      bars.push(x0, x1, y + 1, y + h - 1, rgba);
    };
    const flush = (r: number) => {
      if (foldCol[r] === -Infinity) return;
      emit(r, foldX0[r]!, foldX1[r]!, colorOf(foldBest[r]!));
      foldCol[r] = -Infinity;
    };
    const visit = (i: number) => {
      if ((visible & (1 << stage[i]!)) === 0) return;
      const r = slotRowOf(row, lane, warpSlot[i]!, i);
      if (r >= rowsN) return;
      const s = startNs[i]! - originNs;
      const d = durationNs[i]!;
      if (d >= colNs) {
        flush(r);
        emit(r, s, s + d, colorOf(i));
        if (d >= labelMin) this.labels.push(i, s, s + d, top + r * h + h / 2);
        if (d >= markMin && !dimmed(i)) this.marked.push(i, s, s + d, top + r * h + 1, top + (r + 1) * h - 1);
        return;
      }
      const c = Math.floor(s / colNs);
      const weight = foldWeight(i, d);
      if (foldCol[r] === c) {
        if (s + d > foldX1[r]!) foldX1[r] = s + d;
        if (weight > foldBestDur[r]!) {
          foldBest[r] = i;
          foldBestDur[r] = weight;
        }
        return;
      }
      flush(r);
      foldCol[r] = c;
      foldX0[r] = s;
      foldX1[r] = s + d;
      foldBest[r] = i;
      foldBestDur[r] = weight;
    };
    const first = lowerBoundStart(startNs, lane, originNs);
    const last = lowerBoundStart(startNs, lane, endNs);
    rowsRunningAt(req.trace, lane, originNs, first, this.running);
    for (const i of this.running) visit(i);
    for (let i = first; i < last; i++) visit(i);
    for (let r = 0; r < rowsN; r++) flush(r);
    stats.rowsVisited += this.running.length + (last - first);
    // After every bar of the lane, so the ticks lie on top of them.
    if (marks !== null && this.marked.count > 0) stats.markTicks += pushMarkTicks(marks, this.marked, colNs, bars);
  }

  private ensureFolds(n: number): void {
    if (this.foldCol.length >= n) return;
    this.foldCol = new Float64Array(n);
    this.foldX0 = new Float64Array(n);
    this.foldX1 = new Float64Array(n);
    this.foldBest = new Int32Array(n);
    this.foldBestDur = new Float64Array(n);
    this.lastBar = new Int32Array(n);
  }
}
