import { blockTable, type BlockGrouping, type BlockStat, type BlockTable } from '../../analysis/blocks.js';
import { profileRefusal, skippedProfiles, type SkippedProfile } from '../../analysis/block-skips.js';
import { csvField, mdText } from '../../analysis/export/escape.js';
import { formatNs, formatShare } from '../../analysis/format.js';
import { InputError, UsageError, parseCommandArgs, reportFormat, type Command } from '../command.js';
import { readTraceFile } from '../files.js';
import { formatTable } from '../table.js';

const DEFAULT_TOP = 20;

export const blocksCommand: Command = {
  name: 'blocks',
  summary: 'block profile: executions, SIMT efficiency and clock ticks per basic block or source line',
  help: `usage: warptrace blocks FILE [--draw N|A..B] [--by line|block] [--top K]
                        [--json | --csv | --md]

Prints where the draws of FILE (.wtrace, .wtraw or JSON captured with
instrument --blocks) spent their time, hottest first: per basic block (or per
source line: its blocks summed) of each module, the warp executions, the SIMT
efficiency (live lanes / (subgroup size × executions); none for modules that
count per invocation), the clock ticks from entering the block to entering
the next, their share of the draws' ticks, and that time in ns (SM cycles
through the calibrated SM clock rate). Blocks without line information show
their instructions' opcode names. Draws without a row (the table was full)
are counted, never hidden; draws the capture layer traced without a profile
(shader objects, descriptor buffers, ray-tracing pipeline libraries) are
listed with why.

Options:
  --draw N|A..B   only draw N, or draws A to B (inclusive); default: all
  --by line|block one row per source line (default) or per basic block
  --top K         the K hottest rows (default ${DEFAULT_TOP}; 0: all)
  --json          the table as JSON
  --csv           the table as CSV (every row, --top applies)
  --md            the table as Markdown
  -h, --help

Examples:
  warptrace blocks frame.wtrace
  warptrace blocks frame.wtrace --draw 3 --by block --top 50
  warptrace blocks capture.wtraw --draw 0..9 --csv > blocks.csv

Exit status: 0 ok, 1 unreadable file, no block profile, or no such draw,
2 usage error.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      draw: { type: 'string' },
      by: { type: 'string' },
      top: { type: 'string' },
      json: { type: 'boolean' },
      csv: { type: 'boolean' },
      md: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const by = (values.by ?? 'line') as BlockGrouping;
    if (by !== 'line' && by !== 'block') throw new UsageError(`--by must be line or block, got "${values.by}"`);
    const format = reportFormat(values);
    const top = values.top === undefined ? DEFAULT_TOP : wholeNumber(values.top, '--top');
    const range = values.draw === undefined ? null : drawRange(values.draw);

    const trace = readTraceFile(positionals[0]!);
    const profile = trace.blocks ?? null;
    if (profile === null) {
      const refusal = profileRefusal(trace.capture.layer);
      throw new InputError(`${positionals[0]}: no block profile (${refusal ?? 'capture with instrument --blocks'})`);
    }
    if (range !== null && range[0] >= trace.draws.length) {
      throw new InputError(`no draw ${range[0]}: the trace has ${trace.draws.length} draw${trace.draws.length === 1 ? '' : 's'}`);
    }
    const draws = range === null ? null : new Set(Array.from({ length: Math.min(range[1], trace.draws.length - 1) - range[0] + 1 }, (_, k) => range[0] + k));
    const table = blockTable(profile, trace.device.clocks, { draws, by });
    const shown = top === 0 ? table.stats : table.stats.slice(0, top);
    if (format === 'json') io.out(JSON.stringify({ by, ...table, stats: shown }, null, 2));
    else if (format === 'csv') io.out(csvLines(shown, by).join('\n'));
    else if (format === 'md') io.out(markdown(table, shown, by));
    else io.out([...headLines(table), ...skippedLines(skippedProfiles(trace.draws, draws)), '', formatTable(HEADERS(by), shown.map((s) => cells(s, by)))].join('\n'));
    return 0;
  },
};

function wholeNumber(text: string, option: string): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${option} expects a non-negative integer, got "${text}"`);
  return Number(text);
}

/** "N" or "A..B" as an inclusive range (`phases` takes --draw the same way). */
export function drawRange(text: string): [number, number] {
  const m = /^(\d+)(?:\.\.(\d+))?$/.exec(text.trim());
  if (m === null) throw new UsageError(`--draw expects N or A..B, got "${text}"`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (to < from) throw new UsageError(`--draw ${text}: the range ends before it starts`);
  return [from, to];
}

const HEADERS = (by: BlockGrouping) => ['module', by === 'line' ? 'line' : 'block', 'function', 'executions', 'SIMT', 'ticks', 'share', 'time'];

/** Opcodes shown of a block without a line in the text table (JSON, CSV and Markdown keep them all). */
const TEXT_COLUMN = 72;

/** Where the row is: file:line[:column], or the block's opcodes when it has no line. */
function place(s: BlockStat, by: BlockGrouping): string {
  const text = s.text ?? '?';
  const opcodes = text.length > TEXT_COLUMN ? `${text.slice(0, text.lastIndexOf(' ', TEXT_COLUMN))} …` : text;
  const at = s.line === null ? opcodes : `${s.file}:${s.line}${s.column !== null ? `:${s.column}` : ''}`;
  if (by === 'block' || s.line === null) return `#${s.blocks[0]} ${at}`;
  return s.blocks.length > 1 ? `${at} (${s.blocks.length} blocks)` : at;
}

function cells(s: BlockStat, by: BlockGrouping): (string | number)[] {
  return [s.moduleName, place(s, by), s.function, s.executions, formatShare(s.simtEfficiency), s.ticks, formatShare(s.tickShare), s.ns === null ? '–' : formatNs(s.ns)];
}

function headLines(t: BlockTable): string[] {
  const lines = [`${t.draws.length.toLocaleString('en-US')} draw${t.draws.length === 1 ? '' : 's'} profiled${t.draws.length > 0 ? `: ${ranges(t.draws)}` : ''}`];
  if (t.missingDraws.length > 0) lines.push(`without a row (not profiled or untraced): ${ranges(t.missingDraws)}`);
  if (t.unprofiledDraws > 0) lines.push(`${t.unprofiledDraws.toLocaleString('en-US')} draws of the capture got no row (the block table was full)`);
  if (t.dropped > 0) lines.push(`${t.dropped.toLocaleString('en-US')} block executions dropped (their cells lay past the table): the counts are short`);
  return lines;
}

/** Skipped profiles listed in full up to this many, then counted. */
const SKIPPED_LISTED = 12;

/** The draws the capture layer traced without a profile, each with why: their rows are missing for that reason. */
function skippedLines(skipped: readonly SkippedProfile[]): string[] {
  if (skipped.length === 0) return [];
  const lines = [`traced without a block profile (the capture layer skipped it): ${skipped.length.toLocaleString('en-US')} draw${skipped.length === 1 ? '' : 's'}`];
  for (const s of skipped.slice(0, SKIPPED_LISTED)) lines.push(`  #${s.draw} ${s.label}: ${s.why}`);
  if (skipped.length > SKIPPED_LISTED) lines.push(`  … ${skipped.length - SKIPPED_LISTED} more`);
  return lines;
}

/** "0..3, 7, 9..10". */
function ranges(sorted: readonly number[]): string {
  const out: string[] = [];
  for (let k = 0; k < sorted.length; ) {
    let end = k;
    while (end + 1 < sorted.length && sorted[end + 1] === sorted[end]! + 1) end++;
    out.push(end === k ? String(sorted[k]) : `${sorted[k]}..${sorted[end]}`);
    k = end + 1;
  }
  return out.join(', ');
}

function csvLines(stats: readonly BlockStat[], by: BlockGrouping): string[] {
  const header = ['module', 'blocks', 'function', 'file', 'line', 'column', 'text', 'executions', 'lanes', 'simt_efficiency', 'ticks', 'clock', 'tick_share', 'ns'];
  return [
    header.join(','),
    ...stats.map((s) =>
      [s.moduleName, s.blocks.join(' '), s.function, s.file, s.line, by === 'block' ? s.column : null, s.text, s.executions, s.lanes, s.simtEfficiency, s.ticks, s.clock, s.tickShare, s.ns].map(csvField).join(','),
    ),
  ];
}

function markdown(t: BlockTable, stats: readonly BlockStat[], by: BlockGrouping): string {
  const headers = HEADERS(by);
  const rows = stats.map((s) => cells(s, by).map((c) => (typeof c === 'number' ? c.toLocaleString('en-US') : mdText(c))));
  return [
    ...headLines(t).map(mdText),
    '',
    `| ${headers.join(' | ')} |`,
    `|${headers.map((_, k) => (k >= 3 ? ' ---: ' : ' --- ')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
