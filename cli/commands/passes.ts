import { analyzeTrace } from '../../analysis/analyze.js';
import { mdText } from '../../analysis/export/escape.js';
import { jsonChunks } from '../../analysis/export/json-chunks.js';
import { summaryCsvChunks } from '../../analysis/export/csv.js';
import { PASS_HEADERS, PASS_TEXT_COLUMNS, passMarkdownTable, passTextRows, type PassTextRow } from '../../analysis/export/passes-report.js';
import { formatNs, formatNumber } from '../../analysis/format.js';
import { InputError, UsageError, parseCommandArgs, reportFormat, type Command } from '../command.js';
import { readTraceFile } from '../files.js';
import { deliver, integerOption } from './analysis-shared.js';

export const passesCommand: Command = {
  name: 'passes',
  summary: 'cost per pass: span, busy time, warp-time and share of the frame of every region (debug label, render pass)',
  help: `usage: warptrace passes FILE [--depth N] [--json | --csv | --md]

Prints the pass tree of FILE (.wtrace, .wtraw or JSON captured with the
capture layer, which records debug-label regions and render passes): every
region, nested, with the draws of its subtree, their warps, span (first warp
start to last warp end), busy time (time some warp of the pass ran on some SM:
the union over all SMs, so overlapping draws count once), warp-time (summed
warp durations), busy as a share of the frame, and the stages with the most
warp-time. Draws in no region are one more row, "(in no pass)".

Options:
  --depth N   only regions nested at most N deep (0: the top-level passes)
  --json      the section as JSON (the summary's "passes", every region)
  --csv       one row per region, then one for the draws in no region
              (times in ns, shares as fractions)
  --md        the table as Markdown (with --depth)
  -h, --help

Examples:
  warptrace passes frame.wtrace
  warptrace passes frame.wtrace --depth 0
  warptrace passes frame.wtrace --csv > passes.csv

Exit status: 0 ok, 1 unreadable file or no regions, 2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      depth: { type: 'string' },
      json: { type: 'boolean' },
      csv: { type: 'boolean' },
      md: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const format = reportFormat(values);
    const depth = integerOption(values.depth, '--depth') ?? null;
    const trace = readTraceFile(positionals[0]!);
    if (trace.regions.length === 0) throw new InputError(`${positionals[0]}: no regions (capture with the capture layer: debug labels or render passes)`);
    const summary = analyzeTrace(trace);
    const section = summary.passes!;
    if (format === 'json' || format === 'csv') {
      await deliver(format === 'json' ? jsonChunks(section) : summaryCsvChunks(summary, 'passes'), undefined, false, io);
      return 0;
    }
    const rows = passTextRows(section, depth);
    if (format === 'md') io.out(passMarkdownTable(rows, mdText).join('\n'));
    else io.out([`frame ${formatNs(section.frameSpanNs)}, ${plural(summary.trace.draws, 'draw')} in ${plural(trace.regions.length, 'region')}`, '', table(rows)].join('\n'));
    return 0;
  },
};

const plural = (n: number, noun: string) => `${formatNumber(n)} ${noun}${n === 1 ? '' : 's'}`;

/** The text table: labels indented two spaces per depth, numbers right-aligned (formatted already, so formatTable's alignment does not apply). */
function table(passRows: readonly PassTextRow[]): string {
  const rows = passRows.map((r) => [`${'  '.repeat(r.depth)}${r.cells[0]}`, ...r.cells.slice(1)]);
  const widths = PASS_HEADERS.map((h) => h.length);
  for (const r of rows) r.forEach((c, k) => (widths[k] = Math.max(widths[k]!, c.length)));
  const line = (r: readonly string[]) => r.map((c, k) => (PASS_TEXT_COLUMNS.has(k) ? c.padEnd(widths[k]!) : c.padStart(widths[k]!))).join('  ').trimEnd();
  return [line(PASS_HEADERS), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
