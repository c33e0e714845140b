/**
 * The timeline's drawing surface as a lit ReactiveController: creates the
 * pixi renderer once the element has rendered its canvases, follows the
 * surface's size, schedules frames (one per animation frame at most) and
 * destroys the renderer when the element leaves the document.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { nextTask } from '../base/tasks.js';
import type { TimelineFrame } from '../timeline/frame.js';
import { readCanvasPixels } from '../timeline/read-pixels.js';
import { loadTimelineRenderer } from '../timeline/renderer-loader.js';
import type { FrameStats, TimelineRenderer } from '../timeline/timeline-renderer.js';

/** What the surface needs of <wt-timeline>. */
export interface SurfaceHost extends ReactiveControllerHost {
  readonly renderRoot: HTMLElement | DocumentFragment;
  readonly isConnected: boolean;
  readonly hasUpdated: boolean;
  /** The surface changed size (CSS px). */
  surfaceResized(width: number, height: number): void;
  /** The frame to draw now (called once per frame, after pending hover work), or null for none. */
  frameToDraw(): TimelineFrame | null;
  /** Called after each drawn frame with its statistics and time. */
  frameDrawn(stats: FrameStats, ms: number): void;
}

export class TimelineSurface implements ReactiveController {
  private renderer: TimelineRenderer | null = null;
  private pending: Promise<void> | null = null;
  private resizeObserver: ResizeObserver | null = null;
  private frameRequested = 0;
  /** A geometry build is queued in a task of its own; the frame is requested after it. */
  private preparing = false;
  /** The surface's size as last followed (CSS px). */
  private size = { width: -1, height: -1 };

  constructor(private readonly host: SurfaceHost) {
    host.addController(this);
  }

  get element(): HTMLDivElement {
    return this.host.renderRoot.querySelector('.surface') as HTMLDivElement;
  }

  private get glCanvas(): HTMLCanvasElement {
    return this.host.renderRoot.querySelector('canvas.gl') as HTMLCanvasElement;
  }

  hostConnected(): void {
    // Re-attached after a disconnect: the renderer was destroyed, make a new one.
    if (this.host.hasUpdated && this.renderer === null) void this.start();
  }

  hostDisconnected(): void {
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
    cancelAnimationFrame(this.frameRequested);
    this.frameRequested = 0;
    this.renderer?.destroy();
    this.renderer = null;
    this.size = { width: -1, height: -1 };
  }

  /** Creates the renderer (after the first render: the canvases must exist). */
  start(): Promise<void> {
    if (this.pending !== null) return this.pending;
    this.pending = (async () => {
      const surface = this.element;
      const text = this.host.renderRoot.querySelector('canvas.text') as HTMLCanvasElement;
      const { module, layout } = await loadTimelineRenderer();
      if (!this.host.isConnected) return;
      const { width, height } = surface.getBoundingClientRect();
      const renderer = await module.TimelineRenderer.create(this.glCanvas, text, width, height, layout);
      if (!this.host.isConnected) {
        // Disconnected while pixi initialised: do not leak the context.
        renderer.destroy();
        return;
      }
      this.renderer = renderer;
      this.resizeObserver = new ResizeObserver(() => this.onResize());
      this.resizeObserver.observe(surface);
      // A trace shown while the renderer started gets its first frame as a new trace does:
      // the geometry in a task of its own, then the frame.
      this.prepareThenDraw();
    })().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** Resolves once the renderer exists. */
  async ready(): Promise<void> {
    if (this.renderer === null) await (this.pending ?? this.start());
  }

  /** Drops cached geometry (a new trace). */
  invalidate(): void {
    this.renderer?.invalidate();
  }

  private onResize(): void {
    if (this.measure()) this.requestFrame();
  }

  /** Follows the surface's size now; true when it changed. */
  private measure(): boolean {
    const { width, height } = this.element.getBoundingClientRect();
    if (width === this.size.width && height === this.size.height) return false;
    this.size = { width, height };
    this.renderer?.resize(width, height);
    this.host.surfaceResized(width, height);
    return true;
  }

  /**
   * The next frame in two tasks: the geometry (level of detail, draw track,
   * overview) in a task of its own now, then the frame in an animation frame.
   * For a new trace, whose first frame builds everything: neither task holds
   * the page for both.
   */
  prepareThenDraw(): void {
    if (this.preparing) return;
    this.preparing = true;
    cancelAnimationFrame(this.frameRequested);
    this.frameRequested = 0;
    void nextTask().then(() => {
      this.preparing = false;
      // What showed the trace may have moved the surface (a header that wraps): take the
      // size now, so the frame is drawn once at the size it is shown at, not once before
      // the resize observer reports it and again after.
      if (this.renderer !== null) this.measure();
      const frame = this.renderer === null ? null : this.host.frameToDraw();
      if (frame !== null) this.renderer!.prepare(frame);
      this.requestFrame();
    });
  }

  requestFrame(): void {
    if (this.frameRequested !== 0 || this.preparing) return;
    this.frameRequested = requestAnimationFrame(() => {
      this.frameRequested = 0;
      this.renderNow();
    });
  }

  renderNow(): FrameStats | null {
    if (this.renderer === null) return null;
    const frame = this.host.frameToDraw();
    if (frame === null) return null;
    const t0 = performance.now();
    const stats = this.renderer.render(frame);
    this.host.frameDrawn(stats, performance.now() - t0);
    return stats;
  }

  /**
   * Renders a frame and reads a CSS-px rectangle of it back, in the same task,
   * while the WebGL drawing buffer still holds it.
   */
  readPixels(cssWidth: number, x: number, y: number, width: number, height: number): Uint8ClampedArray {
    this.renderNow();
    return readCanvasPixels(this.glCanvas, cssWidth, x, y, width, height);
  }
}
