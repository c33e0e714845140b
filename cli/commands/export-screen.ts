/**
 * `warptrace export --screen METRIC [--draw N] [--until NS] -o OUT.png`: the
 * screen view's image (analysis/screen-*.ts, the same pixels the viewer's
 * screen panel shows) as a PNG encoded by fast-png, with a one-line legend.
 */
import { encode } from 'fast-png';
import { busiestTargetDraw, drawSet, imageSize, positionedWarpsPerDraw, screenColumns } from '../../analysis/screen-columns.js';
import { SCREEN_METRICS, isScreenMetric, type ScreenMetric } from '../../analysis/screen-metric.js';
import { screenOrder } from '../../analysis/screen-order.js';
import { screenImage, type ScreenImage } from '../../analysis/screen-raster.js';
import { formatRanges, type Trace } from '../../shared-schema/index.js';
import { InputError, UsageError } from '../command.js';
import { integerOption } from './analysis-shared.js';

export const SCREEN_OPTIONS = {
  screen: { type: 'string' },
  draw: { type: 'string' },
  until: { type: 'string' },
  output: { type: 'string', short: 'o' },
} as const;

export const SCREEN_HELP = `  --screen METRIC -o OUT.png
                   where on screen the warps ran: each positioned warp's
                   footprint painted in start order (a pixel shows the warp
                   that started there last), coloured by METRIC: start
                   (execution order), duration, sm, lanes (active lanes /
                   subgroup size) or draw; viridis, grey where no warp ran.
                   Prints the legend. The trace must record screen positions.
  --draw N         --screen: only draw N (default: every draw of the render
                   target with the most positioned warps)
  --until NS       --screen: only warps started by NS (ns since the capture
                   origin): the frame as it stood then`;

export interface ScreenExportSpec {
  readonly metric: ScreenMetric;
  readonly draw: number | undefined;
  readonly untilNs: number | undefined;
  readonly path: string;
}

/** The --screen request from the command line, null when not asked for; usage errors for a bad or incomplete one. */
export function screenExportSpec(values: { screen?: string; draw?: string; until?: string; output?: string }): ScreenExportSpec | null {
  if (values.screen === undefined) {
    for (const [option, value] of [['--draw', values.draw], ['--until', values.until], ['-o/--output', values.output]] as const) {
      if (value !== undefined) throw new UsageError(`${option} goes with --screen METRIC`);
    }
    return null;
  }
  const metric = values.screen;
  if (!isScreenMetric(metric)) throw new UsageError(`--screen expects one of ${SCREEN_METRICS.join(', ')}, not ${JSON.stringify(metric)}`);
  if (values.output === undefined) throw new UsageError('--screen needs -o OUT.png');
  let untilNs: number | undefined;
  if (values.until !== undefined) {
    untilNs = Number(values.until.trim());
    if (values.until.trim() === '' || !Number.isFinite(untilNs)) throw new UsageError(`--until expects a time in ns, got "${values.until}"`);
  }
  return { metric, draw: integerOption(values.draw, '--draw'), untilNs, path: values.output };
}

export interface ScreenExport {
  readonly png: Uint8Array;
  readonly image: ScreenImage;
  /** The draws shown ("3" or "0-14, 16"). */
  readonly draws: string;
}

/** The image `spec` asks for, as PNG bytes; InputError when the trace has no positions or the draw none. */
export function renderScreenExport(trace: Trace, spec: ScreenExportSpec, file: string): ScreenExport {
  const cols = screenColumns(trace.warps);
  if (cols === null) throw new InputError(`${file}: the trace records no screen positions (warps.position), so it has no screen image`);
  const counts = positionedWarpsPerDraw(cols, trace.draws.length);
  let mask: Uint8Array;
  if (spec.draw !== undefined) {
    if (spec.draw >= trace.draws.length) throw new InputError(`--draw ${spec.draw}: the trace has ${trace.draws.length} draws (0-${trace.draws.length - 1})`);
    if (counts[spec.draw] === 0) throw new InputError(`--draw ${spec.draw}: no warp of that draw has a screen position`);
    mask = drawSet(trace.draws, spec.draw, false);
  } else {
    mask = drawSet(trace.draws, busiestTargetDraw(trace.draws, counts), true);
  }
  const order = screenOrder(cols, mask);
  const size = imageSize(trace.draws, cols, order.rows);
  const image = screenImage(cols, order, { metric: spec.metric, size, subgroupSize: trace.device.subgroupSize, untilNs: spec.untilNs ?? Infinity });
  const rgb = new Uint8Array(size.width * size.height * 3);
  for (let p = 0, q = 0; q < rgb.length; p += 4, q += 3) {
    rgb[q] = image.rgba[p]!;
    rgb[q + 1] = image.rgba[p + 1]!;
    rgb[q + 2] = image.rgba[p + 2]!;
  }
  const png = encode({ width: size.width, height: size.height, data: rgb, channels: 3, depth: 8, text: { Description: latin1(image.legend.text), Software: 'warptrace' } });
  const shown: number[] = [];
  for (let d = 0; d < mask.length; d++) if (mask[d] === 1 && counts[d]! > 0) shown.push(d);
  return { png, image, draws: formatRanges(shown) };
}

/** PNG text chunks hold Latin-1: arrows become "->", anything else outside it "?". */
function latin1(text: string): string {
  return text.replace(/→/g, '->').replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '?');
}
