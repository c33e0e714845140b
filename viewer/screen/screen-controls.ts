/**
 * The screen panel's selectors: colour by (the warp metrics, and the ray
 * metrics when the trace has ray events), the stage filter (only stages whose
 * warps record positions: fragment, every ray-tracing stage, ray generation
 * before and after a reorder included, compute), the draw, and the time slider.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { RAY_METRIC_LABELS, RAY_SCREEN_METRICS, isRayScreenMetric, type RayScreenMetric } from '../../analysis/ray-events.js';
import { SCREEN_METRICS, SCREEN_METRIC_LABELS, isScreenMetric, type ScreenMetric } from '../../analysis/screen-metric.js';
import { busiestDraws, busiestTargetDraw, positionedWarpsPerDraw, positionedWarpsPerStage, type ScreenColumns, type ScreenDraw, type TargetSize } from '../../analysis/screen-columns.js';
import { STAGES } from '../../shared-schema/stages.js';
import { formatNs } from '../../shared-schema/units.js';

export type PanelMetric = ScreenMetric | RayScreenMetric;

export function isPanelMetric(value: string): value is PanelMetric {
  return isScreenMetric(value) || isRayScreenMetric(value);
}

export interface MetricChoices {
  readonly metric: PanelMetric;
  /** The trace has positioned warps (the warp metrics have something to show). */
  readonly positioned: boolean;
  /** The trace has ray events: the ray metrics are listed. */
  readonly rays: boolean;
  /** The draw a ray metric would show (-1: none: the ray metrics are listed but disabled). */
  readonly rayDraw: number;
}

export function metricSelect(c: MetricChoices, pick: (metric: PanelMetric) => void): TemplateResult {
  const onChange = (e: Event) => {
    const v = (e.target as HTMLSelectElement).value;
    if (isPanelMetric(v)) pick(v);
  };
  const noRow = 'Select a profiled trace-rays draw (instrument --ray-events)';
  return html`<select class="metric" aria-label="Color by" @change=${onChange}>
    <optgroup label="Warps">
      ${SCREEN_METRICS.map((m) => html`<option value=${m} ?selected=${m === c.metric} ?disabled=${!c.positioned}>${SCREEN_METRIC_LABELS[m]}</option>`)}
    </optgroup>
    ${c.rays
      ? html`<optgroup label=${c.rayDraw < 0 ? 'Ray events (no row for this draw)' : `Ray events of draw ${c.rayDraw}`}>
          ${RAY_SCREEN_METRICS.map(
            (m) => html`<option value=${m} ?selected=${m === c.metric} ?disabled=${c.rayDraw < 0} title=${c.rayDraw < 0 ? noRow : ''}>${RAY_METRIC_LABELS[m]}</option>`,
          )}
        </optgroup>`
      : nothing}
  </select>`;
}

/**
 * The stage filter: every stage, or one whose warps have positions (the lanes
 * metric of one ray-tracing stage is its SIMT efficiency per pixel). Shown only
 * when more than one stage has positioned warps.
 */
export function stageSelect(perStage: Uint32Array, stage: number, disabled: boolean, pick: (stage: number) => void): TemplateResult | typeof nothing {
  const present = STAGES.filter((s) => (perStage[s.code] ?? 0) > 0);
  if (present.length < 2) return nothing;
  return html`<select class="stage" aria-label="Stage" ?disabled=${disabled} title="Only the warps of one stage (those that record positions)"
    @change=${(e: Event) => pick(Number((e.target as HTMLSelectElement).value))}>
    <option value="-1" ?selected=${stage < 0}>every stage</option>
    ${present.map((s) => html`<option value=${s.code} ?selected=${s.code === stage}>${s.label} (${s.title}): ${perStage[s.code]!.toLocaleString('en-US')} warps</option>`)}
  </select>`;
}

/** Draws the draw selector lists (the panel's MAX_DRAW_OPTIONS busiest, traced rays, the selected one). */
export interface DrawChoices {
  readonly draws: readonly { readonly label: string }[];
  readonly options: readonly number[];
  /** The draw the image shows (-1: none). */
  readonly shown: number;
  /** The shown draw is the selected one (else the first entry says why not). */
  readonly following: boolean;
  readonly selectedDraw: number;
  readonly ray: boolean;
}

export function drawSelect(c: DrawChoices, picked: (e: Event) => void): TemplateResult {
  const d = c.selectedDraw;
  const fallback = c.ray ? (d < 0 ? 'no draw selected' : `draw ${d} has no ray events`) : `${d < 0 ? 'no draw selected' : `draw ${d} has no positions`}: the main target`;
  return html`<select class="draw" aria-label="Draw" title="The draws with the most positioned warps, and those with ray events; select any other in the draw list or on the timeline"
    .value=${String(c.following ? c.shown : -1)} @change=${picked}>
    <option value="-1" ?selected=${!c.following}>${fallback}</option>
    ${c.options.map((o) => html`<option value=${o} ?selected=${c.following && o === c.shown}>#${o} ${c.draws[o]!.label}</option>`)}
  </select>`;
}

/** "1920 × 1080 · image 1920 × 1080 · range 1.2 ms–1.4 ms". */
export function targetLine(target: TargetSize | null, image: TargetSize | null, range: { readonly startNs: number; readonly endNs: number } | null): string {
  const size = target === null ? 'target size unknown' : `${target.width} × ${target.height}`;
  return `${size}${image === null ? '' : ` · image ${image.width} × ${image.height}`}${range === null ? '' : ` · range ${formatNs(range.startNs, 6)}–${formatNs(range.endNs, 6)}`}`;
}

export interface TimeState {
  /** First start and last end of the shown warps; null: none (or a ray metric, counted over the whole launch). */
  readonly span: { readonly startNs: number; readonly endNs: number } | null;
  readonly untilNs: number;
  readonly playing: boolean;
  readonly ray: boolean;
}

/** ▶, the time slider and the time shown. */
export function timeRow(c: TimeState, togglePlay: () => void, slid: (e: Event) => void): TemplateResult {
  const span = c.span;
  return html`<div class="row">
    <button class="play" @click=${togglePlay} ?disabled=${span === null} aria-label=${c.playing ? 'Pause' : 'Play through the frame'}>${c.playing ? '❚❚' : '▶'}</button>
    <input type="range" class="until" aria-label="Show warps started by" min=${span?.startNs ?? 0} max=${span?.endNs ?? 1} step="any"
      .value=${String(span === null ? 1 : Math.min(c.untilNs, span.endNs))} ?disabled=${span === null} @input=${slid}
      title=${c.ray ? 'Ray events are counted over the whole launch' : ''} />
    <span class="time">${span === null ? '' : c.untilNs === Infinity ? 'all' : `+${formatNs(c.untilNs - span.startNs)}`}</span>
  </div>`;
}

/**
 * What the selectors list: positioned warps per draw and per stage, the draw of the busiest
 * target, and the draws to offer (the `limit` busiest, and `rayDraws`), ascending.
 */
export function positionedCounts(
  cols: ScreenColumns | null,
  draws: readonly ScreenDraw[],
  rayDraws: readonly number[],
  limit: number,
): { perDraw: Uint32Array; perStage: Uint32Array; busiestDraw: number; options: number[] } {
  const perDraw = cols === null ? new Uint32Array(0) : positionedWarpsPerDraw(cols, draws.length);
  const perStage = cols === null ? new Uint32Array(0) : positionedWarpsPerStage(cols);
  const options = [...new Set([...busiestDraws(perDraw, limit), ...rayDraws])].sort((a, b) => a - b);
  return { perDraw, perStage, busiestDraw: busiestTargetDraw(draws, perDraw), options };
}
