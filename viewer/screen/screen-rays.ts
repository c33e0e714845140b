/**
 * The screen panel's ray metrics: which ray-event row it shows, the notes that
 * say what a picture cannot (mixed launch sizes, no launch, lower bounds,
 * dropped events), and the ray legend. Trace strings are rendered as text only.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { RAY_METRIC_EVENT, type RayScreenMetric } from '../../analysis/ray-events.js';
import { formatPerPixel } from '../../analysis/ray-screen.js';
import { formatShare } from '../../analysis/format.js';
import { RAY_EVENTS, RAY_EVENT_LABELS, type RayEventProfile, type RayEventRow } from '../../shared-schema/ray-event-model.js';
import type { RayImageReply } from './screen-protocol.js';

/** A ray-event row and its index in rayEvents.rows. */
export interface RayPick {
  readonly index: number;
  readonly row: RayEventRow;
}

/**
 * The row a ray metric shows: the selected draw's, else the shown draw's (the
 * draw the warp image centres on); in a trace without positioned warps and no
 * draw selected, the first row.
 */
export function rayPick(profile: RayEventProfile | null | undefined, selectedDraw: number, shownDraw: number, positioned: boolean): RayPick | null {
  const rows = profile?.rows ?? [];
  for (const draw of [selectedDraw, shownDraw]) {
    const index = draw < 0 ? -1 : rows.findIndex((r) => r.draw === draw);
    if (index >= 0) return { index, row: rows[index]! };
  }
  return !positioned && selectedDraw < 0 && rows.length > 0 ? { index: 0, row: rows[0]! } : null;
}

/** The row makes a picture: a grid (one launch size, small enough for a row) and a launch. */
export function hasPicture(row: RayEventRow): boolean {
  return row.grid !== null && row.launches > 0;
}

const count = (n: number) => n.toLocaleString('en-US');

/** Why a ray metric shows no picture, or what to keep in mind reading it; empty when nothing needs saying. */
export function rayNotes(profile: RayEventProfile, pick: RayPick | null, metric: RayScreenMetric, selectedDraw: number): string[] {
  const notes: string[] = [];
  if (pick === null) {
    const draws = profile.rows.map((r) => r.draw);
    const which = selectedDraw >= 0 ? `Draw ${selectedDraw} has` : 'The draw shown has';
    const list = draws.length <= 12 ? draws.join(', ') : `${draws.slice(0, 12).join(', ')} …`;
    notes.push(`${which} no ray events (not a profiled trace-rays call); draws with ray events: ${list}.`);
    return notes;
  }
  const { row } = pick;
  if (row.mixedSizes) notes.push(`Launches of different sizes (up to ${launchSize(row)}) shared draw ${row.draw}'s row: totals only, no picture.`);
  else if (row.launches === 0) notes.push(`No launch of draw ${row.draw} counted into its row: nothing to show.`);
  else if (row.grid === null) notes.push(`Draw ${row.draw}'s launch (${launchSize(row)}) was too large for a row: its events were dropped.`);
  else if (row.launchDepth > 1) notes.push(`Layer 0 of ${row.launchDepth} shown.`);
  if (RAY_METRIC_EVENT[metric] === 'uselessAnyHits' && profile.uncountedTraversals > 0) {
    notes.push(
      `Useless any-hits are a lower bound: ${count(profile.uncountedTraversals)} traversals were not counted (no scratch entry for their pixel, or a trace instruction other than OpTraceRayKHR).`,
    );
  }
  if (profile.dropped > 0) notes.push(`${count(profile.dropped)} events could not be counted (a row past the table, or a launch too large): the counts are short.`);
  return notes;
}

export function launchSize(row: RayEventRow): string {
  return `${row.launchWidth} × ${row.launchHeight}${row.launchDepth > 1 ? ` × ${row.launchDepth}` : ''}`;
}

/** The row's totals per event: all there is with mixed sizes. */
export function rayTotalsTemplate(row: RayEventRow): TemplateResult {
  return html`<table class="ray-totals">
    <caption class="muted">Draw ${row.draw}: ${count(row.launches)} launch${row.launches === 1 ? '' : 'es'}, totals</caption>
    ${RAY_EVENTS.map((e) => html`<tr><th scope="row">${RAY_EVENT_LABELS[e]}</th><td>${count(row.totals[e])}</td></tr>`)}
  </table>`;
}

/** The ray legend: the ramp between the ends, what the cells are, and the event over the row. */
export function rayLegendTemplate(reply: RayImageReply): TemplateResult {
  const { legend, stat } = reply;
  const side = 2 ** reply.scale;
  const cells = side === 1 ? 'one cell per pixel' : `cells of ${side} × ${side} px`;
  return html`<div class="legend ray" title=${legend.text}>
      <span class="min">${legend.minText}</span><canvas class="ramp" aria-hidden="true"></canvas><span class="max">${legend.maxText}</span>
      <span class="caption muted">${legend.label} · ${legend.colormap} · ${cells} · mean of ${count(reply.launches)} launch${reply.launches === 1 ? '' : 'es'}</span>
    </div>
    <div class="muted ray-stat">
      ${stat.label}: ${count(stat.total)} in all${stat.perPixel === null ? nothing : html` · ${formatPerPixel(stat.perPixel)} per pixel`}${stat.pixelShare === null
        ? nothing
        : html` · ${formatShare(stat.pixelShare)} of pixels have any${reply.scale > 0 ? ' (of their cells)' : ''}`}
    </div>`;
}
