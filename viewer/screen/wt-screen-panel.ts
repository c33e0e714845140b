/**
 * <wt-screen-panel>: where on screen the warps ran. The selected draw's (or
 * every draw's of its render target) positioned warps painted at their
 * footprints, coloured by a metric (analysis/screen-*.ts, made in
 * screen-worker.ts), with a legend and a time slider that scrubs through the
 * frame: pixels appear as their warps start.
 *
 * Properties down (the app's panelProperties(): trace, range, selectedDraw);
 * events up: wt-draw-select (the draw selector), wt-rows-highlight
 * ({ rows: Uint32Array | null }: the warps under a brushed rectangle, for the
 * timeline). A timeline range shows only the warps in flight in it.
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { busiestDraws, busiestTargetDraw, drawSet, positionedWarpsPerDraw, screenColumns, type ScreenDraw } from '../../analysis/screen-columns.js';
import { SCREEN_METRICS, SCREEN_METRIC_LABELS, isScreenMetric, type ScreenMetric } from '../../analysis/screen-metric.js';
import type { PixelRect } from '../../analysis/screen-query.js';
import { formatNs } from '../../shared-schema/units.js';
import { nextTask } from '../base/tasks.js';
import { panelStyles } from '../components/shared-styles.js';
import type { TimeRange } from '../timeline/frame.js';
import { ScreenClient, type ScreenTrace } from './screen-client.js';
import type { ScreenImageReply, ScreenView } from './screen-protocol.js';
import { legendTemplate, paintRamp } from './screen-legend.js';
import { screenPanelStyles } from './screen-panel-styles.js';

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
    allWithTarget: { state: true },
    untilNs: { state: true },
    image: { state: true },
    brush: { state: true },
    playing: { state: true },
    error: { state: true },
    counted: { state: true },
  };

  declare trace: ScreenPanelTrace | null;
  declare range: TimeRange | null;
  declare selectedDraw: number;
  declare metric: ScreenMetric;
  /** Show every draw with the selected draw's render-target size, not just that draw. */
  declare allWithTarget: boolean;
  /** Time cutoff: warps started by then are shown (Infinity: all). */
  declare untilNs: number;
  /** The image on the canvas, and the view and metric it was made for. */
  declare image: { reply: ScreenImageReply; view: ScreenView; metric: ScreenMetric } | null;
  /** The brushed rectangle, image pixels. */
  declare brush: PixelRect | null;
  declare playing: boolean;
  declare error: string | null;
  /** The trace's positioned warps are counted per draw (a scan of every warp, in a task after the trace arrives). */
  declare counted: boolean;

  static override styles = [panelStyles, screenPanelStyles];
  private readonly client = new ScreenClient();
  private positionedPerDraw: Uint32Array = new Uint32Array(0);
  private busiestDraw = -1;
  /** The draws the selector lists, ascending (MAX_DRAW_OPTIONS with the most positioned warps). */
  private drawOptions: number[] = [];
  private brushStart: { x: number; y: number } | null = null;
  private fitObserver: ResizeObserver | null = null;
  private playFrame = 0;

  constructor() {
    super();
    this.trace = null;
    this.range = null;
    this.selectedDraw = -1;
    this.metric = 'start';
    this.allWithTarget = false;
    this.untilNs = Infinity;
    this.image = null;
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
    this.fitObserver?.disconnect();
    this.fitObserver = null;
    this.client.destroy();
  }

  /** The draw the image centres on: the selected one when it has positioned warps, else the busiest target's. */
  get baseDraw(): number {
    const d = this.selectedDraw;
    return d >= 0 && (this.positionedPerDraw[d] ?? 0) > 0 ? d : this.busiestDraw;
  }

  /** What the image shows now: the draw set, the time cutoff and the timeline's range. */
  get view(): ScreenView {
    const t = this.trace;
    const base = this.baseDraw;
    const whole = base !== this.selectedDraw || this.allWithTarget;
    return { draws: t === null || base < 0 ? null : drawSet(t.draws, base, whole), untilNs: this.untilNs, window: this.range };
  }

  get canvas(): HTMLCanvasElement | null {
    return this.renderRoot.querySelector('canvas.image');
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trace')) {
      const t = this.trace;
      const cols = t === null ? null : screenColumns(t.warps);
      this.hidden = cols === null;
      this.positionedPerDraw = new Uint32Array(0);
      this.busiestDraw = -1;
      this.drawOptions = [];
      this.counted = false;
      if (t !== null && cols !== null) {
        this.client.setTrace(t);
        // Not in the task that shows the trace: the count reads every warp (~25 ms at 10 M).
        void nextTask().then(() => {
          if (this.trace !== t) return;
          this.positionedPerDraw = positionedWarpsPerDraw(cols, t.draws.length);
          this.busiestDraw = busiestTargetDraw(t.draws, this.positionedPerDraw);
          this.drawOptions = busiestDraws(this.positionedPerDraw, MAX_DRAW_OPTIONS);
          this.counted = true;
        });
      }
      this.untilNs = Infinity;
      this.image = null;
      this.stopPlaying();
      if (this.brush !== null) this.clearBrush();
    }
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (this.trace === null || this.hidden || !this.counted) return;
    const viewChanged = ['counted', 'range', 'selectedDraw', 'metric', 'allWithTarget', 'untilNs'].some((k) => changed.has(k as keyof WtScreenPanel));
    if (viewChanged) void this.requestImage();
    if (changed.has('image')) this.paint();
    this.observeFit();
  }

  private async requestImage(): Promise<void> {
    const view = this.view;
    const metric = this.metric;
    try {
      const reply = await this.client.image(view, metric);
      if (reply === null) return;
      this.error = null;
      this.image = { reply, view, metric };
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  private paint(): void {
    const canvas = this.canvas;
    const image = this.image;
    if (canvas === null || image === null) return;
    const { width, height, rgba } = image.reply;
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    canvas.getContext('2d')?.putImageData(new ImageData(rgba, width, height), 0, 0);
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

  /** Scales the canvas to fit its box at the image's aspect (pixels stay crisp: image-rendering pixelated). */
  private fit(): void {
    const canvas = this.canvas;
    const box = this.renderRoot.querySelector<HTMLElement>('.view');
    if (canvas === null || box === null || this.image === null) return;
    const { width, height } = this.image.reply;
    const scale = Math.min(box.clientWidth / width, box.clientHeight / height);
    if (!(scale > 0)) return;
    canvas.style.width = `${width * scale}px`;
    canvas.style.height = `${height * scale}px`;
  }

  /** Image pixel under a pointer event, clamped to the image. */
  private pixelAt(e: PointerEvent): { x: number; y: number } | null {
    const canvas = this.canvas;
    const image = this.image;
    if (canvas === null || image === null) return null;
    const box = canvas.getBoundingClientRect();
    const x = Math.floor(((e.clientX - box.left) / box.width) * image.reply.width);
    const y = Math.floor(((e.clientY - box.top) / box.height) * image.reply.height);
    return { x: Math.max(0, Math.min(image.reply.width - 1, x)), y: Math.max(0, Math.min(image.reply.height - 1, y)) };
  }

  private onPointerDown = (e: PointerEvent): void => {
    if (e.button !== 0) return;
    const p = this.pixelAt(e);
    if (p === null) return;
    (e.target as Element).setPointerCapture?.(e.pointerId);
    this.brushStart = p;
    this.brush = { x: p.x, y: p.y, width: 1, height: 1 };
  };

  private onPointerMove = (e: PointerEvent): void => {
    const start = this.brushStart;
    const p = start === null ? null : this.pixelAt(e);
    if (start === null || p === null) return;
    this.brush = { x: Math.min(start.x, p.x), y: Math.min(start.y, p.y), width: Math.abs(p.x - start.x) + 1, height: Math.abs(p.y - start.y) + 1 };
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

  private togglePlay = (): void => {
    if (this.playing) return this.stopPlaying();
    const span = this.image?.reply.span;
    if (span === null || span === undefined) return;
    this.playing = true;
    let until = this.untilNs >= span.endNs ? span.startNs : this.untilNs;
    const step = () => {
      until += (span.endNs - span.startNs) / PLAY_STEPS;
      this.untilNs = until >= span.endNs ? Infinity : until;
      if (this.untilNs === Infinity) this.stopPlaying();
      else this.playFrame = requestAnimationFrame(step);
    };
    this.playFrame = requestAnimationFrame(step);
  };

  private stopPlaying(): void {
    cancelAnimationFrame(this.playFrame);
    this.playing = false;
  }

  private onSlider = (e: Event): void => {
    const span = this.image?.reply.span;
    const v = Number((e.target as HTMLInputElement).value);
    this.stopPlaying();
    this.untilNs = span === null || span === undefined || v >= span.endNs ? Infinity : v;
  };

  private onDrawPicked = (e: Event): void => {
    const draw = Number((e.target as HTMLSelectElement).value);
    this.dispatchEvent(new CustomEvent('wt-draw-select', { detail: { draw }, bubbles: true, composed: true }));
  };

  override render() {
    const t = this.trace;
    if (t === null || this.hidden) return nothing;
    const image = this.image;
    const reply = image?.reply ?? null;
    const span = reply?.span ?? null;
    const base = this.baseDraw;
    const target = base >= 0 ? (t.draws[base]?.target ?? null) : null;
    const following = base === this.selectedDraw;
    const options = following && base >= 0 && !this.drawOptions.includes(base) ? [...this.drawOptions, base].sort((a, b) => a - b) : this.drawOptions;
    return html`
      <div class="row">
        <h3>Screen</h3>
        <select class="metric" aria-label="Color by" @change=${(e: Event) => {
          const v = (e.target as HTMLSelectElement).value;
          if (isScreenMetric(v)) this.metric = v;
        }}>
          ${SCREEN_METRICS.map((m) => html`<option value=${m} ?selected=${m === this.metric}>${SCREEN_METRIC_LABELS[m]}</option>`)}
        </select>
      </div>
      <div class="row">
        <select class="draw" aria-label="Draw" title="The ${MAX_DRAW_OPTIONS} draws with the most positioned warps; select any other in the draw list or on the timeline" .value=${String(following ? base : -1)} @change=${this.onDrawPicked}>
          <option value="-1" ?selected=${!following}>
            ${this.selectedDraw < 0 ? 'no draw selected' : `draw ${this.selectedDraw} has no positions`}: the main target
          </option>
          ${options.map((d) => html`<option value=${d} ?selected=${following && d === base}>#${d} ${t.draws[d]!.label}</option>`)}
        </select>
        <label title="Every draw whose render target has this draw's size"><input type="checkbox" class="all-target" .checked=${this.allWithTarget || !following}
          ?disabled=${!following} @change=${(e: Event) => (this.allWithTarget = (e.target as HTMLInputElement).checked)} />all draws with this target</label>
      </div>
      <div class="muted">${target === null ? 'target size unknown' : `${target.width} × ${target.height}`}${reply === null ? '' : ` · image ${reply.width} × ${reply.height}`}
        ${this.range === null ? '' : ` · range ${formatNs(this.range.startNs, 6)}–${formatNs(this.range.endNs, 6)}`}</div>
      <div class="view">
        <canvas class="image" role="img" aria-label="Warps on screen" @pointerdown=${this.onPointerDown} @pointermove=${this.onPointerMove} @pointerup=${this.onPointerUp}
          @pointercancel=${this.onPointerUp} @dblclick=${() => this.clearBrush()}></canvas>
        ${this.brushBox()}
      </div>
      ${reply === null ? html`<div class="muted">Rasterizing…</div>` : legendTemplate(reply.legend, reply.shown, reply.positioned)}
      <div class="row">
        <button class="play" @click=${this.togglePlay} ?disabled=${span === null} aria-label=${this.playing ? 'Pause' : 'Play through the frame'}>${this.playing ? '❚❚' : '▶'}</button>
        <input type="range" class="until" aria-label="Show warps started by" min=${span?.startNs ?? 0} max=${span?.endNs ?? 1} step="any"
          .value=${String(span === null ? 1 : Math.min(this.untilNs, span.endNs))} ?disabled=${span === null} @input=${this.onSlider} />
        <span class="time">${span === null ? '' : this.untilNs === Infinity ? 'all' : `+${formatNs(this.untilNs - span.startNs)}`}</span>
      </div>
      <div class="row muted brush-info">
        ${this.brush === null
          ? 'Drag on the image to highlight warps on the timeline'
          : html`Brushed ${this.brush.width} × ${this.brush.height} px at ${this.brush.x}, ${this.brush.y}
              <button class="clear-brush" @click=${() => this.clearBrush()}>Clear</button>`}
      </div>
      ${this.error === null ? nothing : html`<div class="warning">${this.error}</div>`}
    `;
  }

  /** The brushed rectangle over the canvas, in CSS pixels. */
  private brushBox() {
    const b = this.brush;
    const canvas = this.canvas;
    const image = this.image;
    if (b === null || canvas === null || image === null) return nothing;
    const sx = canvas.clientWidth / image.reply.width;
    const sy = canvas.clientHeight / image.reply.height;
    return html`<div class="brush" style="left:${canvas.offsetLeft + b.x * sx}px;top:${canvas.offsetTop + b.y * sy}px;width:${b.width * sx}px;height:${b.height * sy}px"></div>`;
  }
}

customElements.define('wt-screen-panel', WtScreenPanel);
declare global {
  interface HTMLElementTagNameMap {
    'wt-screen-panel': WtScreenPanel;
  }
}
