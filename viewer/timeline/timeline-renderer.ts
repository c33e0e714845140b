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
import { Container, WebGLRenderer, loadEnvironmentExtensions } from 'pixi.js';
import { nextTask } from '../base/tasks.js';
import { atFrameStart, gpuCaughtUp } from './gpu-waits.js';
import { answerPrecisionProbe } from './pixi-probe.js';
import { THEME } from '../model/colors.js';
import { drawsInWindow } from '../model/draw-layout.js';
import { buildDrawTrack } from '../model/draw-track.js';
import { pushGhostBars } from '../model/ghost-track.js';
import { InstanceWriter } from '../model/instances.js';
import { lanesInRange } from '../model/lane-layout.js';
import { LaneLodBuilder, type LodStats } from '../model/lane-lod.js';
import { buildOverview } from '../model/overview.js';
import { timeWidth } from '../model/screen-layout.js';
import { lodColumnNs, spanOf } from '../model/time-scale.js';
import { pushChrome, pushOverlay } from './frame-chrome.js';
import type { TimelineFrame } from './frame.js';
import { QuadMesh, isSoftwareRenderer, type QuadLayout } from './quad-mesh.js';
import { drawText, type TextGeometry } from './text-overlay.js';

interface LodKey {
  readonly frameSource: object;
  readonly hiddenStages: number;
  readonly selectedDraw: number;
  readonly highlight: object | null;
  readonly ghost: object | null;
  readonly coloring: object | null;
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
  private overviewColoring: object | null = null;
  private drawsOrigin = 0;
  /** Statistics of a geometry build not yet reported with a frame. */
  private built: FrameStats | null = null;
  private width = 1;
  private height = 1;
  private dpr = 0;
  private destroyed = false;

  private readonly stage = new Container();

  private constructor(
    private readonly pixi: WebGLRenderer,
    private readonly textCanvas: HTMLCanvasElement,
    readonly layout: QuadLayout,
  ) {
    this.chrome = new QuadMesh('timeline-chrome', layout);
    this.lanesMesh = new QuadMesh('timeline-lanes', layout);
    this.drawsMesh = new QuadMesh('timeline-draws', layout);
    this.overviewMesh = new QuadMesh('timeline-overview', layout);
    this.overlay = new QuadMesh('timeline-overlay', layout);
    this.stage.eventMode = 'none';
    this.stage.addChild(this.chrome.mesh, this.lanesMesh.mesh, this.drawsMesh.mesh, this.overviewMesh.mesh, this.overlay.mesh);
  }

  /**
   * Imports pixi's extensions for the browser (renderer systems, text, …), which the
   * renderer's init would import otherwise: now, when the caller chooses (renderer-loader.ts).
   */
  static loadExtensions(): Promise<void> {
    return loadEnvironmentExtensions(false);
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
    // The canvas's WebGL context first, at a frame's start (a canvas has one context of a
    // kind, so pixi's init below gets this one, with the attributes it would ask for: opaque
    // background, no antialiasing, a stencil buffer). Each step below makes synchronous calls
    // to the GPU process, so each comes in a task of its own at a frame's start, where the GPU
    // process is free (gpu-waits.ts): the extension list and pixi's precision probe
    // (pixi-probe.ts) once a fence says the context has started too, then pixi's start, then
    // the programs' compile.
    const size = { width: Math.max(1, Math.floor(width)), height: Math.max(1, Math.floor(height)), dpr: globalThis.devicePixelRatio || 1 };
    await atFrameStart();
    const gl = canvas.getContext('webgl2', { alpha: false, premultipliedAlpha: true, antialias: false, stencil: true, preserveDrawingBuffer: false });
    // The drawing buffer at the size pixi's init would give it (pixi leaves a canvas of that
    // size as it is): reallocated here, at a frame's start, not in pixi's init (its framebuffer
    // check waited 35-240 ms there on the busy VM).
    canvas.style.width = `${size.width}px`;
    canvas.style.height = `${size.height}px`;
    canvas.width = Math.round(size.width * size.dpr);
    canvas.height = Math.round(size.height * size.dpr);
    await gpuCaughtUp(gl);
    await atFrameStart();
    gl?.getSupportedExtensions();
    if (gl !== null) answerPrecisionProbe(gl);
    await atFrameStart();
    // A WebGLRenderer, not pixi's Application: the Application first probes WebGL with a
    // context of its own (isWebGLSupported), one more context creation on the page's thread.
    const renderer = new WebGLRenderer();
    await renderer.init({
      canvas,
      width: size.width,
      height: size.height,
      background: THEME.background,
      antialias: false,
      resolution: size.dpr,
      autoDensity: true,
    });
    // The renderer's name, where the caller does not know the layout, then the programs
    // compiled the first time pixi draws them: not in pixi's start or in a trace's first frame.
    await nextTask();
    const quads = layout ?? (isSoftwareRenderer(renderer.gl) ? 'vertices' : 'instanced');
    await atFrameStart();
    const r = new TimelineRenderer(renderer, textCanvas, quads);
    // init sized the drawing buffer already: only the text layer needs its size.
    r.width = size.width;
    r.height = size.height;
    r.dpr = size.dpr;
    r.sizeTextLayer();
    r.warmUp();
    return r;
  }

  /** Draws every mesh once with one rectangle clipped away: programs compiled, buffers bound, nothing shown. */
  private warmUp(): void {
    if (this.destroyed) return;
    const meshes = [this.chrome, this.lanesMesh, this.drawsMesh, this.overviewMesh, this.overlay];
    const w = this.scratch;
    w.reset();
    w.push(0, 1, 0, 1, 0);
    for (const m of meshes) {
      m.setInstances(w);
      m.setClip(0, 0, 0, 0);
    }
    this.pixi.render({ container: this.stage });
    w.reset();
    for (const m of meshes) m.setInstances(w);
  }

  resize(width: number, height: number): void {
    const dpr = globalThis.devicePixelRatio || 1;
    const w = Math.max(1, Math.floor(width));
    const h = Math.max(1, Math.floor(height));
    // Resizing reallocates the drawing buffer (~10 ms on software GL): not for the size it has.
    if (w === this.width && h === this.height && dpr === this.dpr) return;
    this.width = w;
    this.height = h;
    this.dpr = dpr;
    this.pixi.resize(this.width, this.height);
    this.sizeTextLayer();
    this.overviewKey = '';
  }

  private sizeTextLayer(): void {
    this.textCanvas.width = Math.round(this.width * this.dpr);
    this.textCanvas.height = Math.round(this.height * this.dpr);
    this.textCanvas.style.width = `${this.width}px`;
    this.textCanvas.style.height = `${this.height}px`;
  }

  /** Forgets cached geometry (call when the trace or lane layout object changes identity is not enough). */
  invalidate(): void {
    this.lodKey = null;
    this.overviewKey = '';
  }

  /**
   * Builds what the frame needs of the lanes' level of detail, the draw track and the
   * overview, when it is not built already. render() calls it; calling it alone first
   * (in a task of its own) leaves the frame only the drawing.
   */
  prepare(f: TimelineFrame): void {
    if (this.destroyed) return;
    const s = f.screen;
    const tw = timeWidth(s);
    const span = spanOf(f.view);
    const colNs = lodColumnNs(span / tw);

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
      key.coloring !== f.coloring ||
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
      const lod = this.lod.build({
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
        coloring: f.coloring,
      });
      this.lanesMesh.setInstances(this.lod.bars);
      const draws = drawsInWindow(f.drawLayout, originNs, originNs + columns * colNs);
      buildDrawTrack(
        { trace: f.trace, layout: f.drawLayout, draws, originNs, y: s.draws.y, rowHeight: s.drawRowHeight, selectedDraw: f.selectedDraw, matchedDraws: f.highlight?.draws ?? null, windowNs: [originNs, originNs + columns * colNs] },
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
        coloring: f.coloring,
        colNs,
        originNs,
        columns,
        firstLane,
        lastLane,
        occupancyScale: f.occupancyScale,
      };
      this.built = { buildMs: performance.now() - t0, rebuilt: true, instances: 0, lod };
    }
    // Overview: whole bounds, one column per pixel; rebuilt on resize or filter change.
    const overviewKey = `${tw}|${f.bounds.startNs}|${f.bounds.endNs}|${f.hiddenStages}|${s.overview.height}`;
    if (overviewKey !== this.overviewKey || this.overviewSource !== f.index || this.overviewColoring !== f.coloring) {
      const columns = Math.max(1, Math.floor(tw));
      buildOverview(f.index, f.bounds.startNs, spanOf(f.bounds) / columns, columns, f.hiddenStages, s.overview.y + 2, s.overview.height - 4, this.scratch, f.coloring);
      this.overviewMesh.setInstances(this.scratch);
      this.overviewKey = overviewKey;
      this.overviewSource = f.index;
      this.overviewColoring = f.coloring;
    }
  }

  render(f: TimelineFrame): FrameStats {
    if (this.destroyed) return { buildMs: 0, rebuilt: false, instances: 0, lod: null };
    this.prepare(f);
    // The build's statistics go with the first frame drawn after it.
    const stats: FrameStats = this.built ?? { buildMs: 0, rebuilt: false, instances: 0, lod: null };
    this.built = null;
    const s = f.screen;
    const tw = timeWidth(s);
    const pxPerNs = tw / spanOf(f.view);
    const lanesTop = s.lanes.y;
    const lanesBottom = s.lanes.y + s.lanes.height;

    const lk = this.lodKey!;
    this.lanesMesh.setMap(pxPerNs, s.gutter + (lk.originNs - f.view.startNs) * pxPerNs, lanesTop - f.scrollY, 1);
    this.lanesMesh.setClip(s.gutter, s.width, lanesTop, lanesBottom);
    this.drawsMesh.setMap(pxPerNs, s.gutter + (this.drawsOrigin - f.view.startNs) * pxPerNs, 0, 1);
    this.drawsMesh.setClip(s.gutter, s.width, s.draws.y, s.ghost.y + s.ghost.height);

    const overviewScale = tw / spanOf(f.bounds);
    this.overviewMesh.setMap(overviewScale, s.gutter, 0, 1);
    this.overviewMesh.setClip(s.gutter, s.width, s.overview.y, s.overview.y + s.overview.height);

    pushChrome(f, this.scratch);
    this.chrome.setInstances(this.scratch);
    this.chrome.setMap(1, 0, 0, 0);
    this.chrome.setClip(0, s.width, 0, s.height);
    pushOverlay(f, pxPerNs, this.scratch);
    this.overlay.setInstances(this.scratch);
    this.overlay.setMap(1, 0, 0, 0);
    this.overlay.setClip(0, s.width, 0, s.height);
    this.pixi.render({ container: this.stage });
    const text: TextGeometry = { labels: this.lod.labels, labelsOriginNs: lk.originNs };
    drawText(this.textCanvas, f, text);
    stats.instances = this.lanesMesh.count + this.drawsMesh.count + this.overviewMesh.count + this.overlay.count + this.chrome.count;
    return stats;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const m of [this.chrome, this.lanesMesh, this.drawsMesh, this.overviewMesh, this.overlay]) m.destroy();
    this.stage.destroy({ children: true });
    this.pixi.destroy({ removeView: false });
  }
}
