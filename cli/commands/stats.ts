import { formatNs, formatShare } from '../../analysis/index.js';
import { CSV_TABLES, summaryCsvChunks, type CsvTable } from '../../analysis/export/csv.js';
import { drawReport, summaryJsonChunks } from '../../analysis/export/json.js';
import { summaryToMarkdown } from '../../analysis/export/markdown.js';
import { InputError, UsageError, parseCommandArgs, type Command } from '../command.js';
import { checkOutputs } from '../files.js';
import { deliver, integerOption, loadTraceOrSummary, missingSection, THRESHOLD_OPTION, thresholdHelp, thresholdsFrom } from './analysis-shared.js';

const FORMATS = ['md', 'json', 'csv'] as const;

export const statsCommand: Command = {
  name: 'stats',
  summary: 'analyze a trace: per-stage/per-draw statistics, occupancy, syncs, leftover warps, stalls',
  help: `usage: warptrace stats FILE [--format md|json|csv] [--draw N] [--table T] [-o OUT [--force]]
                       [--threshold NAME=VALUE]...

Runs every analysis on FILE (.wtrace, .wtraw or warptrace JSON) and prints:
per stage and per draw × stage warp counts, warp-time, duration mean, median,
p90, p99, max, stddev and histogram, active lanes, SMs used; occupancy (most
warps in flight at once on one SM, time-weighted means, capacity); draw
overlap and gaps; and the findings: driver syncs, leftover warps, long-warp
stalls, occupancy caps. Stderr warns when SM clocks are not aligned (cross-SM
results are then unreliable) or records were dropped. A trace with block
profiles, marks or ray events adds sections for them (JSON "blocks",
"phases", "rays"; Markdown "Block profile", "Phases", "Ray events"). FILE may
also be a summary saved with --format json (re-rendered as it is, thresholds
unchanged).

Options:
  --format F      md (default: a report to read or paste into a review),
                  json (the versioned summary, schema in analysis/README.md),
                  csv (one table, see --table)
  --draw N        only draw N (its stages, occupancy and findings)
  --table T       csv table: stages (default), draws, draw-stages, findings;
                  for traces with them: blocks (each profiled draw's 10 hottest
                  source lines, then the 20 hottest over all), phases (between
                  marks, per draw and stage), rays (per trace-rays call:
                  launches, size, ray-event totals), passes (traces with
                  regions: each pass's span, busy time, warp-time, share)
  -o, --output OUT  write to OUT (atomically) instead of standard output
  --force         replace OUT if it exists
  --threshold NAME=VALUE   change a detector threshold (repeatable):
${thresholdHelp()}
  -h, --help

Examples:
  warptrace stats frame.wtrace
  warptrace stats frame.wtrace --format csv --table draws -o draws.csv
  warptrace stats frame.wtrace --draw 2 --threshold syncMinGapNs=500

Exit status: 0 ok, 1 unreadable or invalid file (or no such draw), 2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      format: { type: 'string' },
      draw: { type: 'string' },
      table: { type: 'string' },
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
      threshold: THRESHOLD_OPTION,
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const format = values.format ?? 'md';
    if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${format}"`);
    const table = (values.table ?? 'stages') as CsvTable;
    if (!CSV_TABLES.includes(table)) throw new UsageError(`--table must be one of ${CSV_TABLES.join(', ')}, got "${values.table}"`);
    if (values.table !== undefined && format !== 'csv') throw new UsageError('--table applies to --format csv only');
    const draw = integerOption(values.draw, '--draw');
    const thresholds = thresholdsFrom(values.threshold);
    if (values.output !== undefined) checkOutputs([{ option: '-o', path: values.output }], positionals, values.force === true);

    const { summary } = loadTraceOrSummary(positionals[0]!, thresholds);
    if (draw !== undefined && draw >= summary.draws.length) {
      throw new InputError(`no draw ${draw}: the trace has ${summary.draws.length} draw${summary.draws.length === 1 ? '' : 's'}${summary.draws.length > 0 ? ` (0..${summary.draws.length - 1})` : ''}`);
    }
    const missing = format === 'csv' ? missingSection(summary, table) : null;
    if (missing !== null) throw new InputError(`${positionals[0]}: ${missing}`);
    let text: Iterable<string>;
    if (format === 'json') text = summaryJsonChunks(draw === undefined ? summary : drawReport(summary, draw));
    else if (format === 'csv') text = summaryCsvChunks(summary, table, draw);
    else text = [summaryToMarkdown(summary, { draw })];
    await deliver(text, values.output, values.force === true, io);
    // After the report: a failed write is one line, not warnings about a report nobody got.
    for (const warning of summary.reliability.warnings) io.err(`warning: ${warning}`);
    if (summary.sampling !== undefined) io.err(`sampled: ${summary.sampling.description}; counts and warp-times of sampled stages are estimates, figures that need every warp are withheld`);
    if (values.output !== undefined) {
      const lost = summary.syncs.totalNs + summary.idle.totalNs + summary.leftovers.totalNs + summary.stalls.totalNs;
      if (summary.sampling !== undefined) io.err(`${summary.findings.length} findings; sampled trace (${summary.sampling.description}): syncs, idle windows, leftover tails and stalls withheld`);
      else io.err(`${summary.findings.length} findings; syncs, idle windows, leftover tails and stalls cost ${formatNs(lost)} (${formatShare(summary.frame.spanNs > 0 ? lost / summary.frame.spanNs : 0)} of the frame)`);
    }
    return 0;
  },
};
