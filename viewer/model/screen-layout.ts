/**
 * Where each part of the timeline sits on screen (CSS px): the overview strip,
 * the time axis, the draw track, the A/B ghost track (only with a baseline),
 * then the scrolling SM lanes; a label gutter on the left. Pure, so hit
 * testing and rendering agree by construction.
 */
export interface Band {
  readonly y: number;
  readonly height: number;
}

export interface ScreenLayout {
  readonly width: number;
  readonly height: number;
  /** Left label column; time runs from gutter to width. */
  readonly gutter: number;
  readonly overview: Band;
  readonly axis: Band;
  readonly draws: Band;
  readonly drawRowHeight: number;
  /** The baseline's ghost draws (height 0 without a baseline). */
  readonly ghost: Band;
  readonly ghostRowHeight: number;
  readonly lanes: Band;
}

export const GUTTER_PX = 112;
export const OVERVIEW_PX = 40;
export const AXIS_PX = 22;
export const DRAW_ROW_PX = 14;
export const GHOST_ROW_PX = 8;
/** A hidden ghost track keeps a strip this tall for its gutter label (click it to show the ghosts again). */
export const GHOST_HIDDEN_PX = 14;

/** Height of the ghost band: none without a baseline, a strip when hidden, else its rows. */
export function ghostBandHeight(baseline: boolean, shown: boolean, rows: number): number {
  if (!baseline) return 0;
  return shown ? Math.max(GHOST_HIDDEN_PX, Math.max(1, rows) * GHOST_ROW_PX + 4) : GHOST_HIDDEN_PX;
}

/** Gutter text lines in the draw band ("draws" at the top, "lane = N warps" at the bottom). */
export const GUTTER_LINE_PX = 12;

/** Where the draw band's two gutter labels sit (text middles): one line apart at least. */
export function drawBandLabelYs(s: ScreenLayout): { draws: number; laneScale: number } {
  return { draws: s.draws.y + 9, laneScale: s.draws.y + s.draws.height - 8 };
}

/** @param ghostPx height of the ghost band (ghostBandHeight). */
export function screenLayout(width: number, height: number, drawRows: number, ghostPx = 0): ScreenLayout {
  const overview = { y: 0, height: OVERVIEW_PX };
  const axis = { y: overview.y + overview.height, height: AXIS_PX };
  // Two rows at least, so the gutter's two labels ("draws", "lane = N warps") do not overlap.
  const drawsHeight = Math.max(2, drawRows) * DRAW_ROW_PX + 6;
  const draws = { y: axis.y + axis.height, height: drawsHeight };
  const ghost = { y: draws.y + draws.height, height: ghostPx };
  const lanesY = ghost.y + ghost.height + 1;
  return {
    width,
    height,
    gutter: Math.min(GUTTER_PX, Math.max(40, Math.floor(width * 0.3))),
    overview,
    axis,
    draws,
    drawRowHeight: DRAW_ROW_PX,
    ghost,
    ghostRowHeight: GHOST_ROW_PX,
    lanes: { y: lanesY, height: Math.max(0, height - lanesY) },
  };
}

export function timeWidth(s: ScreenLayout): number {
  return Math.max(1, s.width - s.gutter);
}

export type Region = 'overview' | 'axis' | 'draws' | 'ghost' | 'gutter' | 'lanes' | 'none';

export function regionAt(s: ScreenLayout, x: number, y: number): Region {
  if (x < 0 || y < 0 || x >= s.width || y >= s.height) return 'none';
  if (y < s.overview.y + s.overview.height) return 'overview';
  if (y < s.axis.y + s.axis.height) return 'axis';
  if (y < s.draws.y + s.draws.height) return x < s.gutter ? 'gutter' : 'draws';
  if (y < s.ghost.y + s.ghost.height) return x < s.gutter ? 'gutter' : 'ghost';
  if (y < s.lanes.y) return 'none';
  return x < s.gutter ? 'gutter' : 'lanes';
}
