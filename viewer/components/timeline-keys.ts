/**
 * Keyboard control of the timeline, as in Perfetto and chrome://tracing:
 * W/S zoom and A/D pan smoothly while held; the other keys act once.
 */
import { panBy, zoomAround, type TimeWindow } from '../model/time-scale.js';

/** What the keyboard drives: implemented by <wt-timeline>. */
export interface KeyboardTarget {
  readonly visibleWindow: TimeWindow;
  readonly panLimits: TimeWindow;
  setView(view: TimeWindow): void;
  /** Sets the view and renders now (inside an animation frame). */
  setViewAndRender(view: TimeWindow): void;
  fitAll(): void;
  fitSelection(): void;
  moveFocus(delta: number): void;
  toggleFocusedLane(): void;
  stepWarp(delta: number): void;
  /** Shows or hides the A/B ghost track (nothing without a baseline). */
  toggleGhost(): void;
  /** Shift+← / →: grows or shrinks the time range at its moving edge (1 right, -1 left). */
  extendRange(direction: 1 | -1): void;
  /** M: the time range becomes the selected warp's span, else the selected draw's, else the view. */
  markSelection(): void;
  emit(type: string, detail: unknown): void;
}

/** Zoom factor per second and pan (views per second) of held keys. */
const ZOOM_RATE = 3;
const PAN_RATE = 1.2;

export class TimelineKeys {
  private held = new Set<string>();
  private loop = 0;
  private lastTime = 0;

  constructor(private readonly target: KeyboardTarget) {}

  onKeyDown = (e: KeyboardEvent): void => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = this.target;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const view = t.visibleWindow;
    const centre = (view.startNs + view.endNs) / 2;
    switch (key) {
      case 'w':
      case 's':
      case 'a':
      case 'd':
        this.held.add(key);
        this.start();
        break;
      case '+':
      case '=':
        t.setView(zoomAround(view, centre, 1.5, t.panLimits));
        break;
      case '-':
        t.setView(zoomAround(view, centre, 1 / 1.5, t.panLimits));
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
        if (e.shiftKey) t.extendRange(key === 'ArrowLeft' ? -1 : 1);
        else t.setView(panBy(view, key === 'ArrowLeft' ? -0.15 : 0.15, t.panLimits));
        break;
      case 'm':
        t.markSelection();
        break;
      case 'ArrowUp':
      case 'ArrowDown':
        t.moveFocus(key === 'ArrowUp' ? -1 : 1);
        break;
      case 'Enter':
      case ' ':
        t.toggleFocusedLane();
        break;
      case ',':
      case '.':
        t.stepWarp(key === '.' ? 1 : -1);
        break;
      case '[':
      case ']':
        t.emit('wt-draw-step', { delta: key === ']' ? 1 : -1 });
        break;
      case 'f':
        t.fitSelection();
        break;
      case '0':
        t.fitAll();
        break;
      case 'c':
        t.emit('wt-cursor-change', { cursorNs: centre });
        break;
      case 'g':
        t.toggleGhost();
        break;
      case 'Escape':
        t.emit('wt-range-select', { range: null });
        t.emit('wt-warp-select', { row: -1 });
        t.emit('wt-cursor-change', { cursorNs: null });
        t.emit('wt-draw-select', { draw: -1 });
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  onKeyUp = (e: KeyboardEvent): void => {
    this.held.delete(e.key.length === 1 ? e.key.toLowerCase() : e.key);
  };

  /** Focus lost: keys released elsewhere never send keyup here. */
  onBlur = (): void => {
    this.held.clear();
  };

  stop(): void {
    cancelAnimationFrame(this.loop);
    this.loop = 0;
    this.held.clear();
  }

  private start(): void {
    if (this.loop !== 0) return;
    const t = this.target;
    this.lastTime = performance.now();
    const step = (now: number) => {
      const dt = Math.min(0.05, (now - this.lastTime) / 1000);
      this.lastTime = now;
      if (this.held.size === 0) {
        this.loop = 0;
        return;
      }
      t.setViewAndRender(this.advance(t.visibleWindow, dt, ZOOM_RATE, PAN_RATE));
      this.loop = requestAnimationFrame(step);
    };
    this.loop = requestAnimationFrame(step);
    // A single tap moves the view too.
    t.setView(this.advance(t.visibleWindow, 1, Math.log(1.1), 0.04));
  }

  private advance(view: TimeWindow, dt: number, zoomRate: number, panRate: number): TimeWindow {
    const limits = this.target.panLimits;
    const anchor = (view.startNs + view.endNs) / 2;
    if (this.held.has('w')) view = zoomAround(view, anchor, Math.exp(zoomRate * dt), limits);
    if (this.held.has('s')) view = zoomAround(view, anchor, Math.exp(-zoomRate * dt), limits);
    if (this.held.has('a')) view = panBy(view, -panRate * dt, limits);
    if (this.held.has('d')) view = panBy(view, panRate * dt, limits);
    return view;
  }
}
