import { rayProfileSummary, type RayEventStat, type RayProfileSummary, type RayRowSummary } from '../../analysis/ray-events.js';
import { formatPerPixel } from '../../analysis/ray-screen.js';
import { csvField, mdText } from '../../analysis/export/escape.js';
import { formatShare } from '../../analysis/format.js';
import type { Trace } from '../../shared-schema/index.js';
import { InputError, UsageError, parseCommandArgs, reportFormat, type Command, type ReportFormat } from '../command.js';
import { readTraceFile } from '../files.js';
import { formatTable } from '../table.js';
import { drawRange } from './blocks.js';

export type RaysFormat = ReportFormat;

export const raysCommand: Command = {
  name: 'rays',
  summary: 'ray events: per trace-rays draw, rays, intersection and any-hit calls, useless any-hits per launch pixel',
  help: `usage: warptrace rays FILE [--draw N|A..B] [--json | --csv | --md]

Prints, for captures with ray events (capture or instrument --ray-events), per
profiled trace-rays draw: its launches and launch size, and per event (trace
calls, intersection, any-hit, closest-hit, miss and callable invocations,
any-hits that ignored their hit, useless any-hits: accepted hits a closer hit
replaced) the total, the mean per launch pixel and launch, the largest cell's
mean per pixel (the largest pixel's when a cell is a pixel) and the share of
launch pixels that had any (of their cells, when cells bin several pixels);
then the share of accepted any-hits that were useless. A draw whose launches
had different sizes shows totals only. Uncounted traversals (useless any-hits
are then a lower bound), dropped events and launches that got no row are
reported. warptrace export --screen draws the per-pixel heat maps.

Options:
  --draw N|A..B   only draw N, or draws A to B (inclusive); default: all
  --json          the summary as JSON
  --csv           one line per draw and event, as CSV
  --md            the tables as Markdown
  -h, --help

Examples:
  warptrace rays frame.wtrace
  warptrace rays capture.wtraw --draw 3 --md
  warptrace export frame.wtrace --screen useless-any-hits -o useless.png

Exit status: 0 ok, 1 unreadable file, no ray events, or no such draw,
2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      draw: { type: 'string' },
      json: { type: 'boolean' },
      csv: { type: 'boolean' },
      md: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const range = values.draw === undefined ? null : drawRange(values.draw);
    const format: RaysFormat = reportFormat(values);
    const file = positionals[0]!;
    io.out(raysReport(readTraceFile(file), file, range, format));
    return 0;
  },
};

/** The report of `trace`'s ray events over the draws `range` (inclusive; null: all); InputError without ray events or with no such draw. */
export function raysReport(trace: Trace, file: string, range: readonly [number, number] | null, format: RaysFormat): string {
  const profile = trace.rayEvents ?? null;
  if (profile === null) throw new InputError(`${file}: no ray events (capture with --ray-events)`);
  if (range !== null && range[0] >= trace.draws.length) {
    throw new InputError(`no draw ${range[0]}: the trace has ${trace.draws.length} draw${trace.draws.length === 1 ? '' : 's'}`);
  }
  const draws = range === null ? null : new Set(Array.from({ length: Math.min(range[1], trace.draws.length - 1) - range[0] + 1 }, (_, k) => range[0] + k));
  const summary = rayProfileSummary(profile, { draws });
  const label = (draw: number) => trace.draws[draw]?.label ?? '';
  switch (format) {
    case 'json':
      return JSON.stringify({ ...summary, rows: summary.rows.map((r) => ({ ...r, label: label(r.draw) })) }, null, 2);
    case 'csv':
      return csvLines(summary, label).join('\n');
    case 'md':
      return markdown(summary, label);
    case 'text':
      return [...headLines(summary), ...summary.rows.flatMap((r) => ['', rowTitle(r, label(r.draw)), formatTable(HEADERS, r.events.map(cells)), uselessLine(r, summary)])].join('\n');
  }
}

const n = (v: number) => v.toLocaleString('en-US');
const perPixel = (v: number | null) => (v === null ? '–' : formatPerPixel(v));
const HEADERS = ['event', 'total', 'per pixel', 'largest cell', 'pixels with any'];

function cells(e: RayEventStat): (string | number)[] {
  return [e.label, e.total, perPixel(e.perPixel), perPixel(e.maxPerPixel), formatShare(e.pixelShare)];
}

function headLines(s: RayProfileSummary): string[] {
  const draws = s.rows.map((r) => r.draw);
  const lines = [`${n(s.rows.length)} trace-rays draw${s.rows.length === 1 ? '' : 's'} with ray events${draws.length > 0 ? `: ${draws.join(', ')}` : ''}`];
  if (s.unprofiledLaunches > 0) lines.push(`${n(s.unprofiledLaunches)} traced trace-rays calls got no row (the ray-event table was full)`);
  if (s.dropped > 0) lines.push(`${n(s.dropped)} events could not be counted (a row past the table, or a launch too large for a row): the counts are short`);
  if (s.uselessLowerBound) {
    lines.push(`${n(s.uncountedTraversals)} traversals were not counted for useless any-hits (no scratch entry for their pixel, or a trace other than OpTraceRayKHR): useless any-hits are a lower bound`);
  }
  return lines;
}

function rowTitle(r: RayRowSummary, label: string): string {
  const size = `${r.launchWidth} × ${r.launchHeight}${r.launchDepth > 1 ? ` × ${r.launchDepth}` : ''}`;
  const name = label === '' ? `draw ${r.draw}` : `draw ${r.draw} ${JSON.stringify(label)}`;
  const launches = `${n(r.launches)} launch${r.launches === 1 ? '' : 'es'}`;
  if (r.mixedSizes) return `${name}: ${launches} of different sizes (up to ${size}): totals only`;
  const cellsText = r.scale === null ? 'no cells' : r.scale === 0 ? 'a cell per pixel' : `cells of ${2 ** r.scale} × ${2 ** r.scale} px`;
  return `${name}: ${launches} of ${size} (${cellsText})`;
}

function uselessLine(r: RayRowSummary, s: RayProfileSummary): string {
  if (r.uselessShare === null) return 'useless any-hits: no any-hit accepted its hit';
  const useless = r.events.find((e) => e.event === 'uselessAnyHits')!.total;
  return `useless any-hits: ${formatShare(r.uselessShare)} of the accepted any-hits (${n(useless)} of ${n(r.acceptedAnyHits)})${s.uselessLowerBound ? ', at least' : ''}`;
}

function csvLines(s: RayProfileSummary, label: (draw: number) => string): string[] {
  const header = ['draw', 'label', 'launches', 'width', 'height', 'depth', 'mixed_sizes', 'scale', 'event', 'total', 'per_pixel', 'max_per_pixel', 'pixel_share', 'accepted_any_hits', 'useless_share'];
  return [
    header.join(','),
    ...s.rows.flatMap((r) =>
      r.events.map((e) =>
        [r.draw, label(r.draw), r.launches, r.launchWidth, r.launchHeight, r.launchDepth, r.mixedSizes, r.scale, e.event, e.total, e.perPixel, e.maxPerPixel, e.pixelShare, r.acceptedAnyHits, r.uselessShare]
          .map(csvField)
          .join(','),
      ),
    ),
  ];
}

function markdown(s: RayProfileSummary, label: (draw: number) => string): string {
  const lines = headLines(s).map(mdText);
  for (const r of s.rows) {
    lines.push('', `### ${mdText(rowTitle(r, label(r.draw)))}`, '', `| ${HEADERS.join(' | ')} |`, `|${HEADERS.map((_, k) => (k >= 1 ? ' ---: ' : ' --- ')).join('|')}|`);
    for (const e of r.events) lines.push(`| ${cells(e).map((c) => (typeof c === 'number' ? n(c) : mdText(c))).join(' | ')} |`);
    lines.push('', mdText(uselessLine(r, s)));
  }
  return lines.join('\n');
}
