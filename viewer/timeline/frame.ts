/** Everything one frame of the timeline shows: the renderer's whole input. */
import type { Trace } from '../../shared-schema/index.js';
import type { DrawLayout } from '../model/draw-layout.js';
import type { LaneColoring } from '../model/class-occupancy.js';
import type { GhostTrack } from '../model/ghost-track.js';
import type { LaneIndex } from '../model/lane-index.js';
import type { LaneLayout } from '../model/lane-layout.js';
import type { RowHighlight } from '../model/row-highlight.js';
import type { ScreenLayout } from '../model/screen-layout.js';
import type { TimeWindow } from '../model/time-scale.js';

export interface TimeRange {
  readonly startNs: number;
  readonly endNs: number;
}

export interface TimelineFrame {
  readonly trace: Trace;
  readonly index: LaneIndex;
  readonly lanes: LaneLayout;
  readonly drawLayout: DrawLayout;
  readonly screen: ScreenLayout;
  /** Visible time window. */
  readonly view: TimeWindow;
  /** Pan/zoom limits (also the overview's extent). */
  readonly bounds: TimeWindow;
  /** Vertical scroll of the lane area, px. */
  readonly scrollY: number;
  readonly hiddenStages: number;
  readonly selectedDraw: number;
  /** Warp rows drawn highlighted, all others dimmed; null for none. */
  readonly highlight: RowHighlight | null;
  /** Selected warp row, -1 for none. */
  readonly selectedWarp: number;
  /** Warp under the pointer, -1 for none. */
  readonly hoverWarp: number;
  readonly range: TimeRange | null;
  readonly cursorNs: number | null;
  /** Layout row with keyboard focus, -1 for none. */
  readonly focusedLane: number;
  /** Warps in flight that fill a collapsed lane. */
  readonly occupancyScale: number;
  /** The A/B baseline's ghost draws (a new object whenever they change); null without a baseline. */
  readonly ghost: GhostFrame | null;
  /** Warps colored by a color-by mode's classes (model/color-by.ts); null: by stage. */
  readonly coloring: LaneColoring | null;
}

export interface GhostFrame {
  readonly track: GhostTrack;
  /** False: only the band's gutter label shows (the ghosts are hidden). */
  readonly shown: boolean;
}
