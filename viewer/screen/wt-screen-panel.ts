/**
 * <wt-screen-panel>: where on screen the warps ran. The selected draw's (or
 * every draw's of its render target) positioned warps painted at their
 * footprints, coloured by a metric (analysis/screen-*.ts, made in
 * screen-worker.ts), with a legend and a time slider that scrubs through the
 * frame: pixels appear as their warps start. For a trace-rays draw with ray
 * events (Trace.rayEvents), the ray metrics: heat maps of its launch's ray
 * events per pixel (analysis/ray-*.ts, made in the same worker).
 *
 * Properties down (the app's panelProperties(): trace, range, selectedDraw);
 * events up: wt-draw-select (the draw selector), wt-rows-highlight
 * ({ rows: Uint32Array | null }: the warps under a brushed rectangle, for the
 * timeline). A timeline range shows only the warps in flight in it.
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { drawSet, screenColumns, stageSet, type ScreenDraw } from '../../analysis/screen-columns.js';
import type { PixelRect } from '../../analysis/screen-query.js';
import { isRayScreenMetric, type RayScreenMetric } from '../../analysis/ray-events.js';
import type { ScreenMetric } from '../../analysis/screen-metric.js';
import { nextTask } from '../base/tasks.js';
import { panelStyles } from '../components/shared-styles.js';
import type { TimeRange } from '../timeline/frame.js';
import { ScreenClient, type ScreenTrace } from './screen-client.js';
import type { RayImageReply, ScreenImageReply, ScreenView } from './screen-protocol.js';
import { legendTemplate, paintRamp } from './screen-legend.js';
import { drawSelect, positionedCounts, metricSelect, stageSelect, targetLine, timeRow, type PanelMetric } from './screen-controls.js';
import { hasPicture, launchSize, rayLegendTemplate, rayNotes, rayPick, rayTotalsTemplate, type RayPick } from './screen-rays.js';
import { screenPanelStyles } from './screen-panel-styles.js';
import { PlayThrough, brushBox, brushInfo, dragRect, fitCanvas, imagePixel, paintImage } from './screen-canvas.js';
import { warmUpGpu } from '../timeline/gpu-warm-up.js';

/** A trace as the panel reads it (the model's Trace satisfies it). */
export interface ScreenPanelTrace extends ScreenTrace {
  readonly draws: readonly (ScreenDraw & { readonly label: string })[];
}

/** Slider steps a play-through takes from the first warp's start to the last warp's end. */
const PLAY_STEPS = 150;
/**
 * Draws the draw selector lists: those with the most positioned warps (and the selected
 * draw). A real frame has thousands of draws: a select of every one is slow to render at
 * each slider step and unusable; the draw list and the timeline reach the others.
 */
export const MAX_DRAW_OPTIONS = 40;

export class WtScreenPanel extends LitElement {
  static override properties = {
    trace: { attribute: false },
    range: { attribute: false },
    selectedDraw: { type: Number, attribute: false },
    metric: { state: true },
    stageFilter: { state: true },
    allWithTarget: { state: true },
    untilNs: { state: true },
    image: { state: true },
    rayImage: { state: true },
    brush: { state: true },
    playing: { state: true },
    error: { state: true },
    counted: { state: true },
  };

  declare trace: ScreenPanelTrace | null;
  declare range: TimeRange | null;
  declare selectedDraw: number;
  declare metric: PanelMetric;
  /** Show only the warps of this stage code (-1: every stage). */
  declare stageFilter: number;
  /** Show every draw with the selected draw's render-target size, not just that draw. */
  declare allWithTarget: boolean;
  /** Time cutoff: warps started by then are shown (Infinity: all). */
  declare untilNs: number;
  /** The image on the canvas, and the view and metric it was made for. */
  declare image: { reply: ScreenImageReply; view: ScreenView; metric: ScreenMetric } | null;
  /** The heat map shown for a ray metric: its row (index into rayEvents.rows) and metric. */
  declare rayImage: { reply: RayImageReply; row: number; metric: RayScreenMetric } | null;
  /** The brushed rectangle, image pixels. */
  declare brush: PixelRect | null;
  declare playing: boolean;
  declare error: string | null;
  /** The trace's positioned warps are counted per draw (a scan of every warp, in a task after the trace arrives). */
  declare counted: boolean;

  static override styles = [panelStyles, screenPanelStyles];
  private readonly client = new ScreenClient();
  private positionedPerDraw: Uint32Array = new Uint32Array(0);
  private positionedPerStage: Uint32Array = new Uint32Array(0);
  /** The trace has positioned warps (else only its ray events are shown). */
  private positioned = false;
  /** The ray image last asked for ("row:metric"; "none": no picture), so a view change that leaves it alone asks for nothing. */
  private rayRequest = '';
  private busiestDraw = -1;
  /** The draws the selector lists, ascending (MAX_DRAW_OPTIONS with the most positioned warps). */
  private drawOptions: number[] = [];
  private brushStart: { x: number; y: number } | null = null;
  private fitObserver: ResizeObserver | null = null;
  private readonly player = new PlayThrough();

  constructor() {
    super();
    this.trace = null;
    this.range = null;
    this.selectedDraw = -1;
    this.metric = 'start';
    this.stageFilter = -1;
    this.allWithTarget = false;
    this.untilNs = Infinity;
    this.image = null;
    this.rayImage = null;
    this.brush = null;
    this.playing = false;
    this.error = null;
    this.counted = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Back in the page after a removal (which stopped the worker): send the trace again.
    if (this.hasUpdated && this.trace !== null && !this.hidden && this.client.setTrace(this.trace)) void this.requestImage();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopPlaying();
    // The worker goes: a ray image is asked for again when the panel is back.
    this.rayRequest = '';
    this.fitObserver?.disconnect();
    this.fitObserver = null;
    this.client.destroy();
  }

  /** The draw the image centres on: the selected one when it has positioned warps, else the busiest target's. */
  get baseDraw(): number {
    const d = this.selectedDraw;
    return d >= 0 && (this.positionedPerDraw[d] ?? 0) > 0 ? d : this.busiestDraw;
  }

  /** The ray metric chosen, or null for a warp metric. */
  get rayMetric(): RayScreenMetric | null {
    return isRayScreenMetric(this.metric) ? this.metric : null;
  }

  /** The ray-event row a ray metric shows (screen-rays.ts rayPick), or null. */
  get rayPick(): RayPick | null {
    return rayPick(this.trace?.rayEvents, this.selectedDraw, this.baseDraw, this.positioned);
  }

  /**
   * What the image shows now: the draw set, the stages, the time cutoff and the timeline's
   * range. With a ray metric, the warps a brush reports: the ray row's draw, whole.
   */
  get view(): ScreenView {
    const t = this.trace;
    const ray = this.rayMetric === null ? null : this.rayPick;
    if (t !== null && ray !== null) return { draws: drawSet(t.draws, ray.row.draw, false), stages: null, untilNs: Infinity, window: null };
    const base = this.baseDraw;
    const whole = base !== this.selectedDraw || this.allWithTarget;
    const stages = this.stageFilter < 0 ? null : stageSet([this.stageFilter]);
    return { draws: t === null || base < 0 ? null : drawSet(t.draws, base, whole), stages, untilNs: this.untilNs, window: this.range };
  }

  get canvas(): HTMLCanvasElement | null {
    return this.renderRoot.querySelector('canvas.image');
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace')) {
      const t = this.trace;
      const cols = t === null ? null : screenColumns(t.warps);
      const rayDraws = (t?.rayEvents?.rows ?? []).slice(0, MAX_DRAW_OPTIONS).map((r) => r.draw);
      this.positioned = cols !== null;
      this.hidden = cols === null && rayDraws.length === 0;
      this.positionedPerDraw = new Uint32Array(0);
      this.positionedPerStage = new Uint32Array(0);
      this.busiestDraw = -1;
      this.drawOptions = [];
      this.counted = false;
      this.stageFilter = -1;
      this.rayRequest = '';
      // A metric the new trace has nothing for falls back to one it has.
      if (this.rayMetric !== null && rayDraws.length === 0) this.metric = 'start';
      if (this.rayMetric === null && cols === null && rayDraws.length > 0) this.metric = 'rays';
      if (t !== null && !this.hidden) {
        this.client.setTrace(t);
        // Not in the task that shows the trace: the count reads every warp (~25 ms at 10 M).
        void nextTask().then(() => {
          if (this.trace !== t) return;
          const counts = positionedCounts(cols, t.draws, rayDraws, MAX_DRAW_OPTIONS);
          ({ perDraw: this.positionedPerDraw, perStage: this.positionedPerStage, busiestDraw: this.busiestDraw, options: this.drawOptions } = counts);
          this.counted = true;
        });
      }
      this.untilNs = Infinity;
      this.image = null;
      this.rayImage = null;
      this.stopPlaying();
      if (this.brush !== null) this.clearBrush();
    }
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (this.trace === null || this.hidden || !this.counted) return;
    const viewChanged = ['counted', 'range', 'selectedDraw', 'metric', 'stageFilter', 'allWithTarget', 'untilNs'].some((k) => changed.has(k as keyof WtScreenPanel));
    if (viewChanged) void this.requestImage();
    if (changed.has('image') || changed.has('rayImage') || changed.has('metric')) this.paint();
    this.observeFit();
  }

  private async requestImage(): Promise<void> {
    const metric = this.metric;
    if (isRayScreenMetric(metric)) return this.requestRayImage(metric);
    this.rayRequest = '';
    const view = this.view;
    try {
      const reply = await this.client.image(view, metric);
      if (reply === null) return;
      // On a cold page, not before the GPU warm-up: the page's first image would make its 2D GPU context.
      await warmUpGpu();
      this.error = null;
      this.image = { reply, view, metric };
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** Ray events are counted over the whole launch: only the row and the metric matter (not the time cutoff or range). */
  private async requestRayImage(metric: RayScreenMetric): Promise<void> {
    const pick = this.rayPick;
    const key = pick !== null && hasPicture(pick.row) ? `${pick.index}:${metric}` : 'none';
    const shown = this.rayImage !== null && `${this.rayImage.row}:${this.rayImage.metric}` === key;
    const asked = key === this.rayRequest;
    this.rayRequest = key;
    if (asked || shown) return;
    // No picture: the canvas is hidden (a state change here, inside updated(), would cost another update).
    if (pick === null || key === 'none') return;
    try {
      const reply = await this.client.rayImage(pick.index, metric);
      if (reply === null) return;
      await warmUpGpu();
      this.error = null;
      this.rayImage = { reply, row: pick.index, metric };
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** The reply on the canvas: the ray image for a ray metric, else the warp image. */
  get shownReply(): ScreenImageReply | RayImageReply | null {
    return (this.rayMetric === null ? this.image?.reply : this.rayImage?.reply) ?? null;
  }

  private paint(): void {
    const canvas = this.canvas;
    const reply = this.shownReply;
    if (canvas === null || reply === null) return;
    paintImage(canvas, reply);
    const ramp = this.renderRoot.querySelector<HTMLCanvasElement>('canvas.ramp');
    if (ramp !== null && ramp.width !== 256) paintRamp(ramp);
    this.fit();
  }

  private observeFit(): void {
    const box = this.renderRoot.querySelector('.view');
    if (box === null || this.fitObserver !== null) return;
    this.fitObserver = new ResizeObserver(() => this.fit());
    this.fitObserver.observe(box);
  }

  private fit(): void {
    const canvas = this.canvas;
    const box = this.renderRoot.querySelector<HTMLElement>('.view');
    const reply = this.shownReply;
    if (canvas !== null && box !== null && reply !== null) fitCanvas(canvas, box, reply);
  }

  private pointerPixel(e: PointerEvent): { x: number; y: number } | null {
    const canvas = this.canvas;
    const image = this.shownReply;
    return canvas === null || image === null ? null : imagePixel(canvas, image, e);
  }

  private onPointerDown = (e: PointerEvent): void => {
    const p = e.button === 0 ? this.pointerPixel(e) : null;
    if (p === null) return;
    (e.target as Element).setPointerCapture?.(e.pointerId);
    this.brushStart = p;
    this.brush = dragRect(p, p);
  };

  private onPointerMove = (e: PointerEvent): void => {
    const start = this.brushStart;
    const p = start === null ? null : this.pointerPixel(e);
    if (start !== null && p !== null) this.brush = dragRect(start, p);
  };

  private onPointerUp = (): void => {
    if (this.brushStart === null) return;
    this.brushStart = null;
    if (this.brush !== null) void this.highlight(this.brush);
  };

  /**
   * Highlights on the timeline the warps under `rect` (image pixels) among those shown; a
   * single pixel (a click) also selects the warp it shows.
   */
  async highlight(rect: PixelRect): Promise<Uint32Array> {
    this.brush = rect;
    const { rows, shownRow } = await this.client.brush(this.view, rect);
    this.dispatchEvent(new CustomEvent('wt-rows-highlight', { detail: { rows }, bubbles: true, composed: true }));
    if (rect.width === 1 && rect.height === 1 && shownRow >= 0) {
      this.dispatchEvent(new CustomEvent('wt-warp-select', { detail: { row: shownRow }, bubbles: true, composed: true }));
    }
    return rows;
  }

  clearBrush(): void {
    this.brush = null;
    this.dispatchEvent(new CustomEvent('wt-rows-highlight', { detail: { rows: null }, bubbles: true, composed: true }));
  }

  /** The time span of the warps shown (null: none, or a ray metric). */
  private get span(): { startNs: number; endNs: number } | null {
    return this.rayMetric === null ? (this.image?.reply.span ?? null) : null;
  }

  private togglePlay = (): void => {
    if (this.playing) return this.stopPlaying();
    const span = this.span;
    if (span === null) return;
    this.playing = true;
    this.player.start(span, this.untilNs, PLAY_STEPS, (until) => {
      this.untilNs = until;
      if (until === Infinity) this.playing = false;
    });
  };

  private stopPlaying(): void {
    this.player.stop();
    this.playing = false;
  }

  private onSlider = (e: Event): void => {
    const span = this.span;
    const v = Number((e.target as HTMLInputElement).value);
    this.stopPlaying();
    this.untilNs = span === null || v >= span.endNs ? Infinity : v;
  };

  private onDrawPicked = (e: Event): void => {
    const draw = Number((e.target as HTMLSelectElement).value);
    this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw }, bubbles: true, composed: true }));
  };

  override render() {
    const t = this.trace;
    if (t === null || this.hidden) return nothing;
    const reply = this.shownReply;
    const span = this.span;
    const ray = this.rayMetric;
    const pick = ray === null ? null : this.rayPick;
    const base = this.baseDraw;
    const shown = pick?.row.draw ?? (ray === null ? base : -1);
    const following = shown >= 0 && shown === this.selectedDraw;
    const options = following && !this.drawOptions.includes(shown) ? [...this.drawOptions, shown].sort((a, b) => a - b) : this.drawOptions;
    const rays = t.rayEvents ?? null;
    const noPicture = ray !== null && (pick === null || !hasPicture(pick.row));
    return html`
      <div class="row">
        <h3>Screen</h3>
        ${metricSelect({ metric: this.metric, positioned: this.positioned, rays: (rays?.rows.length ?? 0) > 0, rayDraw: this.rayPick?.row.draw ?? -1 }, (m) => (this.metric = m))}
        ${stageSelect(this.positionedPerStage, this.stageFilter, ray !== null, (stage) => (this.stageFilter = stage))}
      </div>
      <div class="row">
        ${drawSelect({ draws: t.draws, options, shown, following, selectedDraw: this.selectedDraw, ray: ray !== null }, this.onDrawPicked)}
        <label title="Every draw whose render target has this draw's size"><input type="checkbox" class="all-target" .checked=${this.allWithTarget || !following}
          ?disabled=${!following || ray !== null} @change=${(e: Event) => (this.allWithTarget = (e.target as HTMLInputElement).checked)} />all draws with this target</label>
      </div>
      <div class="muted">${ray === null ? targetLine(base >= 0 ? (t.draws[base]?.target ?? null) : null, reply, this.range) : pick === null ? '' : `launch ${launchSize(pick.row)}${reply === null ? '' : ` · image ${reply.width} × ${reply.height}`}`}</div>
      <div class="view">
        <canvas class="image" role="img" aria-label=${ray === null ? 'Warps on screen' : 'Ray events on screen'} ?hidden=${noPicture} @pointerdown=${this.onPointerDown}
          @pointermove=${this.onPointerMove} @pointerup=${this.onPointerUp} @pointercancel=${this.onPointerUp} @dblclick=${() => this.clearBrush()}></canvas>
        ${noPicture ? nothing : brushBox(this.brush, this.canvas, reply)}
        ${noPicture && pick?.row.mixedSizes === true ? rayTotalsTemplate(pick.row) : nothing}
      </div>
      ${noPicture ? nothing : reply === null ? html`<div class="muted">Rasterizing…</div>` : reply.kind === 'ray-image' ? rayLegendTemplate(reply) : legendTemplate(reply.legend, reply.shown, reply.positioned)}
      ${rays === null || ray === null ? nothing : rayNotes(rays, pick, ray, this.selectedDraw).map((note) => html`<div class="note">${note}</div>`)}
      ${ray === null && reply?.kind === 'image' ? reply.notes.map((note) => html`<div class="note">${note}</div>`) : nothing}
      ${timeRow({ span, untilNs: this.untilNs, playing: this.playing, ray: ray !== null }, this.togglePlay, this.onSlider)}
      ${brushInfo(this.brush, () => this.clearBrush())}
      ${this.error === null ? nothing : html`<div class="warning">${this.error}</div>`}
    `;
  }
}

customElements.define('wt-screen-panel', WtScreenPanel);
declare global {
  interface HTMLElementTagNameMap {
    'wt-screen-panel': WtScreenPanel;
  }
}
