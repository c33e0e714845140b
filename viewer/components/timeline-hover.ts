/**
 * What the pointer is over: the hover state (warp outlined, tooltip lines)
 * and what a click means there. Pure functions over a HitScene.
 */
import { formatNs } from '../../shared-schema/index.js';
import { laneAtY } from '../model/lane-layout.js';
import { regionAt, type Region } from '../model/screen-layout.js';
import { collapsedOccupancyAt, drawAtPoint, ghostAtPoint, laneHitAt, regionAtPoint, warpAtPoint, warpHitAt, type HitScene } from './timeline-hit.js';
import { baselineOnlyTooltip, drawTooltip, ghostTooltip, warpTooltip } from './timeline-tooltips.js';

/** A tooltip: its anchor (the pointer, surface px) and its lines of plain text. */
export interface Tooltip {
  readonly x: number;
  readonly y: number;
  readonly lines: readonly string[];
}

export interface HoverState {
  /** Warp outlined under the pointer, -1 for none. */
  readonly hoverWarp: number;
  readonly tooltip: Tooltip | null;
}

export const NO_HOVER: HoverState = { hoverWarp: -1, tooltip: null };

/** The hover state at a point; `previous` keeps the lines when the pointer stays on one warp. */
export function hoverAt(s: HitScene, region: Region, x: number, y: number, previous: HoverState): HoverState {
  if (region === 'lanes') {
    const collapsed = collapsedOccupancyAt(s, x, y);
    // A collapsed lane draws occupancy, not warps: say what is in flight there, per stage.
    if (collapsed !== null) return { hoverWarp: -1, tooltip: { x, y, lines: collapsed } };
    const hit = warpHitAt(s, x, y);
    if (hit === null || s.trace === null) return NO_HOVER;
    if (hit.row === previous.hoverWarp && previous.tooltip !== null) return { hoverWarp: hit.row, tooltip: { ...previous.tooltip, x, y } };
    return { hoverWarp: hit.row, tooltip: { x, y, lines: warpTooltip(s.trace, hit.row, hit.overlapping, s.coloring?.colors ?? null) } };
  }
  if (region === 'draws' && s.trace !== null && s.drawLayout !== null) {
    const r = regionAtPoint(s, x, y);
    if (r >= 0) {
      const tree = s.drawLayout.tree;
      const lines = [s.trace.regions[r]!.label, `${tree.drawCount[r]} draws · span ${formatNs(tree.spans[2 * r + 1]! - tree.spans[2 * r]!)} · click to zoom`];
      return { hoverWarp: -1, tooltip: { x, y, lines } };
    }
    const d = drawAtPoint(s, x, y);
    if (d < 0) return NO_HOVER;
    // With a baseline, a draw also says how its ghost compares.
    const ghost = s.ghost !== null && s.ghost.track.baselineDraw[d]! >= 0 ? ghostTooltip(s.trace, s.drawLayout, s.ghost.track, d).slice(0, 2) : [];
    return { hoverWarp: -1, tooltip: { x, y, lines: [...drawTooltip(s.trace, s.drawLayout, d), ...ghost] } };
  }
  if (region === 'ghost' && s.trace !== null && s.drawLayout !== null && s.ghost !== null) {
    const hit = ghostAtPoint(s, x, y);
    if (hit === null) return NO_HOVER;
    const lines = 'draw' in hit ? ghostTooltip(s.trace, s.drawLayout, s.ghost.track, hit.draw) : baselineOnlyTooltip(s.ghost.track, hit.baselineOnly);
    return { hoverWarp: -1, tooltip: { x, y, lines } };
  }
  // The axis, the overview, the gutter: nothing to say (and no tooltip left over from the track).
  return NO_HOVER;
}

/** What a click (a press without a drag) does at a point. */
export type ClickAction =
  | { readonly kind: 'toggle-lane'; readonly lane: number }
  | { readonly kind: 'select-warp'; readonly row: number; readonly lane: number }
  | { readonly kind: 'zoom'; readonly startNs: number; readonly endNs: number }
  | { readonly kind: 'select-draw'; readonly draw: number }
  | { readonly kind: 'toggle-ghost' }
  | { readonly kind: 'none' };

export function clickActionAt(s: HitScene, region: Region, x: number, y: number): ClickAction {
  if (region === 'gutter' && s.screen.ghost.height > 0 && y >= s.screen.ghost.y && y < s.screen.ghost.y + s.screen.ghost.height) return { kind: 'toggle-ghost' };
  if (region === 'ghost') {
    const hit = ghostAtPoint(s, x, y);
    // A ghost selects the draw it stands for.
    return hit !== null && 'draw' in hit ? { kind: 'select-draw', draw: hit.draw } : { kind: 'none' };
  }
  if (region === 'gutter' && y >= s.screen.lanes.y) {
    const hit = laneAtY(s.lanes, y - s.screen.lanes.y + s.scrollY);
    return hit === null ? { kind: 'none' } : { kind: 'toggle-lane', lane: hit.lane };
  }
  if (region === 'lanes') return { kind: 'select-warp', row: warpAtPoint(s, x, y), lane: laneHitAt(s, y)?.lane ?? -1 };
  if (region === 'draws') {
    const r = regionAtPoint(s, x, y);
    // A region bar zooms to its span; a draw selects it.
    if (r >= 0 && s.drawLayout !== null) return { kind: 'zoom', startNs: s.drawLayout.tree.spans[2 * r]!, endNs: s.drawLayout.tree.spans[2 * r + 1]! };
    return { kind: 'select-draw', draw: drawAtPoint(s, x, y) };
  }
  return { kind: 'none' };
}

/**
 * The hover state of a timeline: pointer moves are queued and hit-tested once
 * per frame at most (`flush`, before drawing); a change re-renders the host
 * (its tooltip) and redraws.
 */
export class TimelineHover {
  state: HoverState = NO_HOVER;
  private pending: { x: number; y: number } | null = null;

  constructor(private readonly host: { requestUpdate(): void; requestFrame(): void }) {}

  /** Queues a hit test at (x, y) for the next frame. */
  moveTo(x: number, y: number): void {
    this.pending = { x, y };
    this.host.requestFrame();
  }

  clear(): void {
    this.pending = null;
    this.set(NO_HOVER);
  }

  /** Runs the queued hit test, if any, against what the frame shows. */
  flush(scene: HitScene): void {
    if (this.pending === null) return;
    const { x, y } = this.pending;
    this.pending = null;
    const next = hoverAt(scene, regionAt(scene.screen, x, y), x, y, this.state);
    this.set(next.tooltip === null && next.hoverWarp === -1 ? NO_HOVER : next);
  }

  private set(next: HoverState): void {
    if (next === this.state) return;
    this.state = next;
    this.host.requestUpdate();
    this.host.requestFrame();
  }
}
