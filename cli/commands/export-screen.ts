/**
 * `warptrace export --screen METRIC [--draw N] [--until NS] [--stage S] -o OUT.png`:
 * the screen view's image (analysis/screen-*.ts, the same pixels the viewer's
 * screen panel shows) as a PNG encoded by fast-png, with a one-line legend.
 * Ray metrics (analysis/ray-*.ts) draw a trace-rays draw's ray events per
 * launch pixel instead (export-screen-rays.ts).
 */
import { busiestTargetDraw, drawSet, imageSize, positionedWarpsPerDraw, positionedWarpsPerStage, screenColumns, stageSet } from '../../analysis/screen-columns.js';
import { footprintSpread, spreadNotes } from '../../analysis/screen-spread.js';
import { SCREEN_METRICS, isScreenMetric, type ScreenLegend, type ScreenMetric } from '../../analysis/screen-metric.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { screenImage } from '../../analysis/screen-raster.js';
import { RAY_SCREEN_METRICS, isRayScreenMetric, type RayScreenMetric } from '../../analysis/ray-events.js';
import { STAGES, formatRanges, parseStageName, type Trace } from '../../shared-schema/index.js';
import { InputError, UsageError } from '../command.js';
import { integerOption } from './analysis-shared.js';
import { renderRayExport } from './export-screen-rays.js';
import { encodePng } from './png.js';

export const SCREEN_OPTIONS = {
  screen: { type: 'string' },
  draw: { type: 'string' },
  until: { type: 'string' },
  stage: { type: 'string' },
  output: { type: 'string', short: 'o' },
} as const;

export const SCREEN_HELP = `  --screen METRIC -o OUT.png
                   where on screen the warps ran: each positioned warp's
                   footprint painted in start order (a pixel shows the warp
                   that started there last), coloured by METRIC: start
                   (execution order), duration, sm, lanes (active lanes /
                   subgroup size) or draw; viridis, grey where no warp ran.
                   Or a trace-rays draw's ray events per launch pixel
                   (captures with --ray-events), at the launch's size:
                   ${RAY_SCREEN_METRICS.slice(0, 4).join(', ')},
                   ${RAY_SCREEN_METRICS.slice(4).join(', ')}.
                   Prints the legend. Warp metrics need screen positions.
  --draw N         --screen: only draw N (default: every draw of the render
                   target with the most positioned warps; ray metrics: the
                   trace-rays draw with the most rays that makes a picture)
  --until NS       --screen, warp metrics: only warps started by NS (ns since
                   the capture origin): the frame as it stood then
  --stage S[,S]    --screen, warp metrics: only warps of these stages (those
                   that record positions: FS, CS, and every ray-tracing stage:
                   RAYGEN, RAYGEN_REORDERED, INTERSECTION, ANY_HIT, CLOSEST_HIT,
                   MISS, CALLABLE, at their lanes' launch pixels); lanes of one
                   stage is its SIMT efficiency. A warning says when a stage's
                   lanes fill little of their footprints (hit and miss warps
                   gather rays from far-apart pixels)`;

export interface ScreenExportSpec {
  readonly metric: ScreenMetric | RayScreenMetric;
  readonly draw: number | undefined;
  readonly untilNs: number | undefined;
  /** Stage codes to show (empty: every stage). */
  readonly stages: readonly number[];
  readonly path: string;
}

/** The --screen request from the command line, null when not asked for; usage errors for a bad or incomplete one. */
export function screenExportSpec(values: { screen?: string; draw?: string; until?: string; stage?: string; output?: string }): ScreenExportSpec | null {
  if (values.screen === undefined) {
    for (const [option, value] of [['--draw', values.draw], ['--until', values.until], ['--stage', values.stage], ['-o/--output', values.output]] as const) {
      if (value !== undefined) throw new UsageError(`${option} goes with --screen METRIC`);
    }
    return null;
  }
  const metric = values.screen;
  if (!isScreenMetric(metric) && !isRayScreenMetric(metric)) {
    throw new UsageError(`--screen expects one of ${[...SCREEN_METRICS, ...RAY_SCREEN_METRICS].join(', ')}, not ${JSON.stringify(metric)}`);
  }
  if (values.output === undefined) throw new UsageError('--screen needs -o OUT.png');
  if (isRayScreenMetric(metric)) {
    // Ray events are counted over whole launches, of every stage: neither filter has a meaning.
    if (values.until !== undefined) throw new UsageError(`--until goes with the warp metrics, not ${metric} (ray events are counted over the whole launch)`);
    if (values.stage !== undefined) throw new UsageError(`--stage goes with the warp metrics, not ${metric}`);
  }
  let untilNs: number | undefined;
  if (values.until !== undefined) {
    untilNs = Number(values.until.trim());
    if (values.until.trim() === '' || !Number.isFinite(untilNs)) throw new UsageError(`--until expects a time in ns, got "${values.until}"`);
  }
  const stages = values.stage === undefined ? [] : values.stage.split(',').map((name) => stageCode(name.trim()));
  return { metric, draw: integerOption(values.draw, '--draw'), untilNs, stages, path: values.output };
}

function stageCode(name: string): number {
  const code = parseStageName(name);
  if (code === undefined) throw new UsageError(`--stage: unknown stage "${name}" (expected ${STAGES.map((s) => s.name).join(', ')})`);
  return code;
}

export interface ScreenExport {
  readonly png: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly legend: ScreenLegend;
  /** What the image shows: "1,234 warps of draws 0-14, 16", "draw 3's launch (2 launches, cells of 2 × 2 px)". */
  readonly what: string;
  /** What to keep in mind reading it (printed as warnings): lower bounds, short counts, footprints their lanes fill little of. */
  readonly warnings: readonly string[];
}

/** The image `spec` asks for, as PNG bytes; InputError when the trace has nothing to show for it. */
export function renderScreenExport(trace: Trace, spec: ScreenExportSpec, file: string): ScreenExport {
  const metric = spec.metric;
  if (isRayScreenMetric(metric)) return renderRayExport(trace, metric, spec.draw, file);
  const cols = screenColumns(trace.warps);
  if (cols === null) throw new InputError(`${file}: the trace records no screen positions (warps.position), so it has no screen image`);
  const stageMask = stageSet(spec.stages);
  if (stageMask !== null) {
    // Before anything else: a trace whose hit or miss shaders recorded no position (captured with --position rgen, or before they could).
    const perStage = positionedWarpsPerStage(cols);
    if (spec.stages.every((s) => perStage[s] === 0)) {
      const positioned = STAGES.filter((s) => perStage[s.code]! > 0).map((s) => s.name);
      throw new InputError(`--stage ${spec.stages.map((s) => STAGES[s]!.name).join(',')}: no warp of ${spec.stages.length === 1 ? 'that stage' : 'those stages'} has a screen position (stages with positions: ${positioned.join(', ')})`);
    }
  }
  // The busiest target of the stages asked for (a ray-traced pass's launch, not the raster target beside it).
  const counts = positionedWarpsPerDraw(cols, trace.draws.length, stageMask);
  let mask: Uint8Array;
  if (spec.draw !== undefined) {
    if (spec.draw >= trace.draws.length) throw new InputError(`--draw ${spec.draw}: the trace has ${trace.draws.length} draws (0-${trace.draws.length - 1})`);
    if (counts[spec.draw] === 0) throw new InputError(`--draw ${spec.draw}: no warp of that draw${stageMask === null ? '' : ' and --stage'} has a screen position`);
    mask = drawSet(trace.draws, spec.draw, false);
  } else {
    mask = drawSet(trace.draws, busiestTargetDraw(trace.draws, counts), true);
  }
  const order = screenOrder(cols, mask, stageMask);
  const size = imageSize(trace.draws, cols, order.rows);
  const image = screenImage(cols, order, { metric, size, subgroupSize: trace.device.subgroupSize, untilNs: spec.untilNs ?? Infinity });
  const shown: number[] = [];
  for (let d = 0; d < mask.length; d++) if (mask[d] === 1 && counts[d]! > 0) shown.push(d);
  const stages = spec.stages.length === 0 ? '' : ` (${spec.stages.map((s) => STAGES[s]!.name).join(', ')} only)`;
  return {
    png: encodePng(image.width, image.height, image.rgba, image.legend.text),
    width: image.width,
    height: image.height,
    legend: image.legend,
    what: `${image.shown.toLocaleString('en-US')} warps of draws ${formatRanges(shown)}${stages}`,
    warnings: spreadNotes(footprintSpread(cols, order.rows)),
  };
}
