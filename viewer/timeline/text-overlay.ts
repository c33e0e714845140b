/**
 * Text over the WebGL layer, with Canvas2D (as Perfetto does): axis labels,
 * lane and slot labels, draw labels, custom ids on warps wide enough to hold
 * them, cursor and range readouts. Text is drawn with fillText, never parsed
 * as markup, so trace strings (draw labels) are safe.
 */
import { STAGES, formatNs } from '../../shared-schema/index.js';
import { THEME, cssColor } from '../model/colors.js';
import { axisTicks, formatTick, placeTickLabels } from '../model/time-axis.js';
import { laneLabel, lanesInRange, packedRowOf, slotOfRow } from '../model/lane-layout.js';
import type { LabelList } from '../model/label-list.js';
import { drawsInWindow, elideToWidth, regionBarsInWindow } from '../model/draw-layout.js';
import { drawBandLabelYs, timeWidth } from '../model/screen-layout.js';
import { spanOf } from '../model/time-scale.js';
import type { TimelineFrame } from './frame.js';

export interface TextGeometry {
  readonly labels: LabelList;
  readonly labelsOriginNs: number;
}

const FONT = '10px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
const FONT_LANE = '11px system-ui, sans-serif';
/** Approximate advance of the 10px monospace font, px per character. */
const CHAR_PX = 6.1;

const TEXT_ON_STAGE = STAGES.map((s) => {
  const r = (s.color >>> 16) & 255;
  const g = (s.color >>> 8) & 255;
  const b = s.color & 255;
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? '#111' : '#fff';
});

export function drawText(canvas: HTMLCanvasElement, f: TimelineFrame, geo: TextGeometry): void {
  const ctx = canvas.getContext('2d');
  if (ctx === null) return;
  const dpr = canvas.width / Math.max(1, f.screen.width);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, f.screen.width, f.screen.height);
  ctx.textBaseline = 'middle';
  drawAxis(ctx, f);
  drawLaneLabels(ctx, f);
  drawDrawLabels(ctx, f);
  drawWarpLabels(ctx, f, geo);
  drawReadouts(ctx, f);
}

function drawAxis(ctx: CanvasRenderingContext2D, f: TimelineFrame): void {
  const s = f.screen;
  const tw = timeWidth(s);
  const ticks = axisTicks(f.view, tw);
  const pxPerNs = tw / spanOf(f.view);
  ctx.font = FONT;
  ctx.fillStyle = cssColor(THEME.textDim);
  ctx.strokeStyle = cssColor(THEME.laneLine);
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const t of ticks.ticksNs) {
    const x = Math.round(s.gutter + (t - f.view.startNs) * pxPerNs) + 0.5;
    ctx.moveTo(x, s.axis.y + s.axis.height - 6);
    ctx.lineTo(x, s.axis.y + s.axis.height);
    // Faint grid through the lanes.
    ctx.moveTo(x, s.lanes.y);
    ctx.lineTo(x, s.height);
  }
  ctx.globalAlpha = 0.35;
  ctx.stroke();
  ctx.globalAlpha = 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(s.gutter, s.axis.y, tw, s.axis.height);
  ctx.clip();
  const texts = ticks.ticksNs.map((t) => formatTick(t, ticks));
  const xs = ticks.ticksNs.map((t) => s.gutter + (t - f.view.startNs) * pxPerNs);
  // The last label moves left of the edge instead of being cut off there.
  for (const label of placeTickLabels(xs, texts, texts.map((t) => ctx.measureText(t).width), s.width - 2)) {
    ctx.fillText(label.text, label.x, s.axis.y + s.axis.height / 2 - 1);
  }
  ctx.restore();
  ctx.fillStyle = cssColor(THEME.textDim);
  ctx.fillText(`${formatNs(spanOf(f.view))} in view`, 6, s.axis.y + s.axis.height / 2);
  const labelY = drawBandLabelYs(s);
  ctx.fillText('draws', 6, labelY.draws);
  // What a full collapsed lane means.
  ctx.fillText(`lane = ${f.occupancyScale} warps`, 6, labelY.laneScale);
  // The ghost band's label doubles as its toggle (a click in the gutter there).
  if (f.ghost !== null) ctx.fillText(f.ghost.shown ? '▾ baseline A' : '▸ baseline A', 6, s.ghost.y + Math.min(s.ghost.height, 14) / 2);
}

function drawLaneLabels(ctx: CanvasRenderingContext2D, f: TimelineFrame): void {
  const s = f.screen;
  const [first, last] = lanesInRange(f.lanes, f.scrollY, f.scrollY + s.lanes.height);
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, s.lanes.y, s.width, s.lanes.height);
  ctx.clip();
  for (let k = first; k < last; k++) {
    const row = f.lanes.rows[k]!;
    const top = s.lanes.y + row.y - f.scrollY;
    const lane = row.group >= 0 ? f.index.lanes[row.group] : undefined;
    ctx.font = FONT_LANE;
    ctx.fillStyle = cssColor(lane === undefined ? THEME.textDim : THEME.text);
    const chevron = lane === undefined ? ' ' : row.expanded ? '▾' : '▸';
    ctx.fillText(`${chevron} ${laneLabel(row.sm)}`, 6, top + 10);
    if (lane !== undefined) {
      // One dot per stage present on this SM.
      let x = 10;
      for (const st of STAGES) {
        if ((lane.stageMask & (1 << st.code)) === 0) continue;
        ctx.fillStyle = cssColor(st.color);
        ctx.globalAlpha = (f.hiddenStages & (1 << st.code)) !== 0 ? 0.25 : 1;
        ctx.fillRect(x, top + 19, 6, 5);
        x += 8;
      }
      ctx.globalAlpha = 1;
    }
    if (row.expanded && row.slotRowHeight >= 9) {
      ctx.font = FONT;
      ctx.fillStyle = cssColor(THEME.textDim);
      ctx.textAlign = 'right';
      for (let r = 0; r < row.slotRows; r++) {
        const y = top + row.headerHeight + 2 + (r + 0.5) * row.slotRowHeight;
        if (y < s.lanes.y || y > s.height) continue;
        const slot = slotOfRow(row, r);
        ctx.fillText(slot === 0xff ? `?${packedRowOf(row, r)}` : `w${slot}`, s.gutter - 6, y);
      }
      ctx.textAlign = 'left';
    }
  }
  ctx.restore();
}

function drawDrawLabels(ctx: CanvasRenderingContext2D, f: TimelineFrame): void {
  const s = f.screen;
  const tw = timeWidth(s);
  const pxPerNs = tw / spanOf(f.view);
  ctx.save();
  ctx.beginPath();
  ctx.rect(s.gutter, s.draws.y, tw, s.draws.height);
  ctx.clip();
  ctx.font = FONT;
  const L = f.drawLayout;
  const measure = (t: string) => ctx.measureText(t).width;
  const box = (s0: number, e0: number): [number, number] => [
    Math.max(s.gutter, s.gutter + (s0 - f.view.startNs) * pxPerNs),
    Math.min(s.width, s.gutter + (e0 - f.view.startNs) * pxPerNs),
  ];
  const put = (label: string, x0: number, x1: number, row: number) => {
    if (x1 - x0 < 2 * CHAR_PX) return;
    // Never past the box: elided by measured width, 3 px padding each side.
    const text = elideToWidth(label, x1 - x0 - 6, measure);
    if (text !== '') ctx.fillText(text, x0 + 3, s.draws.y + 3 + row * s.drawRowHeight + (s.drawRowHeight - 4) / 2);
  };
  ctx.fillStyle = cssColor(THEME.text);
  for (const [r, row] of regionBarsInWindow(L, f.view.startNs, f.view.endNs)) {
    const [x0, x1] = box(L.tree.spans[2 * r]!, L.tree.spans[2 * r + 1]!);
    put(f.trace.regions[r]!.label, x0, x1, row);
  }
  for (const d of drawsInWindow(L, f.view.startNs, f.view.endNs)) {
    if (L.row[d] === L.overflowRow) continue;
    const [x0, x1] = box(L.spans[2 * d]!, L.spans[2 * d + 1]!);
    ctx.fillStyle = d === f.selectedDraw ? '#0b1020' : cssColor(THEME.text);
    put(`${d}: ${f.trace.draws[d]!.label}`, x0, x1, L.row[d]!);
  }
  ctx.restore();
}

function drawWarpLabels(ctx: CanvasRenderingContext2D, f: TimelineFrame, geo: TextGeometry): void {
  const s = f.screen;
  const labels = geo.labels;
  if (labels.count === 0) return;
  const tw = timeWidth(s);
  const pxPerNs = tw / spanOf(f.view);
  const offset = s.gutter + (geo.labelsOriginNs - f.view.startNs) * pxPerNs;
  const { customId, stage } = f.trace.warps;
  ctx.save();
  ctx.beginPath();
  ctx.rect(s.gutter, s.lanes.y, tw, s.lanes.height);
  ctx.clip();
  ctx.font = FONT;
  const yOffset = s.lanes.y - f.scrollY;
  for (let k = 0; k < labels.count; k++) {
    const y = labels.y[k]! + yOffset;
    if (y < s.lanes.y || y > s.height) continue;
    let x0 = labels.x0[k]! * pxPerNs + offset;
    let x1 = labels.x1[k]! * pxPerNs + offset;
    if (x1 < s.gutter || x0 > s.width) continue;
    x0 = Math.max(x0, s.gutter);
    x1 = Math.min(x1, s.width);
    const row = labels.rows[k]!;
    const text = String(customId[row]);
    if (x1 - x0 < text.length * CHAR_PX + 4) continue;
    ctx.fillStyle = TEXT_ON_STAGE[stage[row]!] ?? '#fff';
    ctx.fillText(text, x0 + 2, y);
  }
  ctx.restore();
}

function drawReadouts(ctx: CanvasRenderingContext2D, f: TimelineFrame): void {
  const s = f.screen;
  const tw = timeWidth(s);
  const pxPerNs = tw / spanOf(f.view);
  ctx.font = FONT;
  const label = (text: string, x: number, color: string) => {
    const w = text.length * CHAR_PX + 8;
    const lx = Math.min(Math.max(s.gutter, x - w / 2), s.width - w);
    ctx.fillStyle = color;
    ctx.fillRect(lx, s.axis.y + 2, w, s.axis.height - 4);
    ctx.fillStyle = '#0b1020';
    ctx.fillText(text, lx + 4, s.axis.y + s.axis.height / 2);
  };
  if (f.range !== null) {
    const mid = (f.range.startNs + f.range.endNs) / 2;
    label(`${formatNs(f.range.endNs - f.range.startNs)}`, s.gutter + (mid - f.view.startNs) * pxPerNs, cssColor(THEME.selection));
  }
  if (f.cursorNs !== null) {
    label(formatNs(f.cursorNs, 6), s.gutter + (f.cursorNs - f.view.startNs) * pxPerNs, cssColor(THEME.cursor));
  }
}
