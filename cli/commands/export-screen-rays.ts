/**
 * `warptrace export --screen RAY-METRIC`: a trace-rays draw's ray events per
 * launch pixel (analysis/ray-events.ts, ray-screen.ts: the viewer's screen
 * panel shows the same pixels) as a PNG at the launch's size.
 */
import { RAY_METRIC_EVENT, rayHeatGrid, type RayScreenMetric } from '../../analysis/ray-events.js';
import { rayGridCaption, rayHeatImage } from '../../analysis/ray-screen.js';
import type { RayEventProfile, RayEventRow, Trace } from '../../shared-schema/index.js';
import { InputError } from '../command.js';
import type { ScreenExport } from './export-screen.js';
import { encodePng } from './png.js';

/** The row `draw` asks for, or by default the row with a picture with the most trace calls (ties: the earlier draw). */
export function rayExportRow(profile: RayEventProfile, draw: number | undefined, file: string): RayEventRow {
  if (draw === undefined) {
    let best: RayEventRow | null = null;
    for (const row of profile.rows) {
      const picture = row.grid !== null && row.launches > 0;
      if (picture && (best === null || row.totals.traceCalls > best.totals.traceCalls)) best = row;
    }
    if (best === null) {
      const why = profile.rows.length === 0 ? 'no trace-rays call was profiled' : 'no row makes a picture (mixed launch sizes, no launch, or a launch too large)';
      throw new InputError(`${file}: the ray-event profile has nothing to draw: ${why}`);
    }
    return best;
  }
  const row = profile.rows.find((r) => r.draw === draw);
  if (row === undefined) {
    const draws = profile.rows.map((r) => r.draw);
    throw new InputError(`--draw ${draw}: no ray events for that draw (draws with ray events: ${draws.length === 0 ? 'none' : draws.join(', ')})`);
  }
  return row;
}

export function renderRayExport(trace: Trace, metric: RayScreenMetric, draw: number | undefined, file: string): ScreenExport {
  const profile = trace.rayEvents ?? null;
  if (profile === null) throw new InputError(`${file}: the trace has no ray events (capture with --ray-events), so it has no ${metric} image`);
  const row = rayExportRow(profile, draw, file);
  const event = RAY_METRIC_EVENT[metric];
  if (row.mixedSizes) throw new InputError(`draw ${row.draw}: launches of different sizes shared its row: totals only, no picture (see warptrace rays)`);
  const heat = rayHeatGrid(row, row.counts[event], 0);
  if (heat === null) {
    const why = row.launches === 0 ? 'no launch counted into its row' : 'its launch was too large for a row (its events were dropped)';
    throw new InputError(`draw ${row.draw}: ${why}, so it has no picture`);
  }
  const image = rayHeatImage(metric, heat);
  const warnings: string[] = [];
  if (row.launchDepth > 1) warnings.push(`draw ${row.draw}'s launch has ${row.launchDepth} layers: the image shows layer 0`);
  if (event === 'uselessAnyHits' && profile.uncountedTraversals > 0) {
    warnings.push(`useless any-hits are a lower bound: ${profile.uncountedTraversals.toLocaleString('en-US')} traversals were not counted (no scratch entry for their pixel, or a trace other than OpTraceRayKHR)`);
  }
  if (profile.dropped > 0) warnings.push(`${profile.dropped.toLocaleString('en-US')} ray events could not be counted (a row past the table, or a launch too large): the counts are short`);
  return {
    png: encodePng(image.width, image.height, image.rgba, image.legend.text),
    width: image.width,
    height: image.height,
    legend: image.legend,
    what: `draw ${row.draw}'s launch (${rayGridCaption(heat)})`,
    warnings,
  };
}
