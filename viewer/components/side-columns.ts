// The app's two side columns (draw list, analysis panels): resizable by a drag handle on
// their inner edge (or its arrow keys), collapsible to a thin strip; and the detail panels
// under the timeline, collapsible to their toggle. Widths and states are kept in
// localStorage. The timeline takes the rest. Until the user sizes a column, its width is a
// share of the window (DEFAULT_SHARE) up to its initial width, so a 1280 px window leaves the
// timeline more than a 1920 px one's share.
import { css, html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';

export type Side = 'left' | 'right';
/** width null: not sized by the user (defaultWidth for the window). */
type SideState = { width: number | null; collapsed: boolean };

export const SIDE_LIMITS: Readonly<Record<Side, { min: number; max: number; initial: number }>> = {
  left: { min: 160, max: 560, initial: 260 },
  right: { min: 260, max: 960, initial: 420 },
};
/** A column's default width as a share of the window, up to its initial width. */
const DEFAULT_SHARE: Readonly<Record<Side, number>> = { left: 0.17, right: 0.27 };
/** Width of a collapsed column: the strip that reopens it. */
export const STRIP_PX = 18;
/** The timeline keeps at least this much of the window. */
const TIMELINE_MIN_PX = 400;
const STORAGE_KEY = 'warptrace.sideColumns';
const KEY_STEP = 20;

function clamp(side: Side, width: number): number {
  const { min, max } = SIDE_LIMITS[side];
  const room = typeof window === 'undefined' ? max : Math.max(min, (window.innerWidth - TIMELINE_MIN_PX) / 2);
  return Math.round(Math.min(Math.max(width, min), max, room));
}

/** A column's width before the user sets one: its initial width, less in a narrow window. */
export function defaultWidth(side: Side, windowWidth: number): number {
  const { min, initial } = SIDE_LIMITS[side];
  return Math.round(Math.max(min, Math.min(initial, windowWidth * DEFAULT_SHARE[side])));
}

interface ColumnsState extends Record<Side, SideState> {
  /** The detail panels under the timeline are collapsed. */
  detailsCollapsed: boolean;
}

function load(): ColumnsState {
  const state: ColumnsState = {
    left: { width: null, collapsed: false },
    right: { width: null, collapsed: false },
    detailsCollapsed: false,
  };
  try {
    const raw: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (typeof raw !== 'object' || raw === null) return state;
    for (const side of ['left', 'right'] as const) {
      const s: unknown = (raw as Record<string, unknown>)[side];
      if (typeof s !== 'object' || s === null) continue;
      const { width, collapsed } = s as Record<string, unknown>;
      if (typeof width === 'number' && Number.isFinite(width)) state[side].width = width;
      if (typeof collapsed === 'boolean') state[side].collapsed = collapsed;
    }
    if ((raw as Record<string, unknown>)['detailsCollapsed'] === true) state.detailsCollapsed = true;
  } catch {
    // storage unavailable or malformed: defaults
  }
  return state;
}

export class SideColumns implements ReactiveController {
  /** Read on first use (the app's first render), not as the app is made in the page's first task: a fresh page's first localStorage read waits for the storage. */
  private loaded: ColumnsState | null = null;
  private get state(): ColumnsState {
    return (this.loaded ??= load());
  }
  private drag: { side: Side; startX: number; startWidth: number } | null = null;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {}

  width(side: Side): number {
    const s = this.state[side];
    return s.collapsed ? STRIP_PX : clamp(side, s.width ?? defaultWidth(side, typeof window === 'undefined' ? Infinity : window.innerWidth));
  }

  collapsed(side: Side): boolean {
    return this.state[side].collapsed;
  }

  /** Inline style for `<main>`: the column widths as custom properties. */
  style(): string {
    return `--wt-left: ${this.width('left')}px; --wt-right: ${this.width('right')}px`;
  }

  /** Classes for `<main>`. */
  classes(): string {
    const sides = (['left', 'right'] as const).filter((s) => this.state[s].collapsed).map((s) => `${s}-collapsed`);
    return [...sides, ...(this.state.detailsCollapsed ? ['details-collapsed'] : [])].join(' ');
  }

  get detailsCollapsed(): boolean {
    return this.state.detailsCollapsed;
  }

  toggleDetails(): void {
    this.state.detailsCollapsed = !this.state.detailsCollapsed;
    this.changed();
  }

  /** The button that collapses the detail panels under the timeline (to a line) and opens them again. */
  detailsToggle() {
    const collapsed = this.state.detailsCollapsed;
    return html`<button class="details-toggle" aria-expanded=${!collapsed} title="${collapsed ? 'Show' : 'Hide'} the warp, range and cursor details" @click=${() => this.toggleDetails()}>
      ${collapsed ? '▸ details' : '▾'}
    </button>`;
  }

  setWidth(side: Side, width: number): void {
    this.state[side].width = clamp(side, width);
    this.changed();
  }

  toggle(side: Side): void {
    this.state[side].collapsed = !this.state[side].collapsed;
    this.changed();
  }

  private changed(): void {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(this.state));
    } catch {
      // not kept
    }
    this.host.requestUpdate();
  }

  /** The edge of one column: a separator to drag (or focus and use ← / →) and a collapse toggle. */
  edge(side: Side) {
    const s = this.state[side];
    const name = side === 'left' ? 'draw list' : 'analysis panels';
    const arrow = (side === 'left') === s.collapsed ? '›' : '‹';
    return html`<div class="side-edge ${side}">
      ${s.collapsed
        ? nothing
        : html`<div
            class="side-handle"
            role="separator"
            tabindex="0"
            aria-orientation="vertical"
            aria-label="Resize the ${name}"
            aria-valuemin=${SIDE_LIMITS[side].min}
            aria-valuemax=${SIDE_LIMITS[side].max}
            aria-valuenow=${this.width(side)}
            @pointerdown=${(e: PointerEvent) => this.onDown(side, e)}
            @pointermove=${(e: PointerEvent) => this.onMove(e)}
            @pointerup=${() => (this.drag = null)}
            @keydown=${(e: KeyboardEvent) => this.onKey(side, e)}
          ></div>`}
      <button class="side-toggle" aria-expanded=${!s.collapsed} aria-label="${s.collapsed ? 'Show' : 'Hide'} the ${name}" title="${s.collapsed ? 'Show' : 'Hide'} the ${name}" @click=${() => this.toggle(side)}>${arrow}</button>
    </div>`;
  }

  private onDown(side: Side, e: PointerEvent): void {
    if (e.button !== 0) return;
    e.preventDefault();
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    this.drag = { side, startX: e.clientX, startWidth: this.width(side) };
  }

  private onMove(e: PointerEvent): void {
    const d = this.drag;
    if (d === null) return;
    const dx = e.clientX - d.startX;
    this.setWidth(d.side, d.startWidth + (d.side === 'left' ? dx : -dx));
  }

  private onKey(side: Side, e: KeyboardEvent): void {
    const grow = side === 'left' ? 'ArrowRight' : 'ArrowLeft';
    const shrink = side === 'left' ? 'ArrowLeft' : 'ArrowRight';
    const w = this.width(side);
    if (e.key === grow) this.setWidth(side, w + KEY_STEP);
    else if (e.key === shrink) this.setWidth(side, w - KEY_STEP);
    else if (e.key === 'Home') this.setWidth(side, SIDE_LIMITS[side].min);
    else if (e.key === 'End') this.setWidth(side, SIDE_LIMITS[side].max);
    else if (e.key === 'Enter') this.toggle(side);
    else return;
    e.preventDefault();
    e.stopPropagation();
  }
}

export const sideColumnStyles = css`
  main {
    position: relative;
    grid-template-columns: var(--wt-left) minmax(0, 1fr) 0;
  }
  main.with-panels {
    grid-template-columns: var(--wt-left) minmax(0, 1fr) var(--wt-right);
  }
  main.left-collapsed > .draws,
  main.right-collapsed > aside.panels {
    visibility: hidden;
    overflow: hidden;
  }
  .side-edge {
    position: absolute;
    top: 0;
    bottom: 0;
    z-index: 6;
    display: flex;
    flex-direction: column;
    align-items: center;
    width: 8px;
  }
  .side-edge.left {
    left: calc(var(--wt-left) - 4px);
  }
  .side-edge.right {
    right: calc(var(--wt-right) - 4px);
  }
  main.left-collapsed .side-edge.left {
    left: 0;
    width: ${STRIP_PX}px;
  }
  main.right-collapsed .side-edge.right {
    right: 0;
    width: ${STRIP_PX}px;
  }
  .side-handle {
    flex: 1;
    width: 8px;
    cursor: col-resize;
    touch-action: none;
  }
  .side-handle:hover,
  .side-handle:focus-visible {
    background: #3d6fb8;
    outline: none;
  }
  .side-toggle {
    width: 16px;
    height: 22px;
    padding: 0;
    margin: 2px 0;
    font-size: 12px;
    line-height: 1;
  }
  /* Collapsed, the detail panels are a line holding their toggle: the timeline takes the rest. */
  main.details-collapsed .details {
    height: 22px;
    padding: 0 12px;
    overflow: hidden;
  }
  main.details-collapsed .details > :not(.details-toggle) {
    display: none;
  }
  .details-toggle {
    position: absolute;
    top: 2px;
    right: 4px;
    z-index: 1;
    padding: 0 6px;
    font-size: 11px;
    line-height: 16px;
  }
  main.left-collapsed .side-edge.left .side-toggle,
  main.right-collapsed .side-edge.right .side-toggle {
    height: 100%;
    margin: 0;
    width: ${STRIP_PX}px;
  }
`;
